package explore

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/testenv"
	"github.com/fwsim/fwsim/treeid"
)

func pair(t *testing.T, delayNs float64) *bus.Topology {
	t.Helper()
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	topo.Cables[0].LengthM, topo.Cables[0].DelayNs = nil, &delayNs
	return topo
}

func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	require.True(t, ok, s)
	return r
}

// findDeadline returns the result for metric within d.
func findDeadline(t *testing.T, res *Result, metric string, d time.Duration) DeadlineResult {
	t.Helper()
	for _, r := range res.Deadlines {
		if r.Metric == metric && r.DeadlineNs == int64(d) {
			return r
		}
	}
	require.Failf(t, "no deadline result", "%s within %v", metric, d)
	return DeadlineResult{}
}

func findExpected(t *testing.T, res *Result, metric string) ExpectedResult {
	t.Helper()
	for _, r := range res.Expected {
		if r.Metric == metric {
			return r
		}
	}
	require.Failf(t, "no expectation", metric)
	return ExpectedResult{}
}

// The two-node root-contention model of the probabilistic model-checking
// literature (PRISM's FireWire case study, abstract model): windows
// 760–850 ns and 1590–1670 ns, a fair coin, a one-way wire delay of 30 ns.
// Its published minimum probabilities of resolving contention within 2, 4,
// 6 and 8 µs and its maximum expected contention time are those of every
// wait at its window's upper bound, which docs/timing.md derives.
func TestPrismPublishedResults(t *testing.T) {
	deadlines := []time.Duration{2 * time.Microsecond, 4 * time.Microsecond, 6 * time.Microsecond, 8 * time.Microsecond}
	res, err := Explore(pair(t, 30), Options{
		Bus:       bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, IdealClock: true},
		Timing:    Max,
		Deadlines: deadlines,
	})
	require.NoError(t, err)
	require.True(t, res.Complete)
	require.False(t, res.Nondeterministic)
	for i, want := range []string{"1/2", "25/32", "477/512", "31965/32768"} {
		got := findDeadline(t, res, Contention, deadlines[i]).P
		require.True(t, got.Exact(), "%v", got)
		assert.Equal(t, rat(t, want).RatString(), got.Min.RatString(), "P(contention ≤ %v)", deadlines[i])
	}
	x := findExpected(t, res, Contention)
	require.True(t, x.Defined, x.Why)
	assert.Equal(t, "2990", x.Value.Max.RatString(), "the expected contention time")
	assert.Equal(t, "2", findExpected(t, res, ContentionRounds).Value.Min.RatString(), "the expected rounds")
	require.Len(t, res.Outcomes, 1)
	assert.Equal(t, bus.OutcomeOK, res.Outcomes[0].Outcome)
}

// With the waits left to an adversary, the worst scheduler is the one that
// waits longest: the minimum probability within 2 µs and the maximum
// expected contention time are the published ones. At 1 ns resolution the
// graph has about 78,000 states: a long test.
func TestPrismAdversary(t *testing.T) {
	if !testenv.Long() {
		t.Skip("about 25 s: FWSIM_LONG=1 runs it")
	}
	res, err := Explore(pair(t, 30), Options{
		Bus:       bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, IdealClock: true},
		Timing:    Nondet,
		Deadlines: []time.Duration{2 * time.Microsecond},
		MaxStates: 200_000,
	})
	require.NoError(t, err)
	require.True(t, res.Complete)
	require.True(t, res.Nondeterministic)
	assert.Equal(t, "1/2", findDeadline(t, res, Contention, 2*time.Microsecond).P.Min.RatString())
	x := findExpected(t, res, Contention)
	require.True(t, x.Defined, x.Why)
	assert.Equal(t, "2990", x.Value.Max.RatString())
}

// The coins give a Markov chain: its exact probabilities lie inside the
// Wilson intervals of Monte Carlo runs of the same bus, with the same seed's
// timer lengths.
func TestExactMatchesMonteCarlo(t *testing.T) {
	for _, ideal := range []bool{true} {
		opts := bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, IdealClock: ideal}
		d := 4 * time.Microsecond
		res, err := Explore(pair(t, 30), Options{Bus: opts, Timing: Max, Deadlines: []time.Duration{d}})
		require.NoError(t, err)
		require.True(t, res.Complete)
		opts.Corner = treeid.CornerMax
		sim, err := bus.NewSimulator(pair(t, 30), opts)
		require.NoError(t, err)
		runs := testenv.Size(2_000, 20_000, 1_000_000)
		met, contended := 0, 0
		for i := range runs {
			m := sim.Run(uint64(i) + 1)
			if m.Contended {
				contended++
				if m.ContentionNs >= 0 && m.ContentionNs <= int64(d) {
					met++
				}
			}
		}
		p := findDeadline(t, res, Contention, d).P
		require.True(t, p.Exact())
		lo, hi := wilson(met, contended)
		got, _ := p.Min.Float64()
		assert.True(t, got >= lo && got <= hi, "ideal=%v: exact %v outside the Wilson interval [%.5f, %.5f] of %d runs", ideal, p, lo, hi, contended)
	}
}

// wilson is the 95% Wilson score interval of k successes in n.
func wilson(k, n int) (float64, float64) {
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	center := (p + z*z/(2*nf)) / (1 + z*z/nf)
	half := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return center - half, center + half
}
