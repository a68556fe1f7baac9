package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/view"
	"github.com/fwsim/fwsim/view/report"
)

// sweepFlagNames are the flags elect --sweep takes besides its own; the
// others (initiators, faults, modes, traces) change what the formulas count.
var sweepFlagNames = []string{"sweep", "algo", "compare", "gen", "ids", "seed", "unit-delays", "runs", "max-messages", "csv", "report", "json"}

// maxSweepSize is the largest ring or tree the generators build.
const maxSweepSize = 1 << 24

// electSweep is what --sweep and the flags that go with it ask for.
type electSweep struct {
	spec        string
	sizes       []int
	cases       []*election.SweepCase
	runs        int
	maxMessages uint64
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
	fs.StringVar(&s.csvFile, "csv", "",
		"--sweep: also write the rows as CSV to `FILE`; - writes them to standard output\ninstead of the table, e.g. --csv curves.csv")
	fs.StringVar(&s.reportFile, "report", "",
		"--sweep: also write an HTML page with the log–log plot and the table to `FILE`,\ne.g. --report curves.html")
}

// parseSizes reads n=FROM..TO into the sizes of the sweep.
func parseSizes(spec string) ([]int, error) {
	bad := func(why string) error { return fmt.Errorf("--sweep %s: %s", spec, why) }
	rest, ok := strings.CutPrefix(spec, "n=")
	if !ok {
		return nil, bad("want n=FROM..TO, e.g. n=10..100000")
	}
	from, to, ok := strings.Cut(rest, "..")
	if !ok {
		return nil, bad("want n=FROM..TO, e.g. n=10..100000")
	}
	lo, errLo := strconv.Atoi(from)
	hi, errHi := strconv.Atoi(to)
	switch {
	case errLo != nil || errHi != nil:
		return nil, bad("FROM and TO are whole numbers of nodes, e.g. n=10..100000")
	case lo < 2:
		return nil, bad("the smallest ring or tree has 2 nodes")
	case hi > maxSweepSize:
		return nil, bad(fmt.Sprintf("the largest ring or tree has %d nodes", maxSweepSize))
	case hi < lo:
		return nil, bad("TO is smaller than FROM")
	}
	sizes := []int{lo}
	for p := 1; p <= hi; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if v := m * p; v > lo && v < hi {
				sizes = append(sizes, v)
			}
		}
	}
	if hi > lo {
		sizes = append(sizes, hi)
	}
	return sizes, nil
}

// prepareSweep checks the flags of a sweep and picks its cases; it returns
// a usage error's message, or "".
func (c *electConfig) prepareSweep(fs *flags) string {
	s := &c.sweep
	if !fs.isSet("sweep") {
		for _, name := range []string{"runs", "max-messages", "csv", "report"} {
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
	if s.sizes, err = parseSizes(s.spec); err != nil {
		return err.Error()
	}
	switch {
	case c.compare && c.opts.Algo != "":
		return "--compare runs every algorithm: give it no --algo"
	case s.runs < 1:
		return fmt.Sprintf("--runs %d: want at least 1 seed for the random IDs", s.runs)
	case s.maxMessages == 0:
		return "--max-messages 0: want a positive number of messages"
	case s.csvFile == "-" && c.jsonOutput:
		return "--csv - and --json both want standard output: give --csv a file name"
	}
	gen := c.source.gen
	if gen != "" && gen != "ring" && gen != "tree" {
		return fmt.Sprintf("--gen %s with --sweep: want ring or tree, the graph family; the sweep sets the size", gen)
	}
	order, byIDs := "", fs.isSet("ids")
	if byIDs {
		if order = sweepIDOrder(c.ids); order == "" {
			return fmt.Sprintf("--ids %s with --sweep: want best, average or worst (or ascending, random, descending)", c.ids)
		}
	}
	for i := range election.SweepCases {
		k := &election.SweepCases[i]
		switch {
		case c.opts.Algo != "" && k.Algo != c.opts.Algo,
			gen != "" && k.Graph != gen,
			byIDs && k.Name != order:
			continue
		}
		s.cases = append(s.cases, k)
	}
	if len(s.cases) > 0 {
		return ""
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

func otherGraph(gen string) string {
	if gen == "ring" {
		return "tree"
	}
	return "ring"
}

// sweepIDOrder maps --ids to the case it picks: best, average or worst.
func sweepIDOrder(ids string) string {
	switch ids {
	case "best", "ascending":
		return "best"
	case "average", "random":
		return "average"
	case "worst", "descending":
		return "worst"
	}
	return ""
}

// runElectSweep is elect --sweep: the rows as a table, CSV or JSON, and the
// HTML page.
func (c *electConfig) runElectSweep(ctx context.Context, e *env, fs *flags, args []string) int {
	s := &c.sweep
	files := outputs{stdout: e.stdout}
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
	rows, err := election.Sweep(ctx, election.SweepOptions{Cases: c.sweep.cases, Sizes: c.sweep.sizes, Seed: c.opts.Seed,
		Runs: c.sweep.runs, UnitDelays: c.opts.UnitDelays, MaxMessages: c.sweep.maxMessages})
	if err != nil {
		return fs.inputError(e, err)
	}
	if csvOut != nil {
		err = writeElectSweepCSV(csvOut, rows, "# fwsim "+bus.FwsimVersion()+"\n# command: "+commandLine("elect", args)+"\n# "+c.sweepHeader()+"\n")
	}
	if err == nil && page != nil {
		err = c.sweepPage(commandLine("elect", args), rows).Write(page)
	}
	switch {
	case err != nil, s.csvFile == "-":
	case c.jsonOutput:
		err = jsonout.Write(e.stdout, c.sweepJSON(rows))
	default:
		c.writeSweepText(e.stdout, rows)
	}
	if err == nil {
		err = files.commit()
	}
	if err != nil {
		return fs.outputError(e, err)
	}
	return exitOK
}

// sweepHeader says how the sweep was set, so that the output reproduces it.
func (c *electConfig) sweepHeader() string {
	return fmt.Sprintf("sizes %s, seed %d, delays %s, %d run%s for random IDs, at most %d messages a run",
		view.JoinInts(c.sweep.sizes), c.opts.Seed, election.DelayName(c.opts.UnitDelays), c.sweep.runs, plural(c.sweep.runs), c.sweep.maxMessages)
}

func (c *electConfig) writeSweepText(w io.Writer, rows []election.SweepRow) {
	fmt.Fprintf(w, "fwsim elect --sweep: %s\n\n", strings.Replace(c.sweepHeader(), ", ", "\n", 1))
	var t table
	t.add(view.SweepColumns...)
	skipped := false
	for _, r := range rows {
		t.add(view.SweepCells(&r)...)
		skipped = skipped || r.Skipped != ""
	}
	t.write(w, "")
	if skipped {
		fmt.Fprintf(w, "\n%s\n", c.skippedNote())
	}
}

// skippedNote explains the rows marked skipped, once for the whole table.
func (c *electConfig) skippedNote() string {
	return fmt.Sprintf("skipped: the formula gives more than --max-messages %d messages; raise it to run them", c.sweep.maxMessages)
}

// writeElectSweepCSV writes the preamble of comment lines, which says what
// made the file, then a row per case and size.
func writeElectSweepCSV(w io.Writer, rows []election.SweepRow, preamble string) error {
	if _, err := io.WriteString(w, preamble); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"algo", "case", "graph", "n", "runs", "messages", "messages_ci_lo", "messages_ci_hi", "time", "time_unit", "formula", "formula_value", "skipped"})
	for _, r := range rows {
		rec := []string{r.Case.Algo, r.Case.Name, r.Case.Graph, strconv.Itoa(r.N), "", "", "", "", "", "", r.Case.Formula, view.CSVFloat(r.Formula), r.Skipped}
		if r.Skipped == "" {
			rec[4], rec[5], rec[6], rec[7] = strconv.Itoa(r.Runs), view.CSVFloat(r.Messages), view.CSVFloat(r.Lo), view.CSVFloat(r.Hi)
			rec[8], rec[9] = view.CSVFloat(r.Time), r.Unit
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// sweepPage is the HTML page: the log–log plot of every case against its
// formula, and the table.
func (c *electConfig) sweepPage(command string, rows []election.SweepRow) report.Page {
	plot := report.LogLog{Title: "Messages against the number of nodes", XLabel: "nodes n", YLabel: "messages"}
	t := report.Table{Header: view.SweepColumns}
	for _, k := range c.sweep.cases {
		measured := " (measured)"
		if k.IDs == election.Random {
			measured = fmt.Sprintf(" (mean of %d runs; band: 95%% CI)", c.sweep.runs)
		}
		cv := report.Curve{Name: k.Label() + measured, RefName: k.Label() + ": " + k.Formula}
		for _, r := range rows {
			if r.Case != k {
				continue
			}
			cv.Reference = append(cv.Reference, report.Point{X: float64(r.N), Y: r.Formula, Lo: r.Formula, Hi: r.Formula})
			if r.Skipped == "" {
				cv.Points = append(cv.Points, report.Point{X: float64(r.N), Y: r.Messages, Lo: r.Lo, Hi: r.Hi})
			}
		}
		plot.Curves = append(plot.Curves, cv)
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, view.SweepCells(&r))
	}
	return report.Page{
		Title: "fwsim elect --sweep",
		Meta:  []report.Field{{Name: "command", Value: command}, {Name: "sweep", Value: c.sweepHeader()}, {Name: "fwsim version", Value: bus.NewVersionJSON().FwsimVersion}},
		Sections: []report.Section{{
			Heading: "Message complexity",
			Text: "Every node initiates (echo: the first); the dashed lines are the textbook counts (docs/election.md). " +
				"Chang–Roberts: best is IDs ascending along the ring, worst descending, average random IDs over the runs. " +
				"Sizes whose formula exceeds the message cap are skipped and listed in the table (" + c.skippedNote() + ").",
			Figures: []report.SVG{plot.SVG()},
			Tables:  []report.Table{t},
		}},
	}
}

func (c *electConfig) sweepJSON(rows []election.SweepRow) election.SweepJSON {
	out := election.SweepJSON{VersionJSON: bus.NewVersionJSON(), Sweep: c.sweep.spec, Sizes: c.sweep.sizes, Seed: c.opts.Seed,
		Delays: election.DelayName(c.opts.UnitDelays), Runs: c.sweep.runs, MaxMessages: c.sweep.maxMessages, Rows: []election.SweepRowJSON{}}
	for _, r := range rows {
		rj := election.SweepRowJSON{Algo: r.Case.Algo, Case: jsonout.NullIfEmpty(r.Case.Name), Graph: r.Case.Graph, N: r.N,
			Formula: r.Case.Formula, FormulaValue: r.Formula, Skipped: jsonout.NullIfEmpty(r.Skipped)}
		if r.Skipped == "" {
			rj.Runs, rj.Messages, rj.Time, rj.TimeUnit = r.Runs, &r.Messages, &r.Time, &r.Unit
			if r.Runs > 1 {
				rj.MessagesCI95 = &[2]float64{r.Lo, r.Hi}
			}
		}
		out.Rows = append(out.Rows, rj)
	}
	return out
}
