package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
)

const crosscheckIntro = `Usage: fwsim crosscheck (--capture FILE | --probe) [flags]

Compares a real bus with the emulator. For each bus reset of the capture (or
the bus the probe reads now), it turns the self-IDs into a topology (nodes
node-a, node-b ... for phy_IDs 0, 1 ..., with their self-ID fields and port
counts, one cable per parent-child link, the observed root with force_root),
emulates it with the observed reset initiators (the nodes with i set), and
compares the self-IDs quadlet by quadlet. Each difference is printed as node, field, real value and
emulated value. With --topology it emulates that file instead: the bus you
expect, to be compared with the one you have. When that file names every
captured node as decode --emit-topology does, each captured node is compared
with the topology node of its name, whatever phy_ID the emulation gives it,
and the initiators default to the nodes with i set; otherwise nodes are
compared by phy_ID.

Which node wins tree identify or a root contention is chance, not a
prediction: when the emulation elects another root than the capture shows,
that is one finding, with the share of 400 seeds (from --seed on) that elect
the captured root and its 95% Wilson interval, and the nodes are compared
with the captured root forced. It counts as a match when that share is not
zero.

Exit status: 0 every generation matches; 1 one does not (or cannot be
emulated); 2 usage error or unreadable input.`

func runCrosscheck(ctx context.Context, e *env, args []string) int {
	fs := newFlags("crosscheck", crosscheckIntro,
		"fwsim crosscheck --capture hwtest/testdata/raw-two-resets.txt",
		"fwsim crosscheck --capture dmesg.log --json | jq '.generations[].diffs'",
		"fwsim crosscheck --probe --device /dev/fw1",
		"fwsim crosscheck --capture trace.txt --topology lab.yaml --force-root pc",
	)
	var (
		file, device, topology string
		format                 captureFormat
		useProbe, jsonOutput   bool
		initiators             list
		opts                   hwtest.CrossOptions
	)
	fs.StringVar(&file, "capture", "", "read the real bus from the capture `FILE` (- for stdin), e.g. --capture dmesg.log")
	fs.BoolVar(&useProbe, "probe", false, "read the real bus from the local node's /dev/fw* (Linux; see fwsim help probe),\ne.g. --probe --device /dev/fw1")
	fs.StringVar(&device, "device", "", "with --probe, use `PATH` instead of the first local node, e.g. --device /dev/fw1")
	fs.Var(&format, "format", "read the capture as `F` (see fwsim help decode; default: detected),\ne.g. --format firewire-ohci")
	fs.StringVar(&topology, "topology", "", "emulate the topology `FILE` instead of the one the capture shows,\ne.g. --topology lab.yaml")
	fs.StringVar(&opts.ForceRoot, "force-root", "", "with --topology, force `NODE` to be root (default: the node with\nforce_root in the topology, none otherwise), e.g. --force-root pc")
	fs.Var(&initiators, "initiator", "with --topology, `NODE` starts the reset; repeat for several\n(default: the nodes with i set when the topology names the captured nodes),\ne.g. --initiator pc")
	fs.Var(newUint64(&opts.Seed, 1), "seed", "seed the emulation with `N`, e.g. --seed 42")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .generations")
	fs.order("capture", "probe", "device", "format", "topology", "force-root", "initiator", "seed", "json")
	if code, done := fs.parse(e, args); done {
		return code
	}
	switch {
	case (file == "") == !useProbe:
		return fs.usageError(e, "give exactly one of --capture FILE and --probe")
	case topology == "" && (opts.ForceRoot != "" || len(initiators) > 0):
		return fs.usageError(e, "--force-root and --initiator need --topology: without it they come from the capture")
	case device != "" && !useProbe:
		return fs.usageError(e, "--device needs --probe")
	}
	if len(initiators) > 0 {
		opts.Initiators = initiators
	}
	if topology != "" {
		t, _, err := (&topologyFlags{file: topology}).load() // its errors name the file
		if err == nil {
			// A topology that cannot run is the user's input error, not a
			// mismatch of every generation. Out of spec is allowed: a real
			// bus may well be.
			err = t.Validate(bus.ResolveOptions{AllowOutOfSpec: true})
		}
		if err != nil {
			return fs.inputError(e, err)
		}
		opts.Topology = t
	}
	var c *capture
	var err error
	if useProbe {
		c, err = probeCapture(device)
	} else {
		c, err = loadCapture(e, file, hwtest.Format(format))
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	results := make([]crossResult, len(c.buses))
	for i, b := range c.buses {
		if ctx.Err() != nil {
			return fs.interrupt(e) // each emulation is short: a check between them is soon enough
		}
		results[i].bus = b
		results[i].check, results[i].err = hwtest.Cross(b, opts)
		if results[i].err != nil && errors.Is(results[i].err, bus.ErrInvalidOptions) {
			return fs.inputError(e, results[i].err) // a --force-root or --initiator the topology lacks
		}
	}
	if jsonOutput {
		if err := writeJSON(e.stdout, newCrosscheckJSON(c, opts.Seed, results)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		writeCrosscheckText(e.stdout, c, opts.Seed, results)
	}
	if bad := mismatches(results); bad > 0 {
		fmt.Fprintf(e.stderr, "fwsim crosscheck: %d of %d generations do not match the emulation\n", bad, len(results))
		return exitFailure
	}
	return exitOK
}

// crossResult is the cross-check of one generation: a comparison, or why
// there is none.
type crossResult struct {
	bus   *hwtest.Bus
	check *hwtest.CrossCheck
	err   error
}

func (r crossResult) match() bool { return r.err == nil && r.check.Match() }

func mismatches(rs []crossResult) int {
	n := 0
	for _, r := range rs {
		if !r.match() {
			n++
		}
	}
	return n
}

func writeCrosscheckText(w io.Writer, c *capture, seed uint64, rs []crossResult) {
	fmt.Fprintf(w, "fwsim crosscheck: %s (%s), seed %d\n", c.source, c.format, seed)
	for i, r := range rs {
		fmt.Fprintln(w)
		if r.err != nil {
			fmt.Fprintf(w, "generation %d: NOT EMULATED: %v\n", i+1, r.err)
			continue
		}
		ch := r.check
		verdict := "match"
		if !ch.Match() {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "generation %d: %s\n", i+1, verdict)
		fmt.Fprintf(w, "  emulated: profile %s, force root %s, initiators %s; outcome %s\n",
			ch.Profile, orNone(ch.ForceRoot), orNone(strings.Join(ch.Initiators, ", ")), ch.Outcome)
		if ch.Root != nil {
			fmt.Fprintf(w, "  root: %s; the nodes are compared with %s forced\n", ch.Root, ch.Root.Real)
		}
		for _, n := range ch.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, p := range ch.Problems {
			fmt.Fprintf(w, "  emulation problem: %s\n", p)
		}
		if len(ch.Diffs) == 0 {
			fmt.Fprintf(w, "  differences: none (%d self-ID quadlets compared)\n", len(ch.Real))
			continue
		}
		fmt.Fprintf(w, "  differences (%d):\n", len(ch.Diffs))
		var t table
		t.add("node", "field", "real", "emulated", "real quadlet")
		for _, d := range ch.Diffs {
			t.add(d.Where(), d.Field, d.Real, d.Emulated, quadletAt(ch.Real, d.Index))
		}
		t.write(w, "    ")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d generation%s, %d match%s\n", len(rs), plural(len(rs)), len(rs)-mismatches(rs), esPlural(len(rs)-mismatches(rs)))
}

func esPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// quadletAt shows quadlet index of s as "3: 0x817fcc5e", "-" when none.
func quadletAt[T ~uint32](s []T, index int) string {
	if index < 0 || index >= len(s) {
		return "-"
	}
	return fmt.Sprintf("%d: 0x%08x", index, uint32(s[index]))
}

// crosscheckJSON is the --json output of crosscheck.
type crosscheckJSON struct {
	versionJSON
	Source      string                `json:"source"`      // the capture file, "stdin" or the probed device
	Format      string                `json:"format"`      // the capture's format, as decode --format names it
	Seed        uint64                `json:"seed"`        // the seed of the emulations
	Generations []crossGenerationJSON `json:"generations"` // one per generation of the capture
}

// crossGenerationJSON is one captured generation against its emulation.
type crossGenerationJSON struct {
	Match      bool       `json:"match"`             // the emulation ended ok and its self-IDs equal the capture's
	Error      *string    `json:"error"`             // why there was no emulation, null otherwise
	Profile    string     `json:"profile"`           // the PHY timing profile of the emulation, "" without one
	ForceRoot  *string    `json:"force_root"`        // the node given RHB in the emulation (by default the captured root), null if none
	Initiators []string   `json:"initiators"`        // the nodes that start the emulated reset (by default those whose i bit is set); [] for power-up
	Outcome    string     `json:"outcome"`           // how the emulation ended, as run's outcome; "" without one
	Notes      []string   `json:"notes"`             // what the comparison could not take from the capture
	Problems   []string   `json:"problems"`          // why the emulation's outcome failed, one finding each
	Root       *rootJSON  `json:"root"`              // the emulation elected another root than the capture shows, null otherwise
	Diffs      []diffJSON `json:"diffs"`             // every difference between the captured and the emulated self-IDs
	Real       []string   `json:"real_self_ids"`     // the captured self-IDs, "0x%08x", no inverses
	Emulated   []string   `json:"emulated_self_ids"` // the emulated self-IDs, "0x%08x"; [] without an emulation
}

// rootJSON is a captured root the emulation did not elect, with the
// emulator's odds for it; the diffs then come from an emulation with the
// captured root forced.
type rootJSON struct {
	Real        string     `json:"real"`        // the captured root, as a topology node
	Emulated    string     `json:"emulated"`    // the root the emulation at the seed elected
	Contention  bool       `json:"contention"`  // a root contention decided the emulated root
	Elected     int        `json:"elected"`     // how many of runs emulations elect the captured root
	Runs        int        `json:"runs"`        // emulations at seeds seed to seed+runs-1
	Probability float64    `json:"probability"` // elected / runs
	Interval    [2]float64 `json:"interval"`    // the 95% Wilson interval of the probability
}

// diffJSON is one difference of a captured self-ID from the emulated one.
type diffJSON struct {
	Node   *int   `json:"node"`    // the captured phy_ID, null for an emulated node the capture lacks
	NodeID string `json:"node_id"` // the emulated topology node compared, "" when none
	// Field is the self-ID field (phy_id, link_active, gap_count, speed,
	// delay, contender, power_class, initiated_reset, "port N"), or
	// "packets", "reserved bits", "node" or "quadlet" when whole packets
	// differ.
	Field    string  `json:"field"`
	Real     string  `json:"real"`     // the captured value
	Emulated string  `json:"emulated"` // the emulated value
	Index    *int    `json:"index"`    // the real quadlet's position, null when it has none
	Quadlet  *string `json:"quadlet"`  // the real quadlet, null when it has none
}

func newCrosscheckJSON(c *capture, seed uint64, rs []crossResult) crosscheckJSON {
	out := crosscheckJSON{versionJSON: newVersionJSON(), Source: c.source, Format: string(c.format), Seed: seed, Generations: []crossGenerationJSON{}}
	for _, r := range rs {
		g := crossGenerationJSON{Match: r.match(), Initiators: []string{}, Notes: []string{}, Problems: []string{},
			Diffs: []diffJSON{}, Real: quadletStrings(r.bus.SelfIDs), Emulated: []string{}}
		if r.err != nil {
			msg := r.err.Error()
			g.Error = &msg
			out.Generations = append(out.Generations, g)
			continue
		}
		ch := r.check
		g.Profile, g.ForceRoot, g.Initiators = ch.Profile, nullIfEmpty(ch.ForceRoot), nonNil(ch.Initiators)
		g.Outcome, g.Notes, g.Problems = string(ch.Outcome), nonNil(ch.Notes), nonNil(ch.Problems)
		g.Emulated = quadletStrings(ch.Emulated)
		if r := ch.Root; r != nil {
			g.Root = &rootJSON{Real: r.Real, Emulated: r.Emulated, Contention: r.Contention, Elected: r.Elected, Runs: r.Runs,
				Probability: float64(r.Elected) / float64(r.Runs), Interval: r.Interval}
		}
		for _, d := range ch.Diffs {
			dj := diffJSON{Node: nullIfNegative(d.Node), NodeID: d.Name, Field: d.Field, Real: d.Real, Emulated: d.Emulated, Index: nullIfNegative(d.Index)}
			if d.Index >= 0 && d.Index < len(ch.Real) {
				q := fmt.Sprintf("0x%08x", uint32(ch.Real[d.Index]))
				dj.Quadlet = &q
			}
			g.Diffs = append(g.Diffs, dj)
		}
		out.Generations = append(out.Generations, g)
	}
	return out
}
