package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/bus"
)

var sweepIntro = `Usage: fwsim sweep --param NAME=FROM..TO:STEP [--param ...] [analyze flags] [--csv FILE] [--json]

Runs the analysis of fwsim analyze at every point of a parameter grid and
writes one row per point: the parameter values; the cable delay and the
root-contention windows there; whether the correctness conditions of root
contention hold,
  round_trip   2·delay < FAST.min
  separation   2·delay + FAST.max < SLOW.min
(delay: the longest one-way cable delay); the runs; each metric's mean, 95%
CI and p99; every deadline's probability; and the failures by outcome. A
failure at a point is a result, not an error; points beyond the standard's
limits (a cable longer than 4.5 m) run all the same and out_of_spec says why.
Several --param flags make a grid, the last varying fastest. Every point
uses the same --seed, so neighbouring points differ by the parameter only.
docs/timing.md shows the sweeps that find the conditions' thresholds.

Parameters:
` + indent(sweep.Names(), "  ") + `

Exit status: 0 no run failed at a point where the conditions hold; 1 some
did; 2 usage or input error.`

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// paramList is the repeatable --param flag, parsed as it is read so that a
// bad one is reported with its own error.
type paramList []sweep.Param

func (l *paramList) String() string { return "" }

func (l *paramList) Set(s string) error {
	p, err := sweep.Parse(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), sweep.ErrBadParam.Error()+" "))
	}
	*l = append(*l, p)
	return nil
}

// sweepFlags are the flags sweep and report share: the analysis and the
// grid.
type sweepFlags struct {
	analyzeFlags
	params paramList
}

// register adds the flags to fs and returns their help order.
func (s *sweepFlags) register(fs *flags) []string {
	order := s.analyzeFlags.register(fs)
	fs.Var(&s.params, "param",
		"sweep `NAME=FROM..TO:STEP` (NAME=VALUE: one value); repeat for a grid,\ne.g. --param delay=0..400:20 --param coin_bias=0.5")
	return append([]string{"param"}, order...)
}

// gridPoint is what one point of a sweep found.
type gridPoint struct {
	point      sweep.Point
	conditions sweep.Conditions
	outOfSpec  string          // the first reason the point is out of spec, "" if in spec
	cfg        analysis.Config // the point's analysis
	summary    *analysis.Summary
}

// sweepRun is a whole sweep: the grid, the analysis it repeats and what each
// point found.
type sweepRun struct {
	grid   *sweep.Grid
	cfg    analysis.Config
	points []gridPoint
}

// prepare builds the grid and checks every point before anything runs: a
// bad point is a usage error, not a failure found after an hour, and so is
// work that would outlast --max-duration.
func (s *sweepFlags) prepare(ctx context.Context, e *env, fs *flags, required bool) (*sweepRun, int) {
	cfg, code := s.config(e, fs)
	if code != exitOK {
		return nil, code
	}
	if len(s.params) == 0 {
		if required {
			return nil, fs.usageError(e, "want at least one --param, e.g. --param delay=0..400:20")
		}
		if code := s.checkDuration(ctx, e, fs, fmt.Sprintf("%d runs", cfg.Runs), cfg); code != exitOK {
			return nil, code
		}
		return &sweepRun{cfg: cfg}, exitOK
	}
	for _, p := range s.params {
		if p.Name == "coin_bias" && fs.isSet("coin-bias") {
			return nil, fs.usageError(e, "--coin-bias and --param coin_bias both set the coin's bias; give one")
		}
	}
	grid, err := sweep.NewGrid(s.params)
	if err == nil {
		err = s.base(cfg).Check(grid)
	}
	if err != nil {
		return nil, fs.usageError(e, "--param: %s", strings.TrimPrefix(err.Error(), sweep.ErrBadParam.Error()+": "))
	}
	// The progress bar counts the runs of every point in one total: held to
	// MaxRuns, as the runs of one analysis are, its arithmetic (done·100)
	// stays far from overflowing.
	if most := analysis.MaxRuns / grid.Len(); cfg.Runs > most {
		return nil, fs.usageError(e, "--runs %d: at most %d at %d points, because a sweep counts the runs of all its points in one total, held to the 2^53 of one analysis",
			cfg.Runs, most, grid.Len())
	}
	points := make([]analysis.Config, grid.Len())
	base := s.base(cfg)
	for i := range points {
		points[i] = cfg
		// Check has applied every point already.
		points[i].Topology, points[i].Options, _ = base.Apply(grid.Point(i))
	}
	if code := s.checkDuration(ctx, e, fs, fmt.Sprintf("%d points × %d runs", grid.Len(), cfg.Runs), points...); code != exitOK {
		return nil, code
	}
	return &sweepRun{grid: grid, cfg: cfg}, exitOK
}

func (s *sweepFlags) base(cfg analysis.Config) sweep.Base {
	return sweep.Base{Topology: cfg.Topology, Gen: s.bus.gen, Options: cfg.Options}
}

// run analyses every point in grid order. progress sees the runs of the
// whole sweep; each, when not nil, gets every run's sample and its point.
func (s *sweepFlags) run(ctx context.Context, r *sweepRun, progress func(done, total int), each func(point int, sample analysis.Sample) error) error {
	base := s.base(r.cfg)
	total := r.grid.Len() * r.cfg.Runs
	for i := range r.grid.Len() {
		pt := r.grid.Point(i)
		topo, opts, err := base.Apply(pt)
		if err != nil {
			return err
		}
		gp := gridPoint{point: pt}
		if gp.conditions, err = sweep.Evaluate(topo, opts); err != nil {
			return err
		}
		if err := topo.Validate(bus.ResolveOptions{Profile: opts.Profile}); errors.Is(err, bus.ErrOutOfSpec) {
			gp.outOfSpec = err.Error()
		}
		cfg := r.cfg
		cfg.Topology, cfg.Options = topo, opts
		gp.cfg = cfg
		if each != nil {
			cfg.Each = func(sample analysis.Sample) error { return each(i, sample) }
		}
		var pointProgress func(done, total int)
		if progress != nil {
			pointProgress = func(done, _ int) { progress(i*r.cfg.Runs+done, total) }
		}
		if gp.summary, err = analysis.Run(ctx, cfg, pointProgress); err != nil {
			return fmt.Errorf("at %s: %w", pt, err)
		}
		r.points = append(r.points, gp)
	}
	return nil
}

// failedWithin counts the runs that failed at points where the conditions
// hold: the failures the protocol should never have.
func (r *sweepRun) failedWithin() (failed int64, points int) {
	for _, p := range r.points {
		if n := p.summary.Failed(); n > 0 && p.conditions.Hold() {
			failed += n
			points++
		}
	}
	return failed, points
}

func runSweep(ctx context.Context, e *env, args []string) (code int) {
	fs := newFlags("sweep", sweepIntro,
		"fwsim sweep --gen pair --param delay=0..400:20 --runs 2000",
		"fwsim sweep --gen chain:4 --initiator n0 --param delay=100..160:2 --runs 1000 --csv sweep.csv",
		"fwsim sweep --gen pair --profile prism --param fast_max=800..900:20 --param coin_bias=0.3..0.7:0.2",
		"fwsim sweep --gen tree:2:1 --param nodes=2..62:10 --runs 200 --deadline 300us",
	)
	var (
		s          sweepFlags
		csvFile    string
		jsonOutput bool
	)
	order := s.register(fs)
	fs.StringVar(&csvFile, "csv", "", "also write the rows as CSV to `FILE`; - writes them to standard output instead\nof the table, e.g. --csv sweep.csv")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text table, e.g. --json | jq '.points[0]'")
	fs.order(append(order, "csv", "json")...)
	if code, done := fs.parse(e, args); done {
		return code
	}
	csvToStdout := csvFile == "-"
	if csvToStdout && jsonOutput {
		return fs.usageError(e, "--csv - and --json both want standard output: give --csv a file name")
	}
	r, code := s.prepare(ctx, e, fs, true)
	if code != exitOK {
		return code
	}
	files := outputs{stdout: e.stdout}
	defer files.abort()
	var csvOut *outputFile
	if csvFile != "" {
		var err error
		if csvOut, err = files.create("csv", csvFile); err != nil {
			return fs.inputError(e, err)
		}
	}
	if err := s.run(ctx, r, s.progress(e), nil); err != nil {
		return s.runError(e, fs, r.cfg, err)
	}
	var err error
	if csvOut != nil {
		var preamble string
		if preamble, err = r.csvPreamble(commandLine("sweep", args)); err == nil {
			err = writeSweepCSV(csvOut, r, preamble)
		}
	}
	switch {
	case err != nil, csvToStdout:
	case jsonOutput:
		err = writeSweepJSON(e.stdout, r)
	default:
		writeSweepText(e.stdout, r)
	}
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	return sweepVerdict(e, fs, r)
}

// sweepVerdict exits 1 when runs failed where the conditions hold; failures
// beyond them are what a sweep is for.
func sweepVerdict(e *env, fs *flags, r *sweepRun) int {
	failed, points := r.failedWithin()
	if failed == 0 {
		return exitOK
	}
	fmt.Fprintf(e.stderr, "fwsim %s: %d runs failed at %d points where the correctness conditions hold\n", fs.name, failed, points)
	return exitFailure
}

// sweepJSON is the --json output; field names are stable.
type sweepJSON struct {
	bus.VersionJSON
	Topology string      `json:"topology"` // the file, "gen SPEC" or "default"
	Seed     uint64      `json:"seed"`     // the analysis seed, the same at every point
	Runs     int         `json:"runs"`     // per point
	Profile  string      `json:"profile"`  // the PHY timing profile, e.g. 1394a-2000
	Timing   string      `json:"timing"`   // the corner of the back-off windows: random, min or max
	Clock    string      `json:"clock"`    // cycle or ideal
	Policy   string      `json:"policy"`   // how a node in root contention picks its wait: coin or larger-id-wins
	Params   []paramJSON `json:"params"`   // the --param flags, the last varying fastest
	Points   []pointJSON `json:"points"`   // every point of the grid, in order
}

// paramJSON is one --param NAME=FROM..TO:STEP.
type paramJSON struct {
	Name string  `json:"name"` // the parameter, as fwsim help sweep lists it
	Unit string  `json:"unit"` // the unit of from, to, step and the point values: ns, m, or "" for none
	From float64 `json:"from"` // the first value
	To   float64 `json:"to"`   // the last value
	Step float64 `json:"step"` // the distance between values
}

// pointJSON is the analysis at one point of the grid.
type pointJSON struct {
	Values   map[string]float64 `json:"values"`    // each parameter's value here, keyed by name
	DelayNs  int64              `json:"delay_ns"`  // the longest one-way cable delay in ns
	FastNs   [2]int64           `json:"fast_ns"`   // the FAST back-off window [min, max] in ns
	SlowNs   [2]int64           `json:"slow_ns"`   // the SLOW back-off window [min, max] in ns
	CoinBias float64            `json:"coin_bias"` // the probability of FAST
	// ThresholdNs is the delay below which the conditions hold with these
	// windows.
	ThresholdNs    float64 `json:"threshold_ns"`
	RoundTrip      bool    `json:"round_trip"`      // 2·delay < FAST min
	Separation     bool    `json:"separation"`      // 2·delay + FAST max < SLOW min
	ConditionsHold bool    `json:"conditions_hold"` // both conditions hold
	OutOfSpec      *string `json:"out_of_spec"`     // why the point is beyond the standard's limits; null when in spec
	Runs           int     `json:"runs"`            // the runs at this point
	Failed         int64   `json:"failed"`          // the runs that did not end ok
	// Failures counts the runs by failure outcome, every outcome listed.
	Failures  map[string]int64          `json:"failures"`
	Metrics   map[string]pointStatsJSON `json:"metrics"`   // keyed by metric name, as analyze's metrics
	Deadlines []analysis.Deadline       `json:"deadlines"` // as analyze's deadlines
}

// pointStatsJSON is a metric at one point, as analyze gives it.
type pointStatsJSON struct {
	N       int64      `json:"n"`       // the runs that reached the metric
	Missing int64      `json:"missing"` // the runs it applies to that never reached it
	Mean    float64    `json:"mean"`    // the sample mean, in the metric's unit
	CI95    [2]float64 `json:"ci95"`    // the 95% confidence interval of the mean
	P99     float64    `json:"p99"`     // the nearest-rank 99th percentile
}

func (r *sweepRun) pointJSON(p gridPoint) pointJSON {
	c, s := p.conditions, p.summary
	out := pointJSON{
		Values: map[string]float64{}, DelayNs: c.DelayNs,
		FastNs: [2]int64{int64(c.Fast.Min), int64(c.Fast.Max)}, SlowNs: [2]int64{int64(c.Slow.Min), int64(c.Slow.Max)},
		CoinBias: s.CoinBias, ThresholdNs: sweep.MaxDelayNs(c.Fast, c.Slow),
		RoundTrip: c.RoundTrip, Separation: c.Separation, ConditionsHold: c.Hold(),
		Runs: s.Runs, Failed: s.Failed(), Failures: s.Failures,
		Metrics: map[string]pointStatsJSON{}, Deadlines: s.Deadlines,
	}
	for i, param := range r.grid.Params {
		out.Values[param.Name] = p.point.Values[i]
	}
	if p.outOfSpec != "" {
		out.OutOfSpec = &p.outOfSpec
	}
	for name, m := range s.Metrics {
		out.Metrics[name] = pointStatsJSON{N: m.N, Missing: m.Missing, Mean: m.Mean, CI95: m.CI95, P99: m.P99}
	}
	return out
}

func writeSweepJSON(w io.Writer, r *sweepRun) error {
	first := r.points[0].summary
	out := sweepJSON{
		VersionJSON: bus.NewVersionJSON(),
		Topology:    first.Topology, Seed: first.Seed, Runs: r.cfg.Runs, Profile: first.Profile,
		Timing: first.Timing, Clock: first.Clock, Policy: first.Policy,
	}
	for _, p := range r.grid.Params {
		out.Params = append(out.Params, paramJSON{p.Name, p.Unit, p.From, p.To, p.Step})
	}
	for _, p := range r.points {
		out.Points = append(out.Points, r.pointJSON(p))
	}
	return writePairedJSON(w, out)
}

// sortedKeys lists the keys of a count map (outcomes, nodes) in a fixed
// order for columns.
func sortedKeys(m map[string]int64) []string { return slices.Sorted(maps.Keys(m)) }

// csvHeader names the columns of writeSweepCSV.
func (r *sweepRun) csvHeader() []string {
	var h []string
	for _, p := range r.grid.Params {
		h = append(h, p.Name)
	}
	h = append(h, "delay_ns", "fast_min_ns", "fast_max_ns", "slow_min_ns", "slow_max_ns", "coin_bias",
		"threshold_ns", "round_trip", "separation", "conditions_hold", "out_of_spec", "runs", "failed")
	first := r.points[0].summary
	for _, f := range sortedKeys(first.Failures) {
		h = append(h, strings.ReplaceAll(f, "-", "_"))
	}
	for _, m := range bus.MetricNames {
		h = append(h, m+"_mean", m+"_ci_lo", m+"_ci_hi", m+"_p99", m+"_missing")
	}
	for _, d := range first.Deadlines {
		h = append(h, "p_"+d.Metric+"_le_"+time.Duration(d.DeadlineNs).String())
	}
	return h
}

// csvPreamble is the comment lines of the run's CSV files: a sweep's
// (without a configuration hash, which each point has its own of) or an
// analysis'.
func (r *sweepRun) csvPreamble(command string) (string, error) {
	h, err := analysis.HeaderOf(r.cfg)
	if r.grid != nil {
		h.ConfigSHA256 = ""
	}
	return csvPreamble(command, h), err
}

// writeSweepCSV writes preamble (csvPreamble), then a row per point.
func writeSweepCSV(w io.Writer, r *sweepRun, preamble string) error {
	if _, err := io.WriteString(w, preamble); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(r.csvHeader())
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, p := range r.points {
		c, s := p.conditions, p.summary
		var row []string
		for _, v := range p.point.Values {
			row = append(row, f(v))
		}
		row = append(row, d(c.DelayNs), d(int64(c.Fast.Min)), d(int64(c.Fast.Max)), d(int64(c.Slow.Min)), d(int64(c.Slow.Max)),
			f(s.CoinBias), f(sweep.MaxDelayNs(c.Fast, c.Slow)), strconv.FormatBool(c.RoundTrip), strconv.FormatBool(c.Separation),
			strconv.FormatBool(c.Hold()), strconv.FormatBool(p.outOfSpec != ""), strconv.Itoa(s.Runs), d(s.Failed()))
		for _, name := range sortedKeys(s.Failures) {
			row = append(row, d(s.Failures[name]))
		}
		for _, name := range bus.MetricNames {
			m := s.Metrics[name]
			if m.N == 0 {
				row = append(row, "", "", "", "", d(m.Missing))
				continue
			}
			row = append(row, f(m.Mean), f(m.CI95[0]), f(m.CI95[1]), f(m.P99), d(m.Missing))
		}
		for _, dl := range s.Deadlines {
			row = append(row, f(dl.P))
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeSweepText is the default output: a header line and one line per
// point with what matters most for the conditions.
func writeSweepText(w io.Writer, r *sweepRun) {
	first := r.points[0].summary
	fmt.Fprintf(w, "sweep of %s: %d points × %d runs, seed %d, profile %s, timing %s, clock %s, policy %s\n",
		first.Topology, len(r.points), r.cfg.Runs, first.Seed, first.Profile, first.Timing, first.Clock, first.Policy)
	fmt.Fprintln(w, "conditions: rt 2·delay < FAST.min, sep 2·delay + FAST.max < SLOW.min; times in ns")
	fmt.Fprintln(w)
	var head []string
	for _, p := range r.grid.Params {
		name := p.Name
		if p.Unit != "" {
			name += "_" + p.Unit
		}
		head = append(head, fmt.Sprintf("%-14s", name))
	}
	fmt.Fprintf(w, "%s%8s %-7s %-5s %7s %8s %10s %10s %10s  %s\n", strings.Join(head, ""),
		"delay", "rt", "sep", "runs", "rounds", "contention", "tree_id", "self_id", "failures")
	for _, p := range r.points {
		for _, v := range p.point.Values {
			fmt.Fprintf(w, "%-14s", strconv.FormatFloat(v, 'g', -1, 64))
		}
		c, s := p.conditions, p.summary
		fmt.Fprintf(w, "%8d %-7s %-5s %7d %8.3f %10s %10s %10s  %s\n", c.DelayNs, holdsText(c.RoundTrip), holdsText(c.Separation),
			s.Runs, s.Metrics[bus.MetricContentionRounds].Mean, meanOf(s.Metrics[bus.MetricContention]),
			meanOf(s.Metrics[bus.MetricTreeID]), meanOf(s.Metrics[bus.MetricSelfID]), failureText(s))
	}
}

// holdsText says whether a condition holds, in the capitals of a failure
// when it does not.
func holdsText(b bool) string {
	if b {
		return "holds"
	}
	return "FAILS"
}

// meanOf writes a time metric's mean to a tenth of a ns, "-" without values.
func meanOf(m *analysis.Metric) string {
	if m.N == 0 {
		return "-"
	}
	return strconv.FormatFloat(m.Mean, 'f', 1, 64)
}

// failureText lists the outcomes that occurred, "none" if none did.
func failureText(s *analysis.Summary) string {
	list, _ := counts(s.Failures)
	return list
}
