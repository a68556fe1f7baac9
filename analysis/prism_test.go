package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/treeid"
)

// The two-node root-contention model of the probabilistic model-checking
// literature (PRISM case study "firewire", abstract model, deadline
// properties): windows 760–850 ns and 1590–1670 ns, a fair coin, both nodes
// entering contention together, a one-way wire delay of 30 ns. Published:
// minimum probabilities P(≤ 2 µs) = 0.5 and P(≤ 4 µs) = 0.78125, maximum
// expected time 2990 ns with 2 expected rounds, minimum expected time
// 1382.5 ns. docs/timing.md derives each figure.
const (
	prismDelayNs = 30
	fastMaxNs    = 850
	slowMaxNs    = 1670
)

// prismConfig is the model as a bus: the pair at power-up resets both PHYs
// at time 0, so with ideal clocks both leave T2 at the same nanosecond.
func prismConfig(t *testing.T, corner treeid.Corner, ideal bool) Config {
	topo := generate(t, "pair")
	delay := float64(prismDelayNs)
	topo.Cables[0].LengthM, topo.Cables[0].DelayNs = nil, &delay
	return Config{
		Topology: topo,
		// 30 ns is longer than a 4.5 m cable: the models over-approximate.
		Options:   bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, Corner: corner, IdealClock: ideal},
		Runs:      40_000,
		Deadlines: []bus.MetricDeadline{{D: 2 * time.Microsecond}, {D: 4 * time.Microsecond}},
	}
}

// onWorstCasePath reports whether a duration and a number of rounds make
// a max-corner path: with every wait at its bound, a round where both coins
// agree fails after wait + delay (880 ns both FAST, 1700 ns both SLOW) and
// the final round, the coins differing, ends when the FAST node sees the
// SLOW node's handshake, SLOW.max + delay after it began. So r rounds, f of
// them FAST-FAST, last D = 1700·r − 820·f ns.
func onWorstCasePath(durationNs int64, rounds int) bool {
	round := int64(slowMaxNs + prismDelayNs)
	step := int64(slowMaxNs - fastMaxNs) // what a FAST-FAST round saves
	rest := round*int64(rounds) - durationNs
	return rest >= 0 && rest%step == 0 && rest/step <= int64(rounds-1)
}

// pathProbability is the exact probability of a max-corner path: rounds−1
// agreeing rounds, fastFast of them FAST-FAST, in any order, then a
// differing one: C(rounds−1, fastFast)·(1/4)^(rounds−1)·(1/2).
func pathProbability(rounds, fastFast int) float64 {
	c := 1.0
	for i := range fastFast {
		c = c * float64(rounds-1-i) / float64(i+1)
	}
	p := c / 2
	for range rounds - 1 {
		p /= 4
	}
	return p
}

func TestPrismMaxCornerIsThePublishedWorstCase(t *testing.T) {
	cfg := prismConfig(t, treeid.CornerMax, true)
	// Every run's duration is exactly the worst case of its coin path.
	cfg.Each = func(s Sample) error {
		require.True(t, s.Contended, "run %d", s.Run)
		require.True(t, onWorstCasePath(s.ContentionNs, s.ContentionRounds),
			"run %d: %d ns in %d rounds is not a worst-case path", s.Run, s.ContentionNs, s.ContentionRounds)
		return nil
	}
	sum, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Zero(t, sum.Failed())

	// The exact distribution of the duration, from the paths.
	exact := map[int64]float64{}
	for rounds := 1; rounds <= 30; rounds++ {
		for f := 0; f < rounds; f++ {
			d := int64((slowMaxNs+prismDelayNs)*rounds - (slowMaxNs-fastMaxNs)*f)
			exact[d] += pathProbability(rounds, f)
		}
	}
	m := sum.Metrics[bus.MetricContention]
	require.Equal(t, int64(cfg.Runs), m.N)
	for _, b := range m.Hist {
		require.Contains(t, exact, b.Value)
		if p := exact[b.Value]; p >= 0.01 {
			ci := stats.Wilson(b.Count, m.N)
			assert.True(t, ci[0] <= p && p <= ci[1], "P(%d ns) = %v outside %v", b.Value, p, ci)
		}
	}
	assert.InDelta(t, 0.5, exact[1700], 1e-15)
	assert.InDelta(t, 0.78125, exact[1700]+exact[2580]+exact[3400]+exact[3460], 1e-15)

	// The published figures: each inside the 95% interval, the neighbouring
	// step of the model (1/32 in probability, 10 ns in time) outside.
	for _, tc := range []struct {
		index     int // into sum.Deadlines: two deadlines × three metrics
		published float64
	}{{2, 0.5}, {5, 0.78125}} {
		d := sum.Deadlines[tc.index]
		require.Equal(t, bus.MetricContention, d.Metric)
		assert.True(t, d.CI95[0] <= tc.published && tc.published <= d.CI95[1], "%d ns: %v outside %v", d.DeadlineNs, tc.published, d.CI95)
		assert.Greater(t, d.CI95[0], tc.published-1.0/32)
		assert.Less(t, d.CI95[1], tc.published+1.0/32)
	}
	assert.True(t, m.CI95[0] <= 2990 && 2990 <= m.CI95[1], "E[duration] interval %v", m.CI95)
	assert.Less(t, m.CI95[1]-m.CI95[0], 2*30.0, "the interval must resolve a few 10 ns steps")
	r := sum.Metrics[bus.MetricContentionRounds]
	assert.True(t, r.CI95[0] <= 2 && 2 <= r.CI95[1], "E[rounds] interval %v", r.CI95)
	assert.Equal(t, float64(1700), m.Min)
}

// TestPrismRandomTimingInsideThePublishedBounds: drawing every wait inside
// its window can only shorten root contention, so every estimate must lie
// between the published best and worst cases.
func TestPrismRandomTimingInsideThePublishedBounds(t *testing.T) {
	for _, ideal := range []bool{true, false} {
		sum, err := Run(context.Background(), prismConfig(t, treeid.CornerRandom, ideal), nil)
		require.NoError(t, err)
		assert.Zero(t, sum.Failed())
		m := sum.Metrics[bus.MetricContention]
		assert.Greater(t, m.CI95[0], 1382.5, "ideal %v: E[duration] interval %v", ideal, m.CI95)
		assert.Less(t, m.CI95[1], 2990.0, "ideal %v: E[duration] interval %v", ideal, m.CI95)
		for _, tc := range []struct {
			index   int
			minimum float64
		}{{2, 0.5}, {5, 0.78125}} {
			d := sum.Deadlines[tc.index]
			assert.Greater(t, d.CI95[0], tc.minimum, "ideal %v: P(≤ %d ns) interval %v", ideal, d.DeadlineNs, d.CI95)
		}
		r := sum.Metrics[bus.MetricContentionRounds]
		assert.Less(t, r.CI95[1], 2.0, "ideal %v: E[rounds] interval %v", ideal, r.CI95)
	}
}
