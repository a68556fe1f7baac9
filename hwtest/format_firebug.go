package hwtest

import (
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
// Only the "Self-ID" and "Bus Reset" words and the hex quadlets are read;
// the other columns are ignored.
var (
	fireBugSelfID = regexp.MustCompile(`(?i)\bself-id\b:?\s+(?:0x)?([0-9a-f]{8})\b(?:\s+(?:0x)?([0-9a-f]{8})\b)?`)
	fireBugReset  = regexp.MustCompile(`(?i)\bbus\s*reset\b`)
)

func parseFireBug(ls []string) ([]*Generation, error) {
	var gens []*Generation
	var cur *Generation
	for n, l := range ls {
		line := n + 1
		if m := fireBugSelfID.FindStringSubmatch(l); m != nil {
			if cur == nil {
				cur = newGeneration(FormatFireBug, line)
				gens = append(gens, cur)
			}
			q, _ := parseQuadlet(m[1]) // the pattern admits eight hex digits only
			if m[2] == "" {
				cur.addPacket(q, nil)
				continue
			}
			inv, _ := parseQuadlet(m[2])
			cur.addPacket(q, &inv)
			continue
		}
		if fireBugReset.MatchString(l) && !strings.Contains(strings.ToLower(l), "self-id") {
			cur = nil
		}
	}
	return gens, nil
}
