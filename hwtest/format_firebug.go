package hwtest

import (
	"fmt"
	"regexp"
	"strings"
)

// Apple's FireBug analyzer exports one line per PHY packet quadlet it saw,
// after its own columns (time, speed …); a self-ID line carries the
// quadlet and, when the export includes it, the inverse:
//
//	0012.345.678  Bus Reset
//	0012.345.912  Self-ID  807f8c56  7f8073a9
//
// The word "Self-ID" (any case, a colon after it allowed) marks the lines
// read: eight hex digits must follow it, "0x" optional, and the token
// after them, when it is hex digits, is the inverse and must have eight
// too. Later columns, and the columns before the word, are ignored. A
// "Bus Reset" line ends a bus reset.
var (
	fireBugWord  = regexp.MustCompile(`(?i)\bself-id\b`)
	fireBugReset = regexp.MustCompile(`(?i)\bbus\s*reset\b`)
)

// fireBugKind tells a Self-ID line ("self-id") from any other ("").
func fireBugKind(l string) string {
	if fireBugFind(l) != nil {
		return "self-id"
	}
	return ""
}

// fireBugFind is where the word Self-ID is in l, nil when l has none.
func fireBugFind(l string) []int {
	if !strings.Contains(l, "-") { // the regexp is the slow part of a long log
		return nil
	}
	return fireBugWord.FindStringIndex(l)
}

type fireBugParser struct{ pending }

func (p *fireBugParser) line(n int, l string) error {
	loc := fireBugFind(l)
	if loc == nil {
		if fireBugReset.MatchString(l) {
			return p.close()
		}
		return nil
	}
	toks := strings.Fields(strings.TrimPrefix(l[loc[1]:], ":"))
	var qs []uint32 // the quadlet, and its inverse when the export has it
	for i, field := range []string{"quadlet", "inverse"} {
		tok := ""
		if i < len(toks) {
			tok = toks[i]
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(tok, "0x"), "0X")
		if i == 1 && !isHex(digits) {
			break // another column, or none
		}
		if !isHex(digits) || len(digits) != 8 {
			return &ParseError{Format: FormatFireBug, Line: n, Field: field,
				Reason: fmt.Sprintf("%s after Self-ID is not eight hex digits (0x optional)", excerpt(tok))}
		}
		q, _ := parseQuadlet(digits) // eight hex digits
		qs = append(qs, q)
	}
	g := p.open(FormatFireBug, n)
	if len(qs) == 1 {
		return g.addQuadlet(qs[0], nil, n)
	}
	return g.addQuadlet(qs[0], &qs[1], n)
}
