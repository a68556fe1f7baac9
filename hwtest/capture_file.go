package hwtest

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Capture is a decoded capture: where it came from and its buses.
type Capture struct {
	Source string // the file name, "stdin", or the device
	Format Format
	Buses  []*Bus
}

// MaxCaptureResets bounds the bus resets of one capture. The parser reads
// in constant memory, but the report holds every decoded bus (up to about
// 23 KB each): 10,000 of them are some 230 MB and a report no one reads
// whole, more than any lab session records.
const MaxCaptureResets = 10_000

// ReadCapture reads and decodes the capture source from r, in format
// ("" to detect it, as Read does). The capture streams through the parser a line
// at a time: what stays in memory is the decoded bus of each bus reset, at
// most MaxCaptureResets of them.
func ReadCapture(r io.Reader, source string, format Format) (*Capture, error) {
	c := NewCapture(source, format, nil)
	var err error
	c.Format, err = Read(r, format, func(g Generation) error {
		if len(c.Buses) == MaxCaptureResets {
			return fmt.Errorf("more than %d bus resets: the report keeps every one, so split the capture (e.g. with csplit at the resets)", MaxCaptureResets)
		}
		c.Buses = append(c.Buses, Decode(g))
		return nil
	})
	return c, err
}

// NewCapture is the capture of source, in format, of the bus resets gens.
func NewCapture(source string, format Format, gens []Generation) *Capture {
	c := &Capture{Source: source, Format: format}
	for _, g := range gens {
		c.Buses = append(c.Buses, Decode(g))
	}
	return c
}

// Inconsistent counts the buses that do not read back as one consistent
// tree (Bus.Consistent).
func Inconsistent(buses []*Bus) int {
	n := 0
	for _, b := range buses {
		if !b.Consistent() {
			n++
		}
	}
	return n
}

// WriteTopologyOf writes the topology of the last bus that forms a tree to
// out, a file called name, as YAML or, for a .json name, JSON, with force_root on the observed
// root when forceRoot is set, and says which generation (from 1), how many
// nodes and which initiated the reset.
func WriteTopologyOf(buses []*Bus, out io.Writer, name string, forceRoot bool) (generation, nodes int, initiators []string, err error) {
	for i := len(buses) - 1; i >= 0; i-- {
		t, root, initiators, err := buses[i].Topology()
		if err != nil {
			continue
		}
		if forceRoot {
			for k := range t.Nodes {
				t.Nodes[k].ForceRoot = t.Nodes[k].ID == root
			}
		}
		format := "yaml"
		if strings.EqualFold(filepath.Ext(name), ".json") {
			format = "json"
		}
		var b strings.Builder
		if format == "yaml" {
			writeTopologyHeader(&b, i+1, buses[i], root, initiators, forceRoot)
		}
		if err := t.Encode(&b, format); err != nil {
			return 0, 0, nil, err
		}
		_, err = io.WriteString(out, b.String())
		return i + 1, len(t.Nodes), initiators, err
	}
	return 0, 0, nil, ErrNoTree
}

// writeTopologyHeader writes the comment that opens an emitted topology:
// what the file holds, the observed root and how to force it, the PHY
// generations and what shows them, and the initiators.
func writeTopologyHeader(w io.Writer, generation int, b *Bus, root string, initiators []string, forced bool) {
	fmt.Fprintf(w, "# The bus of generation %d of a capture, as fwsim decode read it.\n", generation)
	fmt.Fprintln(w, "# Node node-a has phy_ID 0 in the capture, node-b phy_ID 1, and so on;")
	fmt.Fprintln(w, "# cable lengths are unknown (4.5 m assumed).")
	if forced {
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
	for k, g := range b.PHYs() {
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
	if len(initiators) > 0 {
		fmt.Fprintln(w, "# The reset's initiators (i set), which a topology file cannot hold: "+strings.Join(initiators, ", ")+".")
	}
}
