package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/phy"
)

// WriteDecodeText writes the human report of a decoded capture.
func WriteDecodeText(w io.Writer, c *hwtest.Capture) {
	fmt.Fprintf(w, "fwsim decode: %s (%s), %d generation%s\n", c.Source, c.Format, len(c.Buses), Plural(len(c.Buses)))
	for i, b := range c.Buses {
		fmt.Fprintln(w)
		writeBusText(w, i+1, b)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d generation%s, %d consistent\n", len(c.Buses), Plural(len(c.Buses)), len(c.Buses)-hwtest.Inconsistent(c.Buses))
}

// writeBusText writes one generation of a capture.
func writeBusText(w io.Writer, index int, b *hwtest.Bus) {
	var about []string
	if b.Line > 0 {
		about = append(about, "line "+strconv.Itoa(b.Line))
	}
	if b.Number >= 0 {
		about = append(about, "bus generation "+strconv.Itoa(b.Number))
	}
	if b.Format == hwtest.FormatTopologyMap {
		about = append(about, "map update counter "+strconv.FormatUint(uint64(b.MapCounter), 10))
	}
	if b.LocalPhyID >= 0 {
		about = append(about, "captured at phy "+strconv.Itoa(b.LocalPhyID))
	}
	verdict := "consistent"
	if !b.Consistent() {
		verdict = "INCONSISTENT"
	}
	fmt.Fprintf(w, "generation %d (%s): %d node%s, %s\n", index, strings.Join(about, ", "), len(b.Nodes), Plural(len(b.Nodes)), verdict)
	if len(b.Nodes) > 0 {
		var nodes table
		nodes.add("phy", "L", "gap", "speed", "c", "pwr", "i", "parent", "ports")
		for _, n := range b.Nodes {
			parent := "-"
			if n.Parent >= 0 {
				parent = fmt.Sprintf("phy %d via p%d", n.Parent, n.ParentPort)
			} else if b.Tree != nil {
				parent = "root"
			}
			nodes.add(strconv.Itoa(n.PhyID), mark(n.LinkActive, "L"), strconv.Itoa(n.GapCount), n.Speed.String(),
				mark(n.Contender, "c"), strconv.Itoa(n.PowerClass), mark(n.InitiatedReset, "i"), parent, portList(presentPorts(n.Ports)))
		}
		nodes.write(w, "  ")
	}
	if b.Tree != nil {
		fmt.Fprintf(w, "  root: phy %d; hops: %d; IRM: %s\n", b.Root, b.Hops, phyOrNone(b.IRM))
		fmt.Fprintln(w, "  cables (parent port - child port):")
		for _, n := range b.Nodes {
			for _, l := range n.Children {
				fmt.Fprintf(w, "    phy %d p%d - phy %d p%d\n", n.PhyID, l.Port, l.Child, l.ChildPort)
			}
		}
		if len(b.Nodes) == 1 {
			fmt.Fprintln(w, "    none: a lone node")
		}
	}
	switch {
	case len(b.Nodes) == 0:
	case b.GapConsistent && b.Tree != nil:
		fmt.Fprintf(w, "  gap count: %d on every node; a bus manager would set %d for %d hop%s\n", b.GapCount, b.GapForHops, b.Hops, Plural(b.Hops))
	case b.GapConsistent:
		fmt.Fprintf(w, "  gap count: %d on every node\n", b.GapCount)
	default:
		fmt.Fprintln(w, "  gap count: MISMATCHED (see problems)")
	}
	if c := b.PhyConfig; c != nil {
		fmt.Fprintf(w, "  before this reset the bus manager forced root phy %d and gap count %d (line %d)\n", c.Root, c.GapCount, c.Line)
	}
	if b.CycleStart {
		n := len(b.SelfIDs)
		fmt.Fprintf(w, "  a cycle start (0x%08x) came after %d self-ID quadlet%s, where a self-ID was due:\n"+
			"  the cycle master's gap count is too small for this bus, so it took the bus while self\n"+
			"  identify went on. As Linux does (\"ignoring spurious self IDs\"), the quadlets before it\n"+
			"  are kept and those after it ignored; a bus manager then sets a larger gap count.\n",
			uint32(0xffff008f), n, Plural(n))
	}
	if len(b.Problems) == 0 {
		fmt.Fprintln(w, "  problems: none")
	} else {
		fmt.Fprintf(w, "  problems (%d):\n", len(b.Problems))
		for _, p := range b.Problems {
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
	fmt.Fprintf(w, "  self-IDs (%d):\n", len(b.SelfIDs))
	for _, q := range b.SelfIDs {
		fmt.Fprintf(w, "    0x%08x  %s\n", uint32(q), q)
	}
}

// presentPorts drops the absent ports after the last present one: the
// packets always carry 3, 11, 19 or 27 port fields.
func presentPorts(ports []phy.PortStatus) []phy.PortStatus {
	n := len(ports)
	for n > 1 && ports[n-1] == phy.PortAbsent {
		n--
	}
	return ports[:n]
}

func mark(set bool, name string) string {
	if set {
		return name
	}
	return "-"
}

func phyOrNone(id int) string {
	if id < 0 {
		return "none"
	}
	return "phy " + strconv.Itoa(id)
}
