package hwtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/phy"
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
//
// FireBug 2.3 writes, each time the log is saved, a section that repeats
// the self-IDs of the most recent bus reset:
//
//	Replay of most recent self IDs:
//	  Self-ID  807fc466  Node=0  Link=1  gap=3f  spd=1394b  C=0  pwr=4: use <3W  *IR*
//
// Its Self-ID lines, up to the first other line, are no bus reset of their
// own when they repeat the last one read; when they do not (the reset
// itself was not logged), they are that reset.
var (
	fireBugWord   = regexp.MustCompile(`(?i)\bself-id\b`)
	fireBugReset  = regexp.MustCompile(`(?i)\bbus\s*reset\b`)
	fireBugReplay = regexp.MustCompile(`^\s*Replay of most recent self IDs:\s*$`)
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

type fireBugParser struct {
	pending
	last   []phy.SelfID // the quadlets of the last bus reset handed on
	replay *Generation  // the Self-ID lines of a replay section so far
	inRun  bool         // the lines since the replay header are Self-ID lines
}

func newFireBugParser(emit func(*Generation) error) *fireBugParser {
	p := &fireBugParser{}
	p.emit = func(g *Generation) error {
		p.last = g.SelfIDs
		return emit(g)
	}
	return p
}

func (p *fireBugParser) line(n int, l string) error {
	loc := fireBugFind(l)
	if p.inRun && loc == nil {
		if err := p.endReplay(); err != nil {
			return err
		}
	}
	if loc == nil {
		switch {
		case fireBugReplay.MatchString(l):
			if err := p.close(); err != nil {
				return err
			}
			p.inRun = true
		case fireBugReset.MatchString(l):
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
	var g *Generation
	switch {
	case !p.inRun:
		g = p.open(FormatFireBug, n)
	case p.replay == nil:
		g = newGeneration(FormatFireBug, n)
		p.replay = g
	default:
		g = p.replay
	}
	if len(qs) == 1 {
		return g.addQuadlet(qs[0], nil, n)
	}
	return g.addQuadlet(qs[0], &qs[1], n)
}

// endReplay ends a replay section: a repeat of the last bus reset is
// dropped, anything else is a bus reset the log did not show.
func (p *fireBugParser) endReplay() error {
	g := p.replay
	p.replay, p.inRun = nil, false
	if g == nil || slices.Equal(g.SelfIDs, p.last) {
		return nil
	}
	return p.emit(g)
}

func (p *fireBugParser) end() error {
	if err := p.endReplay(); err != nil {
		return err
	}
	return p.close()
}
