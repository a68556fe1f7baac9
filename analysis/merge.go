package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
)

// Merge joins the summaries of the N shards of one analysis, each exactly
// once in any order, into the Summary the unsharded analysis gives: equal
// field for field, and byte for byte once encoded. Each part must pass the
// checks of ReadSummary, and the parts must agree on what was analysed.
// names, when given, name the parts in errors (their files); otherwise a
// part is "summary I".
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
	for i, p := range parts {
		switch {
		case p == nil:
			return nil, fmt.Errorf("%w: %s is nil", ErrInvalidConfig, label(i))
		case p.Shard == nil:
			return nil, fmt.Errorf("%w: %s is not a shard (it has no \"shard\")", ErrInvalidConfig, label(i))
		}
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidConfig, label(i), err)
		}
	}
	first := parts[0]
	n := first.Shard.N
	// A map, not N flags: N comes from the file and may be huge.
	seen := map[int]bool{}
	acc := newEmptyAccumulator()
	for i, p := range parts {
		switch {
		case p.Shard.N != n || p.TotalRuns != first.TotalRuns:
			return nil, fmt.Errorf("%w: %s is shard %s of %d runs, %s shard %s of %d runs", ErrInvalidConfig, label(i), p.Shard, p.TotalRuns, label(0), first.Shard, first.TotalRuns)
		case headerDiff(first.Header, p.Header) != "":
			return nil, fmt.Errorf("%w: %s (shard %s) comes from another analysis than %s: %s", ErrInvalidConfig, label(i), p.Shard, label(0), headerDiff(first.Header, p.Header))
		case seen[p.Shard.K]:
			return nil, fmt.Errorf("%w: shard %s given twice (again in %s)", ErrInvalidConfig, p.Shard, label(i))
		case !sameDeadlines(p.Deadlines, first.Deadlines):
			return nil, fmt.Errorf("%w: %s (shard %s) has other deadlines than %s", ErrInvalidConfig, label(i), p.Shard, label(0))
		case !sameKeys(p.Roots, first.Roots):
			// Every shard lists every node of the bus, root or not.
			return nil, fmt.Errorf("%w: %s (shard %s) lists other nodes under roots than %s", ErrInvalidConfig, label(i), p.Shard, label(0))
		}
		seen[p.Shard.K] = true
		acc.addSummary(p)
	}
	if len(seen) < n {
		k := 1
		for seen[k] {
			k++
		}
		return nil, fmt.Errorf("%w: shard %d/%d is missing", ErrInvalidConfig, k, n)
	}
	var deadlines []metricDeadline
	for _, d := range first.Deadlines {
		deadlines = append(deadlines, metricDeadline{d.Metric, d.DeadlineNs})
	}
	sum := acc.summary(first.Header, deadlines)
	// Each shard holds its slice of the runs (check), every slice once: the
	// runs add up to the analysis', and no count can exceed them.
	sum.Runs = first.TotalRuns
	return sum, nil
}

func sameKeys(a, b map[string]int64) bool {
	return len(a) == len(b) && slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}

func sameDeadlines(a, b []Deadline) bool {
	return slices.EqualFunc(a, b, func(x, y Deadline) bool { return x.Metric == y.Metric && x.DeadlineNs == y.DeadlineNs })
}

// headerDiff names the first field in which two headers differ, "" when
// none does. setup_seed is compared by value: two shards' pointers never
// are equal.
func headerDiff(a, b Header) string {
	setupSeed := func(p *uint64) any {
		if p == nil {
			return "null"
		}
		return *p
	}
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"seed", a.Seed, b.Seed}, {"topology", a.Topology, b.Topology}, {"profile", a.Profile, b.Profile},
		{"timing", a.Timing, b.Timing}, {"clock", a.Clock, b.Clock}, {"policy", a.Policy, b.Policy},
		{"coin_bias", a.CoinBias, b.CoinBias}, {"config_sha256", a.ConfigSHA256, b.ConfigSHA256},
		{"setup_seed", setupSeed(a.SetupSeed), setupSeed(b.SetupSeed)},
	} {
		if f.x != f.y {
			return fmt.Sprintf("%s %v, not %v", f.name, f.y, f.x)
		}
	}
	return ""
}

// ReadSummary reads a Summary as the JSON of `fwsim analyze --json` writes
// it, strictly (no unknown fields), and checks that Run or Merge could have
// written it: 1 to MaxRuns runs, those of its slice of total_runs for a
// shard; every count within the runs and consistent with the others; every
// statistic and deadline the one its histogram gives. An error names the
// field as the JSON spells it.
// A field given twice is an error, as in a topology file, rather than
// the last one winning. A file over MaxSummarySize is refused unread.
func ReadSummary(r io.Reader) (*Summary, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSummarySize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if len(data) > MaxSummarySize {
		return nil, fmt.Errorf("%w: larger than %d MiB, more than any analysis writes", ErrInvalidConfig, MaxSummarySize>>20)
	}
	if r, ok := jsonout.FindRepeatedKey(data); ok {
		return nil, fmt.Errorf("%w: line %d: field %q given twice", ErrInvalidConfig, r.Line, r.Key)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrInvalidConfig)
	}
	switch {
	case s.SchemaVersion == 0:
		return nil, fmt.Errorf("%w: no schema_version: written by an fwsim older than schema version 1; run it again with this one", ErrInvalidConfig)
	case s.SchemaVersion != bus.SchemaVersion:
		return nil, fmt.Errorf("%w: schema_version %d (fwsim %s), but this fwsim reads %d; run it again with the same fwsim", ErrInvalidConfig, s.SchemaVersion, s.FwsimVersion, bus.SchemaVersion)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &s, nil
}

// MaxSummarySize bounds what ReadSummary reads, so that a wrong file (a
// device, a huge log) fails instead of exhausting memory. The largest
// summaries, of a 63-node bus with a bin for each distinct nanosecond, hold
// a few MiB.
const MaxSummarySize = 64 << 20

// check verifies a Summary as ReadSummary describes. Counts are compared
// with what is left of the runs before they are added, so that no sum can
// overflow, however large the numbers in a file.
func (s *Summary) check() error {
	if err := s.checkRuns(); err != nil {
		return err
	}
	if err := s.checkMetrics(); err != nil {
		return err
	}
	if err := s.checkDeadlines(); err != nil {
		return err
	}
	// A run has at most one root and at most one failure outcome.
	if err := checkCounts("roots", s.Roots, s.Runs, "a run has one root at most"); err != nil {
		return err
	}
	for _, o := range slices.Sorted(maps.Keys(s.Failures)) {
		if !slices.Contains(failureOutcomes, bus.Outcome(o)) {
			return fmt.Errorf("failures: unknown outcome %q (want one of %s)", o, strings.Join(outcomeNames(), ", "))
		}
	}
	for _, o := range failureOutcomes {
		if _, ok := s.Failures[string(o)]; !ok {
			return fmt.Errorf("failures.%s is missing: every outcome is listed", o)
		}
	}
	return checkCounts("failures", s.Failures, s.Runs, "a run ends one way")
}

// checkRuns checks runs, shard and total_runs.
func (s *Summary) checkRuns() error {
	if s.Runs < 1 || s.Runs > MaxRuns {
		return fmt.Errorf("runs %d: want 1 to %d", s.Runs, MaxRuns)
	}
	if s.Shard == nil {
		if s.TotalRuns != 0 {
			return fmt.Errorf("total_runs %d without a shard", s.TotalRuns)
		}
		return nil
	}
	switch sh := *s.Shard; {
	case s.TotalRuns < 1 || s.TotalRuns > MaxRuns:
		return fmt.Errorf("total_runs %d: want 1 to %d", s.TotalRuns, MaxRuns)
	case sh.K < 1 || sh.K > sh.N || sh.N > s.TotalRuns:
		return fmt.Errorf("shard %s of %d runs: want K/N with 1 ≤ K ≤ N ≤ total_runs", sh, s.TotalRuns)
	}
	if from, to := s.Shard.runs(s.TotalRuns); s.Runs != to-from {
		return fmt.Errorf("runs %d: shard %s of %d runs holds %d", s.Runs, s.Shard, s.TotalRuns, to-from)
	}
	return nil
}

// checkMetrics checks every metric's histogram and statistics, and how many
// runs each counts: tree_id_ns and self_id_ns have a value or a missing one
// in every run, contention_rounds a value in every run, contention_ns one
// in every run whose rounds are above 0.
func (s *Summary) checkMetrics() error {
	names := metricNames(s.Metrics[bus.MetricCollisions] != nil)
	if len(s.Metrics) != len(names) {
		return fmt.Errorf("metrics: %d, want %s", len(s.Metrics), strings.Join(names, ", "))
	}
	runs := int64(s.Runs)
	for _, name := range names {
		m := s.Metrics[name]
		if m == nil {
			return fmt.Errorf("metrics.%s is missing", name)
		}
		var n int64
		for i, b := range m.Hist {
			switch {
			case b.Value < 0:
				return fmt.Errorf("metrics.%s.histogram[%d]: value %d: want 0 or more, as every metric is a duration or a count", name, i, b.Value)
			case i > 0 && b.Value <= m.Hist[i-1].Value:
				return fmt.Errorf("metrics.%s.histogram[%d]: value %d after %d: want ascending values", name, i, b.Value, m.Hist[i-1].Value)
			case n == runs:
				return fmt.Errorf("metrics.%s.histogram[%d]: one bin too many: the bins before hold all %d runs", name, i, runs)
			case b.Count < 1 || b.Count > runs-n:
				return fmt.Errorf("metrics.%s.histogram[%d]: count %d: want 1 to %d, the %d runs less the %d in the bins before", name, i, b.Count, runs-n, runs, n)
			}
			n += b.Count
		}
		if m.Missing < 0 || m.Missing > runs-n {
			return fmt.Errorf("metrics.%s.missing %d: want 0 to %d, the runs without a value", name, m.Missing, runs-n)
		}
		if diff := statsDiff(m.Stats, statsOf(m.Hist)); diff != "" {
			return fmt.Errorf("metrics.%s.%s, as the histogram gives", name, diff)
		}
	}
	rounds := s.Metrics[bus.MetricContentionRounds]
	if rounds.Missing != 0 {
		return fmt.Errorf("metrics.%s.missing %d: want 0, as every run has its rounds", bus.MetricContentionRounds, rounds.Missing)
	}
	contended := runs - rounds.atOrBelow(0)
	for _, c := range []struct {
		name, which string
		runs        int64
	}{
		{bus.MetricTreeID, "every run", runs},
		{bus.MetricSelfID, "every run", runs},
		{bus.MetricContentionRounds, "every run", runs},
		{bus.MetricContention, "every run whose contention_rounds are above 0", contended},
	} {
		if m := s.Metrics[c.name]; m.N+m.Missing != c.runs {
			return fmt.Errorf("metrics.%s: n %d and missing %d: want %d, one for %s", c.name, m.N, m.Missing, c.runs, c.which)
		}
	}
	for _, name := range names[len(bus.MetricNames):] {
		if m := s.Metrics[name]; m.N != runs {
			return fmt.Errorf("metrics.%s: n %d: want %d, a value for every run of its traffic", name, m.N, runs)
		}
	}
	return nil
}

// statsDiff names the first field of got that is not the one in want, as
// "field value: want value"; "" when there is none.
func statsDiff(got, want Stats) string {
	if got.N != want.N {
		return fmt.Sprintf("n %d: want %d", got.N, want.N)
	}
	return figureDiff(
		figure{"min", got.Min, want.Min, false}, figure{"p50", got.P50, want.P50, false},
		figure{"p90", got.P90, want.P90, false}, figure{"p99", got.P99, want.P99, false},
		figure{"p999", got.P999, want.P999, false}, figure{"max", got.Max, want.Max, false},
		figure{"mean", got.Mean, want.Mean, true}, figure{"std", got.Std, want.Std, true},
		figure{"ci95[0]", got.CI95[0], want.CI95[0], true}, figure{"ci95[1]", got.CI95[1], want.CI95[1], true})
}

// figure is a number of a summary, got, and the one its histogram gives,
// want. Values and quotients must be equal; sums of products (near) only to
// a relative 1e-9, for another machine may round them otherwise (one that
// fuses multiply-adds).
type figure struct {
	name      string
	got, want float64
	near      bool
}

// figureDiff names the first figure that differs, as statsDiff does.
func figureDiff(figures ...figure) string {
	for _, f := range figures {
		if f.got != f.want && (!f.near || math.Abs(f.got-f.want) > 1e-9*max(math.Abs(f.got), math.Abs(f.want))) {
			return fmt.Sprintf("%s %v: want %v", f.name, f.got, f.want)
		}
	}
	return ""
}

// checkDeadlines checks that each deadline is of a time metric, positive,
// each metric and deadline once, and that every entry is what the metric's
// histogram gives.
func (s *Summary) checkDeadlines() error {
	seen := map[metricDeadline]bool{}
	for i, d := range s.Deadlines {
		switch md := (metricDeadline{d.Metric, d.DeadlineNs}); {
		case !slices.Contains(bus.TimeMetrics, d.Metric):
			return fmt.Errorf("deadlines[%d].metric %q: want one of %s", i, d.Metric, strings.Join(bus.TimeMetrics, ", "))
		case d.DeadlineNs <= 0:
			return fmt.Errorf("deadlines[%d].deadline_ns %d: want a positive deadline", i, d.DeadlineNs)
		case seen[md]:
			return fmt.Errorf("deadlines[%d]: %s ≤ %d ns given before", i, d.Metric, d.DeadlineNs)
		default:
			seen[md] = true
		}
		want := deadlineOf(d.Metric, s.Metrics[d.Metric], d.DeadlineNs)
		for _, f := range []struct {
			name      string
			got, want int64
		}{{"met", d.Met, want.Met}, {"of", d.Of, want.Of}} {
			if f.got != f.want {
				return fmt.Errorf("deadlines[%d].%s %d: want %d, as metrics.%s gives", i, f.name, f.got, f.want, d.Metric)
			}
		}
		if diff := figureDiff(figure{"p", d.P, want.P, false},
			figure{"ci95[0]", d.CI95[0], want.CI95[0], true}, figure{"ci95[1]", d.CI95[1], want.CI95[1], true}); diff != "" {
			return fmt.Errorf("deadlines[%d].%s, as metrics.%s gives", i, diff, d.Metric)
		}
	}
	return nil
}

// checkCounts checks the counts of a map (roots, failures): each a number
// of runs, all of them together at most runs, because why.
func checkCounts(field string, counts map[string]int64, runs int, why string) error {
	var sum int64
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		c := counts[k]
		if c < 0 || c > int64(runs)-sum {
			return fmt.Errorf("%s.%s %d: want 0 to %d, the %d runs less the %d counted before it (%s)", field, k, c, int64(runs)-sum, runs, sum, why)
		}
		sum += c
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
