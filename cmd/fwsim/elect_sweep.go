package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/view"
)

// sweepFlagNames are the flags elect --sweep takes besides its own; the
// others (initiators, faults, modes, traces) change what the formulas count.
var sweepFlagNames = []string{"sweep", "algo", "compare", "gen", "ids", "seed", "unit-delays", "runs", "max-messages", "max-duration", "max-memory", "csv", "report", "json"}

// electSweep is what --sweep and the flags that go with it ask for.
type electSweep struct {
	spec        string
	sizes       []int
	cases       []*election.SweepCase
	runs        int
	maxMessages uint64
	maxDuration maxDuration
	csvFile     string
	reportFile  string
}

// register adds the flags of --sweep to fs.
func (s *electSweep) register(fs *flags) {
	fs.StringVar(&s.spec, "sweep", "",
		"run the message-complexity curves for sizes `n=FROM..TO`: FROM, TO and every\n"+
			"1, 2 or 5 times a power of ten between; see below, e.g. --sweep n=10..100000")
	fs.IntVar(&s.runs, "runs", 10,
		"--sweep: average random IDs over `R` seeds (seed, seed+1, …), e.g. --runs 30")
	fs.Var(newUint64(&s.maxMessages, 100_000_000), "max-messages",
		"--sweep: skip a run whose formula gives more than `M` messages,\ne.g. --max-messages 1000000000")
	s.maxDuration.register(fs, "--sweep: refuse to start when the sweep would take longer than `D` here, as\n"+
		"timed from the first runs of each case before any output; 0 for no limit,\ne.g. --max-duration 2h")
	fs.StringVar(&s.csvFile, "csv", "",
		"--sweep: also write the rows as CSV to `FILE`; - writes them to standard output\ninstead of the table, e.g. --csv curves.csv")
	fs.StringVar(&s.reportFile, "report", "",
		"--sweep: also write an HTML page with the log–log plot and the table to `FILE`,\ne.g. --report curves.html")
}

// prepareSweep checks the flags of a sweep and picks its cases; it returns
// a usage error's message, or "".
func (c *electConfig) prepareSweep(fs *flags) string {
	s := &c.sweep
	if !fs.isSet("sweep") {
		for _, name := range []string{"runs", "max-messages", "max-duration", "csv", "report"} {
			if fs.isSet(name) {
				return fmt.Sprintf("--%s goes with --sweep", name)
			}
		}
		return ""
	}
	other := ""
	fs.Visit(func(f *flag.Flag) {
		if other == "" && !slices.Contains(sweepFlagNames, f.Name) {
			other = f.Name
		}
	})
	if other != "" {
		return fmt.Sprintf("--%s does not go with --sweep, which counts the messages of every node initiating", other)
	}
	var err error
	if s.sizes, err = election.ParseSizes(s.spec); err != nil {
		return err.Error()
	}
	switch {
	case c.compare && c.opts.Algo != "":
		return "--compare runs every algorithm: give it no --algo"
	case s.runs < 1:
		return fmt.Sprintf("--runs %d: want at least 1 seed for the random IDs", s.runs)
	case s.maxMessages == 0:
		return "--max-messages 0: want a positive number of messages"
	case s.maxDuration.check() != "":
		return s.maxDuration.check()
	case s.csvFile == "-" && c.jsonOutput:
		return "--csv - and --json both want standard output: give --csv a file name"
	}
	gen := c.source.gen
	if gen != "" && gen != "ring" && gen != "tree" {
		return fmt.Sprintf("--gen %s with --sweep: want ring or tree, the graph family; the sweep sets the size", gen)
	}
	order, byIDs := "", fs.isSet("ids")
	if byIDs {
		if order = election.SweepCaseName(c.ids); order == "" {
			return fmt.Sprintf("--ids %s with --sweep: want best, average or worst (or ascending, random, descending)", c.ids)
		}
	}
	if s.cases = election.SelectSweepCases(c.opts.Algo, gen, order); len(s.cases) > 0 {
		return s.checkMemory(&c.source.memory)
	}
	switch {
	case c.opts.Algo != "" && !slices.ContainsFunc(election.SweepCases, func(k election.SweepCase) bool { return k.Algo == c.opts.Algo }):
		return fmt.Sprintf("--algo %s with --sweep: want chang-roberts, echo or floodmax, the algorithms with a textbook count", c.opts.Algo)
	case byIDs && c.opts.Algo != "" && c.opts.Algo != "chang-roberts":
		return fmt.Sprintf("--ids with --sweep picks Chang–Roberts's case; %s's count does not depend on the IDs", c.opts.Algo)
	case byIDs:
		return fmt.Sprintf("--ids %s with --sweep picks a case of Chang–Roberts, which runs on a ring: not with --gen %s", c.ids, gen)
	}
	return fmt.Sprintf("--gen %s with --sweep: %s runs on a %s", gen, c.opts.Algo, otherGraph(gen))
}

// checkMemory refuses a sweep whose largest graph would not fit
// --max-memory, before any is built; it returns the message, or "".
func (s *electSweep) checkMemory(budget *memoryBudget) string {
	largest := slices.Max(s.sizes)
	for _, k := range s.cases {
		nodes, cables, err := bus.GeneratedSize(fmt.Sprintf("%s:%d", k.Graph, largest))
		if err == nil {
			err = budget.check(nodes, cables)
		}
		if err != nil {
			return fmt.Sprintf("--sweep %s: %v", s.spec, err)
		}
	}
	return ""
}

func otherGraph(gen string) string {
	if gen == "ring" {
		return "tree"
	}
	return "ring"
}

// runElectSweep is elect --sweep: the rows as a table, CSV or JSON, and the
// HTML page.
func (c *electConfig) runElectSweep(ctx context.Context, e *env, fs *flags, args []string) int {
	s := &c.sweep
	so := election.SweepOptions{Cases: s.cases, Sizes: s.sizes, Seed: c.opts.Seed,
		Runs: s.runs, UnitDelays: c.opts.UnitDelays, MaxMessages: s.maxMessages}
	if code := s.checkDuration(ctx, e, fs, so); code != exitOK {
		return code
	}
	files := outputs{env: e, dash: true}
	defer files.abort()
	var csvOut, page *outputFile
	var err error
	if s.csvFile != "" {
		if csvOut, err = files.create("csv", s.csvFile); err != nil {
			return fs.inputError(e, err)
		}
	}
	if s.reportFile != "" {
		if page, err = files.create("report", s.reportFile); err != nil {
			return fs.inputError(e, err)
		}
	}
	rows, err := election.Sweep(ctx, so)
	if err != nil {
		return fs.inputError(e, err)
	}
	if csvOut != nil {
		err = election.WriteSweepCSV(csvOut, rows, "# fwsim "+bus.FwsimVersion()+"\n# command: "+commandLine("elect", args)+"\n# "+view.ElectSweepHeader(so)+"\n")
	}
	if err == nil && page != nil {
		err = view.ElectSweepPage(commandLine("elect", args), so, rows).Write(page)
	}
	switch {
	case err != nil, s.csvFile == "-":
	case c.jsonOutput:
		err = jsonout.Write(e.stdout, election.NewSweepJSON(c.sweep.spec, so, rows))
	default:
		view.WriteElectSweepText(e.stdout, so, rows)
	}
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return fs.outputError(e, err)
	}
	return exitOK
}

// checkDuration refuses a sweep that would outlast --max-duration, before
// it starts: election.EstimateSweep times it, which changes none of its
// rows.
func (s *electSweep) checkDuration(ctx context.Context, e *env, fs *flags, so election.SweepOptions) int {
	if s.maxDuration.limit == 0 {
		return exitOK
	}
	total, atLeast, err := election.EstimateSweep(ctx, so, s.maxDuration.limit)
	if err != nil {
		return fs.inputError(e, err)
	}
	what, advice := "--sweep "+s.spec, "lower TO, or give a longer --max-duration, or 0 for no limit"
	if slices.ContainsFunc(s.cases, func(k *election.SweepCase) bool { return k.IDs == election.Random }) {
		what += fmt.Sprintf(" with --runs %d", s.runs)
		advice = "lower --runs or TO, or give a longer --max-duration, or 0 for no limit"
	}
	if msg := s.maxDuration.refusal(what, total, atLeast, "timed from the first runs of each case", advice); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	return exitOK
}
