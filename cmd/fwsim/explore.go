package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/view"
)

const exploreIntro = `Usage: fwsim explore [--topology FILE | --gen SPEC] [--timing random|nondet|min|max]
       [--phases fixed|grid:K] [--event-window FROM..TO] [--resolution DUR]
       [--deadline DUR ...]
       [--max-states N] [--json] [--counterexamples DIR] [flags]

Exact answers from the implementation itself: enumerates every choice the
emulated bus can make on a small bus, on the same PHY and tree-identify code
that fwsim run uses, merges the states that behave alike from then on, and
solves the graph in exact fractions. Every root-contention coin is a choice
(FAST with probability --coin-bias); every wait is one too: uniform over the
whole cycle counts of its window with --timing random, left to an adversary
with --timing nondet, so that every answer is [minimum, maximum] over all
schedulers as a model checker gives them; --timing min and max pin it.
--phases grid:K gives each PHY's clock phase K evenly spaced values and
--event-window moves the topology's scripted events together so that the
first falls on every clock edge of the window, both chosen by the adversary.
--resolution 10ns (with --clock ideal) makes those choices every 10 ns
instead of every ns: exact where every time the bus compares with is a
multiple of it, as in the model checkers' 10 ns models (docs/timing.md).
Everything else (each PHY's timer lengths, and its clock phase without
--phases) is as fwsim run --seed S makes it.

Reports every reachable outcome with its probability, for every --deadline
and time metric (tree_id_ns, self_id_ns, contention_ns, as fwsim analyze
measures them) the probability of meeting it, the metrics' expected values,
and the number of states. Fractions are exact; the decimals beside them are
rounded. When --max-states is reached, every answer is an interval that
holds the exact value (under an adversary, bounds of the minimum and of the
maximum, "min in [a, b], max in [c, d]"; "in [a, b]" holds both), and
"unexplored" is the probability of reaching a state left unexplored; so is
a value that a cycle too large to solve exactly (a feedback set beyond 512
states) leads to: the text gives it with the width of its bounds, --json
both bounds (p_bounds, pmin_bounds, pmax_bounds; *_exact only for exact
values). A generation that the topology's scripted events
interrupt counts as ok: the question is whether the bus then comes up.
--counterexamples DIR writes, for every outcome that is not ok, a likeliest
run that ends so: fwsim run --replay FILE runs it again with every view.
docs/timing.md explains the method and its limits.

Exit status: 0 every state explored, and every run ends ok and meets every
deadline; 1 some run fails or misses a deadline with a probability surely
above 0 (also when the exploration stopped at --max-states: what it found is
found); 2 usage or input error; 4 stopped at --max-states with no sure
failure, where the unexplored states may hold one. Exits 1 and 4 say why in
one line on stderr.`

func runExplore(ctx context.Context, e *env, args []string) int {
	fs := newFlags("explore", exploreIntro,
		"fwsim explore --gen pair --deadline contention_ns=2us   # exit 1: met with probability 1861/2048",
		"fwsim explore --topology examples/prism-pair.yaml --allow-out-of-spec --clock ideal --timing max \\\n"+
			"      --deadline contention_ns=2us --deadline contention_ns=4us   # exit 1: 1/2, 25/32",
		"fwsim explore --topology examples/prism-pair.yaml --allow-out-of-spec --clock ideal \\\n"+
			"      --timing nondet --resolution 10ns --deadline contention_ns=4us   # exit 1: 25/32 as at 1 ns",
		"fwsim explore --topology examples/unplug-window.yaml --event-window 166us..166.2us",
		"fwsim explore --topology examples/far-pair.yaml --allow-out-of-spec --clock ideal --timing max \\\n"+
			"      --counterexamples cex   # exit 1: stalled with probability 1/2, written to cex/stalled.json",
		"fwsim run --replay cex/stalled.json --vcd stalled.vcd   # exit 1: the stall again, as waveforms",
	)
	var (
		b          busFlags
		deadlines  metricDeadlines
		phases     string
		window     string
		resolution string
		workers    int
		maxStates  int
		maxDur     time.Duration
		jsonOutput bool
		cexDir     string
		quiet      bool
	)
	b.nondet = true
	order := b.register(fs, "pair", "fix everything that is not a choice (timer lengths, clock phases\nwithout --phases) as fwsim run --seed `S` does (from 1), e.g. --seed 42")
	fs.Var(&deadlines, "deadline",
		"report the probability that each time metric is at most `DUR`, or only METRIC\nwith METRIC=DUR; repeat for several, e.g. --deadline 2us\n--deadline tree_id_ns=168us (a long deadline on contention_ns unrolls many rounds)")
	fs.StringVar(&phases, "phases", "fixed",
		"fixed keeps each PHY's clock phase as the seed draws it; grid:`K` lets the\nadversary give each one of K evenly spaced phases, e.g. --phases grid:4")
	fs.StringVar(&window, "event-window", "",
		"move the topology's scripted events together so that the first falls on\nevery clock edge in `FROM..TO`, chosen by the adversary,\ne.g. --event-window 166us..172us")
	fs.StringVar(&resolution, "resolution", "1ns",
		"with --clock ideal, let a wait end, and the event window's first event fall,\nonly every `DUR` (and at the windows' ends) instead of every ns; exact where\nevery time the bus compares with is a multiple of it, e.g. --resolution 10ns")
	fs.IntVar(&workers, "workers", 0,
		"run the partial runs on `W` cores; the answers do not depend on it,\ne.g. --workers 1 (default: every core)")
	fs.IntVar(&maxStates, "max-states", 0,
		"stop after `N` distinct states; the answers are then intervals that hold the\nexact values; 0 for as many as --max-memory holds, at the size of the first\nthousand states, e.g. --max-states 1000000")
	fs.DurationVar(&maxDur, "max-duration", 24*time.Hour,
		"refuse an exploration that would take longer than `DUR` to find --max-states\nstates, as its pace over its first second says; 0 for no limit,\ne.g. --max-duration 10m")
	fs.BoolVar(&jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .outcomes")
	fs.StringVar(&cexDir, "counterexamples", "",
		"write a likeliest run of every outcome that is not ok to `DIR`/OUTCOME.json,\nand of every deadline some run misses to DIR/miss-METRIC-DUR.json, for\nfwsim run --replay, e.g. --counterexamples cex")
	fs.BoolVar(&quiet, "quiet", false,
		"draw no progress bar (drawn on stderr only when it is a terminal): the states\nknown of --max-states, their rate, the frontier, their memory, then the solving;\ne.g. --quiet 2>log")
	fs.order(append(order[:2:2], append([]string{"timing", "phases", "event-window", "resolution", "deadline", "max-states", "max-duration", "workers", "quiet", "json", "counterexamples"},
		without(order[2:], "timing", "max-events")...)...)...)
	if code, done := fs.parse(e, args); done {
		return code
	}
	if err := b.check(); err != nil {
		return fs.usageError(e, "%v", err)
	}
	if fs.isSet("max-events") {
		return fs.usageError(e, "--max-events: explore runs each partial run to its next choice; bound the exploration with --max-states")
	}
	if maxStates < 0 {
		return fs.usageError(e, "--max-states %d: want 0 (as many as --max-memory holds) or more", maxStates)
	}
	if workers < 0 {
		return fs.usageError(e, "--workers %d: want 0 (every core) or more", workers)
	}
	if maxDur < 0 {
		return fs.usageError(e, "--max-duration %s: want 0 (no limit) or a positive duration", maxDur)
	}
	o := explore.Options{Bus: b.options(), CoinBias: b.coinBias, Deadlines: deadlines.list, MaxStates: maxStates,
		MaxDuration: maxDur, Workers: workers, MaxMemory: b.memory.max, MissPaths: cexDir != "", Interrupt: ctx.Done()}
	timing, err := explore.ParseTiming(b.corner.value)
	if err != nil {
		return fs.usageError(e, "--timing: %v", err)
	}
	o.Timing = timing
	if o.Space.PhaseGrid, err = bus.ParsePhaseGrid(phases); err != nil {
		return fs.usageError(e, "--phases %s: %v", phases, err)
	}
	if window != "" {
		win, err := bus.ParseWindow(window)
		if err != nil {
			return fs.usageError(e, "--event-window %s: %v", window, err)
		}
		o.Space.EventWindow = &win
	}
	step, err := bus.ParseDeadline(resolution)
	if err != nil {
		return fs.usageError(e, "--resolution %s: %v", resolution, err)
	}
	o.Space.Resolution = int64(step)
	topo, source, err := b.load(ctx)
	if err != nil {
		return fs.inputError(e, err)
	}
	// The directory is made now, so that a bad path fails before the
	// exploration, and removed again unless counterexamples are committed.
	out := outputs{env: e}
	defer out.abort()
	if cexDir != "" {
		if err := out.mkdirAll(cexDir); err != nil {
			return fs.inputError(e, fmt.Errorf("--counterexamples: %w", err))
		}
	}
	o.Progress = newExploreProgress(e, quiet)
	res, err := explore.Explore(topo, o)
	if e.stderr.bar != nil {
		e.stderr.bar.Clear()
	}
	if errors.Is(err, bus.ErrInterrupted) {
		return fs.interrupt(e)
	}
	if err != nil {
		return fs.inputError(e, b.explain(topo, err))
	}
	files := map[string]string{} // an outcome, or explore.MissKey of a deadline → its file
	// write writes a counterexample file as name in cexDir, for key.
	write := func(key, name string, file explore.ReplayFile) int {
		name = filepath.Join(cexDir, name)
		f, err := out.create("counterexamples", name)
		if err != nil {
			return fs.inputError(e, err)
		}
		if err := jsonout.Write(f, file); err != nil {
			return fs.outputError(e, err)
		}
		files[key] = name
		return exitOK
	}
	if cexDir != "" {
		for _, c := range res.Counterexamples(topo, o) {
			if code := write(c.Key, c.Name, c.File); code != exitOK {
				return code
			}
		}
	}
	if jsonOutput {
		err = jsonout.Write(e.stdout, explore.NewJSON(source, o, res, files))
	} else {
		view.WriteExploreText(e.stdout, source, topo, o, res, files)
	}
	if err != nil {
		return fs.outputError(e, err)
	}
	if err := out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	verdict := res.Verdict()
	if verdict != explore.Good {
		fmt.Fprintf(e.stderr, "fwsim explore: %s\n", strings.Join(res.Shortfalls(), "; "))
	}
	switch verdict {
	case explore.Fails:
		return exitFailure
	case explore.Incomplete:
		return exitIncomplete
	}
	return exitOK
}

// without returns names less the given ones.
func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}
