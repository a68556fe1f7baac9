package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/view"
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

Parameters (a time takes ns, us, ms or s, a length m, cm or mm, e.g.
delay=100ns..160ns:2ns or cable_length=1m..3m:50cm; a bare number is in the
unit shown):
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
		"sweep `NAME=FROM..TO:STEP` (NAME=VALUE: one value); repeat for a grid,\ne.g. --param delay=100ns..400ns:20ns --param coin_bias=0.5")
	return append([]string{"param"}, order...)
}

// prepare builds the grid and checks every point before anything runs: a
// bad point is a usage error, not a failure found after an hour, and so is
// work that would outlast --max-duration.
func (s *sweepFlags) prepare(ctx context.Context, e *env, fs *flags, required bool) (*sweep.Run, int) {
	cfg, code := s.config(e, fs)
	if code != exitOK {
		return nil, code
	}
	if len(s.params) == 0 {
		if required {
			return nil, fs.usageError(e, "want at least one --param, e.g. --param delay=100ns..400ns:20ns")
		}
		if code := s.checkDuration(ctx, e, fs, fmt.Sprintf("%d runs", cfg.Runs), cfg); code != exitOK {
			return nil, code
		}
		return &sweep.Run{Config: cfg, Base: s.base(cfg)}, exitOK
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
	switch {
	case errors.Is(err, sweep.ErrBadParam):
		return nil, fs.usageError(e, "--param: %s", strings.TrimPrefix(err.Error(), sweep.ErrBadParam.Error()+": "))
	case err != nil: // the topology's own error, which every point takes
		return nil, s.runError(e, fs, cfg, err)
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
	return &sweep.Run{Grid: grid, Config: cfg, Base: base}, exitOK
}

func (s *sweepFlags) base(cfg analysis.Config) sweep.Base {
	return sweep.Base{Topology: cfg.Topology, Gen: s.bus.gen, Options: cfg.Options}
}

func runSweep(ctx context.Context, e *env, args []string) (code int) {
	fs := newFlags("sweep", sweepIntro,
		"fwsim sweep --gen pair --param delay=0..400:40 --runs 1000",
		"fwsim sweep --gen chain:4 --initiator n0 --param delay=100..160:4 --runs 500 --csv sweep.csv",
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
	files := outputs{env: e, dash: true}
	defer files.abort()
	var csvOut *outputFile
	if csvFile != "" {
		var err error
		if csvOut, err = files.create("csv", csvFile); err != nil {
			return fs.inputError(e, err)
		}
	}
	if err := r.Execute(ctx, s.progress(e), nil); err != nil {
		return s.runError(e, fs, r.Config, err)
	}
	var err error
	if csvOut != nil {
		var preamble string
		if preamble, err = r.CSVPreamble(commandLine("sweep", args)); err == nil {
			err = sweep.WriteCSV(csvOut, r, preamble)
		}
	}
	switch {
	case err != nil, csvToStdout:
	case jsonOutput:
		err = sweep.WriteJSON(e.stdout, r)
	default:
		view.WriteSweepText(e.stdout, r)
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
func sweepVerdict(e *env, fs *flags, r *sweep.Run) int {
	failed, points := r.FailedWithin()
	if failed == 0 {
		return exitOK
	}
	fmt.Fprintf(e.stderr, "fwsim %s: %d runs failed at %d points where the correctness conditions hold\n", fs.name, failed, points)
	return exitFailure
}
