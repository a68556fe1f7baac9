package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
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
		"dmesg | fwsim decode --format firewire-ohci   # needs a FireWire bus",
		"fwsim decode hwtest/testdata/raw-two-resets.txt --json | jq '.generations[].problems'   # needs jq",
		"fwsim decode hwtest/testdata/raw-two-resets.txt --emit-topology bus.yaml \\\n"+
			"      && fwsim run --topology bus.yaml",
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
	files := outputs{env: e}
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
	if emit == nil {
		return reportCapture(e, fs, c, jsonOutput)
	}
	gen, nodes, initiators, err := hwtest.WriteTopologyOf(c.Buses, emit, emit.path, forceRoot)
	if errors.Is(err, hwtest.ErrNoTree) {
		err = fmt.Errorf("--emit-topology: %w", err)
	}
	if err == nil {
		err = writeCapture(e, c, jsonOutput)
	}
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	// On stderr: stdout holds the report, perhaps JSON. The initiators are
	// on the command line because a topology file cannot hold them.
	run := "fwsim run --topology " + emit.path
	for _, n := range initiators {
		run += " --initiator " + n
	}
	fmt.Fprintf(e.stderr, "fwsim decode: wrote %s: the bus of generation %d (%d node%s); run it with %s\n",
		emit.path, gen, nodes, view.Plural(nodes), run)
	return captureVerdict(e, fs, c)
}

// reportCapture writes a decoded capture as text or JSON; the exit status
// says whether every bus is consistent.
func reportCapture(e *env, fs *flags, c *hwtest.Capture, jsonOutput bool) int {
	if err := writeCapture(e, c, jsonOutput); err != nil {
		return fs.inputError(e, err)
	}
	return captureVerdict(e, fs, c)
}

// writeCapture writes a decoded capture to standard output as text or JSON.
func writeCapture(e *env, c *hwtest.Capture, jsonOutput bool) error {
	if jsonOutput {
		return jsonout.Write(e.stdout, hwtest.NewDecodeJSON(c))
	}
	view.WriteDecodeText(e.stdout, c)
	return nil
}

// captureVerdict says on stderr how many buses of the capture are
// inconsistent and returns the exit status: 1 when one is.
func captureVerdict(e *env, fs *flags, c *hwtest.Capture) int {
	if bad := hwtest.Inconsistent(c.Buses); bad > 0 {
		fmt.Fprintf(e.stderr, "fwsim %s: %d of %d generations show an inconsistent bus\n", fs.name, bad, len(c.Buses))
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

// loadCapture reads and decodes a capture file ("" or "-" for stdin). The
// capture streams through the parser a line at a time: what stays in memory
// is the decoded bus of each bus reset, which the report needs.
func loadCapture(e *env, file string, format hwtest.Format) (*hwtest.Capture, error) {
	source, r, closeFile, err := openCapture(e, file)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	c, err := hwtest.ReadCapture(r, source, format)
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
	f, err := openInput(e.ctx, file)
	if err != nil {
		return "", nil, nil, captureError(file, err)
	}
	return file, f, func() { f.Close() }, nil
}

// captureError names the capture an error of reading it concerns. Both
// opening and reading (a directory opens) fail with a PathError.
func captureError(source string, err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return fmt.Errorf("capture %s: %w", pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %w", source, err)
}
