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
	for _, p := range r.Grid.Params {
		name := p.Name
		if p.Unit != "" {
			name += "_" + p.Unit
		}
		head = append(head, fmt.Sprintf("%-14s", name))
	}
	fmt.Fprintf(w, "%s%8s %-7s %-5s %7s %8s %10s %10s %10s  %s\n", strings.Join(head, ""),
		"delay", "rt", "sep", "runs", "rounds", "contention", "tree_id", "self_id", "failures")
	for _, p := range r.Points {
		for _, v := range p.Point.Values {
			fmt.Fprintf(w, "%-14s", strconv.FormatFloat(v, 'g', -1, 64))
		}
		c, s := p.Conditions, p.Summary
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
