package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

const runIntro = `Usage: fwsim run [--topology FILE | --gen SPEC] [flags]

Emulates one bus: the reset at power-up (or from the --initiator nodes), tree
identify with any root contention, self identify, then every event the
topology file scripts. Reports each bus initialisation (generation): its
outcome, the root, every node's ports, the root-contention back-offs, the
phase times, a timeline and the self-ID packets. Without --topology or --gen
it runs the built-in default bus (examples/default.yaml). The same flags and
seed always give the same output, and the same files.

--vcd, --trace, --dot and --svg also write the run to files: a waveform for
GTKWave (or, with --vcd-dialect sigrok, for PulseView and sigrok-cli), every
event as JSON lines, and the bus as Graphviz DOT or SVG (see
docs/reading-a-bus-reset.md).

Exit status: 0 every generation ended ok; 1 one did not (a loop, a stall, an
exhausted budget ...); 2 usage or input error.`

// runConfig is what the flags of "fwsim run" ask for.
type runConfig struct {
	topology   string // a topology file
	gen        string // a generator spec
	opts       bus.Options
	jsonOutput bool
	views      viewFiles
}

func runRun(_ context.Context, e *env, args []string) int {
	fs := newFlags("run", runIntro,
		"fwsim run",
		"fwsim run --gen pair --seed 7",
		"fwsim run --gen tree:20:3 --policy larger-id-wins --timing max",
		"fwsim run --topology examples/hotplug.yaml --json",
		"fwsim run --gen chain:4 --initiator n3 --force-root n0 --clock ideal",
		"fwsim run --gen pair --seed 7 --vcd pair.vcd --trace pair.jsonl --svg pair.svg",
		"fwsim run --gen pair --seed 7 --vcd pair.vcd --vcd-dialect sigrok",
	)
	var (
		cfg        runConfig
		initiators list
		coinBias   *float64
	)
	policy := newChoice(treeid.Coin.String(), treeid.Coin.String(), treeid.LargerIDWins.String())
	corner := newChoice(treeid.CornerRandom.String(), treeid.CornerRandom.String(), treeid.CornerMin.String(), treeid.CornerMax.String())
	clock := newChoice("cycle", "cycle", "ideal")
	dialect := newChoice(bus.VCDGTKWave.String(), bus.VCDGTKWave.String(), bus.VCDSigrok.String())

	fs.StringVar(&cfg.topology, "topology", "",
		"read the bus from `FILE`, YAML or JSON (see docs/topology.md),\ne.g. --topology examples/hotplug.yaml")
	fs.StringVar(&cfg.gen, "gen", "",
		"generate the bus from `SPEC`: chain:N, star:N, tree:N[:SEED], ring:N, complete:N\nor pair, e.g. --gen tree:20:3 (not with --topology)")
	fs.Var(newUint64(&cfg.opts.Seed, 1), "seed",
		"seed every random draw (clock phases, coins, waits) with `N`, e.g. --seed 42")
	fs.Func("profile",
		"use the timing profile `P` instead of the topology's: 1394-1995, 1394a-2000 or\nprism, e.g. --profile 1394a-2000 (default: the topology's, else 1394-1995)",
		func(s string) error {
			if _, err := phy.LookupProfile(s); err != nil || s == "" {
				return errors.New(profileNames())
			}
			cfg.opts.Profile = s
			return nil
		})
	fs.StringVar(&cfg.opts.ForceRoot, "force-root", "",
		"set force root (RHB) on `NODE` before the first reset, as a PHY configuration\npacket would, e.g. --force-root camera")
	fs.Var(&initiators, "initiator",
		"`NODE` starts the first reset; repeat for several,\ne.g. --initiator pc --initiator hub (default: power-up, every PHY resets)")
	fs.Var(policy, "policy",
		"resolve root contention by `POLICY`: coin, the standard's coin flip, or\nlarger-id-wins, the larger uid waits SLOW and becomes parent,\ne.g. --policy larger-id-wins")
	fs.Func("coin-bias",
		"the coin picks FAST with probability `P` in [0,1], e.g. --coin-bias 0.25\n(default 0.5, a fair coin)",
		func(s string) error {
			p, err := strconv.ParseFloat(s, 64)
			if err != nil || !(p >= 0 && p <= 1) {
				return errors.New("want a probability from 0 to 1")
			}
			coinBias = &p
			return nil
		})
	fs.Var(corner, "timing",
		"place root-contention waits in their windows at `CORNER`: random (uniform), min\n(lower bound) or max (upper bound), e.g. --timing min")
	fs.Var(clock, "clock",
		"run PHY clocks as `CLOCK`: cycle quantises to each PHY's clock with a random\nphase and its ppm error; ideal samples every nanosecond, e.g. --clock ideal")
	fs.BoolVar(&cfg.opts.AllowOutOfSpec, "allow-out-of-spec", false,
		"run a topology beyond the standard's limits (ports, hops, cable length, clock\nppm) and list why it is out of spec, e.g. --gen chain:20 --allow-out-of-spec")
	fs.Var(newUint64(&cfg.opts.MaxEvents, bus.DefaultMaxEvents), "max-events",
		"stop after `N` kernel events; the generation then ends budget-exhausted,\ne.g. --max-events 10000")
	fs.BoolVar(&cfg.jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .root")
	fs.StringVar(&cfg.views.vcd, "vcd", "",
		"write the run as a Value Change Dump to `FILE`: per node the PHY state, per port\nthe TPA/TPB drive and receive values and line states, e.g. --vcd reset.vcd")
	fs.Var(dialect, "vcd-dialect",
		"write the --vcd file for `TOOL`: gtkwave writes the text signals (states, line\nstate names ...) as GTKWave string variables; sigrok writes each as a real\nthat numbers its texts, with the legend in the header, which PulseView and\nsigrok-cli read without a warning, e.g. --vcd-dialect sigrok")
	fs.StringVar(&cfg.views.trace, "trace", "",
		"write every event to `FILE`, one JSON object per line (time_ns, kind, node,\nport, from, to, ...), e.g. --trace reset.jsonl")
	fs.StringVar(&cfg.views.dot, "dot", "",
		"write the bus of every generation as Graphviz DOT to `FILE`, e.g. --dot bus.dot")
	fs.StringVar(&cfg.views.svg, "svg", "",
		"render the DOT to SVG in `FILE` with Graphviz's dot, which must be installed,\ne.g. --svg bus.svg")
	fs.order("topology", "gen", "seed", "profile", "force-root", "initiator", "policy", "coin-bias",
		"timing", "clock", "allow-out-of-spec", "max-events", "json", "vcd", "vcd-dialect", "trace", "dot", "svg")

	if code, done := fs.parse(e, args); done {
		return code
	}
	if cfg.topology != "" && cfg.gen != "" {
		return fs.usageError(e, "--topology and --gen are mutually exclusive")
	}
	dialectSet := false
	fs.Visit(func(f *flag.Flag) { dialectSet = dialectSet || f.Name == "vcd-dialect" })
	if dialectSet && cfg.views.vcd == "" {
		return fs.usageError(e, "--vcd-dialect needs --vcd FILE")
	}
	for _, d := range bus.VCDDialects() {
		if dialect.value == d.String() {
			cfg.views.vcdOptions.Dialect = d
		}
	}
	cfg.opts.Initiators = initiators
	cfg.opts.CoinBias = coinBias
	if policy.value == treeid.LargerIDWins.String() {
		cfg.opts.Policy = treeid.LargerIDWins
	}
	switch corner.value {
	case treeid.CornerMin.String():
		cfg.opts.Corner = treeid.CornerMin
	case treeid.CornerMax.String():
		cfg.opts.Corner = treeid.CornerMax
	}
	cfg.opts.IdealClock = clock.value == "ideal"

	topo, source, err := cfg.loadTopology()
	if err != nil {
		return fs.inputError(e, err)
	}
	// Every output file is checked before the run, which may be long.
	if err := cfg.views.open(); err != nil {
		return fs.inputError(e, err)
	}
	defer cfg.views.close()
	var trace bus.Trace
	if cfg.views.traced() {
		cfg.opts.Observer = trace.Record
	}
	res, err := bus.Run(topo, cfg.opts)
	if err != nil {
		switch {
		case errors.Is(err, bus.ErrInvalidOptions):
			if msg := cfg.unknownNode(topo); msg != "" {
				return fs.inputError(e, errors.New(msg))
			}
		case errors.Is(err, bus.ErrOutOfSpec) && !cfg.opts.AllowOutOfSpec:
			err = fmt.Errorf("%w; rerun with --allow-out-of-spec", err)
		}
		if cfg.gen != "" {
			err = fmt.Errorf("--gen %s: %w", cfg.gen, err)
		}
		return fs.inputError(e, err)
	}
	if err := cfg.views.write(res, trace.Events); err != nil {
		return fs.inputError(e, err)
	}
	if cfg.jsonOutput {
		if err := writeRunJSON(e.stdout, source, res); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		writeRunText(e.stdout, source, res)
	}
	if failed := failedGenerations(res); failed > 0 {
		fmt.Fprintf(e.stderr, "fwsim run: %d of %d generations did not end ok\n", failed, len(res.Generations))
		return exitFailure
	}
	return exitOK
}

// loadTopology returns the bus the flags name and how to name it in the
// output: the file, "gen SPEC" or "default".
func (c *runConfig) loadTopology() (*bus.Topology, string, error) {
	switch {
	case c.topology != "":
		t, err := bus.LoadTopology(c.topology)
		if pe, ok := errors.AsType[*os.PathError](err); ok {
			err = fmt.Errorf("topology file %s: %w", pe.Path, pe.Err)
		}
		return t, c.topology, err
	case c.gen != "":
		t, err := bus.Generate(c.gen)
		return t, "gen " + c.gen, err
	}
	return bus.DefaultTopology(), "default", nil
}

// unknownNode names the first node flag that names no node of t, and t's
// nodes; "" when every node flag is fine.
func (c *runConfig) unknownNode(t *bus.Topology) string {
	ids := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		ids[i] = n.ID
	}
	check := func(flag, id string) string {
		if id == "" || slices.Contains(ids, id) {
			return ""
		}
		const maxListed = 12
		listed := strings.Join(ids[:min(len(ids), maxListed)], ", ")
		if len(ids) > maxListed {
			listed += fmt.Sprintf(", … (%d in all)", len(ids))
		}
		return fmt.Sprintf("--%s: unknown node %q (the bus has %s)", flag, id, listed)
	}
	if msg := check("force-root", c.opts.ForceRoot); msg != "" {
		return msg
	}
	for _, id := range c.opts.Initiators {
		if msg := check("initiator", id); msg != "" {
			return msg
		}
	}
	return ""
}

func failedGenerations(res *bus.Result) int {
	n := 0
	for _, g := range res.Generations {
		if g.Outcome != bus.OutcomeOK {
			n++
		}
	}
	return n
}

func profileNames() string {
	s := "want "
	ps := phy.Profiles()
	for i, p := range ps {
		switch {
		case i == 0:
		case i == len(ps)-1:
			s += " or "
		default:
			s += ", "
		}
		s += p.Name
	}
	return s
}
