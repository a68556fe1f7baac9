package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// shardJSON is shard k of n of a small analysis, as JSON.
func shardJSON(t testing.TB, k, n int) []byte {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	sum, err := Run(context.Background(), Config{Topology: topo, Runs: 40, Shard: Shard{k, n},
		Deadlines: []bus.MetricDeadline{{D: time.Microsecond}}}, nil)
	require.NoError(t, err)
	out, err := json.Marshal(sum)
	require.NoError(t, err)
	return out
}

func TestReadSummaryRejectsInconsistentFiles(t *testing.T) {
	good := string(shardJSON(t, 1, 2))
	_, err := ReadSummary(strings.NewReader(good))
	require.NoError(t, err)
	for _, tc := range []struct{ old, new, want string }{
		{`"runs":20`, `"runs":20,"extra":1`, `unknown field "extra"`},
		{`"metric":"self_id_ns"`, `"metric":"tree_id_ns"`, `deadlines[1]: tree_id_ns ≤ 1000 ns given before`},
		{`"metric":"self_id_ns"`, `"metric":"contention_rounds"`, `deadlines[1].metric "contention_rounds": want one of tree_id_ns, self_id_ns, contention_ns`},
		{`"stalled":0`, `"stalled":0,"exploded":1`, `failures: unknown outcome "exploded"`},
		// encoding/json keeps the last of a repeated field: refused, as the
		// topology reader refuses it.
		{`"runs":20`, `"runs":20,` + "\n" + `"runs":20`, `line 2: field "runs" given twice`},
		{`"stalled":0`, `"stalled":0,"stalled":0`, `line 1: field "stalled" given twice`},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		require.NotEqual(t, good, bad, tc.old)
		_, err := ReadSummary(strings.NewReader(bad))
		assert.ErrorIs(t, err, ErrInvalidConfig, tc.want)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err = ReadSummary(strings.NewReader(good + good))
	assert.ErrorContains(t, err, "more than one JSON value")
	// A file of any size was read whole: a wrong path (a device, a log)
	// exhausted memory.
	_, err = ReadSummary(io.MultiReader(strings.NewReader(good), endless{}))
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.EqualError(t, err, "invalid analysis: larger than 64 MiB, more than any analysis writes")
	_, err = ReadSummary(strings.NewReader(`{"runs":`))
	assert.ErrorIs(t, err, ErrInvalidConfig)

	// Each change leaves valid JSON that no analysis can have written; the
	// error names the field. In shard 1/2 of 40 runs of a pair, every run
	// contends, and misses the 1 µs deadline but for the contention.
	for _, tc := range []struct {
		change func(s *Summary)
		want   string
	}{
		{func(s *Summary) { s.Runs = 21 }, "runs 21: shard 1/2 of 40 runs holds 20"},
		{func(s *Summary) { s.Runs = 0 }, "runs 0: want 1 to 9007199254740992"},
		{func(s *Summary) { s.Shard.K = 3 }, "shard 3/2 of 40 runs: want K/N with 1 ≤ K ≤ N ≤ total_runs"},
		{func(s *Summary) { s.TotalRuns = 1 << 62 }, "total_runs 4611686018427387904: want 1 to 9007199254740992"},
		{func(s *Summary) { s.Shard = nil }, "total_runs 40 without a shard"},
		// A count of 2^62 once merged into absurd statistics, and two of
		// them overflowed into a negative n.
		{func(s *Summary) { s.Metrics[bus.MetricContention].Hist[0].Count = 1 << 62 },
			"metrics.contention_ns.histogram[0]: count 4611686018427387904: want 1 to 20, the 20 runs less the 0 in the bins before"},
		{func(s *Summary) { h := s.Metrics[bus.MetricContention].Hist; h[0].Count, h[1].Count = 1<<62, 1<<62 },
			"metrics.contention_ns.histogram[0]: count 4611686018427387904"},
		{func(s *Summary) { s.Metrics[bus.MetricContention].Hist[1].Count = 0 }, "metrics.contention_ns.histogram[1]: count 0: want 1 to"},
		{func(s *Summary) { h := s.Metrics[bus.MetricTreeID].Hist; h[0].Value = -5 },
			"metrics.tree_id_ns.histogram[0]: value -5: want 0 or more, as every metric is a duration or a count"},
		{func(s *Summary) { h := s.Metrics[bus.MetricTreeID].Hist; h[1].Value = h[0].Value }, "metrics.tree_id_ns.histogram[1]: value"},
		{func(s *Summary) { m := s.Metrics[bus.MetricSelfID]; m.Hist = append(m.Hist, Bin{1 << 40, 1}) },
			"]: one bin too many: the bins before hold all 20 runs"},
		{func(s *Summary) { s.Metrics[bus.MetricSelfID].Missing = -1 }, "metrics.self_id_ns.missing -1: want 0 to 0, the runs without a value"},
		{func(s *Summary) { s.Metrics[bus.MetricTreeID].N++ }, "metrics.tree_id_ns.n 21: want 20, as the histogram gives"},
		{func(s *Summary) { m := s.Metrics[bus.MetricTreeID]; m.Min = m.Max + 1 }, "metrics.tree_id_ns.min"},
		{func(s *Summary) { s.Metrics[bus.MetricTreeID].Mean = 5 }, "metrics.tree_id_ns.mean 5: want"},
		{func(s *Summary) { s.Metrics[bus.MetricContentionRounds].CI95[0] = -0.004 }, "metrics.contention_rounds.ci95[0] -0.004: want"},
		// Counts that hold together on their own but not with the runs.
		{func(s *Summary) { dropOne(s.Metrics[bus.MetricTreeID]) }, "metrics.tree_id_ns: n 19 and missing 0: want 20, one for every run"},
		{func(s *Summary) {
			dropOne(s.Metrics[bus.MetricContentionRounds])
			s.Metrics[bus.MetricContentionRounds].Missing = 1
		},
			"metrics.contention_rounds.missing 1: want 0, as every run has its rounds"},
		{func(s *Summary) { dropOne(s.Metrics[bus.MetricContention]) },
			"metrics.contention_ns: n 19 and missing 0: want 20, one for every run whose contention_rounds are above 0"},
		{func(s *Summary) { s.Deadlines[0].Met++ }, "deadlines[0].met 1: want 0, as metrics.tree_id_ns gives"},
		{func(s *Summary) { s.Deadlines[2].Of = 1 << 62 }, "deadlines[2].of 4611686018427387904: want 20"},
		{func(s *Summary) { s.Deadlines[0].P = 0.5 }, "deadlines[0].p 0.5: want 0, as metrics.tree_id_ns gives"},
		{func(s *Summary) { s.Deadlines[1].CI95[1] = 1.5 }, "deadlines[1].ci95[1] 1.5: want 0.161"},
		{func(s *Summary) { s.Deadlines[1].DeadlineNs = 0 }, "deadlines[1].deadline_ns 0: want a positive deadline"},
		{func(s *Summary) { s.Deadlines = append(s.Deadlines, s.Deadlines...) }, "deadlines[3]: tree_id_ns ≤ 1000 ns given before"},
		{func(s *Summary) { delete(s.Metrics, bus.MetricContention) }, "metrics: 3, want tree_id_ns, self_id_ns, contention_ns, contention_rounds"},
		{func(s *Summary) {
			s.Metrics["x"] = s.Metrics[bus.MetricContention]
			delete(s.Metrics, bus.MetricContention)
		}, "metrics.contention_ns is missing"},
		{func(s *Summary) { s.Failures["stalled"] = -1 }, "failures.stalled -1: want 0 to 20"},
		{func(s *Summary) { s.Failures["stalled"], s.Failures["inconsistent"] = 15, 15 },
			"failures.stalled 15: want 0 to 5, the 20 runs less the 15 counted before it (a run ends one way)"},
		{func(s *Summary) { delete(s.Failures, "stalled") }, "failures.stalled is missing: every outcome is listed"},
		{func(s *Summary) { s.Roots["ghost"] = 20 }, "roots.ghost 20: want 0 to 0, the 20 runs less the 20 counted before it (a run has one root at most)"},
	} {
		var s Summary
		require.NoError(t, json.Unmarshal([]byte(good), &s))
		tc.change(&s)
		_, err := ReadSummary(bytes.NewReader([]byte(encode(t, &s))))
		assert.ErrorIs(t, err, ErrInvalidConfig, tc.want)
		assert.ErrorContains(t, err, tc.want)
	}
}

// endless reads as blanks without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// A summary carries the schema version of its JSON: another one, or none
// (an fwsim older than the field), is refused with the version found and
// the one expected; the fwsim that wrote it does not matter.
func TestReadSummaryChecksTheSchemaVersion(t *testing.T) {
	good := string(shardJSON(t, 1, 2))
	field := fmt.Sprintf(`"schema_version":%d,`, bus.SchemaVersion)
	require.Contains(t, good, field)

	s, err := ReadSummary(strings.NewReader(strings.Replace(good, `"fwsim_version":""`, `"fwsim_version":"v0.1.0 go1.20"`, 1)))
	require.NoError(t, err)
	assert.Equal(t, "v0.1.0 go1.20", s.FwsimVersion)

	_, err = ReadSummary(strings.NewReader(strings.Replace(good, field, "", 1)))
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "no schema_version: written by an fwsim older than schema version 1", "the field came with version 1")

	newer := strings.Replace(good, field, fmt.Sprintf(`"schema_version":%d,`, bus.SchemaVersion+1), 1)
	_, err = ReadSummary(strings.NewReader(strings.Replace(newer, `"fwsim_version":""`, `"fwsim_version":"v9.0.0"`, 1)))
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, fmt.Sprintf("schema_version %d (fwsim v9.0.0), but this fwsim reads %d", bus.SchemaVersion+1, bus.SchemaVersion))
}

// A mean, std or interval rounded otherwise in its last bits, as another
// machine may round it, is no inconsistency; the count and the values are.
func TestReadSummaryAllowsOtherRounding(t *testing.T) {
	var s Summary
	require.NoError(t, json.Unmarshal(shardJSON(t, 1, 2), &s))
	m := s.Metrics[bus.MetricTreeID]
	m.Mean, m.Std = math.Nextafter(m.Mean, 0), math.Nextafter(m.Std, math.Inf(1))
	m.CI95[1] = math.Nextafter(m.CI95[1], 0)
	s.Deadlines[2].CI95[0] = math.Nextafter(s.Deadlines[2].CI95[0], 1)
	_, err := ReadSummary(strings.NewReader(encode(t, &s)))
	require.NoError(t, err)
	m.Max = math.Nextafter(m.Max, math.Inf(1))
	_, err = ReadSummary(strings.NewReader(encode(t, &s)))
	assert.ErrorContains(t, err, "metrics.tree_id_ns.max")
}

// dropOne takes one run out of the first bin of m, keeping its statistics
// those of its histogram.
func dropOne(m *Metric) {
	if m.Hist[0].Count--; m.Hist[0].Count == 0 {
		m.Hist = m.Hist[1:]
	}
	m.Stats = statsOf(m.Hist)
}

// A shard of an analysis of 2^53 runs in as many shards is valid; merging
// it once allocated a flag per shard, 2^53 of them.
func TestMergeOfVeryManyShards(t *testing.T) {
	part, err := Run(context.Background(), Config{Topology: generate(t, "pair"), Runs: MaxRuns, Shard: Shard{1, MaxRuns}}, nil)
	require.NoError(t, err)
	back, err := ReadSummary(strings.NewReader(encode(t, part)))
	require.NoError(t, err)
	_, err = Merge([]*Summary{back})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.EqualError(t, err, "invalid analysis: shard 2/9007199254740992 is missing")
}

// Merge checks its parts as ReadSummary does: a Summary built in memory is
// no exception.
func TestMergeChecksEachPart(t *testing.T) {
	var parts []*Summary
	for k := 1; k <= 2; k++ {
		s, err := ReadSummary(bytes.NewReader(shardJSON(t, k, 2)))
		require.NoError(t, err)
		parts = append(parts, s)
	}
	parts[1].Metrics[bus.MetricTreeID].Hist[0].Count = 1 << 62
	_, err := Merge(parts, "a.json", "b.json")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "invalid analysis: b.json: metrics.tree_id_ns.histogram[0]: count 4611686018427387904")
	_, err = Merge([]*Summary{parts[0], nil})
	assert.EqualError(t, err, "invalid analysis: summary 2 is nil")
}

// tinyShardJSON is shard k of n of an analysis of n runs, one in each
// shard, as small as a shard can be: its values 0, every field at its zero
// value left out. The fuzz targets start from these rather than from
// shardJSON's 2.5 KB, whose mutants the fuzzer spent its whole time
// minimising (the cost grows with the square of the size). Shard 2 on has
// a contention round, shard 3 on misses its self-ID and stalls; deadline,
// when not 0, adds a deadline.
func tinyShardJSON(t testing.TB, k, n int, deadline int64) []byte {
	metric := func(missing int64, hist ...Bin) *Metric {
		return &Metric{Stats: statsOf(hist), Missing: missing, Hist: hist}
	}
	s := Summary{SchemaVersion: bus.SchemaVersion, Runs: 1, Shard: &Shard{k, n}, TotalRuns: n,
		Metrics: map[string]*Metric{
			bus.MetricTreeID:           metric(0, Bin{0, 1}),
			bus.MetricSelfID:           metric(0, Bin{0, 1}),
			bus.MetricContentionRounds: metric(0, Bin{0, 1}),
			bus.MetricContention:       metric(0),
		},
		Roots:    map[string]int64{"a": 1, "b": 0},
		Failures: map[string]int64{},
	}
	for _, o := range failureOutcomes {
		s.Failures[string(o)] = 0
	}
	if k > 1 {
		s.Metrics[bus.MetricContentionRounds] = metric(0, Bin{1, 1})
		s.Metrics[bus.MetricContention] = metric(0, Bin{0, 1})
	}
	if k > 2 {
		s.Metrics[bus.MetricSelfID] = metric(1)
		s.Failures[string(bus.OutcomeStalled)], s.Roots["a"] = 1, 0
	}
	if deadline != 0 {
		for _, name := range bus.TimeMetrics {
			s.Deadlines = append(s.Deadlines, deadlineOf(name, s.Metrics[name], deadline))
		}
	}
	out, err := json.Marshal(&s)
	require.NoError(t, err)
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&fields))
	dropZeros(fields)
	out, err = json.Marshal(fields)
	require.NoError(t, err)
	_, err = ReadSummary(bytes.NewReader(out))
	require.NoError(t, err, "%s", out)
	return out
}

// dropZeros deletes the fields of v that ReadSummary reads as absent (a
// zero, "", null, [0, 0]), but not the counts of roots and failures, which
// list every node and outcome.
func dropZeros(v any) {
	switch v := v.(type) {
	case map[string]any:
		for key, field := range v {
			if pair, ok := field.([]any); ok && len(pair) == 2 && pair[0] == json.Number("0") && pair[1] == json.Number("0") {
				field = nil
			}
			switch field {
			case json.Number("0"), "", nil:
				delete(v, key)
			}
			if key != "roots" && key != "failures" {
				dropZeros(field)
			}
		}
	case []any:
		for _, item := range v {
			dropZeros(item)
		}
	}
}

// The topology's name is no part of config_sha256, which hashes the
// topology itself: shards that name another are refused all the same, by
// that field, as the other fields of the header are.
func TestMergeRefusesAnotherTopologyName(t *testing.T) {
	var parts []*Summary
	for k, name := range []string{"gen pair", "pair.yaml"} {
		s, err := ReadSummary(bytes.NewReader(shardJSON(t, k+1, 2)))
		require.NoError(t, err)
		s.Topology = name
		parts = append(parts, s)
	}
	_, err := Merge(parts, "a.json", "b.json")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.EqualError(t, err, "invalid analysis: b.json (shard 2/2) comes from another analysis than a.json: topology pair.yaml, not gen pair")
}

// FuzzReadSummary: whatever the input, ReadSummary returns an error or a
// Summary that Merge accepts when it is a whole set of shards, and
// re-encoding it reads back the same. It never panics.
func FuzzReadSummary(f *testing.F) {
	f.Add(tinyShardJSON(f, 1, 1, 0))
	f.Add(tinyShardJSON(f, 3, 3, 0))
	f.Add(tinyShardJSON(f, 2, 2, 1))
	f.Add([]byte(`{"runs":1,"metrics":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		require.NoError(t, err)
		back, err := ReadSummary(bytes.NewReader(out))
		require.NoError(t, err)
		assert.Equal(t, s, back)
		if s.Shard != nil && s.Shard.N == 1 {
			_, err := Merge([]*Summary{s})
			require.NoError(t, err)
		}
	})
}

// FuzzMerge merges up to three shard files (an empty input is no file):
// whatever they hold, Merge never panics, and either refuses them with
// ErrInvalidConfig or returns a summary whose every count is consistent,
// each shard counted once, in any order the same.
func FuzzMerge(f *testing.F) {
	shards := [][]byte{tinyShardJSON(f, 1, 3, 0), tinyShardJSON(f, 2, 3, 0), tinyShardJSON(f, 3, 3, 0)}
	f.Add(shards[0], shards[1], shards[2])
	f.Add(shards[2], shards[0], shards[1])
	f.Add(shards[0], shards[1], shards[1])
	f.Add(tinyShardJSON(f, 1, 1, 1), []byte{}, []byte{})
	f.Add(tinyShardJSON(f, 2, 2, 1), tinyShardJSON(f, 1, 2, 1), []byte{})
	f.Add(bytes.Replace(shards[0], []byte(`"histogram":[[`), []byte(`"histogram":[[0,4611686018427387904],[`), 1), shards[1], shards[2])
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		var parts []*Summary
		var names []string
		for i, data := range [][]byte{a, b, c} {
			if len(data) == 0 {
				continue
			}
			s, err := ReadSummary(bytes.NewReader(data))
			if err != nil {
				require.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			parts = append(parts, s)
			names = append(names, fmt.Sprintf("shard-%d.json", i))
		}
		sum, err := Merge(parts, names...)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidConfig)
			return
		}
		require.NoError(t, sum.check(), "the merged summary is inconsistent")
		assert.Nil(t, sum.Shard)
		assert.Equal(t, parts[0].TotalRuns, sum.Runs)
		for _, name := range bus.MetricNames {
			var n, missing int64
			for _, p := range parts {
				n += p.Metrics[name].N
				missing += p.Metrics[name].Missing
			}
			assert.Equal(t, n, sum.Metrics[name].N, name)
			assert.Equal(t, missing, sum.Metrics[name].Missing, name)
		}
		var failed int64
		for _, p := range parts {
			failed += p.Failed()
		}
		assert.Equal(t, failed, sum.Failed())
		slices.Reverse(parts)
		again, err := Merge(parts)
		require.NoError(t, err)
		assert.Equal(t, sum, again)
	})
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "3/8", "0/1", "9/8", "x", "1/", "/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		require.True(t, 1 <= sh.K && sh.K <= sh.N, "%q gave %v", s, sh)
		again, err := ParseShard(sh.String())
		require.NoError(t, err)
		assert.Equal(t, sh, again)
	})
}

// Shards merge only with the same deadlines: one of a metric is not one of
// every metric, nor one of another metric.
func TestMergeRefusesOtherDeadlines(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	shard := func(k int, d bus.MetricDeadline) *Summary {
		sum, err := Run(context.Background(), Config{Topology: topo, Runs: 40, Shard: Shard{k, 2},
			Deadlines: []bus.MetricDeadline{d}}, nil)
		require.NoError(t, err)
		return sum
	}
	one := bus.MetricDeadline{Metric: bus.MetricContention, D: time.Microsecond}
	sum, err := Merge([]*Summary{shard(1, one), shard(2, one)})
	require.NoError(t, err)
	require.Len(t, sum.Deadlines, 1)
	assert.Equal(t, bus.MetricContention, sum.Deadlines[0].Metric)
	for _, other := range []bus.MetricDeadline{{D: time.Microsecond}, {Metric: bus.MetricSelfID, D: time.Microsecond}} {
		_, err = Merge([]*Summary{shard(1, one), shard(2, other)}, "a.json", "b.json")
		assert.ErrorContains(t, err, "b.json (shard 2/2) has other deadlines than a.json", "%v", other)
	}
}
