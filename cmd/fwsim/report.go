package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
	"github.com/fwsim/fwsim/view/report"
)

const reportIntro = `Usage: fwsim report --out DIR [analyze flags] [--param NAME=FROM..TO:STEP ...]

Runs an analysis (as fwsim analyze) or, with --param, a sweep (as fwsim
sweep) and writes a self-contained report to DIR: index.html, which needs no
network and no JavaScript, with SVG plots and tables, and the raw data beside
it as CSV.

An analysis shows the CDFs of the root-contention duration and of the bus
initialisation time (self_id_ns) with every --deadline marked and its
probability, the histogram of contention rounds, and the statistics,
deadline, root and failure tables; DIR/data.csv has one row per run, as
analyze --csv writes it.

A sweep plots, against the first parameter, the share of failed runs (95%
Wilson band), the mean contention rounds, duration and bus initialisation
time (95% CI bands), with a cross at every point where the correctness
conditions fail and a dashed line at their predicted threshold; DIR/sweep.csv
has the rows of sweep --csv, DIR/data.csv one row per run, led by the point's
parameter values.

The page records the command line, seed, profile, timing corner, clock and
fwsim version that produced it.

Exit status: as fwsim analyze (without --param) or fwsim sweep (with);
2 also when DIR cannot be written.`

func runReport(ctx context.Context, e *env, args []string) (code int) {
	fs := newFlags("report", reportIntro,
		"fwsim report --out pair-report --gen pair --runs 10000 --deadline 1us --deadline 2us",
		"fwsim report --out prism --gen chain:4 --initiator n0 --profile prism --param delay=300..440:10",
		"fwsim report --out trees --gen tree:2:1 --param nodes=2..62:4 --runs 200",
	)
	var (
		s   sweepFlags
		dir string
	)
	order := s.register(fs)
	fs.StringVar(&dir, "out", "", "write index.html and the CSV files to the directory `DIR` (created if\nneeded), e.g. --out report")
	fs.order(append([]string{"out"}, order...)...)
	if code, done := fs.parse(e, args); done {
		return code
	}
	if dir == "" {
		return fs.usageError(e, "want --out DIR, the directory to write the report to")
	}
	r, code := s.prepare(ctx, e, fs, false)
	if code != exitOK {
		return code
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fs.inputError(e, fmt.Errorf("--out: %w", err))
	}
	// data.csv fills as the runs finish, so that a million runs need no
	// memory for their rows. It, sweep.csv and index.html are put in place
	// together once all are complete: a report never links a missing file,
	// and a failed report leaves the directory as it was.
	var files outputs
	defer files.abort()
	data, err := files.create("out", filepath.Join(dir, "data.csv"))
	if err != nil {
		return fs.inputError(e, err)
	}
	var sweepCSV *outputFile
	if r.grid != nil {
		if sweepCSV, err = files.create("out", filepath.Join(dir, "sweep.csv")); err != nil {
			return fs.inputError(e, err)
		}
	}
	index, err := files.create("out", filepath.Join(dir, "index.html"))
	if err != nil {
		return fs.inputError(e, err)
	}
	waves, err := files.create("out", filepath.Join(dir, firstRunVCD))
	if err != nil {
		return fs.inputError(e, err)
	}
	save, err := files.create("out", filepath.Join(dir, firstRunGTKW))
	if err != nil {
		return fs.inputError(e, err)
	}
	buffered := bufio.NewWriter(data)
	preamble, err := r.csvPreamble(commandLine("report", args))
	if err != nil {
		return fs.inputError(e, err)
	}
	buffered.WriteString(preamble) // before the prefixer, which leads rows only
	rw := &rowPrefixer{w: buffered, atLineStart: true}
	rows := newRunCSV(rw, "")
	page := report.Page{Title: "fwsim report", Meta: []report.Field{{Name: "command", Value: commandLine("report", args)}}}
	var sum *analysis.Summary
	if r.grid == nil {
		r.cfg.Each = rows.write
		sum, err = analysis.Run(ctx, r.cfg, s.progress(e))
		if err != nil {
			return s.runError(e, fs, r.cfg, err)
		}
		page.Title = "fwsim analysis of " + sum.Topology
		page.Sections = analysisSections(sum)
	} else {
		rw.prefix = paramHeader(r.grid)
		point := -1
		each := func(i int, sample analysis.Sample) error {
			if i != point {
				// The rows so far carry the previous point's values.
				if err := rows.close(); err != nil {
					return err
				}
				point, rw.prefix = i, paramValues(r.grid.Point(i))
			}
			return rows.write(sample)
		}
		if err := s.run(ctx, r, s.progress(e), each); err != nil {
			return s.runError(e, fs, r.cfg, err)
		}
		sum = r.points[0].summary
		page.Title = "fwsim sweep of " + sum.Topology
		page.Sections = sweepSections(r)
		if err := writeSweepCSV(sweepCSV, r, preamble); err != nil {
			return fs.inputError(e, err)
		}
		page.Files = append(page.Files, report.Link{Href: "sweep.csv", Text: "sweep.csv (one row per point)"})
	}
	if err := rows.close(); err != nil {
		return fs.inputError(e, err)
	}
	if err := buffered.Flush(); err != nil {
		return fs.inputError(e, err)
	}
	page.Files = append(page.Files, report.Link{Href: "data.csv", Text: "data.csv (one row per run)"})
	first := r.cfg
	if r.grid != nil {
		first = r.points[0].cfg
	}
	if err := writeFirstRun(first, waves, save); err != nil {
		return fs.inputError(e, err)
	}
	which := "run 0"
	if r.grid != nil {
		which += " of the first point"
	}
	page.Files = append(page.Files,
		report.Link{Href: firstRunVCD, Text: firstRunVCD + " (" + which + " as a waveform)"},
		report.Link{Href: firstRunGTKW, Text: firstRunGTKW + " (its GTKWave view: gtkwave " + firstRunVCD + " " + firstRunGTKW + ")"})
	page.Meta = append(page.Meta, provenance(ctx, sum, r)...)
	if err := page.Write(index); err != nil {
		return fs.inputError(e, err)
	}
	if err := files.commit(); err != nil {
		return fs.inputError(e, err)
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", index.path)
	if r.grid != nil {
		return sweepVerdict(e, fs, r)
	}
	return verdict(e, fs, sum)
}

// The waveform of a report's first run and its GTKWave save file.
const firstRunVCD, firstRunGTKW = "first-run.vcd", "first-run.gtkw"

// writeFirstRun runs run 0 of the analysis cfg again, traced, and writes it
// as a waveform and a GTKWave save file for it.
func writeFirstRun(cfg analysis.Config, waves, save io.Writer) error {
	opts := cfg.Options
	opts.Seed = analysis.RunSeed(opts.Seed, 0)
	var trace bus.Trace
	opts.Observer = trace.Record
	res, err := bus.Run(cfg.Topology, opts)
	if err != nil {
		return err
	}
	if err := view.WriteVCD(waves, res, trace.Events); err != nil {
		return err
	}
	return view.WriteGTKW(save, res, trace.Events, view.GTKWOptions{DumpFile: firstRunVCD})
}

// rowPrefixer writes prefix at the start of every line: it puts a sweep
// point's parameter values before the columns runCSV writes.
type rowPrefixer struct {
	w           io.Writer
	prefix      string
	atLineStart bool
}

func (p *rowPrefixer) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if p.atLineStart {
			if _, err := io.WriteString(p.w, p.prefix); err != nil {
				return 0, err
			}
		}
		line, rest, found := bytes.Cut(b, []byte("\n"))
		if found {
			line = b[:len(line)+1]
		}
		if _, err := p.w.Write(line); err != nil {
			return 0, err
		}
		p.atLineStart, b = found, rest
	}
	return n, nil
}

func paramHeader(g *sweep.Grid) string {
	var b strings.Builder
	for _, p := range g.Params {
		b.WriteString(p.Name + ",")
	}
	return b.String()
}

func paramValues(pt sweep.Point) string {
	var b strings.Builder
	for _, v := range pt.Values {
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
	}
	return b.String()
}

// commandLine is the command as a shell would take it back.
func commandLine(name string, args []string) string {
	parts := []string{"fwsim", name}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// provenance is what produced the report, after the command line.
func provenance(ctx context.Context, s *analysis.Summary, r *sweepRun) []report.Field {
	runs := strconv.Itoa(r.cfg.Runs)
	if r.grid != nil {
		runs += fmt.Sprintf(" at each of %d points", r.grid.Len())
	}
	return []report.Field{
		{Name: "topology", Value: s.Topology},
		{Name: "runs", Value: runs},
		{Name: "seed", Value: strconv.FormatUint(s.Seed, 10)},
		{Name: "profile", Value: s.Profile},
		{Name: "timing corner", Value: s.Timing},
		{Name: "clock", Value: s.Clock},
		{Name: "policy", Value: s.Policy},
		{Name: "coin bias", Value: strconv.FormatFloat(s.CoinBias, 'g', -1, 64)},
		{Name: "config sha256", Value: s.ConfigSHA256},
		{Name: "fwsim version", Value: bus.FwsimVersion()},
	}
}

// metricTitles names the metrics in plots and tables.
var metricTitles = map[string]string{
	bus.MetricTreeID:           "tree identify done",
	bus.MetricSelfID:           "bus initialisation (self-ID done)",
	bus.MetricContention:       "root-contention duration",
	bus.MetricContentionRounds: "root-contention rounds",
}

func metricUnit(name string) string {
	if strings.HasSuffix(name, "_ns") {
		return "ns"
	}
	return ""
}

// analysisSections are the plots and tables of one analysis.
func analysisSections(s *analysis.Summary) []report.Section {
	var figures []report.SVG
	for _, name := range []string{bus.MetricContention, bus.MetricSelfID} {
		figures = append(figures, cdfOf(s, name).SVG())
	}
	rounds := report.Histogram{Title: "Root-contention rounds", XLabel: "rounds (0: no contention)"}
	for _, b := range s.Metrics[bus.MetricContentionRounds].Hist {
		rounds.Bins = append(rounds.Bins, report.Bin{Value: int(b.Value), Count: int(b.Count)})
	}
	figures = append(figures, rounds.SVG())
	return []report.Section{
		{
			Heading: "Distributions",
			Text: "Time zero is the first R0 entry of the first bus reset. Each dashed line is a --deadline, " +
				"annotated with the probability that the metric is at most that (95% Wilson interval); runs " +
				"that never reached a metric count below no deadline, so a curve may end below 1.",
			Figures: figures,
		},
		{Heading: "Statistics", Tables: append(statsTables(s), deadlineTable(s), countTable("Roots", "node", s.Roots),
			countTable("Failures", "outcome", s.Failures))},
	}
}

func cdfOf(s *analysis.Summary, name string) report.CDF {
	m := s.Metrics[name]
	c := report.CDF{Title: "CDF of the " + metricTitles[name], XLabel: metricTitles[name], Unit: "ns", Missing: int(m.Missing)}
	for _, b := range m.Hist {
		c.Values = append(c.Values, float64(b.Value))
		c.Counts = append(c.Counts, int(b.Count))
	}
	for _, d := range s.Deadlines {
		if d.Metric == name {
			c.Deadlines = append(c.Deadlines, report.Deadline{X: float64(d.DeadlineNs), P: d.P, Lo: d.CI95[0], Hi: d.CI95[1]})
		}
	}
	return c
}

// withUnit is a column header: name, and the unit of its values if any.
func withUnit(name, unit string) string {
	if unit == "" {
		return name
	}
	return name + " (" + unit + ")"
}

// statsTables give the metrics' statistics in one table per unit, times
// then counts, so that every value column holds one unit, named in its
// header.
func statsTables(s *analysis.Summary) []report.Table {
	var times, counts []string
	for _, name := range bus.MetricNames {
		if metricUnit(name) == "ns" {
			times = append(times, name)
		} else {
			counts = append(counts, name)
		}
	}
	return []report.Table{statsTable(s, "Times", times, "ns"), statsTable(s, "Counts", counts, "")}
}

// statsTable has a row per metric of names, all of unit, written in the
// one unit its largest value needs.
func statsTable(s *analysis.Summary, caption string, names []string, unit string) report.Table {
	const perRow = 10 // eight statistics and the interval's two ends
	var values []float64
	for _, name := range names {
		m := s.Metrics[name]
		if m.N == 0 { // no statistics: "–", and no say in the unit
			values = append(values, slices.Repeat([]float64{math.NaN()}, perRow)...)
			continue
		}
		values = append(values, m.Mean, m.Std, m.Min, m.P50, m.P90, m.P99, m.P999, m.Max, m.CI95[0], m.CI95[1])
	}
	label, cells := report.FormatColumn(values, unit)
	t := report.Table{Caption: caption, Header: []string{"metric", "n", "not reached"}}
	for _, stat := range []string{"mean", "std", "min", "p50", "p90", "p99", "p99.9", "max", "95% CI of the mean"} {
		t.Header = append(t.Header, withUnit(stat, label))
	}
	for i, name := range names {
		m, v := s.Metrics[name], cells[i*perRow:(i+1)*perRow]
		interval := "–"
		if m.N > 0 {
			interval = "[" + v[8] + ", " + v[9] + "]"
		}
		row := append([]string{metricTitles[name], strconv.FormatInt(m.N, 10), strconv.FormatInt(m.Missing, 10)}, v[:8]...)
		t.Rows = append(t.Rows, append(row, interval))
	}
	return t
}

// deadlineTable writes every deadline in one unit, named in its header.
func deadlineTable(s *analysis.Summary) report.Table {
	deadlines := make([]float64, len(s.Deadlines))
	for i, d := range s.Deadlines {
		deadlines[i] = float64(d.DeadlineNs)
	}
	unit, cells := report.FormatColumn(deadlines, "ns")
	t := report.Table{Caption: "Deadlines", Header: []string{"metric", withUnit("deadline", unit), "P(at most)", "95% Wilson interval", "met"}}
	for i, d := range s.Deadlines {
		t.Rows = append(t.Rows, []string{metricTitles[d.Metric], cells[i], strconv.FormatFloat(d.P, 'f', 5, 64),
			fmt.Sprintf("[%.5f, %.5f]", d.CI95[0], d.CI95[1]), fmt.Sprintf("%d of %d", d.Met, d.Of)})
	}
	return t
}

func countTable(caption, key string, m map[string]int64) report.Table {
	t := report.Table{Caption: caption, Header: []string{key, "runs"}}
	for _, k := range sortedKeys(m) {
		t.Rows = append(t.Rows, []string{k, strconv.FormatInt(m[k], 10)})
	}
	return t
}

// sweepSections are the plots and the table of a sweep.
func sweepSections(r *sweepRun) []report.Section {
	x := r.grid.Params[0]
	xLabel := x.Name
	var marks []report.Mark
	// The predicted threshold is one line only when the windows do not vary.
	c0 := r.points[0].conditions
	sameWindows := true
	for _, p := range r.points {
		sameWindows = sameWindows && p.conditions.Fast == c0.Fast && p.conditions.Slow == c0.Slow
	}
	threshold := sweep.MaxDelayNs(c0.Fast, c0.Slow)
	switch {
	case x.Name == "delay" && sameWindows:
		xLabel = "one-way cable delay"
		marks = []report.Mark{{X: threshold, Label: "predicted threshold " + report.FormatValue(threshold, "ns")}}
	case x.Name == "cable_length" && sameWindows:
		xLabel = "cable length"
		m := threshold / phy.CableNsPerMetre
		marks = []report.Mark{{X: m, Label: "predicted threshold " + report.FormatValue(m, "m")}}
	}
	lines := func(title, yLabel, yUnit, band string, value func(p gridPoint) report.Point) report.SVG {
		return report.Lines{Title: title, XLabel: xLabel, XUnit: x.Unit, YLabel: yLabel, YUnit: yUnit,
			Series: r.series(band, value), Marks: marks}.SVG()
	}
	metric := func(name string) func(p gridPoint) report.Point {
		return func(p gridPoint) report.Point {
			m := p.summary.Metrics[name]
			if m.N == 0 {
				return report.Point{Y: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			}
			return report.Point{Y: m.Mean, Lo: m.CI95[0], Hi: m.CI95[1]}
		}
	}
	figures := []report.SVG{
		lines("Failed runs against "+x.Name, "share of runs failed", "", "95% Wilson", func(p gridPoint) report.Point {
			failed, runs := p.summary.Failed(), int64(p.summary.Runs)
			w := stats.Wilson(failed, runs)
			return report.Point{Y: float64(failed) / float64(runs), Lo: w[0], Hi: w[1]}
		}),
		lines("Mean root-contention rounds against "+x.Name, "rounds (0: no contention)", "", "95% CI", metric(bus.MetricContentionRounds)),
		lines("Mean root-contention duration against "+x.Name, "contention duration", "ns", "95% CI", metric(bus.MetricContention)),
		lines("Mean bus initialisation time against "+x.Name, "self-ID done", "ns", "95% CI", metric(bus.MetricSelfID)),
	}
	text := fmt.Sprintf("Conditions of root contention: 2·delay < FAST.min and 2·delay + FAST.max < SLOW.min, delay "+
		"being the longest one-way cable delay. A cross marks a point where they fail. Bands are 95%% intervals: "+
		"Wilson for the failed share, of the mean elsewhere. %d runs per point, seed %d at every point.",
		r.cfg.Runs, r.points[0].summary.Seed)
	return []report.Section{
		{Heading: "Sweep", Text: text, Figures: figures},
		{Heading: "Points", Tables: []report.Table{r.pointTable()}},
	}
}

// series groups the points into one series per combination of the
// parameters after the first, which is the x axis; band names the interval
// in the legend.
func (r *sweepRun) series(band string, value func(p gridPoint) report.Point) []report.Series {
	var out []report.Series
	index := map[string]int{}
	for _, p := range r.points {
		var name []string
		for i, param := range r.grid.Params[1:] {
			name = append(name, param.Name+"="+strconv.FormatFloat(p.point.Values[i+1], 'g', -1, 64))
		}
		key := strings.Join(name, " ")
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			label := key // the other parameters' values name a line of their own
			if label == "" {
				label = "measured"
			}
			out = append(out, report.Series{Name: label + " (band: " + band + ")"})
		}
		pt := value(p)
		pt.X, pt.Violated = p.point.Values[0], !p.conditions.Hold()
		out[i].Points = append(out[i].Points, pt)
	}
	return out
}

func (r *sweepRun) pointTable() report.Table {
	// Each column holds one unit, named in its header.
	var columns [][]string
	var headers []string
	column := func(name, unit string, value func(p gridPoint) float64) {
		values := make([]float64, len(r.points))
		for i, p := range r.points {
			values[i] = value(p)
		}
		label, cells := report.FormatColumn(values, unit)
		columns = append(columns, cells)
		headers = append(headers, withUnit(name, label))
	}
	text := func(name string, value func(p gridPoint) string) {
		cells := make([]string, len(r.points))
		for i, p := range r.points {
			cells[i] = value(p)
		}
		columns = append(columns, cells)
		headers = append(headers, name)
	}
	mean := func(name string) func(p gridPoint) float64 {
		return func(p gridPoint) float64 {
			if m := p.summary.Metrics[name]; m.N > 0 {
				return m.Mean
			}
			return math.NaN()
		}
	}
	for i, param := range r.grid.Params {
		column(param.Name, param.Unit, func(p gridPoint) float64 { return p.point.Values[i] })
	}
	column("cable delay", "ns", func(p gridPoint) float64 { return float64(p.conditions.DelayNs) })
	text("2·delay < FAST.min", func(p gridPoint) string { return holdsText(p.conditions.RoundTrip) })
	text("2·delay + FAST.max < SLOW.min", func(p gridPoint) string { return holdsText(p.conditions.Separation) })
	text("runs", func(p gridPoint) string { return strconv.Itoa(p.summary.Runs) })
	text("failed", func(p gridPoint) string { return failureText(p.summary) })
	column("mean rounds", "", mean(bus.MetricContentionRounds))
	column("mean contention", "ns", mean(bus.MetricContention))
	column("mean self-ID done", "ns", mean(bus.MetricSelfID))
	t := report.Table{Header: headers}
	for i := range r.points {
		row := make([]string, len(columns))
		for c := range columns {
			row[c] = columns[c][i]
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
