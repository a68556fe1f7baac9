package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/bus"
)

// WriteSweepText is the default output: a header line and one line per
// point with what matters most for the conditions.
func WriteSweepText(w io.Writer, r *sweep.Run) {
	first := r.Points[0].Summary
	fmt.Fprintf(w, "sweep of %s: %d points × %d runs, seed %d, profile %s, timing %s, clock %s, policy %s\n",
		first.Topology, len(r.Points), r.Config.Runs, first.Seed, first.Profile, first.Timing, first.Clock, first.Policy)
	fmt.Fprintln(w, "conditions: rt 2·delay < FAST.min, sep 2·delay + FAST.max < SLOW.min; times in ns")
	fmt.Fprintln(w)
	var head []string
	// The delay the conditions use is a column of its own unless it is
	// what the sweep sweeps: the same numbers twice.
	delayColumn := true
	for _, p := range r.Grid.Params {
		name := p.Name
		if p.Unit != "" {
			name += "_" + p.Unit
		}
		delayColumn = delayColumn && p.Name != "delay"
		head = append(head, fmt.Sprintf("%-14s", name))
	}
	if delayColumn {
		head = append(head, fmt.Sprintf("%8s ", "delay"))
	}
	fmt.Fprintf(w, "%s%-7s %-5s %-4s %7s %8s %10s %10s %10s  %s\n", strings.Join(head, ""),
		"rt", "sep", "spec", "runs", "rounds", "contention", "tree_id", "self_id", "failures")
	var outOfSpec []string
	interrupted := false
	for _, p := range r.Points {
		var values []string
		for _, v := range p.Point.Values {
			fmt.Fprintf(w, "%-14s", strconv.FormatFloat(v, 'g', -1, 64))
			values = append(values, strconv.FormatFloat(v, 'g', -1, 64))
		}
		c, s := p.Conditions, p.Summary
		if delayColumn {
			fmt.Fprintf(w, "%8d ", c.DelayNs)
		}
		spec := "in"
		if p.OutOfSpec != "" {
			spec = "OUT"
			outOfSpec = append(outOfSpec, fmt.Sprintf("  %s: %s", strings.Join(values, ", "), p.OutOfSpec))
		}
		interrupted = interrupted || s.Failures[string(bus.OutcomeInterrupted)] > 0
		fmt.Fprintf(w, "%-7s %-5s %-4s %7d %8.3f %10s %10s %10s  %s\n", holdsText(c.RoundTrip), holdsText(c.Separation), spec,
			s.Runs, s.Metrics[bus.MetricContentionRounds].Mean, meanOf(s.Metrics[bus.MetricContention]),
			meanOf(s.Metrics[bus.MetricTreeID]), meanOf(s.Metrics[bus.MetricSelfID]), failureText(s))
	}
	if first.Metrics[bus.MetricCollisions] != nil {
		writeSweepTraffic(w, r)
	}
	if len(outOfSpec) > 0 {
		fmt.Fprintln(w, "\nout of spec (beyond the standard's limits, run all the same):")
		fmt.Fprintln(w, strings.Join(outOfSpec, "\n"))
	}
	if interrupted {
		fmt.Fprintln(w, "\ninterrupted: a scripted bus reset cut the generation short (not Ctrl-C, which stops the sweep)")
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

// writeSweepTraffic is the sweep's second table where its runs had
// traffic: per point the means per run of the traffic metrics, and the
// share of the traffic phase the bus carried data, the row of the gap
// count a bus manager would set marked.
func writeSweepTraffic(w io.Writer, r *sweep.Run) {
	until := r.Config.Options.Until
	if until == 0 {
		until = bus.DefaultUntil
	}
	fmt.Fprintf(w, "\ntraffic after initialisation, for %v: means per run\n", until)
	for _, p := range r.Grid.Params {
		fmt.Fprintf(w, "%-14s", p.Name)
	}
	fmt.Fprintf(w, "%10s %10s %10s %10s %11s\n", "collisions", "acked", "acks_late", "failed", "utilisation")
	for _, p := range r.Points {
		marked := false
		for i, v := range p.Point.Values {
			fmt.Fprintf(w, "%-14s", strconv.FormatFloat(v, 'g', -1, 64))
			marked = marked || (r.Grid.Params[i].Name == "gap_count" && int(v) == p.ManagerGapCount)
		}
		s := p.Summary
		mean := func(name string) float64 { return s.Metrics[name].Mean }
		fmt.Fprintf(w, "%10.1f %10.1f %10.1f %10.1f %10.1f%%", mean(bus.MetricCollisions), mean(bus.MetricAcked),
			mean(bus.MetricAcksLate), mean(bus.MetricFailed), 100*mean(bus.MetricBusy)/float64(until))
		if marked {
			fmt.Fprintf(w, "  <- a bus manager's gap count (1394a's table for the bus's diameter)")
		}
		fmt.Fprintln(w)
	}
}
