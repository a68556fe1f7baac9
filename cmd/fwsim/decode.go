package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
)

const decodeIntro = `Usage: fwsim decode [FILE|-] [--format F] [--json] [--emit-topology FILE [--force-observed-root]]

Reads the self-ID packets of a real bus from a capture (FILE, or stdin when
FILE is - or absent) and reports, for each bus reset it holds: every node's
self-ID fields and port states, the tree (root, parent and children by port),
the hop count, the IRM, whether the gap counts agree and the gap count a bus
manager would set for that hop count, and every problem the Linux checks find,
with the offending quadlet. The format is detected unless --format names it:
raw hex quadlets (with or without inverses), firewire_ohci debug log lines,
firewire tracepoint text (self_id_sequence, bus_reset_handle,
self_id_complete), the old ieee1394 stack's log lines, FireBug text exports,
nosy-dump -x output, FreeBSD fwcontrol -t tables, FireSpy quadlets files,
Data Transit analyzer text, or a TOPOLOGY_MAP dump (docs/hardware.md shows
how to record each). A capture quoted in mail (every line after "> ", ">> "
or ">") is read with the quoting stripped.

--emit-topology writes the bus of the last generation that forms a tree as a
topology file: a node per captured phy_ID (node-a for phy_ID 0, node-b for
1, ...) with its self-ID fields, one cable per parent-child link, the PHY
generation of most nodes as the profile and phy: on the others, as far as
their self-IDs tell (docs/hardware.md says how far). No node has force_root:
the emulation elects a root as the real bus did, and crosscheck gives the
odds of the one it shows. To make the observed root root for sure, as a PHY
configuration packet would, add "force_root: true" to its node, or emit with
--force-observed-root. The file's header comment says which node that is and
names the reset's initiators, which a topology file cannot hold.

Exit status: 0 every bus is consistent; 1 one is not; 2 usage error or a
capture that cannot be read.`

func runDecode(_ context.Context, e *env, args []string) int {
	fs := newFlags("decode", decodeIntro,
		"fwsim decode hwtest/testdata/ohci-two-resets.log",
		"dmesg | fwsim decode --format firewire-ohci",
		"fwsim decode capture.txt --json | jq '.generations[].problems'",
		"fwsim decode capture.txt --emit-topology bus.yaml && fwsim run --topology bus.yaml",
	)
	var (
		format       captureFormat
		jsonOutput   bool
		emitTopology string
		forceRoot    bool
	)
	fs.Var(&format, "format",
		"read the capture as `F`: raw, firewire-ohci, tracepoint, ieee1394, firebug,\nnosy-dump, fwcontrol, firespy, data-transit or topology-map, e.g. --format\ntracepoint (default: detected)")
	fs.BoolVar(&jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .root")
	fs.StringVar(&emitTopology, "emit-topology", "",
		"write the bus of the last generation that forms a tree as a topology `FILE`\n(YAML, or JSON for a .json name) to edit and run; standard error says\nwhich generation it wrote, e.g. --emit-topology bus.yaml")
	fs.BoolVar(&forceRoot, "force-observed-root", false,
		"with --emit-topology, give the observed root force_root, as a PHY configuration\npacket would: the emulation then makes it root rather than electing one,\ne.g. --emit-topology bus.yaml --force-observed-root")
	fs.order("format", "json", "emit-topology", "force-observed-root")
	file, code, done := parseFileArg(fs, e, args)
	if done {
		return code
	}
	if forceRoot && emitTopology == "" {
		return fs.usageError(e, "--force-observed-root needs --emit-topology")
	}
	var files outputs
	defer files.abort()
	var emit *outputFile
	if emitTopology != "" {
		var err error
		if emit, err = files.create("emit-topology", emitTopology); err != nil {
			return fs.inputError(e, err)
		}
	}
	c, err := loadCapture(e, file, hwtest.Format(format))
	if err != nil {
		return fs.inputError(e, err)
	}
	if emit != nil {
		gen, nodes, initiators, err := writeTopologyOf(c.buses, emit, forceRoot)
		if err != nil {
			return fs.inputError(e, err)
		}
		if err := files.commit(); err != nil {
			return fs.inputError(e, err)
		}
		// On stderr: stdout holds the report, perhaps JSON. The initiators
		// are on the command line because a topology file cannot hold them.
		run := "fwsim run --topology " + emit.path
		for _, n := range initiators {
			run += " --initiator " + n
		}
		fmt.Fprintf(e.stderr, "fwsim decode: wrote %s: the bus of generation %d (%d node%s); run it with %s\n",
			emit.path, gen, nodes, plural(nodes), run)
	}
	return reportCapture(e, fs, c, jsonOutput)
}

// reportCapture writes a decoded capture as text or JSON; the exit status
// says whether every bus is consistent.
func reportCapture(e *env, fs *flags, c *capture, jsonOutput bool) int {
	if jsonOutput {
		if err := jsonout.Write(e.stdout, newDecodeJSON(c)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		writeDecodeText(e.stdout, c)
	}
	if bad := inconsistent(c.buses); bad > 0 {
		fmt.Fprintf(e.stderr, "fwsim %s: %d of %d generations show an inconsistent bus\n", fs.name, bad, len(c.buses))
		return exitFailure
	}
	return exitOK
}

// captureFormat is the --format flag.
type captureFormat string

func (f *captureFormat) String() string { return string(*f) }

func (f *captureFormat) Set(s string) error {
	if _, err := hwtest.ParseFormat(s); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("unknown capture format %q ", s)))
	}
	*f = captureFormat(s)
	return nil
}

// parseFileArg parses flags around one optional positional FILE argument.
func parseFileArg(fs *flags, e *env, args []string) (file string, code int, done bool) {
	if fs.FlagSet.Parse(args) == nil && fs.NArg() > 0 {
		file = fs.Arg(0)
		args = fs.Args()[1:]
		fs.takes = fmt.Sprintf("flags and one FILE, here %q", file)
	}
	code, done = fs.parse(e, args)
	return file, code, done
}

// capture is a decoded capture: where it came from and its buses.
type capture struct {
	source string // the file name, "stdin", or the device
	format hwtest.Format
	buses  []*hwtest.Bus
}

// loadCapture reads and decodes a capture file ("" or "-" for stdin). The
// capture streams through the parser a line at a time: what stays in memory
// is the decoded bus of each bus reset, which the report needs.
func loadCapture(e *env, file string, format hwtest.Format) (*capture, error) {
	source, r, closeFile, err := openCapture(e, file)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	c := newCapture(source, format, nil)
	c.format, err = hwtest.Read(r, format, func(g hwtest.Generation) error {
		if len(c.buses) == maxCaptureResets {
			return fmt.Errorf("more than %d bus resets: the report keeps every one, so split the capture (e.g. with csplit at the resets)", maxCaptureResets)
		}
		c.buses = append(c.buses, hwtest.Decode(g))
		return nil
	})
	if err != nil {
		return nil, captureError(source, err)
	}
	return c, nil
}

// openCapture opens a capture file, "" or "-" for stdin, and names it as
// reports do: the file, or "stdin". closeFile is to be called when done.
func openCapture(e *env, file string) (source string, r io.Reader, closeFile func(), err error) {
	if file == "" || file == "-" {
		return "stdin", e.stdin, func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return "", nil, nil, captureError(file, err)
	}
	return file, interruptible{e.ctx, f}, func() { f.Close() }, nil
}

// captureError names the capture an error of reading it concerns. Both
// opening and reading (a directory opens) fail with a PathError.
func captureError(source string, err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return fmt.Errorf("capture %s: %w", pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %w", source, err)
}

// maxCaptureResets bounds the bus resets of one capture. The parser reads
// in constant memory, but the report holds every decoded bus (up to about
// 23 KB each): 10,000 of them are some 230 MB and a report no one reads
// whole, more than any lab session records.
const maxCaptureResets = 10_000

func newCapture(source string, format hwtest.Format, gens []hwtest.Generation) *capture {
	c := &capture{source: source, format: format}
	for _, g := range gens {
		c.buses = append(c.buses, hwtest.Decode(g))
	}
	return c
}

func inconsistent(buses []*hwtest.Bus) int {
	n := 0
	for _, b := range buses {
		if !b.Consistent() {
			n++
		}
	}
	return n
}

// writeTopologyOf writes the topology of the last bus that forms a tree to
// out, as YAML or, for a .json name, JSON, with force_root on the observed
// root when forceRoot is set, and says which generation (from 1), how many
// nodes and which initiated the reset.
func writeTopologyOf(buses []*hwtest.Bus, out *outputFile, forceRoot bool) (generation, nodes int, initiators []string, err error) {
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
		if strings.EqualFold(filepath.Ext(out.path), ".json") {
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
	return 0, 0, nil, fmt.Errorf("--emit-topology: %w", hwtest.ErrNoTree)
}

// writeTopologyHeader writes the comment that opens an emitted topology:
// what the file holds, the observed root and how to force it, the PHY
// generations and what shows them, and the initiators.
func writeTopologyHeader(w io.Writer, generation int, b *hwtest.Bus, root string, initiators []string, forced bool) {
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
			shown = append(shown, fmt.Sprintf("%s reports %s: %s", hwtest.NodeName(k), g.Evidence, g.Generation))
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

// writeDecodeText writes the human report of a decoded capture.
func writeDecodeText(w io.Writer, c *capture) {
	fmt.Fprintf(w, "fwsim decode: %s (%s), %d generation%s\n", c.source, c.format, len(c.buses), plural(len(c.buses)))
	for i, b := range c.buses {
		fmt.Fprintln(w)
		writeBusText(w, i+1, b)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d generation%s, %d consistent\n", len(c.buses), plural(len(c.buses)), len(c.buses)-inconsistent(c.buses))
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
	fmt.Fprintf(w, "generation %d (%s): %d node%s, %s\n", index, strings.Join(about, ", "), len(b.Nodes), plural(len(b.Nodes)), verdict)
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
				mark(n.Contender, "c"), strconv.Itoa(n.PowerClass), mark(n.InitiatedReset, "i"), parent, view.PortList(presentPorts(n.Ports)))
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
		fmt.Fprintf(w, "  gap count: %d on every node; a bus manager would set %d for %d hop%s\n", b.GapCount, b.GapForHops, b.Hops, plural(b.Hops))
	case b.GapConsistent:
		fmt.Fprintf(w, "  gap count: %d on every node\n", b.GapCount)
	default:
		fmt.Fprintln(w, "  gap count: MISMATCHED (see problems)")
	}
	if c := b.PhyConfig; c != nil {
		fmt.Fprintf(w, "  before this reset the bus manager forced root phy %d and gap count %d (line %d)\n", c.Root, c.GapCount, c.Line)
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

// decodeJSON is the --json output of decode. The first generation's fields
// appear at the top level too, for the common one-reset capture.
type decodeJSON struct {
	bus.VersionJSON
	Source string `json:"source"` // the capture file, "stdin" or the device
	Format string `json:"format"` // the capture's format, as --format names it
	busJSON
	Generations []busJSON `json:"generations"` // every generation of the capture, in order
}

// busJSON is one generation of a capture.
type busJSON struct {
	Line          *int          `json:"line"`               // null when not from a text line
	Generation    *int          `json:"generation"`         // the bus generation, null when unknown
	LocalPhyID    *int          `json:"local_phy_id"`       // the capturing node, null when unknown
	Consistent    bool          `json:"consistent"`         // no check found a problem: errors is []
	Nodes         []busNodeJSON `json:"nodes"`              // in phy_ID order; [] when the packets do not split into nodes
	Root          *int          `json:"root"`               // null without a tree
	Hops          *int          `json:"hops"`               // null without a tree
	IRM           *int          `json:"irm"`                // null when no node qualifies
	GapCount      int           `json:"gap_count"`          // 0 when mismatched
	GapConsistent bool          `json:"gap_consistent"`     // every node reports the same gap count
	GapForHops    *int          `json:"gap_count_for_hops"` // null without a tree
	Errors        []problemJSON `json:"errors"`             // what reading the capture and the checks found
	SelfIDs       []string      `json:"self_ids"`           // "0x%08x", no inverses
}

// busNodeJSON is one node as its self-ID packets describe it.
type busNodeJSON struct {
	PhyID          int         `json:"phy_id"`          // the self-ID's phy_ID
	LinkActive     bool        `json:"link_active"`     // the L bit: the link layer is active
	GapCount       int         `json:"gap_count"`       // the node's gap_cnt
	Speed          string      `json:"speed"`           // S100, S200, S400 or S800
	Delay          int         `json:"delay"`           // the del field (1394-1995 only, 0 in 1394a)
	Contender      bool        `json:"contender"`       // the c bit: an IRM and bus manager contender
	PowerClass     int         `json:"power_class"`     // the pwr field, 0 to 7
	InitiatedReset bool        `json:"initiated_reset"` // the i bit: the node initiated the reset
	Ports          []string    `json:"ports"`           // port p at index p: child, parent, ncon or absent
	Parent         *int        `json:"parent"`          // null for the root or without a tree
	ParentPort     *int        `json:"parent_port"`     // null for the root or without a tree
	Children       []childJSON `json:"children"`        // in ascending port order; [] without a tree
	SelfIDs        []string    `json:"self_ids"`        // the node's packets, "0x%08x", no inverses
}

// childJSON is the cable from a node's port to a child.
type childJSON struct {
	Port      int `json:"port"`       // the node's port
	Child     int `json:"child"`      // the child's phy_ID
	ChildPort int `json:"child_port"` // the child's port, toward this node
}

// problemJSON is what one check of the capture found.
type problemJSON struct {
	Check   string  `json:"check"`   // the check, e.g. "inverse", "PHY ID mismatch" or "gap count"
	Node    *int    `json:"node"`    // null for the whole bus
	Index   *int    `json:"index"`   // null when no quadlet is to blame
	Quadlet *string `json:"quadlet"` // null when no quadlet is to blame
	Message string  `json:"message"` // what is wrong, in words
}

func newDecodeJSON(c *capture) decodeJSON {
	out := decodeJSON{VersionJSON: bus.NewVersionJSON(), Source: c.source, Format: string(c.format), Generations: []busJSON{}}
	for _, b := range c.buses {
		out.Generations = append(out.Generations, newBusJSON(b))
	}
	if len(out.Generations) > 0 {
		out.busJSON = out.Generations[0]
	}
	return out
}

func newBusJSON(b *hwtest.Bus) busJSON {
	out := busJSON{
		Line: jsonout.NullIfNegative(b.Line), Generation: jsonout.NullIfNegative(b.Number), LocalPhyID: jsonout.NullIfNegative(b.LocalPhyID),
		Consistent: b.Consistent(), Nodes: []busNodeJSON{},
		Root: jsonout.NullIfNegative(b.Root), Hops: jsonout.NullIfNegative(b.Hops), IRM: jsonout.NullIfNegative(b.IRM),
		GapCount: b.GapCount, GapConsistent: b.GapConsistent, GapForHops: jsonout.NullIfNegative(b.GapForHops),
		Errors: []problemJSON{}, SelfIDs: quadletStrings(b.SelfIDs),
	}
	if b.Line == 0 {
		out.Line = nil // not read from a text line
	}
	for _, n := range b.Nodes {
		ports := make([]string, len(n.Ports))
		for i, p := range n.Ports {
			ports[i] = p.String()
		}
		nj := busNodeJSON{
			PhyID: n.PhyID, LinkActive: n.LinkActive, GapCount: n.GapCount, Speed: n.Speed.String(), Delay: n.Delay,
			Contender: n.Contender, PowerClass: n.PowerClass, InitiatedReset: n.InitiatedReset, Ports: ports,
			Parent: jsonout.NullIfNegative(n.Parent), ParentPort: jsonout.NullIfNegative(n.ParentPort), Children: []childJSON{},
			SelfIDs: quadletStrings(n.Packets),
		}
		for _, l := range n.Children {
			nj.Children = append(nj.Children, childJSON{Port: l.Port, Child: l.Child, ChildPort: l.ChildPort})
		}
		out.Nodes = append(out.Nodes, nj)
	}
	for _, p := range b.Problems {
		pj := problemJSON{Check: p.Check, Node: jsonout.NullIfNegative(p.Node), Index: jsonout.NullIfNegative(p.Index), Message: p.Message}
		if p.Index >= 0 {
			q := fmt.Sprintf("0x%08x", p.Quadlet)
			pj.Quadlet = &q
		}
		out.Errors = append(out.Errors, pj)
	}
	return out
}

func quadletStrings[T ~uint32](qs []T) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = fmt.Sprintf("0x%08x", uint32(q))
	}
	return out
}
