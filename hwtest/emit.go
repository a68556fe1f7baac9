package hwtest

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// CapturedTopology is the bus of one generation of a capture as a topology
// file, what decode --emit-topology writes: a node per captured phy_ID
// (NodeName), one cable per parent–child link, the PHY generations the
// self-IDs show.
type CapturedTopology struct {
	Generation int // the generation of the capture, from 1
	Bus        *Bus
	Topology   *bus.Topology
	Root       string   // the observed root
	Initiators []string // the reset's initiators, which a topology file cannot hold
	ForceRoot  bool     // the observed root has force_root
}

// LastTree is the topology of the capture's last generation that forms a
// tree, with force_root on the observed root when forceRoot is set, as a
// PHY configuration packet would force it; ErrNoTree when none forms one.
func (c *Capture) LastTree(forceRoot bool) (*CapturedTopology, error) {
	for i := len(c.Buses) - 1; i >= 0; i-- {
		t, root, initiators, err := c.Buses[i].Topology()
		if err != nil {
			continue
		}
		if forceRoot {
			for k := range t.Nodes {
				t.Nodes[k].ForceRoot = t.Nodes[k].ID == root
			}
		}
		return &CapturedTopology{Generation: i + 1, Bus: c.Buses[i], Topology: t, Root: root, Initiators: initiators, ForceRoot: forceRoot}, nil
	}
	return nil, ErrNoTree
}

// Encode writes the topology file in format "yaml" or "json" in one
// write. A YAML file opens with a comment of what a topology cannot hold:
// where it comes from, the observed root and how to force it, what shows
// the PHY generations, and the initiators.
func (ct *CapturedTopology) Encode(w io.Writer, format string) error {
	var b strings.Builder
	if format == "yaml" {
		ct.writeHeader(&b)
	}
	if err := ct.Topology.Encode(&b, format); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (ct *CapturedTopology) writeHeader(w io.Writer) {
	root := ct.Root
	fmt.Fprintf(w, "# The bus of generation %d of a capture, as fwsim decode read it.\n", ct.Generation)
	fmt.Fprintln(w, "# Node node-a has phy_ID 0 in the capture, node-b phy_ID 1, and so on;")
	fmt.Fprintln(w, "# cable lengths are unknown (4.5 m assumed).")
	if ct.ForceRoot {
		fmt.Fprintf(w, "# The observed root, %s, has force_root (--force-observed-root): the\n", root)
		fmt.Fprintln(w, "# emulation makes it root, as a PHY configuration packet would.")
	} else {
		fmt.Fprintf(w, "# The observed root is %s. No node has force_root: the emulation elects\n", root)
		fmt.Fprintf(w, "# a root as the real bus did (fwsim crosscheck gives the odds of %s).\n", root)
		fmt.Fprintf(w, "# To make %s root for sure, as a PHY configuration packet would, add\n", root)
		fmt.Fprintln(w, "# \"force_root: true\" to it, or emit with --force-observed-root.")
	}
	var shown []string
	unknown := ""
	for k, g := range ct.Bus.PHYs() {
		if g.Evidence == "" {
			unknown = g.Generation
		} else {
			shown = append(shown, fmt.Sprintf("%s reports %s: %s", NodeName(k), g.Evidence, g.Generation))
		}
	}
	if len(shown) == 0 {
		fmt.Fprintf(w, "# No self-ID shows its PHY's generation (docs/hardware.md): %s assumed.\n", unknown)
	} else {
		fmt.Fprintln(w, "# PHY generations, from the self-IDs (docs/hardware.md):")
		for _, line := range shown {
			fmt.Fprintf(w, "#   %s\n", line)
		}
		if unknown != "" {
			fmt.Fprintf(w, "#   the other nodes show none and are taken as %s\n", unknown)
		}
	}
	if len(ct.Initiators) > 0 {
		fmt.Fprintln(w, "# The reset's initiators (i set), which a topology file cannot hold: "+strings.Join(ct.Initiators, ", ")+".")
	}
}
