package view

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/mutex"
	"github.com/fwsim/fwsim/view/report"
)

// electHeader describes how the run was set, so that the output reproduces it.
func electHeader(res *election.Result) string {
	s := fmt.Sprintf("%s, %s, seed %d, ids %s", res.Algo, res.Mode, res.Seed, res.IDOrder)
	if res.Mode == election.Async {
		s += ", delays " + election.DelayName(res.UnitDelays)
	}
	s += OptionNames(res.Suppress, res.Announce)
	if res.Policy != "" {
		s += ", policy " + res.Policy
	}
	return s
}

// OptionNames lists the options that only some algorithms take, for a
// header.
func OptionNames(suppress, announce bool) string {
	var s string
	if suppress {
		s += ", suppress"
	}
	if announce {
		s += ", announce"
	}
	return s
}

// formatTime renders a time with its unit: delays keep three decimals (a
// delay is 1000 ticks), rounds are integers.
func formatTime(t float64, unit string) string {
	if unit == "delays" {
		return strconv.FormatFloat(t, 'f', 3, 64) + " delays"
	}
	return strconv.FormatFloat(t, 'f', 0, 64) + " " + unit
}

func WriteElectText(out io.Writer, source string, res *election.Result) {
	// A line per node and per traced message: a million nodes would be a
	// million writes to an unbuffered standard output.
	w := bufio.NewWriter(out)
	defer w.Flush()
	fmt.Fprintf(w, "fwsim elect: %s\n", electHeader(res))
	fmt.Fprintf(w, "topology: %s\n", source)
	initiators := "all nodes"
	if res.Initiators != nil {
		initiators = strings.Join(res.Initiators, ", ")
	}
	fmt.Fprintf(w, "initiators: %s\n", initiators)
	if len(res.Crashed) > 0 {
		fmt.Fprintf(w, "crashed: %s\n", strings.Join(res.Crashed, ", "))
	}
	if len(res.Crashes) > 0 {
		fmt.Fprintf(w, "crashes: %s\n", nodeTimes(res.Crashes, ", "))
	}
	if len(res.Recoveries) > 0 {
		fmt.Fprintf(w, "recoveries: %s\n", nodeTimes(res.Recoveries, ", "))
	}
	fmt.Fprintln(w)
	if res.Leader != "" {
		fmt.Fprintf(w, "leader: %s", res.Leader)
		if res.IDOrder != "none" {
			fmt.Fprintf(w, " (id %d)", res.LeaderID)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "leader: none (%s)\n", res.NoLeader)
	}
	var nodes table
	nodes.add("node", "id", "state", "knows leader")
	for _, n := range res.Nodes {
		id := strconv.FormatInt(n.ID, 10)
		if res.IDOrder == "none" {
			id = "-"
		}
		nodes.add(n.Node, id, string(n.State), orDash(n.Leader))
	}
	nodes.write(w, "  ")
	parts := make([]string, len(res.Messages.ByType))
	for i, c := range res.Messages.ByType {
		parts[i] = fmt.Sprintf("%s %d", c.Type, c.Count)
	}
	fmt.Fprintf(w, "messages: %d (%s)\n", res.Messages.Total, strings.Join(parts, ", "))
	fmt.Fprintf(w, "time: %s", formatTime(res.Time, res.TimeUnit))
	if res.Mode == election.Timed {
		fmt.Fprintf(w, " (%d ns; one delay is %.0f ns)", res.TimeNs, res.NsPerDelay)
	}
	fmt.Fprintln(w)
	if t := res.Tree; t != nil {
		writeTreeBound(w, t, len(res.Crashes) > 0)
	}
	if res.Trace != nil {
		writeTraceTable(w, res.TimeUnit, res.Trace)
	}
}

// writeTreeBound writes tree-min's height and the notes' h·RTT bound, and
// with crashes the messages their repair sent again.
func writeTreeBound(w io.Writer, t *election.TreeBound, crashes bool) {
	fmt.Fprintf(w, "height: h = %d from the core %s\n", t.Height, strings.Join(t.Core, ", "))
	fmt.Fprintf(w, "bound: wake-up %d + h·RTT = %d + %d·%d = %s (RTT = %d delays)\n",
		t.Wakeup, t.Wakeup, t.Height, election.RTT, formatTime(t.Bound, "delays"), election.RTT)
	if crashes {
		fmt.Fprintf(w, "repair: %d message%s sent again after crashes (the bound assumes none)\n", t.Repairs, Plural(t.Repairs))
	}
}

// nodeTimes lists crashes or recoveries as NODE at TIME, separated by sep.
func nodeTimes(events []election.NodeEvent, sep string) string {
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = e.Node + " at " + mutex.Format(e.At)
	}
	return strings.Join(parts, sep)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// count writes a message count: whole when it is one, to a tenth when it is
// a mean or the formula's n·H(n).
func count(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

var sweepColumns = []string{"algorithm", "case", "graph", "n", "messages", "95% CI", "time", "formula", "value", "ratio"}

// cells are a row's columns for the table and the page; the CI is "-"
// when the count does not depend on the seed.
func sweepCells(r *election.SweepRow) []string {
	caseName := orDash(r.Case.Name)
	if r.Skipped != "" {
		return []string{r.Case.Algo, caseName, r.Case.Graph, strconv.Itoa(r.N), "-", "-", "-", r.Case.Formula, count(r.Formula), "skipped"}
	}
	ci := "-"
	if r.Runs > 1 {
		ci = strconv.FormatFloat(r.Lo, 'f', 1, 64) + "–" + strconv.FormatFloat(r.Hi, 'f', 1, 64)
	}
	return []string{r.Case.Algo, caseName, r.Case.Graph, strconv.Itoa(r.N), count(r.Messages), ci,
		formatTime(r.Time, r.Unit), r.Case.Formula, count(r.Formula), fmt.Sprintf("%.3f", r.Messages/r.Formula)}
}

// ElectSweepHeader says how the sweep o was set, so that its outputs
// reproduce it.
func ElectSweepHeader(o election.SweepOptions) string {
	return fmt.Sprintf("sizes %s, seed %d, delays %s, %d run%s for random IDs, at most %d messages a run",
		joinInts(o.Sizes), o.Seed, election.DelayName(o.UnitDelays), o.Runs, Plural(o.Runs), o.MaxMessages)
}

// WriteElectSweepText writes the rows of the sweep o as a table.
func WriteElectSweepText(w io.Writer, o election.SweepOptions, rows []election.SweepRow) {
	fmt.Fprintf(w, "fwsim elect --sweep: %s\n\n", strings.Replace(ElectSweepHeader(o), ", ", "\n", 1))
	var t table
	t.add(sweepColumns...)
	skipped := false
	for _, r := range rows {
		t.add(sweepCells(&r)...)
		skipped = skipped || r.Skipped != ""
	}
	t.write(w, "")
	if skipped {
		fmt.Fprintf(w, "\n%s\n", skippedNote(o))
	}
}

// skippedNote explains the rows marked skipped, once for the whole table.
func skippedNote(o election.SweepOptions) string {
	return fmt.Sprintf("skipped: the formula gives more than --max-messages %d messages; raise it to run them", o.MaxMessages)
}

// ElectSweepPage is the HTML page of the sweep o: the log–log plot of every case against its
// formula, and the table.
func ElectSweepPage(command string, o election.SweepOptions, rows []election.SweepRow) report.Page {
	plot := report.LogLog{Title: "Messages against the number of nodes", XLabel: "nodes n", YLabel: "messages"}
	t := report.Table{Header: sweepColumns}
	for _, k := range o.Cases {
		measured := " (measured)"
		if k.IDs == election.Random {
			measured = fmt.Sprintf(" (mean of %d runs; band: 95%% CI)", o.Runs)
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
		t.Rows = append(t.Rows, sweepCells(&r))
	}
	return report.Page{
		Title: "fwsim elect --sweep",
		Meta:  []report.Field{{Name: "command", Value: command}, {Name: "sweep", Value: ElectSweepHeader(o)}, {Name: "fwsim version", Value: bus.NewVersionJSON().FwsimVersion}},
		Sections: []report.Section{{
			Heading: "Message complexity",
			Text: "Every node initiates (echo: the first); the dashed lines are the textbook counts (docs/election.md). " +
				"Chang–Roberts: best is IDs ascending along the ring, worst descending, average random IDs over the runs. " +
				"Sizes whose formula exceeds the message cap are skipped and listed in the table (" + skippedNote(o) + ").",
			Figures: []report.SVG{plot.SVG()},
			Tables:  []report.Table{t},
		}},
	}
}
