package hwtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The drivers of the old Linux ieee1394 stack logged, with their debug
// messages on, one line per self-ID quadlet whose inverse checked out and
// one per quadlet whose inverse did not. ohci1394 (handle_selfid) also
// logged the local node's quadlet once more, and a line when the phase
// ended:
//
//	ohci1394: fw-host0: SelfID packet 0x807fcc46 received
//	ohci1394: fw-host0: SelfID for this node is 0x807fcc46
//	ohci1394: fw-host0: SelfID is inconsistent [0x817fcc4e/0x7e8033b0]
//	ohci1394: fw-host0: SelfID complete
//
// pcilynx logged a line before the phase's quadlets, with the local
// node's phy_ID:
//
//	pcilynx0: SelfID process finished (phyid 1, not root)
//	pcilynx0: SelfID packet 0x807fcc46 rcvd
//	pcilynx0: inconsistent selfid 0x817fcc4e/0x7e8033b0
//
// and the 2.4 kernels' drivers wrote, with no line around a bus reset from
// pcilynx, "ohci1394" ending one with "calling self-id complete":
//
//	-0- selfid packet 0x807fcc46 rcvd
//	This node self-id is 0x807fcc46
//	-0- inconsistent selfid 0x817fcc4e/0x7e8033b0
//
// Their other messages about self-IDs ("Error in reception of SelfID
// packets", "SelfID received outside of bus reset sequence") carry no
// quadlet of a bus reset.
var ieeeWord = regexp.MustCompile(`\b(SelfID (?:packet|for this node|is inconsistent|complete|process finished)|selfid packet|This node self-id|inconsistent selfid|calling self-id complete)\b`)

// ieeeAct is what a line of the old stack does to the bus reset being read.
type ieeeAct int

const (
	ieeePacket     ieeeAct = iota // a quadlet whose inverse checked out
	ieeeBadInverse                // a quadlet and its wrong inverse
	ieeeLocal                     // the local node's quadlet again
	ieeeStart                     // a bus reset starts; the local phy_ID
	ieeeEnd                       // the bus reset ends
)

var ieeeLines = map[string]struct {
	re   *regexp.Regexp
	want string // the line as the driver's format string has it
	act  ieeeAct
}{
	"SelfID packet": {regexp.MustCompile(`^SelfID packet 0x([0-9a-fA-F]{1,8}) (?:received|rcvd)\s*$`),
		`"SelfID packet 0x%x received" or pcilynx's "SelfID packet 0x%x rcvd"`, ieeePacket},
	"selfid packet":            {regexp.MustCompile(`^selfid packet 0x([0-9a-fA-F]{1,8}) rcvd\s*$`), "selfid packet 0x%x rcvd", ieeePacket},
	"SelfID for this node":     {regexp.MustCompile(`^SelfID for this node is 0x([0-9a-fA-F]{8})\s*$`), "SelfID for this node is 0x%08x", ieeeLocal},
	"This node self-id":        {regexp.MustCompile(`^This node self-id is 0x([0-9a-fA-F]{8})\s*$`), "This node self-id is 0x%08x", ieeeLocal},
	"SelfID is inconsistent":   {regexp.MustCompile(`^SelfID is inconsistent \[0x([0-9a-fA-F]{8})/0x([0-9a-fA-F]{8})\]\s*$`), "SelfID is inconsistent [0x%08x/0x%08x]", ieeeBadInverse},
	"inconsistent selfid":      {regexp.MustCompile(`^inconsistent selfid 0x([0-9a-fA-F]{1,8})/0x([0-9a-fA-F]{1,8})\s*$`), "inconsistent selfid 0x%x/0x%x", ieeeBadInverse},
	"SelfID complete":          {regexp.MustCompile(`^SelfID complete\s*$`), "SelfID complete", ieeeEnd},
	"calling self-id complete": {regexp.MustCompile(`^calling self-id complete\s*$`), "calling self-id complete", ieeeEnd},
	"SelfID process finished": {regexp.MustCompile(`^SelfID process finished \(phyid ([0-9]{1,2}), (?:root|not root)\)\s*$`),
		"SelfID process finished (phyid %d, root|not root)", ieeeStart},
}

// ieeeKind tells the drivers' self-ID lines from the kernel's other
// messages (""): the words that mark them.
func ieeeKind(l string) string {
	if loc := ieeeFind(l); loc != nil {
		return l[loc[2]:loc[3]]
	}
	return ""
}

// ieeeFind is ieeeWord's submatch index in l, nil when l has none.
func ieeeFind(l string) []int {
	// The regexp is the slow part of a long log.
	if !strings.Contains(l, "SelfID ") && !strings.Contains(l, "selfid ") && !strings.Contains(l, "self-id ") {
		return nil
	}
	return ieeeWord.FindStringSubmatchIndex(l)
}

type ieeeParser struct {
	pending
	local int // the phy_ID a pcilynx line gave for the next bus reset, -1 if none
}

func (p *ieeeParser) line(n int, l string) error {
	loc := ieeeFind(l)
	if loc == nil {
		return nil
	}
	kind := l[loc[2]:loc[3]]
	form := ieeeLines[kind]
	m := form.re.FindStringSubmatch(l[loc[0]:])
	if m == nil {
		return &ParseError{Format: FormatIEEE1394, Line: n, Field: kind,
			Reason: fmt.Sprintf("%s is not the driver's %s", excerpt(l[loc[0]:]), quoteForm(form.want))}
	}
	switch form.act {
	case ieeeEnd:
		return p.close()
	case ieeeStart:
		id, _ := strconv.Atoi(m[1]) // the pattern admits two digits only
		if id > 62 {
			return &ParseError{Format: FormatIEEE1394, Line: n, Field: "phyid",
				Reason: fmt.Sprintf("%d, but a phy_ID is 0 to 62", id)}
		}
		p.local = id
		return p.close()
	case ieeeLocal:
		q, _ := parseQuadlet(m[1]) // the patterns admit 1–8 hex digits only
		if p.cur == nil || uint32(p.cur.SelfIDs[len(p.cur.SelfIDs)-1]) != q {
			return &ParseError{Format: FormatIEEE1394, Line: n, Field: kind,
				Reason: fmt.Sprintf("0x%08x is not the quadlet of the self-ID packet line before it, as the driver writes it", q)}
		}
		p.cur.LocalPhyID = phyIDOf(q)
		return nil
	}
	q, _ := parseQuadlet(m[1])
	// 2.4's pcilynx wrote no line between bus resets: the packet #0 of
	// phy 0, always a reset's first quadlet, starts the next.
	if s := phy.SelfID(q); kind == "selfid packet" && p.cur != nil && s.IsSelfID() && !s.IsExtended() && s.PhyID() == 0 {
		if err := p.close(); err != nil {
			return err
		}
	}
	if p.cur == nil {
		g := p.open(FormatIEEE1394, n)
		g.LocalPhyID, p.local = p.local, -1
	}
	if form.act == ieeePacket {
		return p.cur.addQuadlet(q, nil, n)
	}
	// The driver dropped a quadlet with a bad inverse; it is kept here,
	// with the problem, so that the rest of the bus can be checked.
	inv, _ := parseQuadlet(m[2])
	return p.cur.addQuadlet(q, &inv, n)
}

// quoteForm quotes a driver's format string, unless want already names
// several in quotes.
func quoteForm(want string) string {
	if strings.HasPrefix(want, `"`) {
		return want
	}
	return strconv.Quote(want)
}
