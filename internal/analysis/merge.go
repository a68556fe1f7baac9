package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// Merge joins the summaries of the N shards of one analysis, each exactly
// once in any order, into the Summary the unsharded analysis gives: equal
// field for field, and byte for byte once encoded. names, when given, name
// the parts in errors (their files); otherwise a part is "summary I".
func Merge(parts []*Summary, names ...string) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no shards to merge", ErrInvalidConfig)
	}
	label := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("summary %d", i+1)
	}
	first := parts[0]
	if first.Shard == nil {
		return nil, fmt.Errorf("%w: %s is not a shard (it has no \"shard\")", ErrInvalidConfig, label(0))
	}
	n := first.Shard.N
	seen := make([]bool, n)
	acc := newEmptyAccumulator()
	runs := 0
	for i, p := range parts {
		switch {
		case p.Shard == nil:
			return nil, fmt.Errorf("%w: %s is not a shard (it has no \"shard\")", ErrInvalidConfig, label(i))
		case p.Shard.N != n || p.TotalRuns != first.TotalRuns:
			return nil, fmt.Errorf("%w: %s is shard %s of %d runs, %s shard %s of %d runs", ErrInvalidConfig, label(i), p.Shard, p.TotalRuns, label(0), first.Shard, first.TotalRuns)
		case p.Header != first.Header:
			return nil, fmt.Errorf("%w: %s (shard %s) comes from another analysis than %s: %s", ErrInvalidConfig, label(i), p.Shard, label(0), headerDiff(first.Header, p.Header))
		case seen[p.Shard.K-1]:
			return nil, fmt.Errorf("%w: shard %s given twice (again in %s)", ErrInvalidConfig, p.Shard, label(i))
		case !sameDeadlines(p.Deadlines, first.Deadlines):
			return nil, fmt.Errorf("%w: %s (shard %s) has other deadlines than %s", ErrInvalidConfig, label(i), p.Shard, label(0))
		case !sameKeys(p.Roots, first.Roots):
			// Every shard lists every node of the bus, root or not.
			return nil, fmt.Errorf("%w: %s (shard %s) lists other nodes under roots than %s", ErrInvalidConfig, label(i), p.Shard, label(0))
		}
		seen[p.Shard.K-1] = true
		runs += p.Runs
		acc.addSummary(p)
	}
	if k := slices.Index(seen, false); k >= 0 {
		return nil, fmt.Errorf("%w: shard %d/%d is missing", ErrInvalidConfig, k+1, n)
	}
	if runs != first.TotalRuns {
		return nil, fmt.Errorf("%w: the shards hold %d runs, not the %d of the analysis", ErrInvalidConfig, runs, first.TotalRuns)
	}
	var deadlines []int64
	for i := 0; i < len(first.Deadlines); i += len(TimeMetrics) {
		deadlines = append(deadlines, first.Deadlines[i].DeadlineNs)
	}
	sum := acc.summary(first.Header, deadlines)
	sum.Runs = runs
	return sum, nil
}

func sameKeys(a, b map[string]int64) bool {
	return len(a) == len(b) && slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}

func sameDeadlines(a, b []Deadline) bool {
	return slices.EqualFunc(a, b, func(x, y Deadline) bool { return x.Metric == y.Metric && x.DeadlineNs == y.DeadlineNs })
}

// headerDiff names the first field in which two headers differ.
func headerDiff(a, b Header) string {
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"seed", a.Seed, b.Seed}, {"topology", a.Topology, b.Topology}, {"profile", a.Profile, b.Profile},
		{"timing", a.Timing, b.Timing}, {"clock", a.Clock, b.Clock}, {"policy", a.Policy, b.Policy},
		{"coin_bias", a.CoinBias, b.CoinBias}, {"config_sha256", a.ConfigSHA256, b.ConfigSHA256},
	} {
		if f.x != f.y {
			return fmt.Sprintf("%s %v, not %v", f.name, f.y, f.x)
		}
	}
	return "they are equal"
}

// ReadSummary reads a Summary as the JSON of `fwsim analyze --json` writes
// it, strictly (no unknown fields), and checks that it is consistent: what
// Merge needs is the shard, the histograms and the counts.
func ReadSummary(r io.Reader) (*Summary, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrInvalidConfig)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &s, nil
}

// check verifies what a decoded Summary must satisfy for Merge.
func (s *Summary) check() error {
	total := s.Runs
	if s.Shard != nil {
		if s.Shard.K < 1 || s.Shard.K > s.Shard.N || s.Shard.N > s.TotalRuns {
			return fmt.Errorf("shard %s of %d runs is not a shard", s.Shard, s.TotalRuns)
		}
		from, to := s.Shard.runs(s.TotalRuns)
		total = to - from
	}
	switch {
	case s.Runs < 1:
		return fmt.Errorf("%d runs, want at least 1", s.Runs)
	case s.Runs != total:
		return fmt.Errorf("%d runs, want %d", s.Runs, total)
	}
	for _, name := range MetricNames {
		m := s.Metrics[name]
		if m == nil {
			return fmt.Errorf("metric %s is missing", name)
		}
		var n int64
		for i, b := range m.Hist {
			if b.Count < 1 || (i > 0 && b.Value <= m.Hist[i-1].Value) {
				return fmt.Errorf("metric %s: histogram bin %d [%d, %d]: want ascending values with positive counts", name, i, b.Value, b.Count)
			}
			n += b.Count
		}
		if m.Missing < 0 || n+m.Missing > int64(s.Runs) {
			return fmt.Errorf("metric %s: %d values and %d missing in %d runs", name, n, m.Missing, s.Runs)
		}
	}
	if len(s.Metrics) != len(MetricNames) {
		return fmt.Errorf("%d metrics, want %d", len(s.Metrics), len(MetricNames))
	}
	if len(s.Deadlines)%len(TimeMetrics) != 0 {
		return fmt.Errorf("%d deadline entries, want %d per deadline", len(s.Deadlines), len(TimeMetrics))
	}
	for i, d := range s.Deadlines {
		if want := TimeMetrics[i%len(TimeMetrics)]; d.Metric != want || d.DeadlineNs != s.Deadlines[i-i%len(TimeMetrics)].DeadlineNs {
			return fmt.Errorf("deadline entry %d: want metric %s of the deadline before", i+1, want)
		}
	}
	for _, f := range []struct {
		name   string
		counts map[string]int64
	}{{"roots", s.Roots}, {"failures", s.Failures}} {
		var sum int64
		for _, k := range slices.Sorted(maps.Keys(f.counts)) {
			c := f.counts[k]
			if c < 0 || c > int64(s.Runs) {
				return fmt.Errorf("count %s: %d of %d runs", k, c, s.Runs)
			}
			sum += c
		}
		// A run has at most one root and at most one failure outcome.
		if sum > int64(s.Runs) {
			return fmt.Errorf("%s: the counts add up to %d in %d runs", f.name, sum, s.Runs)
		}
	}
	for o := range s.Failures {
		if !slices.Contains(failureOutcomes, bus.Outcome(o)) {
			return fmt.Errorf("failures: unknown outcome %q (want one of %s)", o, strings.Join(outcomeNames(), ", "))
		}
	}
	return nil
}

// outcomeNames lists the failure outcomes a summary counts.
func outcomeNames() []string {
	names := make([]string, len(failureOutcomes))
	for i, o := range failureOutcomes {
		names[i] = string(o)
	}
	return names
}
