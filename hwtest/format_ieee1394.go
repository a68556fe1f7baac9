package hwtest

import "regexp"

// The ohci1394 driver of the old Linux ieee1394 stack logged, with its debug
// messages on, one line per self-ID quadlet whose inverse checked out, one
// per quadlet whose inverse did not, and a line when the phase ended:
//
//	ohci1394: fw-host0: SelfID packet 0x807fcc46 received
//	ohci1394: fw-host0: SelfID for this node is 0x807fcc46
//	ohci1394: fw-host0: SelfID is inconsistent [0x817fcc4e/0x7e8033b0]
//	ohci1394: fw-host0: SelfID complete
var (
	ieeeReceived     = regexp.MustCompile(`SelfID packet 0x([0-9a-fA-F]{1,8}) received`)
	ieeeThisNode     = regexp.MustCompile(`SelfID for this node is 0x([0-9a-fA-F]{1,8})`)
	ieeeInconsistent = regexp.MustCompile(`SelfID is inconsistent \[0x([0-9a-fA-F]{1,8})/0x([0-9a-fA-F]{1,8})\]`)
	ieeeComplete     = regexp.MustCompile(`SelfID complete`)
)

func parseIEEE1394(ls []string) ([]*Generation, error) {
	var gens []*Generation
	var cur *Generation
	open := func(line int) *Generation {
		if cur == nil {
			cur = newGeneration(FormatIEEE1394, line)
			gens = append(gens, cur)
		}
		return cur
	}
	for n, l := range ls {
		line := n + 1
		// The driver dropped a quadlet with a bad inverse; it is kept here,
		// with the problem, so that the rest of the bus can be checked.
		if m := ieeeInconsistent.FindStringSubmatch(l); m != nil {
			q, _ := parseQuadlet(m[1]) // the pattern admits 1–8 hex digits only
			inv, _ := parseQuadlet(m[2])
			open(line).addPacket(q, &inv)
		} else if m := ieeeReceived.FindStringSubmatch(l); m != nil {
			q, _ := parseQuadlet(m[1])
			open(line).addPacket(q, nil)
		} else if m := ieeeThisNode.FindStringSubmatch(l); m != nil && cur != nil {
			q, _ := parseQuadlet(m[1])
			cur.LocalPhyID = phyIDOf(q)
		} else if ieeeComplete.MatchString(l) {
			cur = nil
		}
	}
	return gens, nil
}
