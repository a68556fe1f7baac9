package hwtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// captured is the bus spec shows when initiator resets it (seed 1).
func captured(t *testing.T, spec, initiator string) *Bus {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	res, err := bus.Run(topo, bus.Options{Seed: 1, Initiators: []string{initiator}})
	require.NoError(t, err)
	b := Decode(Generation{SelfIDs: res.Generations[0].SelfIDs, Number: -1, LocalPhyID: -1})
	require.Empty(t, b.Problems)
	return b
}

// The exact odds of a small bus agree with Monte Carlo runs of the same
// bus: each lies in the 95% Wilson interval of the runs. On the capture's
// own topology the root decides the self-ID order (a post-order walk of
// the one tree from it), so the two chances are equal. Two buses whose
// emulation elects one of two roots, without a root contention (a few
// states): on the first the captured root is the less likely, which the
// likelier root and order then name; on the second it is the likeliest.
func TestOddsExactAgreesWithMonteCarlo(t *testing.T) {
	for _, c := range []struct {
		spec, initiator string
		seed            uint64
		likeliest       bool // the captured root is the likeliest
	}{
		{"chain:3", "n1", 1, false},
		{"tree:5:1", "n2", 2, true},
	} {
		b := captured(t, c.spec, c.initiator)
		exact, err := Cross(b, CrossOptions{Seed: c.seed, Odds: &OddsOptions{}})
		require.NoError(t, err)
		sampled, err := Cross(b, CrossOptions{Seed: c.seed, Odds: &OddsOptions{MaxStates: -1}})
		require.NoError(t, err)
		l, m := exact.Likelihood, sampled.Likelihood
		require.True(t, l.Exact, c.spec)
		require.False(t, m.Exact)
		require.Len(t, l.Roots, 2, c.spec)
		assert.Less(t, l.States, 20, "%s: no root contention", c.spec)
		assert.Equal(t, l.PRoot.Exact(), l.POrder.Exact(), c.spec)
		for _, p := range [][2]Chance{{l.PRoot, m.PRoot}, {l.POrder, m.POrder}} {
			ci := p[1].Interval()
			assert.True(t, ci[0] <= p[0].P() && p[0].P() <= ci[1], "%s: exact %s outside %v", c.spec, p[0], ci)
		}
		for _, r := range l.Roots {
			ci := m.OfRoot(r.Root).Interval()
			assert.True(t, ci[0] <= r.P.P() && r.P.P() <= ci[1], "%s: root %s: exact %s outside %v", c.spec, r.Root, r.P, ci)
		}
		p := l.PRoot.P()
		assert.True(t, p > 0 && p < 1, "%s: %s", c.spec, l.PRoot)
		top, ok := l.LikelierRoot()
		order, orderOK := l.LikelierOrder()
		assert.Equal(t, !c.likeliest, ok, c.spec)
		assert.Equal(t, ok, orderOK, c.spec)
		if ok {
			assert.Greater(t, top.P.P(), p)
			assert.NotEqual(t, l.Root, top.Root)
			assert.Equal(t, top.Root, order.Order[len(order.Order)-1], "the root takes the highest phy_ID")
		} else {
			assert.Equal(t, l.Root, l.Roots[0].Root)
		}
	}
}

// The generations of a capture that show the same bus share its odds.
func TestOddsCache(t *testing.T) {
	cache := map[string]*Odds{}
	b := captured(t, "chain:3", "n1")
	first, err := Cross(b, CrossOptions{Seed: 1, Odds: &OddsOptions{MaxStates: -1, Cache: cache}})
	require.NoError(t, err)
	again, err := Cross(captured(t, "chain:3", "n1"), CrossOptions{Seed: 1, Odds: &OddsOptions{MaxStates: -1, Cache: cache}})
	require.NoError(t, err)
	assert.Len(t, cache, 1)
	assert.Same(t, first.Likelihood.Odds, again.Likelihood.Odds)
	other, err := Cross(b, CrossOptions{Seed: 2, Odds: &OddsOptions{MaxStates: -1, Cache: cache}})
	require.NoError(t, err)
	assert.Len(t, cache, 2, "another seed, other timers")
	assert.NotSame(t, first.Likelihood.Odds, other.Likelihood.Odds)
}

// A closed interrupt stops the odds, explored or sampled.
func TestOddsInterrupted(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	for _, states := range []int{0, -1} {
		_, err := Cross(pairBus(t), CrossOptions{Seed: 1, Odds: &OddsOptions{MaxStates: states}, Interrupt: stop})
		assert.ErrorIs(t, err, bus.ErrInterrupted, "max states %d", states)
	}
}

// An exploration that does not complete within MaxStates gives way to
// Monte Carlo, and says so.
func TestOddsPastMaxStates(t *testing.T) {
	c, err := Cross(pairBus(t), CrossOptions{Seed: 1, Odds: &OddsOptions{MaxStates: 10}})
	require.NoError(t, err)
	assert.False(t, c.Likelihood.Exact)
	assert.Equal(t, "the exploration passed 10 states", c.Likelihood.Why)
	assert.Equal(t, OddsRuns, c.Likelihood.Runs)
}
