package main

import (
	"context"
	"fmt"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/view"
)

const runIntro = `Usage: fwsim run [--topology FILE | --gen SPEC] [flags]

Emulates one bus: the reset at power-up (or from the --initiator nodes), tree
identify with any root contention, self identify, then every event the
topology file scripts. Reports each bus initialisation (generation): its
outcome, the root, every node's ports, the root-contention back-offs, the
phase times, a timeline and the self-ID packets. Without --topology or --gen
it runs the built-in default bus (examples/default.yaml). The same flags and
seed always give the same output, and the same files.

--vcd, --gtkw, --trace, --dot, --svg and --html also write the run to files:
a waveform for GTKWave with a save file that opens it on the handshake (or,
with --vcd-dialect sigrok, a logic analyzer's channels for PulseView and
sigrok-cli), every event as JSON lines, the bus as Graphviz DOT or SVG, and a
page that plays the run in a browser (see docs/reading-a-bus-reset.md).

Exit status: 0 every generation ended ok; 1 one did not (a loop, a stall, an
exhausted budget ...); 2 usage or input error.`

// runConfig is what the flags of "fwsim run" ask for.
type runConfig struct {
	bus            busFlags
	jsonOutput     bool
	views          viewFiles
	maxTraceEvents int
	replay         string // --replay: a counterexample file of fwsim explore
	traffic        trafficFlags
}

// defaultMaxTraceEvents bounds the trace behind --vcd, --trace and --html
// (and a lab's --trace, --trace-table and --html): about
// 150 bytes of JSON lines each, and many runs' worth of any real scenario.
const defaultMaxTraceEvents = 1_000_000

func runRun(ctx context.Context, e *env, args []string) int {
	fs := newFlags("run", runIntro,
		"fwsim run",
		"fwsim run --gen pair --seed 7",
		"fwsim run --gen tree:20:3 --policy larger-id-wins --timing max",
		"fwsim run --topology examples/hotplug.yaml --json",
		"fwsim run --gen chain:4 --initiator n3 --force-root n0 --clock ideal",
		"fwsim run --gen pair --seed 7 --vcd pair.vcd --trace pair.jsonl --svg pair.svg",
		"fwsim run --gen pair --seed 7 --vcd pair.vcd --gtkw pair.gtkw \\\n"+
			"      && gtkwave pair.vcd pair.gtkw   # needs gtkwave",
		"fwsim run --gen pair --seed 7 --vcd pair.sigrok.vcd --vcd-dialect sigrok",
		"fwsim run --html run.html   # open run.html in a browser",
		"fwsim run --topology examples/traffic.yaml --until 2ms",
	)
	var cfg runConfig
	dialect := newChoice(view.VCDGTKWave.String(), view.VCDGTKWave.String(), view.VCDSigrok.String())
	order := cfg.bus.register(fs, "tree:20:3",
		"seed every random draw (clock phases, coins, waits) with `N`, from 1, e.g. --seed 42")
	fs.BoolVar(&cfg.jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .root")
	fs.StringVar(&cfg.views.vcd, "vcd", "",
		"write the run as a Value Change Dump to `FILE`: per node the PHY state, per port\nthe TPA/TPB drive and receive values and line states, e.g. --vcd reset.vcd")
	fs.Var(dialect, "vcd-dialect",
		"write the --vcd file for `TOOL`: gtkwave writes every signal, text (states, line\nstate names ...) as GTKWave string variables; sigrok writes what a logic\nanalyzer records, two channels per pair (node.pN.tpa.hi, .lo: driven 1, driven\n0), which PulseView and sigrok-cli read, e.g. --vcd-dialect sigrok")
	fs.StringVar(&cfg.views.gtkw, "gtkw", "",
		"with --vcd, also write a GTKWave save file to `FILE`: the signals grouped per node,\neach under its full name (b p0 line_tx), zoomed to tree identify, the phase\nboundaries marked; open both with gtkwave run.vcd run.gtkw, e.g. --gtkw run.gtkw")
	fs.StringVar(&cfg.views.trace, "trace", "",
		"write every event to `FILE`, one JSON object per line (time_ns, kind, node,\nport, from, to, ...), e.g. --trace reset.jsonl")
	fs.StringVar(&cfg.views.dot, "dot", "",
		"write the bus of every generation as Graphviz DOT to `FILE`, e.g. --dot bus.dot")
	fs.StringVar(&cfg.views.svg, "svg", "",
		"render the DOT to SVG in `FILE` with Graphviz's dot, which must be installed,\ne.g. --svg bus.svg")
	fs.StringVar(&cfg.replay, "replay", "",
		"run again the path in `FILE`, a counterexample of fwsim explore, with the bus\nand every option it records (no other bus flag), e.g. --replay cex/stalled.json")
	fs.IntVar(&cfg.maxTraceEvents, "max-trace-events", defaultMaxTraceEvents,
		"with --vcd, --trace or --html, stop a run whose trace passes `N` events, which\nit holds in memory, and write no file, e.g. --max-trace-events 5000000")
	fs.StringVar(&cfg.views.html, "html", "",
		"write a page that plays the run to `FILE`: the bus as a tree, every state, line\nstate and self-ID packet on a time axis with a slider, each explained; one\nself-contained HTML file, opened at an instant by FILE#t=NS, e.g. --html run.html")
	cfg.traffic.register(fs)
	fs.order(append(order, "until", "traffic", "replay", "json", "vcd", "vcd-dialect", "gtkw", "trace", "max-trace-events", "dot", "svg", "html")...)

	if code, done := fs.parse(e, args); done {
		return code
	}
	if err := cfg.bus.check(); err != nil {
		return fs.usageError(e, "%v", err)
	}
	if cfg.maxTraceEvents < 1 {
		return fs.usageError(e, "--max-trace-events %d: want at least 1", cfg.maxTraceEvents)
	}
	if fs.isSet("vcd-dialect") && cfg.views.vcd == "" {
		return fs.usageError(e, "--vcd-dialect needs --vcd FILE")
	}
	for _, d := range view.VCDDialects() {
		if dialect.value == d.String() {
			cfg.views.vcdOptions.Dialect = d
		}
	}
	switch {
	case cfg.views.gtkw == "":
	case cfg.views.vcd == "" || cfg.views.vcd == "-":
		return fs.usageError(e, "--gtkw needs --vcd FILE: the save file names the waveform it opens")
	case cfg.views.vcdOptions.Dialect != view.VCDGTKWave:
		return fs.usageError(e, "--gtkw goes with the gtkwave dialect of --vcd, not --vcd-dialect %s", cfg.views.vcdOptions.Dialect)
	}
	if err := cfg.traffic.check(fs); err != nil {
		return fs.usageError(e, "%v", err)
	}
	opts := cfg.bus.options()
	opts.Until = cfg.traffic.until
	topo, source, err := cfg.bus.load(ctx)
	if cfg.replay != "" {
		for _, name := range order {
			if fs.isSet(name) {
				return fs.usageError(e, "--replay takes the bus and every option of its run from %s: drop --%s", cfg.replay, name)
			}
		}
		source = "replay " + cfg.replay
		topo, opts, err = loadReplay(ctx, cfg.replay)
	}
	if err == nil {
		topo, err = cfg.traffic.apply(topo, bus.ResolveOptions{Profile: opts.Profile, AllowOutOfSpec: opts.AllowOutOfSpec})
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	// Every output file is checked before the run, which may be long.
	if err := cfg.views.open(e); err != nil {
		return fs.inputError(e, err)
	}
	defer cfg.views.out.abort()
	// A trace lives in memory until the views are written: it is bounded,
	// and a run that passes the bound stops as if interrupted.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	full := false
	var trace bus.Trace
	if cfg.views.traced() {
		opts.Observer = func(ev bus.TraceEvent) {
			if len(trace.Events) == cfg.maxTraceEvents {
				full = true
				stop()
				return
			}
			trace.Record(ev)
		}
	}
	opts.Interrupt = ctx.Done()
	res, err := bus.Run(topo, opts)
	if full { // whether or not the run saw the stop before it ended
		return fs.inputError(e, fmt.Errorf("the run passed --max-trace-events %d, the bound on the trace the --vcd, --trace and --html files are written from; no file was written: raise the bound, or lower --max-events", cfg.maxTraceEvents))
	}
	if err != nil && cfg.replay != "" {
		// The file, not the flags, set the options: name it.
		return fs.inputError(e, fmt.Errorf("--replay %s: %w", cfg.replay, err))
	}
	if err != nil {
		return fs.inputError(e, cfg.bus.explain(topo, err))
	}
	cfg.views.source = source
	if err := cfg.views.write(res, trace.Events); err != nil {
		return viewError(e, fs, err)
	}
	if cfg.jsonOutput {
		if err := jsonout.Write(e.stdout, bus.NewResultJSON(source, res)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		view.WriteRunText(e.stdout, source, res)
	}
	if err := cfg.views.out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	if len(res.Generations) == 0 {
		fmt.Fprintf(e.stderr, "fwsim run: the budget of --max-events %d ran out before the first bus reset began\n", opts.MaxEvents) // only a budget set so low runs out so soon
		return exitFailure
	}
	if failed := res.FailedGenerations(); failed > 0 {
		fmt.Fprintf(e.stderr, "fwsim run: %d of %d generations did not end ok\n", failed, len(res.Generations))
		return exitFailure
	}
	return exitOK
}

// loadReplay reads --replay's counterexample file, no larger than
// explore.MaxReplayFileSize: ReadAll would read /dev/zero until memory ran
// out.
func loadReplay(ctx context.Context, name string) (*bus.Topology, bus.Options, error) {
	data, err := readInput(ctx, name, explore.MaxReplayFileSize)
	if err != nil {
		return nil, bus.Options{}, fmt.Errorf("--replay %s: %w", name, withoutPath(err))
	}
	return explore.ReadReplayFile(name, data)
}
