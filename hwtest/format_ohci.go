package hwtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The firewire_ohci debug log (drivers/firewire/ohci.c, log_selfids) writes
// a header per bus reset, then one line per self-ID quadlet, its ports drawn
// as '.' absent, '-' not connected, 'p' parent, 'c' child:
//
//	firewire_ohci 0000:03:00.0: 3 selfIDs, generation 2, local node ID ffc2
//	firewire_ohci 0000:03:00.0: selfID 0: 807f8c56, phy 0 [p--] S400 gc=63 -3W Lc
//	firewire_ohci 0000:03:00.0: selfID n: 80900000, phy 0 [--......]
var (
	ohciHeader = regexp.MustCompile(`(\d+) selfIDs, generation (\d+), local node ID ([0-9a-fA-F]{1,4})\b`)
	ohciSelfID = regexp.MustCompile(`selfID ([0n]): ([0-9a-fA-F]{8}), phy (\d+) \[([-.pc]*)\](?:\s+\S+\s+gc=(\d+))?`)
)

// portChars is how log_selfids draws a port status.
const portChars = ".-pc"

// ohciPorts draws the ports a quadlet carries the way log_selfids does:
// packet #0 holds three at shifts 6, 4, 2, an extended packet eight from
// shift 16 down.
func ohciPorts(s phy.SelfID) string {
	shift, n := 6, 3
	if s.IsExtended() {
		shift, n = 16, 8
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = portChars[int(s>>(shift-2*i))&3]
	}
	return string(b)
}

func parseOHCI(ls []string) ([]*Generation, error) {
	var gens []*Generation
	var cur *Generation
	announced := -1
	closeGen := func() {
		if cur != nil && announced >= 0 && announced != len(cur.SelfIDs) {
			cur.Problems = append(cur.Problems, Problem{Check: "count", Node: -1, Index: -1,
				Message: fmt.Sprintf("the header announces %d self-ID quadlets, the log has %d", announced, len(cur.SelfIDs))})
		}
	}
	for n, l := range ls {
		line := n + 1
		if !strings.Contains(l, "selfID") { // both line kinds have it: skip the regexps
			continue
		}
		if m := ohciHeader.FindStringSubmatch(l); m != nil {
			closeGen()
			cur = newGeneration(FormatOHCI, line)
			gens = append(gens, cur)
			var err error
			if announced, err = atoiField(m[1], line, "self-ID count"); err != nil {
				return nil, err
			}
			if cur.Number, err = atoiField(m[2], line, "generation"); err != nil {
				return nil, err
			}
			id, _ := strconv.ParseUint(m[3], 16, 16) // the pattern admits only hex
			if id&0x3f != 0x3f {
				cur.LocalPhyID = int(id & 0x3f)
			}
			continue
		}
		m := ohciSelfID.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if cur == nil {
			cur = newGeneration(FormatOHCI, line)
			gens = append(gens, cur)
			announced = -1
		}
		q, _ := parseQuadlet(m[2]) // the pattern admits eight hex digits only
		s := phy.SelfID(q)
		if err := checkOHCILine(s, m, line); err != nil {
			return nil, err
		}
		cur.addPacket(q, nil)
	}
	closeGen()
	return gens, nil
}

// checkOHCILine checks that the decoded text of a log line agrees with its
// quadlet: a disagreement means the log was damaged or edited.
func checkOHCILine(s phy.SelfID, m []string, line int) error {
	bad := func(field, text, want string) error {
		return &ParseError{Format: FormatOHCI, Line: line, Field: field,
			Reason: fmt.Sprintf("the line says %s but quadlet 0x%08x encodes %s", text, uint32(s), want)}
	}
	if (m[1] == "n") != s.IsExtended() {
		return bad("packet", "selfID "+m[1], fmt.Sprintf("extended=%t", s.IsExtended()))
	}
	if want := strconv.Itoa(s.PhyID()); m[3] != want {
		return bad("phy", "phy "+m[3], "phy "+want)
	}
	if want := ohciPorts(s); m[4] != want {
		return bad("ports", "["+m[4]+"]", "["+want+"]")
	}
	if m[5] != "" && m[5] != strconv.Itoa(s.GapCount()) {
		return bad("gap count", "gc="+m[5], "gc="+strconv.Itoa(s.GapCount()))
	}
	return nil
}

// atoiField reads a decimal field of a header line.
func atoiField(s string, line int, field string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v > 1<<30 {
		return 0, &ParseError{Format: FormatOHCI, Line: line, Field: field, Reason: excerpt(s) + " is out of range"}
	}
	return v, nil
}
