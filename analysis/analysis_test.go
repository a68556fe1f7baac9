package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/treeid"
)

func generate(t *testing.T, spec string) *bus.Topology {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	return topo
}

func encode(t *testing.T, s *Summary) string {
	t.Helper()
	out, err := json.Marshal(s)
	require.NoError(t, err)
	return string(out)
}

func TestRunSeedIsAMixOfBoth(t *testing.T) {
	seen := map[uint64]bool{}
	for _, seed := range []uint64{0, 1, 2} {
		for i := range 1000 {
			s := RunSeed(seed, i)
			require.False(t, seen[s], "seed %d run %d repeats a seed", seed, i)
			seen[s] = true
		}
	}
	assert.Equal(t, RunSeed(7, 3), RunSeed(7, 3))
}

func TestParseShard(t *testing.T) {
	s, err := ParseShard("3/8")
	require.NoError(t, err)
	assert.Equal(t, Shard{3, 8}, s)
	assert.Equal(t, "3/8", s.String())
	for _, bad := range []string{"", "3", "0/2", "3/2", "1/0", "a/b", "1/2/3", "-1/2"} {
		_, err := ParseShard(bad)
		assert.ErrorIs(t, err, ErrInvalidConfig, bad)
	}
	// Contiguous slices that cover every run once.
	next := 0
	for k := 1; k <= 7; k++ {
		from, to := Shard{k, 7}.runs(100)
		assert.Equal(t, next, from)
		next = to
	}
	assert.Equal(t, 100, next)
}

// TestWorkersAndShardsDoNotChangeTheResult: the same seed gives the same
// bytes at any worker count, and merged shards give the unsharded bytes.
func TestWorkersAndShardsDoNotChangeTheResult(t *testing.T) {
	cfg := Config{
		Topology: generate(t, "tree:10:3"), Source: "gen tree:10:3",
		Options: bus.Options{Seed: 11}, Runs: 500,
		Deadlines: []bus.MetricDeadline{{D: 40 * time.Microsecond}, {D: 400 * time.Microsecond}},
	}
	var want string
	var order []int
	for _, workers := range []int{1, 2, 5} {
		cfg.Workers = workers
		order = order[:0]
		cfg.Each = func(s Sample) error {
			order = append(order, s.Run)
			return nil
		}
		sum, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err)
		got := encode(t, sum)
		if want == "" {
			want = got
		}
		assert.Equal(t, want, got, "%d workers", workers)
		for i, run := range order {
			require.Equal(t, i, run, "%d workers: Each out of order", workers)
		}
		require.Len(t, order, 500)
	}

	cfg.Each = nil
	var parts []*Summary
	for _, k := range []int{3, 1, 2} { // any order
		cfg.Shard = Shard{k, 3}
		part, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err)
		assert.Equal(t, 500*k/3-500*(k-1)/3, part.Runs)
		// Through JSON, as fwsim merge reads them.
		back, err := ReadSummary(bytes.NewReader([]byte(encode(t, part))))
		require.NoError(t, err)
		parts = append(parts, back)
	}
	merged, err := Merge(parts)
	require.NoError(t, err)
	assert.Equal(t, want, encode(t, merged))

	_, err = Merge(parts[:2])
	assert.ErrorContains(t, err, "shard 2/3 is missing")
	_, err = Merge([]*Summary{parts[0], parts[0], parts[1]})
	assert.ErrorContains(t, err, "shard 3/3 given twice")
	other := *parts[1]
	other.Seed = 12
	_, err = Merge([]*Summary{parts[0], &other, parts[2]})
	assert.ErrorContains(t, err, "seed 12, not 11")
	_, err = Merge([]*Summary{parts[0], &other, parts[2]}, "a.json", "b.json", "c.json")
	assert.ErrorContains(t, err, "b.json (shard 1/3) comes from another analysis than a.json")
	renamed := *parts[1]
	renamed.Roots = map[string]int64{"ghost": 0}
	_, err = Merge([]*Summary{parts[0], &renamed, parts[2]})
	assert.ErrorContains(t, err, "summary 2 (shard 1/3) lists other nodes under roots than summary 1")
	_, err = Merge([]*Summary{merged})
	assert.ErrorContains(t, err, "not a shard")
}

func TestProgressCountsEveryRun(t *testing.T) {
	var last, calls int
	_, err := Run(context.Background(), Config{Topology: generate(t, "pair"), Runs: 300, Workers: 2},
		func(done, total int) {
			assert.Equal(t, 300, total)
			assert.Greater(t, done, last)
			last = done
			calls++
		})
	require.NoError(t, err)
	assert.Equal(t, 300, last)
	assert.Equal(t, 5, calls, "one call per chunk of %d runs", chunkRuns)
}

// TestSampleSeedReplaysTheRun: a sample's seed given to bus.Run with the same
// options gives the same run.
func TestSampleSeedReplaysTheRun(t *testing.T) {
	topo := generate(t, "tree:6:2")
	opts := bus.Options{Seed: 5, Corner: treeid.CornerMin}
	var samples []Sample
	_, err := Run(context.Background(), Config{Topology: topo, Options: opts, Runs: 20,
		Each: func(s Sample) error { samples = append(samples, s); return nil }}, nil)
	require.NoError(t, err)
	for _, s := range samples {
		require.Equal(t, RunSeed(5, s.Run), s.Seed)
		o := opts
		o.Seed = s.Seed
		res, err := bus.Run(topo, o)
		require.NoError(t, err)
		g := res.Generations[0]
		assert.Equal(t, g.Root, s.Root, "run %d", s.Run)
		assert.Equal(t, g.Timing.SelfIDDone, s.SelfIDNs, "run %d", s.Run)
		assert.Equal(t, res.Events, s.Events, "run %d", s.Run)
	}
}

func TestFailuresAreCountedNeverDropped(t *testing.T) {
	sum, err := Run(context.Background(), Config{Topology: generate(t, "ring:3"), Runs: 10,
		Deadlines: []bus.MetricDeadline{{D: time.Second}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"config-timeout": 10, "inconsistent": 0, "interrupted": 0, "stalled": 0, "budget-exhausted": 0}, sum.Failures)
	assert.Equal(t, int64(10), sum.Failed())
	assert.Equal(t, map[string]int64{"n0": 0, "n1": 0, "n2": 0}, sum.Roots)
	tree := sum.Metrics[bus.MetricTreeID]
	assert.Equal(t, int64(0), tree.N)
	assert.Equal(t, int64(10), tree.Missing)
	// Missing values miss the deadline: they are not left out of it.
	assert.Equal(t, Deadline{Metric: bus.MetricTreeID, DeadlineNs: int64(time.Second), Met: 0, Of: 10, P: 0, CI95: stats.Wilson(0, 10)}, sum.Deadlines[0])
	// No contention: the metric applies to no run.
	assert.Equal(t, Deadline{Metric: bus.MetricContention, DeadlineNs: int64(time.Second), CI95: [2]float64{0, 1}}, sum.Deadlines[2])
}

func TestBadConfigs(t *testing.T) {
	pair := generate(t, "pair")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Runs: 1}, "no topology"},
		{Config{Topology: pair}, "0 runs"},
		{Config{Topology: pair, Runs: 1, Shard: Shard{0, 3}}, "shard 0/3"},
		{Config{Topology: pair, Runs: 2, Shard: Shard{1, 3}}, "3 shards of 2 runs"},
		{Config{Topology: pair, Runs: 1, Deadlines: []bus.MetricDeadline{{D: 0}}}, "deadline 0s"},
		{Config{Topology: pair, Runs: 1, Deadlines: []bus.MetricDeadline{{Metric: bus.MetricContentionRounds, D: 1}}},
			`deadline contention_rounds=1ns: metric "contention_rounds", want one of tree_id_ns, self_id_ns, contention_ns`},
		// A deadline of every metric covers the one of a metric.
		{Config{Topology: pair, Runs: 1, Deadlines: []bus.MetricDeadline{{Metric: bus.MetricSelfID, D: time.Microsecond}, {D: time.Microsecond}}},
			"deadline 1µs: self_id_ns ≤ 1µs is asked for twice"},
		// Counts the statistics cannot hold: once the chunks of the runs
		// overflowed and Run summarised no run at all, or a shard's slice
		// overflowed into negative runs.
		{Config{Topology: pair, Runs: math.MaxInt64}, "9223372036854775807 runs, at most 9007199254740992, because the statistics count runs exactly only up to 2^53"},
		{Config{Topology: pair, Runs: 9e18, Shard: Shard{2, 3}}, "9000000000000000000 runs, at most 9007199254740992"},
	} {
		_, err := Run(context.Background(), tc.cfg, nil)
		assert.ErrorIs(t, err, ErrInvalidConfig, tc.want)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := Run(context.Background(), Config{Topology: pair, Runs: 1, Options: bus.Options{ForceRoot: "x"}}, nil)
	assert.ErrorIs(t, err, bus.ErrInvalidOptions)
}

// The slices of the shards cover every run once, each of total/N or one
// more runs, however large the total and the number of shards: total·K
// takes more than 64 bits.
func TestShardSlicesOfAnyTotal(t *testing.T) {
	for _, tc := range []struct{ total, n int }{{100, 7}, {MaxRuns, 3}, {MaxRuns, MaxRuns}, {MaxRuns - 1, 1 << 40}, {9e15, 9e15 - 1}} {
		for _, k := range []int{1, 2, tc.n / 2, tc.n - 1, tc.n} {
			checkShardSlice(t, tc.total, Shard{k, tc.n})
		}
	}
}

// checkShardSlice checks shard sh's slice of total runs against its
// neighbours' and the size every slice has.
func checkShardSlice(t *testing.T, total int, sh Shard) {
	t.Helper()
	from, to := sh.runs(total)
	require.True(t, 0 <= from && from < to && to <= total, "shard %s of %d: [%d, %d)", sh, total, from, to)
	size := total / sh.N
	assert.True(t, to-from == size || to-from == size+1, "shard %s of %d holds %d runs, want %d or one more", sh, total, to-from, size)
	if sh.K > 1 {
		_, prevTo := Shard{sh.K - 1, sh.N}.runs(total)
		assert.Equal(t, prevTo, from, "shard %s of %d starts where the one before ends", sh, total)
	} else {
		assert.Zero(t, from)
	}
	if sh.K == sh.N {
		assert.Equal(t, total, to)
	}
}

// FuzzShardOfRuns: whatever --runs and --shard say, Run's checks refuse
// them with ErrInvalidConfig or the shard is a non-empty slice of the runs
// that meets its neighbours.
func FuzzShardOfRuns(f *testing.F) {
	for _, tc := range []struct {
		runs  int64
		shard string
	}{{100, "3/7"}, {9e18, "2/3"}, {math.MaxInt64, "1/1"}, {MaxRuns, "9007199254740992/9007199254740992"}, {2, "1/3"}, {0, "1/1"}} {
		f.Add(tc.runs, tc.shard)
	}
	pair, err := bus.Generate("pair")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, runs int64, shard string) {
		sh, err := ParseShard(shard)
		if err != nil {
			return
		}
		cfg := Config{Topology: pair, Runs: int(runs), Shard: sh}
		if err := cfg.check(); err != nil {
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.True(t, runs < 1 || runs > MaxRuns || int64(sh.N) > runs, "%d runs, shard %s: %v", runs, sh, err)
			return
		}
		checkShardSlice(t, cfg.Runs, sh)
	})
}

// A run stops inside itself when the context ends: a coin that always
// says SLOW contends until the event budget, some 0.3 s a run, and a chunk
// of such runs once held Ctrl-C for half a minute.
func TestCancelStopsARunInProgress(t *testing.T) {
	slow := 0.0
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	timer := time.AfterFunc(100*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	defer timer.Stop()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Topology: generate(t, "pair"), Options: bus.Options{CoinBias: &slow}, Runs: 1000, Workers: 1}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(cancelled), time.Second, "Run returned long after the cancel")
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of being cancelled")
	}
}

func TestEachErrorAndCancelStopTheRun(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	_, err := Run(context.Background(), Config{Topology: generate(t, "pair"), Runs: 10_000, Workers: 2,
		Each: func(s Sample) error {
			calls++
			if s.Run == 100 {
				return stop
			}
			return nil
		}}, nil)
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 101, calls)

	ctx, cancel := context.WithCancel(context.Background())
	_, err = Run(ctx, Config{Topology: generate(t, "pair"), Runs: 1_000_000, Workers: 2},
		func(done, _ int) {
			if done >= 1000 {
				cancel()
			}
		})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestHeaderHashesThePowerUp: analyses of another power-up mode are
// another configuration, which merge refuses to mix.
func TestHeaderHashesThePowerUp(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	hash := func(o bus.Options) string {
		h, err := HeaderOf(Config{Topology: topo, Options: o})
		require.NoError(t, err)
		return h.ConfigSHA256
	}
	def := hash(bus.Options{})
	assert.NotEqual(t, def, hash(bus.Options{PowerUp: bus.PowerUpAll}))
	assert.NotEqual(t, hash(bus.Options{PowerUp: bus.PowerUpStaggered}), hash(bus.Options{PowerUp: bus.PowerUpStaggered, PowerUpInterval: 2 * time.Millisecond}))
	assert.Equal(t, def, hash(bus.Options{Seed: 9}), "the seed is not configuration")
}

// A deadline of one metric is reported for that metric only, in the order
// given, between the deadlines of every metric; each counts the runs at or
// below it, as the metric's histogram does.
func TestDeadlineOfOneMetric(t *testing.T) {
	ds := []bus.MetricDeadline{{Metric: bus.MetricContention, D: 2 * time.Microsecond}, {D: 200 * time.Microsecond},
		{Metric: bus.MetricSelfID, D: 170 * time.Microsecond}}
	sum, err := Run(context.Background(), Config{Topology: generate(t, "pair"), Runs: 200, Deadlines: ds}, nil)
	require.NoError(t, err)
	type key struct {
		metric string
		ns     int64
	}
	var got []key
	for _, d := range sum.Deadlines {
		got = append(got, key{d.Metric, d.DeadlineNs})
		m := sum.Metrics[d.Metric]
		var met int64
		for _, b := range m.Hist {
			if b.Value <= d.DeadlineNs {
				met += b.Count
			}
		}
		assert.Equal(t, met, d.Met, "%s ≤ %d ns", d.Metric, d.DeadlineNs)
		assert.Equal(t, m.N+m.Missing, d.Of, "%s ≤ %d ns", d.Metric, d.DeadlineNs)
	}
	assert.Equal(t, []key{{bus.MetricContention, 2000}, {bus.MetricTreeID, 200_000}, {bus.MetricSelfID, 200_000},
		{bus.MetricContention, 200_000}, {bus.MetricSelfID, 170_000}}, got)
}

// TestTrafficMetricsSummariseEveryRun: an analysis of a bus with traffic
// summarises the traffic metrics of every run, as the runs themselves
// give them, and its shards merge to the whole; one without traffic has
// none of them.
func TestTrafficMetricsSummariseEveryRun(t *testing.T) {
	topo, err := bus.LoadTopology("../examples/traffic.yaml")
	require.NoError(t, err)
	cfg := Config{Topology: topo, Source: "traffic.yaml", Options: bus.Options{Seed: 3, Until: 300 * time.Microsecond}, Runs: 6}
	var collisions int64
	cfg.Each = func(s Sample) error {
		o := cfg.Options
		o.Seed = s.Seed
		res, err := bus.Run(topo, o)
		require.NoError(t, err)
		assert.Equal(t, res.Traffic.Metrics(), s.Traffic, "run %d", s.Run)
		collisions += int64(res.Traffic.Collisions)
		return nil
	}
	sum, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, append(slices.Clone(bus.MetricNames), bus.TrafficMetricNames...), sum.MetricNames())
	assert.Equal(t, int64(6), sum.Metrics[bus.MetricCollisions].N)
	assert.InDelta(t, float64(collisions)/6, sum.Metrics[bus.MetricCollisions].Mean, 1e-9)
	assert.Positive(t, collisions, "gap count 5 on 15 hops collides")

	cfg.Each = nil
	var parts []*Summary
	for k := 1; k <= 2; k++ {
		cfg.Shard = Shard{k, 2}
		part, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err)
		back, err := ReadSummary(bytes.NewReader([]byte(encode(t, part))))
		require.NoError(t, err)
		parts = append(parts, back)
	}
	merged, err := Merge(parts)
	require.NoError(t, err)
	assert.Equal(t, encode(t, sum), encode(t, merged))

	cfg.Shard, cfg.Topology.Traffic, cfg.Options.Until = Shard{}, nil, 0
	plain, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, bus.MetricNames, plain.MetricNames())
	assert.Len(t, plain.Metrics, len(bus.MetricNames))
}
