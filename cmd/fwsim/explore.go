package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/phy"
)

const exploreIntro = `Usage: fwsim explore [--topology FILE | --gen SPEC] [--timing random|nondet|min|max]
       [--phases fixed|grid:K] [--event-window FROM..TO] [--deadline DUR ...]
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
Everything else (each PHY's timer lengths, and its clock phase without
--phases) is as fwsim run --seed S makes it.

Reports every reachable outcome with its probability, for every --deadline
and time metric (tree_id_ns, self_id_ns, contention_ns, as fwsim analyze
measures them) the probability of meeting it, the metrics' expected values,
and the number of states. Fractions are exact; the decimals beside them are
rounded. When --max-states is reached, every answer is an interval that
holds the exact value; so is a value that a cycle too large to solve exactly
(a feedback set beyond 512 states) leads to: the text gives it with the
width of its bounds, --json both bounds. A generation that the topology's scripted events
interrupt counts as ok: the question is whether the bus then comes up.
--counterexamples DIR writes, for every outcome that is not ok, a likeliest
run that ends so: fwsim run --replay FILE runs it again with every view.
docs/timing.md explains the method and its limits.

Exit status: 0 every run ends ok and meets every deadline; 1 some run can
fail or miss a deadline; 2 usage or input error.`

func runExplore(ctx context.Context, e *env, args []string) int {
	fs := newFlags("explore", exploreIntro,
		"fwsim explore --gen pair --deadline contention_ns=2us",
		"fwsim explore --topology examples/prism-pair.yaml --allow-out-of-spec --clock ideal \\\n      --timing nondet --max-states 200000 --deadline contention_ns=4us   (see docs/timing.md)",
		"fwsim explore --topology examples/unplug-window.yaml --event-window 166us..172us",
		"fwsim explore --topology examples/far-pair.yaml --allow-out-of-spec --clock ideal --timing max \\\n      --counterexamples cex",
		"fwsim run --replay cex/stalled.json --vcd stalled.vcd",
	)
	var (
		b          busFlags
		deadlines  metricDeadlines
		phases     string
		window     string
		maxStates  int
		jsonOutput bool
		cexDir     string
	)
	b.nondet = true
	order := b.register(fs, "pair", "fix everything that is not a choice (timer lengths, clock phases\nwithout --phases) as fwsim run --seed `S` does, e.g. --seed 42")
	fs.Var(&deadlines, "deadline",
		"report the probability that each time metric is at most `DUR`, or only METRIC\nwith METRIC=DUR; repeat for several, e.g. --deadline 2us\n--deadline tree_id_ns=168us (a long deadline on contention_ns unrolls many rounds)")
	fs.StringVar(&phases, "phases", "fixed",
		"fixed keeps each PHY's clock phase as the seed draws it; grid:`K` lets the\nadversary give each one of K evenly spaced phases, e.g. --phases grid:4")
	fs.StringVar(&window, "event-window", "",
		"move the topology's scripted events together so that the first falls on\nevery clock edge in `FROM..TO`, chosen by the adversary,\ne.g. --event-window 166us..172us")
	fs.IntVar(&maxStates, "max-states", explore.DefaultMaxStates,
		"stop after `N` distinct states; the answers are then intervals that hold the\nexact values, e.g. --max-states 1000000")
	fs.BoolVar(&jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .outcomes")
	fs.StringVar(&cexDir, "counterexamples", "",
		"write a likeliest run of every outcome that is not ok to `DIR`/OUTCOME.json,\nand of every deadline some run misses to DIR/miss-METRIC-DUR.json, for\nfwsim run --replay, e.g. --counterexamples cex")
	fs.order(append(order[:2:2], append([]string{"timing", "phases", "event-window", "deadline", "max-states", "json", "counterexamples"},
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
	if maxStates < 1 {
		return fs.usageError(e, "--max-states %d: want at least 1", maxStates)
	}
	o := explore.Options{Bus: b.options(), CoinBias: b.coinBias, Deadlines: deadlines.list, MaxStates: maxStates,
		MissPaths: cexDir != "", Interrupt: ctx.Done()}
	timing, err := explore.ParseTiming(b.corner.value)
	if err != nil {
		return fs.usageError(e, "--timing: %v", err)
	}
	o.Timing = timing
	if o.Space.PhaseGrid, err = parsePhases(phases); err != nil {
		return fs.usageError(e, "--phases %s: %v", phases, err)
	}
	if window != "" {
		win, err := parseWindow(window)
		if err != nil {
			return fs.usageError(e, "--event-window %s: %v", window, err)
		}
		o.Space.EventWindow = &win
	}
	topo, source, err := b.load()
	if err != nil {
		return fs.inputError(e, err)
	}
	if cexDir != "" {
		if err := os.MkdirAll(cexDir, 0o755); err != nil {
			return fs.inputError(e, fmt.Errorf("--counterexamples: %w", err))
		}
	}
	res, err := explore.Explore(topo, o)
	if errors.Is(err, bus.ErrInterrupted) {
		return fs.interrupt(e)
	}
	if err != nil {
		return fs.inputError(e, b.explain(topo, err))
	}
	out := outputs{stdout: e.stdout}
	defer out.abort()
	files := map[string]string{} // an outcome, or missKey of a deadline → its file
	// write writes a counterexample file as name in cexDir, for key.
	write := func(key, name string, file pathFile) int {
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
		for _, r := range res.Outcomes {
			if r.Path == nil {
				continue
			}
			if code := write(string(r.Outcome), string(r.Outcome)+".json", newPathFile(&b, topo, o, r.Outcome, r.Path, r.PathP)); code != exitOK {
				return code
			}
		}
		for _, d := range res.Deadlines {
			if d.Miss == nil {
				continue
			}
			file := newPathFile(&b, topo, o, d.MissOutcome, d.Miss, d.MissP)
			file.Misses = fmt.Sprintf("%s > %d ns", d.Metric, d.DeadlineNs)
			if code := write(missKey(d), fmt.Sprintf("miss-%s-%s.json", d.Metric, time.Duration(d.DeadlineNs)), file); code != exitOK {
				return code
			}
		}
	}
	if jsonOutput {
		err = jsonout.Write(e.stdout, newExploreJSON(source, &b, o, res, files))
	} else {
		writeExploreText(e.stdout, source, &b, topo, o, res, files)
	}
	if err != nil {
		return fs.outputError(e, err)
	}
	if err := out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	if !allGood(res) {
		return exitFailure
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

// parsePhases reads --phases: fixed, or grid:K.
func parsePhases(s string) (int, error) {
	if s == "fixed" {
		return 0, nil
	}
	k, ok := strings.CutPrefix(s, "grid:")
	n, err := strconv.Atoi(k)
	if !ok || err != nil || n < 1 {
		return 0, errors.New("want fixed or grid:K with K ≥ 1, e.g. grid:4")
	}
	return n, nil
}

// parseWindow reads FROM..TO, two durations from power-up.
func parseWindow(s string) (bus.Window, error) {
	from, to, ok := strings.Cut(s, "..")
	if !ok {
		return bus.Window{}, errors.New("want FROM..TO, two times since power-up, e.g. 166us..171us")
	}
	var w bus.Window
	for i, part := range []string{from, to} {
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 || !wholeNs(part) {
			return bus.Window{}, fmt.Errorf("%q: want a time such as 166us or 170500ns, in whole ns", part)
		}
		if i == 0 {
			w.From = int64(d)
		} else {
			w.To = int64(d)
		}
	}
	if w.To < w.From {
		return bus.Window{}, errors.New("TO is before FROM")
	}
	return w, nil
}

// allGood reports whether no run can fail or miss a deadline.
func allGood(res *explore.Result) bool {
	for _, r := range res.Outcomes {
		if r.Outcome != bus.OutcomeOK && r.P.Max.Sign() > 0 {
			return false
		}
	}
	for _, d := range res.Deadlines {
		if d.P.Min.Cmp(big.NewRat(1, 1)) < 0 {
			return false
		}
	}
	return true
}

// ratText writes an exact value as a fraction with its rounded decimal;
// a fraction too long to read is left to --json.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	if f := r.RatString(); len(f) <= maxFractionText {
		return f + " (" + r.FloatString(6) + ")"
	}
	return r.FloatString(6)
}

// maxFractionText is the longest fraction the text report prints.
const maxFractionText = 40

// intervalText writes a value, or the bounds of one: an interval too
// narrow for six decimals to tell apart is written as its midpoint and
// width.
func intervalText(i explore.Interval) string {
	if i.Exact() {
		return ratText(i.Min)
	}
	if i.Min.FloatString(6) == i.Max.FloatString(6) {
		width, _ := new(big.Rat).Sub(i.Max, i.Min).Float64()
		return fmt.Sprintf("%s (bounds %.1e apart)", i.Min.FloatString(6), width)
	}
	return "[" + ratText(i.Min) + ", " + ratText(i.Max) + "]"
}

// missKey names a deadline's miss file in the files map.
func missKey(d explore.DeadlineResult) string {
	return fmt.Sprintf("miss %s %d", d.Metric, d.DeadlineNs)
}

func writeExploreText(w io.Writer, source string, b *busFlags, topo *bus.Topology, o explore.Options, res *explore.Result, files map[string]string) {
	fmt.Fprintf(w, "fwsim explore: %s, %s\n", source, exploreSettings(b, topo, o))
	complete := "every state explored"
	if !res.Complete {
		complete = fmt.Sprintf("stopped at --max-states %d: every answer is an interval that holds the exact value", o.MaxStates)
	}
	fmt.Fprintf(w, "%d states, %d run ends (%s); %d partial runs, %d events, %s\n",
		res.States, res.Terminals, complete, res.Runs, res.Events, res.Elapsed.Round(time.Millisecond))
	if res.Nondeterministic {
		fmt.Fprintln(w, "Choices are left to an adversary: [a, b] is the minimum and maximum over all schedulers.")
	}
	if res.Bounded {
		fmt.Fprintln(w, "Some cycles were too large to solve exactly: the values they reach are bounded by sound value iteration (--json has the bounds as fractions).")
	}
	fmt.Fprintln(w, "\nOutcomes")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range res.Outcomes {
		line := "  " + string(r.Outcome) + "\t" + intervalText(r.P)
		switch name := files[string(r.Outcome)]; {
		case name != "":
			line += "\tcounterexample " + name + " (its random choices: " + r.PathP.RatString() + ")"
		case r.Outcome == bus.OutcomeBudgetExhausted && r.Path == nil:
			line += "\truns that never end (fwsim run stops them at its event budget)"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if len(res.Deadlines) > 0 {
		fmt.Fprintln(w, "\nDeadlines (contention_ns over the contended runs unless choices are left to an adversary)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range res.Deadlines {
			line := fmt.Sprintf("  %s ≤ %s\t%s", d.Metric, time.Duration(d.DeadlineNs), intervalText(d.P))
			if name := files[missKey(d)]; name != "" {
				line += "\ta likeliest miss " + name + " (its random choices: " + d.MissP.RatString() + ")"
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nExpected values (over the runs that reach each metric; times in ns)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range res.Expected {
		if x.Defined {
			fmt.Fprintf(tw, "  %s\t%s\n", x.Metric, intervalText(x.Value))
		} else {
			fmt.Fprintf(tw, "  %s\t-\t%s\n", x.Metric, x.Why)
		}
	}
	tw.Flush()
}

// exploreSettings says how the bus was explored, for the report's header.
func exploreSettings(b *busFlags, topo *bus.Topology, o explore.Options) string {
	profile := cmp.Or(o.Bus.Profile, topo.Profile, phy.DefaultProfile)
	bias := big.NewRat(1, 2)
	if o.CoinBias != nil {
		bias = o.CoinBias
	}
	phases := "fixed by the seed"
	if o.Space.PhaseGrid > 0 {
		phases = "grid:" + strconv.Itoa(o.Space.PhaseGrid)
	}
	s := fmt.Sprintf("profile %s, clock %s, timing %s, policy %s, coin bias %s, phases %s, seed %d",
		profile, b.clock.value, o.Timing, b.policy.value, bias.RatString(), phases, o.Bus.Seed)
	if win := o.Space.EventWindow; win != nil {
		s += fmt.Sprintf(", events from %d to %d ns", win.From, win.To)
	}
	return s
}

// metricDeadlines reads explore's --deadline: DUR for every time metric,
// METRIC=DUR for one.
type metricDeadlines struct{ list []explore.Deadline }

func (l *metricDeadlines) String() string {
	parts := make([]string, len(l.list))
	for i, d := range l.list {
		parts[i] = d.D.String()
		if d.Metric != "" {
			parts[i] = d.Metric + "=" + parts[i]
		}
	}
	return strings.Join(parts, ",")
}

func (l *metricDeadlines) Set(s string) error {
	metric, dur, named := strings.Cut(s, "=")
	if !named {
		metric, dur = "", s
	} else if !slices.Contains(bus.TimeMetrics, metric) {
		return fmt.Errorf("metric %q: want %s, or no METRIC= for every one", metric, strings.Join(bus.TimeMetrics, ", "))
	}
	var ds durationList
	if err := ds.Set(dur); err != nil {
		return err
	}
	d := explore.Deadline{Metric: metric, D: ds[0]}
	if slices.Contains(l.list, d) {
		return fmt.Errorf("the deadline %s is given twice; want each once", s)
	}
	l.list = append(l.list, d)
	return nil
}
