package hwtest

import (
	"fmt"
	"regexp"
	"strings"
)

// The ohci1394 driver of the old Linux ieee1394 stack logged, with its debug
// messages on, one line per self-ID quadlet whose inverse checked out, one
// per quadlet whose inverse did not, the local node's quadlet once more,
// and a line when the phase ended (handle_selfid):
//
//	ohci1394: fw-host0: SelfID packet 0x807fcc46 received
//	ohci1394: fw-host0: SelfID for this node is 0x807fcc46
//	ohci1394: fw-host0: SelfID is inconsistent [0x817fcc4e/0x7e8033b0]
//	ohci1394: fw-host0: SelfID complete
//
// Its other messages about self-IDs ("Error in reception of SelfID
// packets", "SelfID received outside of bus reset sequence") carry no
// quadlet of a bus reset.
var (
	ieeeWord  = regexp.MustCompile(`\bSelfID (packet|for this node|is inconsistent|complete)\b`)
	ieeeLines = map[string]struct {
		re   *regexp.Regexp
		want string // the line as the driver's format string has it
	}{
		"packet":          {regexp.MustCompile(`^SelfID packet 0x([0-9a-fA-F]{1,8}) received\s*$`), "SelfID packet 0x%x received"},
		"for this node":   {regexp.MustCompile(`^SelfID for this node is 0x([0-9a-fA-F]{8})\s*$`), "SelfID for this node is 0x%08x"},
		"is inconsistent": {regexp.MustCompile(`^SelfID is inconsistent \[0x([0-9a-fA-F]{8})/0x([0-9a-fA-F]{8})\]\s*$`), "SelfID is inconsistent [0x%08x/0x%08x]"},
		"complete":        {regexp.MustCompile(`^SelfID complete\s*$`), "SelfID complete"},
	}
)

// ieeeKind tells handle_selfid's lines from the kernel's other messages
// (""): the words after "SelfID".
func ieeeKind(l string) string {
	if loc := ieeeFind(l); loc != nil {
		return l[loc[2]:loc[3]]
	}
	return ""
}

// ieeeFind is ieeeWord's submatch index in l, nil when l has none.
func ieeeFind(l string) []int {
	if !strings.Contains(l, "SelfID ") { // the regexp is the slow part of a long log
		return nil
	}
	return ieeeWord.FindStringSubmatchIndex(l)
}

type ieeeParser struct{ pending }

func (p *ieeeParser) line(n int, l string) error {
	loc := ieeeFind(l)
	if loc == nil {
		return nil
	}
	kind := l[loc[2]:loc[3]]
	form := ieeeLines[kind]
	m := form.re.FindStringSubmatch(l[loc[0]:])
	if m == nil {
		return &ParseError{Format: FormatIEEE1394, Line: n, Field: "SelfID " + kind,
			Reason: fmt.Sprintf("%s is not the driver's %q", excerpt(l[loc[0]:]), form.want)}
	}
	switch kind {
	case "complete":
		return p.close()
	case "for this node":
		q, _ := parseQuadlet(m[1]) // the patterns admit 1–8 hex digits only
		if p.cur == nil || uint32(p.cur.SelfIDs[len(p.cur.SelfIDs)-1]) != q {
			return &ParseError{Format: FormatIEEE1394, Line: n, Field: "SelfID for this node",
				Reason: fmt.Sprintf("0x%08x is not the quadlet of the SelfID packet line before it, as the driver writes it", q)}
		}
		p.cur.LocalPhyID = phyIDOf(q)
		return nil
	}
	g := p.open(FormatIEEE1394, n)
	q, _ := parseQuadlet(m[1])
	if kind == "packet" {
		return g.addQuadlet(q, nil, n)
	}
	// The driver dropped a quadlet with a bad inverse; it is kept here,
	// with the problem, so that the rest of the bus can be checked.
	inv, _ := parseQuadlet(m[2])
	return g.addQuadlet(q, &inv, n)
}
