package view

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view/report"
)

// ReportProvenance is what produced a report of the analysis s, or of
// the sweep r when it has a grid, after the command line.
func ReportProvenance(s *analysis.Summary, r *sweep.Run) []report.Field {
	runs := strconv.Itoa(r.Config.Runs)
	if r.Grid != nil {
		runs += fmt.Sprintf(" at each of %d points", r.Grid.Len())
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
	bus.MetricCollisions:       "collisions after initialisation",
	bus.MetricAcked:            "requests acknowledged",
	bus.MetricAcksLate:         "acknowledgements late",
	bus.MetricFailed:           "requests given up",
	bus.MetricBusy:             "time the bus carried data",
}

func metricUnit(name string) string {
	if strings.HasSuffix(name, "_ns") {
		return "ns"
	}
	return ""
}

// AnalysisSections are the plots and tables of one analysis.
func AnalysisSections(s *analysis.Summary) []report.Section {
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
	for _, name := range s.MetricNames() {
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
	for _, k := range sweep.SortedKeys(m) {
		t.Rows = append(t.Rows, []string{k, strconv.FormatInt(m[k], 10)})
	}
	return t
}

// SweepSections are the plots and the table of a sweep.
func SweepSections(r *sweep.Run) []report.Section {
	x := r.Grid.Params[0]
	xLabel := x.Name
	var marks []report.Mark
	// The predicted threshold is one line only when the windows do not vary.
	c0 := r.Points[0].Conditions
	sameWindows := true
	for _, p := range r.Points {
		sameWindows = sameWindows && p.Conditions.Fast == c0.Fast && p.Conditions.Slow == c0.Slow
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
	lines := func(title, yLabel, yUnit, band string, value func(p sweep.PointResult) report.Point) report.SVG {
		return report.Lines{Title: title, XLabel: xLabel, XUnit: x.Unit, YLabel: yLabel, YUnit: yUnit,
			Series: series(r, band, value), Marks: marks}.SVG()
	}
	metric := func(name string) func(p sweep.PointResult) report.Point {
		return func(p sweep.PointResult) report.Point {
			m := p.Summary.Metrics[name]
			if m.N == 0 {
				return report.Point{Y: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			}
			return report.Point{Y: m.Mean, Lo: m.CI95[0], Hi: m.CI95[1]}
		}
	}
	figures := []report.SVG{
		lines("Failed runs against "+x.Name, "share of runs failed", "", "95% Wilson", func(p sweep.PointResult) report.Point {
			failed, runs := p.Summary.Failed(), int64(p.Summary.Runs)
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
		r.Config.Runs, r.Points[0].Summary.Seed)
	return []report.Section{
		{Heading: "Sweep", Text: text, Figures: figures},
		{Heading: "Points", Tables: []report.Table{pointTable(r)}},
	}
}

// series groups the points into one series per combination of the
// parameters after the first, which is the x axis; band names the interval
// in the legend.
func series(r *sweep.Run, band string, value func(p sweep.PointResult) report.Point) []report.Series {
	var out []report.Series
	index := map[string]int{}
	for _, p := range r.Points {
		var name []string
		for i, param := range r.Grid.Params[1:] {
			name = append(name, param.Name+"="+strconv.FormatFloat(p.Point.Values[i+1], 'g', -1, 64))
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
		pt.X, pt.Violated = p.Point.Values[0], !p.Conditions.Hold()
		out[i].Points = append(out[i].Points, pt)
	}
	return out
}

func pointTable(r *sweep.Run) report.Table {
	// Each column holds one unit, named in its header.
	var columns [][]string
	var headers []string
	column := func(name, unit string, value func(p sweep.PointResult) float64) {
		values := make([]float64, len(r.Points))
		for i, p := range r.Points {
			values[i] = value(p)
		}
		label, cells := report.FormatColumn(values, unit)
		columns = append(columns, cells)
		headers = append(headers, withUnit(name, label))
	}
	text := func(name string, value func(p sweep.PointResult) string) {
		cells := make([]string, len(r.Points))
		for i, p := range r.Points {
			cells[i] = value(p)
		}
		columns = append(columns, cells)
		headers = append(headers, name)
	}
	mean := func(name string) func(p sweep.PointResult) float64 {
		return func(p sweep.PointResult) float64 {
			if m := p.Summary.Metrics[name]; m.N > 0 {
				return m.Mean
			}
			return math.NaN()
		}
	}
	for i, param := range r.Grid.Params {
		column(param.Name, param.Unit, func(p sweep.PointResult) float64 { return p.Point.Values[i] })
	}
	column("cable delay", "ns", func(p sweep.PointResult) float64 { return float64(p.Conditions.DelayNs) })
	text("2·delay < FAST.min", func(p sweep.PointResult) string { return holdsText(p.Conditions.RoundTrip) })
	text("2·delay + FAST.max < SLOW.min", func(p sweep.PointResult) string { return holdsText(p.Conditions.Separation) })
	text("runs", func(p sweep.PointResult) string { return strconv.Itoa(p.Summary.Runs) })
	text("failed", func(p sweep.PointResult) string { return failureText(p.Summary) })
	column("mean rounds", "", mean(bus.MetricContentionRounds))
	column("mean contention", "ns", mean(bus.MetricContention))
	column("mean self-ID done", "ns", mean(bus.MetricSelfID))
	t := report.Table{Header: headers}
	for i := range r.Points {
		row := make([]string, len(columns))
		for c := range columns {
			row[c] = columns[c][i]
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
