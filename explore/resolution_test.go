package explore

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// resolutionCase explores the prism pair with back-off windows 10 ns wide
// (760–770 and 1590–1600 ns, so that the adversary's graph at 1 ns stays
// small) and a cable of delayNs under an adversary, at time step step ns.
func resolutionCase(t *testing.T, delayNs float64, step int64) *Result {
	t.Helper()
	res, err := Explore(pair(t, delayNs), Options{
		Bus:       bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, IdealClock: true, Timing: withWindows(t, "prism", 760, 770, 1590, 1600)},
		Timing:    Nondet,
		Space:     bus.ChoiceSpace{Resolution: step},
		Deadlines: every(bus.MetricContention, 1600*time.Nanosecond, 2400*time.Nanosecond, 3200*time.Nanosecond, 4000*time.Nanosecond),
	})
	require.NoError(t, err)
	require.True(t, res.Complete)
	require.True(t, res.Nondeterministic)
	return res
}

// answers lists every answer of res, deadlines then expectations, each as
// its minimum and maximum over the schedulers.
func answers(res *Result) (names []string, mins, maxs []*big.Rat) {
	for _, d := range res.Deadlines {
		names = append(names, d.Metric+" ≤ "+time.Duration(d.DeadlineNs).String())
		mins, maxs = append(mins, d.P.Min), append(maxs, d.P.Max)
	}
	for _, x := range res.Expected {
		names = append(names, "E["+x.Metric+"]")
		mins, maxs = append(mins, x.Value.Min), append(maxs, x.Value.Max)
	}
	return names, mins, maxs
}

// Where every time the choices race against is a multiple of the step (the
// windows' bounds and the cable's 30 ns, a multiple of 10, 5 and 2), a
// coarser step gives every answer of the 1 ns exploration, minimum and
// maximum, fraction for fraction: the digital-clocks argument of
// docs/timing.md, checked.
func TestResolutionIsExactOnItsGrid(t *testing.T) {
	fine := resolutionCase(t, 30, 1)
	names, wantMin, wantMax := answers(fine)
	for _, step := range []int64{2, 5, 10} {
		coarse := resolutionCase(t, 30, step)
		assert.Less(t, coarse.States, fine.States, "a %d ns step explores fewer states", step)
		_, gotMin, gotMax := answers(coarse)
		for i, name := range names {
			assert.Equal(t, wantMin[i].RatString(), gotMin[i].RatString(), "%d ns: min %s", step, name)
			assert.Equal(t, wantMax[i].RatString(), gotMax[i].RatString(), "%d ns: max %s", step, name)
		}
	}
}

// Off its grid (a 33 ns cable, not a multiple of 10) a step only narrows
// the adversary: its schedulers are some of the 1 ns ones, so every
// minimum is at least, and every maximum at most, the 1 ns one; and here
// some answer does differ, which is why docs/timing.md calls such answers
// bounds.
func TestResolutionOffItsGridBoundsFromInside(t *testing.T) {
	names, fineMin, fineMax := answers(resolutionCase(t, 33, 1))
	_, min10, max10 := answers(resolutionCase(t, 33, 10))
	differs := 0
	for i, name := range names {
		assert.True(t, min10[i].Cmp(fineMin[i]) >= 0, "min %s: %s at 10 ns below %s at 1 ns", name, min10[i].RatString(), fineMin[i].RatString())
		assert.True(t, max10[i].Cmp(fineMax[i]) <= 0, "max %s: %s at 10 ns above %s at 1 ns", name, max10[i].RatString(), fineMax[i].RatString())
		if min10[i].Cmp(fineMin[i]) != 0 || max10[i].Cmp(fineMax[i]) != 0 {
			differs++
		}
	}
	assert.Positive(t, differs, "every answer is the same off the grid: the case no longer shows what the docs say")
}

// PRISM's second published case, a wire delay of 360 ns
// (examples/prism-pair-360.yaml), at the model's
// own 10 ns step: the minimum probability of resolving the contention
// within each deadline is the staircase of every wait at its window's
// upper bound (rounds of 850 + 360 ns after FAST, FAST and 1670 + 360 ns
// otherwise, docs/timing.md), and the maximum expected contention time is
// (1/2)·2030 + (1/4)·(1210 + E) + (1/4)·(2030 + E), E = 3650 ns.
func TestPrism360(t *testing.T) {
	deadlines := []time.Duration{2 * time.Microsecond, 3 * time.Microsecond, 4 * time.Microsecond, 5 * time.Microsecond, 6 * time.Microsecond, 7 * time.Microsecond, 7800 * time.Nanosecond}
	topo, err := bus.LoadTopology("../examples/prism-pair-360.yaml")
	require.NoError(t, err)
	res, err := Explore(topo, Options{
		Bus:       bus.Options{Seed: 1394, Profile: "prism", AllowOutOfSpec: true, IdealClock: true},
		Timing:    Nondet,
		Space:     bus.ChoiceSpace{Resolution: 10},
		Deadlines: every(bus.MetricContention, deadlines...),
	})
	require.NoError(t, err)
	require.True(t, res.Complete)
	for _, d := range deadlines {
		want := worstCornerWithin(1210, 2030, int64(d))
		got := findDeadline(t, res, bus.MetricContention, d).P
		assert.Equal(t, want.RatString(), got.Min.RatString(), "min P(contention ≤ %v)", d)
	}
	x := findExpected(t, res, bus.MetricContention)
	require.True(t, x.Defined, x.Why)
	assert.Equal(t, "3650", x.Value.Max.RatString())
}

// worstCornerWithin is the probability, with a fair coin, that a contention
// whose rounds take same ns when the coins agree on FAST, and slow ns
// otherwise (resolving when they differ), is resolved within d ns: the sum
// over f FAST-FAST and g SLOW-SLOW rounds before the last of
// C(f+g, f)·(1/4)^(f+g)·(1/2), for those with f·same + (g+1)·slow ≤ d.
func worstCornerWithin(same, slow, d int64) *big.Rat {
	sum := new(big.Rat)
	for g := int64(0); (g+1)*slow <= d; g++ {
		for f := int64(0); f*same+(g+1)*slow <= d; f++ {
			ways := new(big.Int).Binomial(f+g, f)
			p := new(big.Rat).SetFrac(ways, new(big.Int).Lsh(big.NewInt(1), uint(2*(f+g)+1)))
			sum.Add(sum, p)
		}
	}
	return sum
}
