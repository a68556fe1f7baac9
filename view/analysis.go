package view

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fwsim/fwsim/analysis"
)

// WriteSummaryText writes the text report of an analysis: a header, a table of metrics, the
// deadlines, the roots and the failures.
func WriteSummaryText(w io.Writer, s *analysis.Summary) {
	setup := ""
	if s.SetupSeed != nil {
		setup = fmt.Sprintf(", setup seed %d", *s.SetupSeed)
	}
	fmt.Fprintf(w, "analysis of %s: %d runs, seed %d%s, profile %s, timing %s, clock %s, policy %s, coin bias %v\n",
		s.Topology, s.Runs, s.Seed, setup, s.Profile, s.Timing, s.Clock, s.Policy, s.CoinBias)
	fmt.Fprintf(w, "\n%-17s %7s %10s %9s %9s %9s %9s %9s %9s %9s  %s\n",
		"metric", "n", "mean", "std", "min", "p50", "p90", "p99", "p99.9", "max", "95% CI of the mean")
	for _, name := range s.MetricNames() {
		m := s.Metrics[name]
		fmt.Fprintf(w, "%-17s %7d", name, m.N)
		if m.N > 0 {
			// Nanoseconds to a tenth; rounds, a count near 1, to a thousandth.
			prec := 1
			if !strings.HasSuffix(name, "_ns") {
				prec = 3
			}
			fmt.Fprintf(w, " %10.*f %9.*f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f  [%.*f, %.*f]",
				prec, m.Mean, prec, m.Std, m.Min, m.P50, m.P90, m.P99, m.P999, m.Max, prec, m.CI95[0], prec, m.CI95[1])
		}
		if m.Missing > 0 {
			fmt.Fprintf(w, "  (%d not reached)", m.Missing)
		}
		fmt.Fprintln(w)
	}
	if len(s.Deadlines) > 0 {
		fmt.Fprintf(w, "\n%-10s %-15s %8s  %-18s  %s\n", "deadline", "metric", "p", "95% Wilson", "met")
		for _, d := range s.Deadlines {
			fmt.Fprintf(w, "%-10v %-15s %8.5f  [%.5f, %.5f]  %d of %d\n",
				time.Duration(d.DeadlineNs), d.Metric, d.P, d.CI95[0], d.CI95[1], d.Met, d.Of)
		}
	}
	roots, never := counts(s.Roots)
	if never > 0 && never < len(s.Roots) {
		roots += fmt.Sprintf("; the other %d nodes never", never)
	}
	failures, _ := counts(s.Failures)
	fmt.Fprintf(w, "\nroots:    %s\nfailures: %s\n", roots, failures)
}

// counts lists the non-zero counts of a map as "key n, key n" in key order
// ("none" if there is none) and says how many keys have a zero count.
func counts(m map[string]int64) (list string, zeros int) {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == 0 {
			zeros++
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none", zeros
	}
	return strings.Join(parts, ", "), zeros
}
