package explore

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/internal/testenv"
)

// symmetricPair is two identical nodes on a 1 ns cable, with ideal clocks,
// nominal timers and 3 ns windows: nothing tells them apart but the coins
// and the waits.
func symmetricPair(t *testing.T) (*bus.Topology, bus.Options) {
	return pair(t, 1), bus.Options{Seed: 1, IdealClock: true, NominalTimers: true, Timing: narrow(t)}
}

// rootsOf flattens a distribution to "root: P" and "root order...: P".
func rootsOf(rs []RootResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Root+": "+r.P.String())
		for _, o := range r.Orders {
			out = append(out, r.Root+" "+strings.Join(o.Order, " ")+": "+o.P.String())
		}
	}
	return out
}

// On two identical nodes each is root with probability 1/2, whatever the
// waits, since nothing else tells them apart; the root takes the higher
// phy_ID. When an adversary chooses the waits, it can settle a round in
// which both coins agree either way (a FAST wait 3 ns shorter than the
// other's resends PARENT_NOTIFY before the other looks, 1 ns away), while
// coins that differ make the SLOW node root: a node is root with
// probability at least P(it draws SLOW, the other FAST) = 1/4 in the first
// round and at most 1 − 1/4.
func TestRootsOfASymmetricPair(t *testing.T) {
	topo, o := symmetricPair(t)
	for _, c := range []struct {
		timing Timing
		want   []string
	}{
		{Max, []string{"a: 1/2", "a b a: 1/2", "b: 1/2", "b a b: 1/2"}},
		{Random, []string{"a: 1/2", "a b a: 1/2", "b: 1/2", "b a b: 1/2"}},
		{Nondet, []string{"a: [1/4, 3/4]", "a b a: [1/4, 3/4]", "b: [1/4, 3/4]", "b a b: [1/4, 3/4]"}},
	} {
		res, err := Explore(topo, Options{Bus: o, Timing: c.timing, Roots: true})
		require.NoError(t, err)
		require.True(t, res.Complete)
		assert.Equal(t, c.want, rootsOf(res.Roots), "%s", c.timing)
	}
	res, err := Explore(topo, Options{Bus: o, Timing: Max})
	require.NoError(t, err)
	assert.Nil(t, res.Roots, "without Options.Roots")
}

// The exact distribution of roots and self-ID orders agrees with Monte
// Carlo runs of the same bus (the same timer lengths and clock phases:
// bus.Options.SetupSeed): on chain:4 at power-up the inner nodes race to
// be root, and every exact probability lies in the 95% Wilson interval of
// the runs; every order the runs show is one the exploration lists.
func TestRootsMatchMonteCarlo(t *testing.T) {
	topo := generatedTopo(t, "chain:4")
	seed := uint64(1)
	res, err := Explore(topo, Options{Bus: bus.Options{Seed: seed}, Roots: true})
	require.NoError(t, err)
	require.True(t, res.Complete)
	require.False(t, res.Nondeterministic)
	runs := testenv.Size(500, 2_000, 100_000)
	roots, orders := map[string]int64{}, map[string]int64{}
	for s := range uint64(runs) {
		r, err := bus.Run(topo, bus.Options{Seed: seed + s, SetupSeed: &seed})
		require.NoError(t, err)
		g := r.Generations[0]
		var order []string
		for _, n := range g.Nodes {
			order = append(order, n.ID)
		}
		roots[g.Root]++
		orders[g.Root+" "+strings.Join(order, " ")]++
	}
	listed, split := 0, 0
	sum := new(big.Rat)
	for _, r := range res.Roots {
		require.True(t, r.P.Exact(), "%s: %v", r.Root, r.P)
		sum.Add(sum, r.P.Min)
		p, _ := r.P.Min.Float64()
		ci := stats.Wilson(roots[r.Root], int64(runs))
		assert.True(t, ci[0] <= p && p <= ci[1], "root %s: exact %v outside [%f, %f] of %d runs", r.Root, r.P, ci[0], ci[1], roots[r.Root])
		if p > 0 && p < 1 {
			split++
		}
		for _, o := range r.Orders {
			key := r.Root + " " + strings.Join(o.Order, " ")
			p, _ := o.P.Min.Float64()
			ci := stats.Wilson(orders[key], int64(runs))
			assert.True(t, ci[0] <= p && p <= ci[1], "%s: exact %v outside [%f, %f]", key, o.P, ci[0], ci[1])
			listed++
		}
	}
	assert.Equal(t, "1", sum.RatString(), "every run ends with one of the roots")
	assert.Equal(t, len(orders), listed, "the runs' orders %v", orders)
	assert.Equal(t, 2, split, "two roots, each by chance: %v", rootsOf(res.Roots))
}

// A choice point after the first generation has closed is told apart by
// that generation's root and order, which the state no longer shows: the
// symmetric pair, reset again by node a at 175 µs, contends again in the
// second generation however the first ended. The runs whose first
// generation ends before the reset elect a and b alike (those the reset
// interrupts do not: a begins it), and every run ends with some root.
func TestRootsSurviveALaterGeneration(t *testing.T) {
	topo, o := symmetricPair(t)
	topo.Events = []bus.Event{{At: bus.Duration(175 * time.Microsecond), Reset: &bus.ResetEvent{Node: "a"}}}
	res, err := Explore(topo, Options{Bus: o, Timing: Max, Roots: true})
	require.NoError(t, err)
	require.True(t, res.Complete)
	whole := map[string]*big.Rat{}
	sum := new(big.Rat)
	for _, r := range res.Roots {
		require.True(t, r.P.Exact(), "%s: %v", r.Root, r.P)
		sum.Add(sum, r.P.Min)
		for _, o := range r.Orders {
			if len(o.Order) == 2 {
				whole[r.Root+" "+strings.Join(o.Order, " ")] = o.P.Min
			}
		}
	}
	assert.Equal(t, "1", sum.RatString())
	require.Len(t, whole, 2, "%v", rootsOf(res.Roots))
	assert.Equal(t, whole["a b a"].RatString(), whole["b a b"].RatString())
	assert.Equal(t, 1, whole["a b a"].Cmp(big.NewRat(49, 100)), "most runs end the first generation before the reset")
}
