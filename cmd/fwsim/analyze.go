package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/view"
)

const analyzeIntro = `Usage: fwsim analyze [--topology FILE | --gen SPEC] [--runs N] [flags]

Monte Carlo timing analysis: runs N seeded bus initialisations of one
topology and reports, for each metric, mean, standard deviation, min,
percentiles (50, 90, 99, 99.9), max and the 95% confidence interval of the
mean; for every --deadline the probability it is met, with its 95% Wilson
interval (--deadline DUR: of every time metric; METRIC=DUR: of that one, as
in fwsim explore); how often each node became root; and every failure by
outcome. Run i uses a seed derived from --seed and i (the CSV lists it; fwsim
run --seed with it replays the run), so the result does not depend on
--workers or --shard: the same flags give the same bytes.

Metrics, of the first bus initialisation, from its first R0 entry:
  tree_id_ns         the last node left tree identify
  self_id_ns         the last self-ID packet arrived everywhere
  contention_ns      root contention, from the first ROOT_CONTENTION seen on
                     the link until its child sees the parent's handshake
                     (runs with a contention only)
  contention_rounds  the rounds of that contention (0 without one)
docs/timing.md explains the method and how to reproduce the published
root-contention results.

With --shard K/N only the K-th of N slices of the runs is run and the output is
always JSON, for fwsim merge.

Before the runs start, a pilot of the first runs estimates how long they take
here; beyond --max-duration the command refuses to start. The pilot changes
no output.

Exit status: 0 every run ended ok and met every deadline; 1 some run failed or
missed a deadline (a shard always exits 0: fwsim merge judges); 2 usage or
input error, or runs that would take longer than --max-duration.`

// analyzeFlags are the flags that choose what an analysis runs; sweep and
// report take them too.
type analyzeFlags struct {
	bus         busFlags
	runs        int
	workers     int
	deadlines   metricDeadlines
	quiet       bool
	maxDuration maxDuration
	setupSeed   uint64
	traffic     trafficFlags
}

// register adds the flags to fs; order lists them for help.
func (a *analyzeFlags) register(fs *flags) (order []string) {
	order = a.bus.register(fs, "tree:63:3", "derive every run's seed from `S`, from 1, e.g. --seed 42")
	fs.IntVar(&a.runs, "runs", 1000,
		"run `N` initialisations, at most 2^53 (the most the statistics count exactly),\ne.g. --runs 100000")
	fs.IntVar(&a.workers, "workers", 0,
		"run on `W` cores; the result does not depend on it, e.g. --workers 2\n(default: every core)")
	fs.Var(&a.deadlines, "deadline",
		"report the probability that each time metric is at most `DUR`, or only METRIC\n"+
			"(tree_id_ns, self_id_ns, contention_ns) with METRIC=DUR; repeat for several,\n"+
			"e.g. --deadline 2us --deadline contention_ns=4us")
	fs.BoolVar(&a.quiet, "quiet", false,
		"draw no progress bar (drawn on stderr only when it is a terminal),\ne.g. --quiet 2>log")
	a.maxDuration.register(fs, "refuse to start when the runs would take longer than `D` here, as timed from\n"+
		"the first runs before any output; 0 for no limit, e.g. --max-duration 72h")
	fs.Var(uint64Value{p: &a.setupSeed, positive: true}, "setup-seed",
		"draw every run's clock phases and timer lengths from `S`, so that runs differ\n"+
			"only in their coins and waits: the bus fwsim explore --seed S explores,\ne.g. --setup-seed 1 (default: each run draws its own)")
	a.traffic.register(fs)
	return append(order[:2:2], append([]string{"runs", "workers", "deadline", "quiet", "max-duration"}, append(order[2:], append([]string{"setup-seed"}, a.traffic.names()...)...)...)...)
}

// progress is the progress bar the flags ask for, nil for none.
func (a *analyzeFlags) progress(e *env) func(done, total int) {
	return newProgress(e, a.quiet)
}

// config loads the topology and returns the analysis the flags ask for.
// fs reports errors: the returned code is non-zero when it did.
func (a *analyzeFlags) config(e *env, fs *flags) (analysis.Config, int) {
	if err := a.bus.check(); err != nil {
		return analysis.Config{}, fs.usageError(e, "%v", err)
	}
	if a.runs < 1 {
		return analysis.Config{}, fs.usageError(e, "--runs %d: want at least 1", a.runs)
	}
	if a.runs > analysis.MaxRuns {
		return analysis.Config{}, fs.usageError(e, "--runs %d: at most %d, because %s", a.runs, analysis.MaxRuns, analysis.MaxRunsReason)
	}
	if a.workers < 0 {
		return analysis.Config{}, fs.usageError(e, "--workers %d: want 0 (every core) or more", a.workers)
	}
	if msg := a.maxDuration.check(); msg != "" {
		return analysis.Config{}, fs.usageError(e, "%s", msg)
	}
	if err := a.traffic.check(fs); err != nil {
		return analysis.Config{}, fs.usageError(e, "%v", err)
	}
	o := a.bus.options()
	topo, source, err := a.bus.load(e.ctx)
	if err == nil {
		topo, err = a.traffic.apply(topo, bus.ResolveOptions{Profile: o.Profile, AllowOutOfSpec: o.AllowOutOfSpec})
	}
	if err != nil {
		return analysis.Config{}, fs.inputError(e, err)
	}
	if fs.isSet("setup-seed") {
		o.SetupSeed = &a.setupSeed
	}
	o.Until = a.traffic.until
	return analysis.Config{Topology: topo, Source: source, Options: o, Runs: a.runs,
		Workers: a.workers, Deadlines: a.deadlines.list}, exitOK
}

// checkDuration refuses work that would outlast --max-duration, before it
// starts: analysis.Estimate times the analyses cfgs, which run one after
// the other, and what names them in the message ("1000 runs"). Once the
// estimate is over the limit the rest go untimed, and the message says "at
// least". The estimate changes nothing the analyses give.
func (a *analyzeFlags) checkDuration(ctx context.Context, e *env, fs *flags, what string, cfgs ...analysis.Config) int {
	if a.maxDuration.limit == 0 {
		return exitOK
	}
	total, lowerBound, failed, err := analysis.EstimateTotal(ctx, a.maxDuration.limit, cfgs...)
	if err != nil {
		return a.runError(e, fs, cfgs[failed], err)
	}
	if msg := a.maxDuration.refusal(what, total, lowerBound, "timed from the first runs", "give a longer --max-duration, or 0 for no limit"); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	return exitOK
}

// runError reports an error of analysis.Run as an input error, explained as
// run explains it.
func (a *analyzeFlags) runError(e *env, fs *flags, cfg analysis.Config, err error) int {
	return fs.inputError(e, a.bus.explain(cfg.Topology, err))
}

func runAnalyze(ctx context.Context, e *env, args []string) (code int) {
	fs := newFlags("analyze", analyzeIntro,
		"fwsim analyze --gen pair --runs 10000 --deadline contention_ns=1us   # exit 1: some last longer",
		"fwsim analyze --gen tree:63:3 --runs 1000 --json > tree63.json",
		"fwsim analyze --topology examples/prism-pair.yaml --allow-out-of-spec --timing max --clock ideal \\\n"+
			"      --runs 10000 --deadline 2us --deadline 4us   # exit 1: see docs/timing.md",
		"fwsim analyze --gen pair --runs 10000 --shard 1/2 > shard-1.json",
		"fwsim analyze --gen pair --runs 10000 --shard 2/2 > shard-2.json",
		"fwsim analyze --gen chain:5 --runs 500 --csv runs.csv --quiet",
	)
	var (
		a          analyzeFlags
		shard      string
		jsonOutput bool
		csvFile    string
	)
	order := a.register(fs)
	fs.StringVar(&shard, "shard", "",
		"run only the `K/N`-th slice of the runs and write it as JSON for fwsim merge,\ne.g. --shard 3/8")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .metrics")
	fs.StringVar(&csvFile, "csv", "",
		"also write one row per run to `FILE`: run, seed, outcome, the metrics, root;\n- writes them to standard output instead of the summary, e.g. --csv runs.csv")
	fs.order(append(order, "shard", "json", "csv")...)
	if code, done := fs.parse(e, args); done {
		return code
	}
	cfg, code := a.config(e, fs)
	if code != exitOK {
		return code
	}
	if shard != "" {
		s, err := analysis.ParseShard(shard)
		if err != nil {
			return fs.usageError(e, "--shard %s: want K/N with 1 ≤ K ≤ N, e.g. 3/8", shard)
		}
		if s.N > cfg.Runs {
			return fs.usageError(e, "--shard %s: %d shards of %d runs leave some empty", shard, s.N, cfg.Runs)
		}
		cfg.Shard, jsonOutput = s, true
	}
	what := fmt.Sprintf("%d runs", cfg.Runs)
	if shard != "" {
		what = fmt.Sprintf("shard %s of %d runs", cfg.Shard, cfg.Runs)
	}
	if code := a.checkDuration(ctx, e, fs, what, cfg); code != exitOK {
		return code
	}
	csvToStdout := csvFile == "-"
	if csvToStdout && jsonOutput {
		jsonFlag := "--json" // or --shard, whose slice is JSON on standard output
		if shard != "" {
			jsonFlag = "--shard"
		}
		return fs.usageError(e, "--csv - and %s both want standard output: give --csv a file name", jsonFlag)
	}
	if csvToStdout && isTerminal(e.stdout.w) {
		// The rows stream to the terminal as the runs finish: a bar
		// redrawn between them would break their lines.
		a.quiet = true
	}
	out := outputs{env: e, dash: true}
	defer out.abort()
	var rows *analysis.RunCSV
	if csvFile != "" {
		f, err := out.create("csv", csvFile)
		if err != nil {
			return fs.inputError(e, err)
		}
		h, err := analysis.HeaderOf(cfg)
		if err != nil {
			return fs.inputError(e, err)
		}
		rows = analysis.NewRunCSV(f, analysis.CSVPreamble(commandLine("analyze", args), h))
		cfg.Each = rows.Write
	}
	sum, err := analysis.Run(ctx, cfg, a.progress(e))
	if err != nil {
		return a.runError(e, fs, cfg, err)
	}
	if rows != nil {
		if err := rows.Close(); err != nil {
			return fs.outputError(e, err)
		}
	}
	if !csvToStdout {
		if err := writeSummary(e.stdout, sum, jsonOutput); err != nil {
			return fs.inputError(e, err)
		}
	}
	if err := out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	if cfg.Shard.N > 0 {
		return exitOK
	}
	return verdict(e, fs, sum)
}

// writeSummary writes the summary as text or as one indented JSON object.
func writeSummary(w io.Writer, s *analysis.Summary, asJSON bool) error {
	if !asJSON {
		view.WriteSummaryText(w, s)
		return nil
	}
	s.FwsimVersion = bus.FwsimVersion()
	return analysis.WriteJSON(w, s)
}

// verdict says on stderr what failed and returns the exit code: 1 when a run
// failed or missed a deadline, as a missed deadline is a failure.
func verdict(e *env, fs *flags, s *analysis.Summary) int {
	why := s.Shortfalls()
	if len(why) == 0 {
		return exitOK
	}
	fmt.Fprintf(e.stderr, "fwsim %s: %s\n", fs.name, strings.Join(why, "; "))
	return exitFailure
}

// metricDeadlines reads --deadline of analyze and explore: DUR for every
// time metric, METRIC=DUR for one. It refuses a deadline asked for twice,
// also by one of every metric and one of a metric.
type metricDeadlines struct{ list []bus.MetricDeadline }

func (l *metricDeadlines) String() string {
	parts := make([]string, len(l.list))
	for i, d := range l.list {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

func (l *metricDeadlines) Set(s string) error {
	d, err := bus.ParseMetricDeadline(s)
	if err != nil {
		return err
	}
	for _, old := range l.list {
		switch {
		case old == d:
			return fmt.Errorf("the deadline %s is given twice; want each once", d)
		case old.D == d.D && (old.Metric == "" || d.Metric == ""):
			return fmt.Errorf("the deadline %s is given twice, as %s too (a DUR with no METRIC= is one of every metric); want each once", d, old)
		}
	}
	l.list = append(l.list, d)
	return nil
}
