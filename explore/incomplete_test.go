package explore

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// inside reports whether x lies in [lo, hi].
func inside(x, lo, hi *big.Rat) bool { return lo.Cmp(x) <= 0 && x.Cmp(hi) <= 0 }

// An exploration stopped at MaxStates answers with bounds: the exact
// minimum over every scheduler lies in its bounds of the minimum, the
// exact maximum in its bounds of the maximum, at every budget, with and
// without an adversary; and only a failure the complete exploration also
// finds is called sure.
func TestIncompleteBoundsHoldTheExactAnswers(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	for _, timing := range []Timing{Nondet, Random} {
		o := Options{Bus: bus.Options{Seed: 3, IdealClock: true, Timing: narrow(t)}, Timing: timing,
			Deadlines: every(bus.MetricContention, 600*time.Nanosecond, 900*time.Nanosecond, 1500*time.Nanosecond)}
		exact, err := Explore(topo, o)
		require.NoError(t, err)
		require.True(t, exact.Complete)
		require.Nil(t, exact.Unexplored)
		for _, budget := range []int{1, 3, 10, 30, 100, exact.States / 2} {
			o.MaxStates = budget
			res, err := Explore(topo, o)
			require.NoError(t, err)
			require.False(t, res.Complete, "%s at %d states", timing, budget)
			require.NotNil(t, res.Unexplored)
			_, reachesFrontier := res.Unexplored.MaxBounds()
			assert.Positive(t, reachesFrontier.Sign(), "%s at %d states: some run reaches the unexplored states", timing, budget)
			if res.Verdict() == Fails {
				assert.Equal(t, Fails, exact.Verdict(), "%s at %d states: a sure failure is one", timing, budget)
			} else {
				assert.Equal(t, Incomplete, res.Verdict())
			}
			check := func(what string, got, want Interval) {
				minLo, minHi := got.MinBounds()
				maxLo, maxHi := got.MaxBounds()
				assert.True(t, inside(want.Min, minLo, minHi), "%s at %d states: %s min %s outside [%s, %s]",
					timing, budget, what, want.Min.RatString(), minLo.RatString(), minHi.RatString())
				assert.True(t, inside(want.Max, maxLo, maxHi), "%s at %d states: %s max %s outside [%s, %s]",
					timing, budget, what, want.Max.RatString(), maxLo.RatString(), maxHi.RatString())
			}
			for _, want := range exact.Outcomes {
				got := Interval{Min: zero, Max: res.Unexplored.Max, MinUpper: res.Unexplored.Max, MaxLower: zero}
				for _, r := range res.Outcomes {
					if r.Outcome == want.Outcome {
						got = r.P
					}
				}
				check(string(want.Outcome), got, want.P)
			}
			for i, want := range exact.Deadlines {
				check(want.Metric, res.Deadlines[i].P, want.P)
			}
		}
	}
}

// The reproduction: a far pair that stalls with probability 1/2, stopped
// after two states, used to print no outcome and pass. It is now
// incomplete, says how likely the unexplored states are, and a larger
// budget that reaches a stall calls it a sure failure.
func TestStoppedExplorationIsNotAPass(t *testing.T) {
	topo, err := bus.LoadTopology("../examples/far-pair.yaml")
	require.NoError(t, err)
	o := Options{Bus: bus.Options{Seed: 1, IdealClock: true, AllowOutOfSpec: true}, Timing: Max, MaxStates: 2}
	res, err := Explore(topo, o)
	require.NoError(t, err)
	assert.Equal(t, Incomplete, res.Verdict())
	require.NotNil(t, res.Unexplored)
	assert.Equal(t, "1", res.Unexplored.Min.RatString(), "no run has ended yet")
	j := NewJSON("far-pair", o, res, nil)
	require.NotNil(t, j.Unexplored)
	o.MaxStates = 5
	res, err = Explore(topo, o)
	require.NoError(t, err)
	assert.Equal(t, Fails, res.Verdict(), "a stall is already reached")
}

// Under an adversary an incomplete answer keeps *_exact for exact values:
// the bounds of a minimum or a maximum go to their own fields.
func TestIncompleteJSONKeepsExactForExact(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	o := Options{Bus: bus.Options{Seed: 3, IdealClock: true, Timing: narrow(t)}, Timing: Nondet, MaxStates: 10,
		Deadlines: every(bus.MetricContention, 900*time.Nanosecond)}
	res, err := Explore(topo, o)
	require.NoError(t, err)
	j := NewJSON("pair", o, res, nil)
	require.Len(t, j.Deadlines, 1)
	d := j.Deadlines[0]
	assert.Empty(t, d.PMinExact, "the minimum is not known exactly")
	require.NotNil(t, d.PMinBounds)
	lo, hi := res.Deadlines[0].P.MinBounds()
	assert.Equal(t, lo.RatString(), d.PMinBounds.LowerFraction)
	assert.Equal(t, hi.RatString(), d.PMinBounds.UpperFraction)
}
