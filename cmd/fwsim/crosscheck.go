package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
)

const crosscheckIntro = `Usage: fwsim crosscheck (--capture FILE | --probe) [flags]

Compares a real bus with the emulator. For each bus reset of the capture (or
the bus the probe reads now), it turns the self-IDs into a topology (nodes
node-a, node-b ... for phy_IDs 0, 1 ..., with their self-ID fields, port
counts and PHY generations, one cable per parent-child link, no root
forced), emulates it with the observed reset initiators (the nodes with i
set), and compares the self-IDs quadlet by quadlet. Each difference is
printed as node, field, real value and emulated value. With --topology it
emulates that file instead: the bus you expect, to be compared with the one
you have. When that file names every captured node as decode
--emit-topology does, each captured node is compared with the topology node
of its name, whatever phy_ID the emulation gives it, and the initiators
default to the nodes with i set; otherwise nodes are compared by phy_ID and
one PHY drawn from the seed starts the reset, as on a real bus.

Which node wins tree identify or a root contention is chance, not a
prediction. For each generation crosscheck gives the probability that the
emulation elects the captured root and numbers the nodes in the captured
self-ID order (same topology, initiators and seed, no root forced), and the
likeliest root and order when they are likelier: exactly, by exploring
every coin and wait of the emulation (fwsim explore), when that takes at
most --max-states states, and otherwise from 1000 Monte Carlo runs with
their 95% Wilson intervals. Both are over the coins and waits of root
contention, with the PHYs' timer lengths and clock phases that --seed
draws (as explore --seed and analyze --setup-seed fix them): a bus without
a root contention elects its root with probability 0 or 1 for one seed.
When the emulation at --seed elects another root than the capture shows,
that is one finding, and the nodes are compared with the captured root
forced. It is a mismatch only when the emulation forced the other root
(--force-root, or force_root in the topology).

Exit status: 0 every generation matches; 1 one does not (or cannot be
emulated); 2 usage error or unreadable input.`

func runCrosscheck(ctx context.Context, e *env, args []string) int {
	fs := newFlags("crosscheck", crosscheckIntro,
		"fwsim crosscheck --capture hwtest/testdata/raw-two-resets.txt",
		"fwsim crosscheck --capture dmesg.log --json | jq '.generations[].diffs'",
		"fwsim crosscheck --probe --device /dev/fw1",
		"fwsim crosscheck --capture trace.txt --topology lab.yaml --force-root pc",
		"fwsim crosscheck --capture dmesg.log --max-states 0   (Monte Carlo only: fast on large buses)",
	)
	var (
		file, device, topology string
		format                 captureFormat
		useProbe, jsonOutput   bool
		initiators             list
		opts                   hwtest.CrossOptions
		maxStates              int
	)
	fs.StringVar(&file, "capture", "", "read the real bus from the capture `FILE` (- for stdin), e.g. --capture dmesg.log")
	fs.BoolVar(&useProbe, "probe", false, "read the real bus from the local node's /dev/fw* (Linux; see fwsim help probe),\ne.g. --probe --device /dev/fw1")
	fs.StringVar(&device, "device", "", "with --probe, use `PATH` instead of the first local node, e.g. --device /dev/fw1")
	fs.Var(&format, "format", "read the capture as `F` (see fwsim help decode; default: detected),\ne.g. --format firewire-ohci")
	fs.StringVar(&topology, "topology", "", "emulate the topology `FILE` instead of the one the capture shows,\ne.g. --topology lab.yaml")
	fs.StringVar(&opts.ForceRoot, "force-root", "", "with --topology, force `NODE` to be root (default: the node with\nforce_root in the topology, none otherwise), e.g. --force-root pc")
	fs.Var(&initiators, "initiator", "with --topology, `NODE` starts the reset; repeat for several\n(default: the nodes with i set when the topology names the captured nodes,\none PHY drawn from the seed otherwise), e.g. --initiator pc")
	fs.Var(newUint64(&opts.Seed, 1), "seed", "seed the emulation with `N`, e.g. --seed 42")
	fs.IntVar(&maxStates, "max-states", hwtest.DefaultOddsStates,
		"compute the odds of the captured root and order exactly when the emulation\nexplores in at most `N` states, else by Monte Carlo (0: always Monte Carlo),\ne.g. --max-states 50000")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .generations")
	fs.order("capture", "probe", "device", "format", "topology", "force-root", "initiator", "seed", "max-states", "json")
	if code, done := fs.parse(e, args); done {
		return code
	}
	if maxStates < 0 {
		return fs.usageError(e, "--max-states %d: want 0 or more", maxStates)
	}
	if maxStates == 0 {
		maxStates = -1 // no exploration
	}
	opts.Odds = &hwtest.OddsOptions{MaxStates: maxStates, Cache: map[string]*hwtest.Odds{}}
	opts.Interrupt = ctx.Done()
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
			return fs.interrupt(e)
		}
		results[i].bus = b
		results[i].check, results[i].err = hwtest.Cross(b, opts)
		switch err := results[i].err; {
		case errors.Is(err, bus.ErrInterrupted):
			return fs.interrupt(e)
		case errors.Is(err, bus.ErrInvalidOptions):
			return fs.inputError(e, err) // a --force-root or --initiator the topology lacks
		}
	}
	if jsonOutput {
		if err := jsonout.Write(e.stdout, newCrosscheckJSON(c, opts.Seed, results)); err != nil {
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
		if l := ch.Likelihood; l != nil {
			writeLikelihoodText(w, l, seed)
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

// writeLikelihoodText writes the odds of the captured root and order, how
// they were computed, and the likeliest root and order when likelier.
func writeLikelihoodText(w io.Writer, l *hwtest.Likelihood, seed uint64) {
	if l.Exact {
		fmt.Fprintf(w, "  odds (exact: every run explored, %d state%s; seed %d's timers and clock phases):\n", l.States, plural(l.States), seed)
	} else {
		fmt.Fprintf(w, "  odds (Monte Carlo: %d runs from seed %d, with its timers and clock phases; %s):\n", l.Runs, seed, l.Why)
	}
	fmt.Fprintf(w, "    P(root %s) = %s\n", l.Root, l.PRoot)
	fmt.Fprintf(w, "    P(self-ID order %s) = %s\n", strings.Join(l.Order, " "), l.POrder)
	if r, ok := l.LikelierRoot(); ok {
		fmt.Fprintf(w, "    likeliest root: %s, %s\n", orNone(r.Root), r.P)
	}
	if o, ok := l.LikelierOrder(); ok {
		fmt.Fprintf(w, "    likeliest order: %s, %s\n", orNone(strings.Join(o.Order, " ")), o.P)
	}
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
	bus.VersionJSON
	Source      string                `json:"source"`      // the capture file, "stdin" or the probed device
	Format      string                `json:"format"`      // the capture's format, as decode --format names it
	Seed        uint64                `json:"seed"`        // the seed of the emulations
	Generations []crossGenerationJSON `json:"generations"` // one per generation of the capture
}

// crossGenerationJSON is one captured generation against its emulation.
type crossGenerationJSON struct {
	Match      bool      `json:"match"`      // the emulation ended ok and its self-IDs equal the capture's
	Error      *string   `json:"error"`      // why there was no emulation, null otherwise
	Profile    string    `json:"profile"`    // the PHY timing profile of the emulation, "" without one
	ForceRoot  *string   `json:"force_root"` // the node given RHB in the emulation (the captured root when the emulation elected another), null if none
	Initiators []string  `json:"initiators"` // the nodes that started the emulated reset: by default those whose i bit is set, else the root, or the one PHY drawn from the seed
	Outcome    string    `json:"outcome"`    // how the emulation ended, as run's outcome; "" without one
	Notes      []string  `json:"notes"`      // what the comparison could not take from the capture
	Problems   []string  `json:"problems"`   // why the emulation's outcome failed, one finding each
	Root       *rootJSON `json:"root"`       // the emulation elected or forced another root than the capture shows, null otherwise
	// Likelihood is the odds of the captured root and self-ID order; null
	// when the topology does not name the captured nodes or there is no
	// emulation.
	Likelihood *likelihoodJSON `json:"likelihood"`
	Diffs      []diffJSON      `json:"diffs"`             // every difference between the captured and the emulated self-IDs
	Real       []string        `json:"real_self_ids"`     // the captured self-IDs, "0x%08x", no inverses
	Emulated   []string        `json:"emulated_self_ids"` // the emulated self-IDs, "0x%08x"; [] without an emulation
}

// rootJSON is a captured root the emulation at the seed did not elect;
// the diffs then come from an emulation with the captured root forced.
type rootJSON struct {
	Real       string `json:"real"`       // the captured root, as a topology node
	Emulated   string `json:"emulated"`   // the root the emulation at the seed elected or forced
	Contention bool   `json:"contention"` // a root contention decided the emulated root
	Forced     bool   `json:"forced"`     // the emulation forced its root (--force-root or force_root): a mismatch
}

// likelihoodJSON is how likely the emulator makes the captured root and
// self-ID order, with the same topology, initiators and seed and no root
// forced: over the coins and waits of root contention, with the timer
// lengths and clock phases the seed draws.
type likelihoodJSON struct {
	Method string `json:"method"` // "exact" (every run explored) or "monte-carlo"
	States *int   `json:"states"` // the states explored; null for Monte Carlo
	// Runs is how many Monte Carlo runs, at seeds seed to seed+runs-1,
	// estimate the odds; null when exact.
	Runs           *int           `json:"runs"`
	Why            *string        `json:"why"`             // why the odds are not exact; null when they are
	Root           string         `json:"root"`            // the captured root, as a topology node
	Order          []string       `json:"order"`           // the captured nodes in phy_ID order, as topology nodes
	PRoot          chanceJSON     `json:"p_root"`          // the chance that the emulation elects root
	POrder         chanceJSON     `json:"p_order"`         // the chance that it numbers the nodes in order
	LikeliestRoot  *rootOddsJSON  `json:"likeliest_root"`  // the likeliest root when likelier than the captured one, else null
	LikeliestOrder *orderOddsJSON `json:"likeliest_order"` // the likeliest order when likelier than the captured one, else null
	Roots          []rootOddsJSON `json:"roots"`           // every root some run elects, likeliest first
}

// chanceJSON is a probability: exact, or a Monte Carlo estimate.
type chanceJSON struct {
	P        float64    `json:"p"`        // the probability, or the estimate
	Interval [2]float64 `json:"interval"` // the exact bounds, or the estimate's 95% Wilson interval
	Exact    *string    `json:"exact"`    // the exact probability as a fraction ("1/2"), or its bounds ("[a, b]"); null for Monte Carlo
	Count    *int       `json:"count"`    // how many Monte Carlo runs showed it; null when exact
}

// rootOddsJSON is the chance of one root and of the orders of its runs.
type rootOddsJSON struct {
	Root   string          `json:"root"`   // a topology node; "" for none or several
	P      chanceJSON      `json:"p"`      // its chance
	Orders []orderOddsJSON `json:"orders"` // the self-ID orders of the runs that elect it, likeliest first
}

// orderOddsJSON is the chance of one self-ID order.
type orderOddsJSON struct {
	Order []string   `json:"order"` // the nodes that took a phy_ID, in phy_ID order
	P     chanceJSON `json:"p"`     // its chance
}

func newChanceJSON(c hwtest.Chance) chanceJSON {
	out := chanceJSON{P: c.P(), Interval: c.Interval()}
	if exact := c.Exact(); exact != "" {
		out.Exact = &exact
	} else {
		out.Count = new(c.Count)
	}
	return out
}

func newOrderOddsJSON(o hwtest.OrderOdds) orderOddsJSON {
	return orderOddsJSON{Order: jsonout.List(o.Order), P: newChanceJSON(o.P)}
}

func newRootOddsJSON(r hwtest.RootOdds) rootOddsJSON {
	out := rootOddsJSON{Root: r.Root, P: newChanceJSON(r.P), Orders: []orderOddsJSON{}}
	for _, o := range r.Orders {
		out.Orders = append(out.Orders, newOrderOddsJSON(o))
	}
	return out
}

func newLikelihoodJSON(l *hwtest.Likelihood) *likelihoodJSON {
	out := &likelihoodJSON{Method: "exact", Root: l.Root, Order: l.Order,
		PRoot: newChanceJSON(l.PRoot), POrder: newChanceJSON(l.POrder), Roots: []rootOddsJSON{}}
	if l.Exact {
		out.States = new(l.States)
	} else {
		out.Method, out.Runs, out.Why = "monte-carlo", new(l.Runs), new(l.Why)
	}
	if r, ok := l.LikelierRoot(); ok {
		out.LikeliestRoot = new(newRootOddsJSON(r))
	}
	if o, ok := l.LikelierOrder(); ok {
		out.LikeliestOrder = new(newOrderOddsJSON(o))
	}
	for _, r := range l.Roots {
		out.Roots = append(out.Roots, newRootOddsJSON(r))
	}
	return out
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
	out := crosscheckJSON{VersionJSON: bus.NewVersionJSON(), Source: c.source, Format: string(c.format), Seed: seed, Generations: []crossGenerationJSON{}}
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
		g.Profile, g.ForceRoot, g.Initiators = ch.Profile, jsonout.NullIfEmpty(ch.ForceRoot), jsonout.List(ch.Initiators)
		g.Outcome, g.Notes, g.Problems = string(ch.Outcome), jsonout.List(ch.Notes), jsonout.List(ch.Problems)
		g.Emulated = quadletStrings(ch.Emulated)
		if r := ch.Root; r != nil {
			g.Root = &rootJSON{Real: r.Real, Emulated: r.Emulated, Contention: r.Contention, Forced: r.Forced}
		}
		if l := ch.Likelihood; l != nil {
			g.Likelihood = newLikelihoodJSON(l)
		}
		for _, d := range ch.Diffs {
			dj := diffJSON{Node: jsonout.NullIfNegative(d.Node), NodeID: d.Name, Field: d.Field, Real: d.Real, Emulated: d.Emulated, Index: jsonout.NullIfNegative(d.Index)}
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
