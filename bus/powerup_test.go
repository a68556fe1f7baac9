package bus

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initiated lists the nodes whose self-ID in g carries i.
func initiated(g Generation) []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Initiated {
			out = append(out, n.ID)
		}
	}
	return out
}

// TestPowerUpStartsFromOnePHY: by default the first reset is started by one
// PHY, as when the last device of a bus powers up: only its self-ID
// carries i, as in every generation of the real captures we know. Which
// one is drawn from the setup seed: the same seed gives the same, others
// differ, and Options.Initiators names it.
func TestPowerUpStartsFromOnePHY(t *testing.T) {
	for _, spec := range []string{"pair", "chain:5", "tree:12:2", "star:6"} {
		topo := mustGenerate(t, spec)
		seen := map[string]bool{}
		for seed := range uint64(30) {
			res := runOK(t, topo, Options{Seed: seed})
			g := res.Generations[0]
			require.Equal(t, OutcomeOK, g.Outcome, "%s seed %d", spec, seed)
			require.Equal(t, PowerUpOne, res.PowerUp)
			require.Len(t, res.Initiators, 1, "%s seed %d", spec, seed)
			assert.Equal(t, res.Initiators, initiated(g), "%s seed %d: one i bit, the initiator's", spec, seed)
			assert.Equal(t, CausePowerUp, g.Cause.Kind)
			assert.Equal(t, res.Initiators[0], g.Cause.Node)
			seen[res.Initiators[0]] = true
			again := runOK(t, topo, Options{Seed: seed})
			assert.Equal(t, res.Initiators, again.Initiators, "the seed decides")
			setup := seed
			other := runOK(t, topo, Options{Seed: seed + 1000, SetupSeed: &setup})
			assert.Equal(t, res.Initiators, other.Initiators, "the setup seed decides")
		}
		assert.Greater(t, len(seen), 1, "%s: the initiator is drawn", spec)
	}
	res := runOK(t, mustGenerate(t, "chain:4"), Options{Seed: 3, Initiators: []string{"n2"}})
	assert.Equal(t, []string{"n2"}, initiated(res.Generations[0]))
}

// TestPowerUpAll: every PHY powers up, and resets, at once: every self-ID
// carries i. The prism profile does so by default, as its formal models
// start both nodes together.
func TestPowerUpAll(t *testing.T) {
	topo := mustGenerate(t, "tree:8:1")
	res := runOK(t, topo, Options{Seed: 1, PowerUp: PowerUpAll})
	g := res.Generations[0]
	require.Equal(t, OutcomeOK, g.Outcome)
	assert.Len(t, initiated(g), len(topo.Nodes))
	assert.Equal(t, "power-up: every PHY resets", g.Cause.Text)
	assert.Equal(t, "power-up, every PHY", res.FirstReset())

	topo.Profile = "prism"
	res = runOK(t, topo, Options{Seed: 1})
	assert.Equal(t, PowerUpAll, res.PowerUp)
	assert.Len(t, initiated(res.Generations[0]), len(topo.Nodes))
}

// TestPowerUpStaggered builds the bus device by device: each arrival
// plugs the new PHY in beside those already up and resets the bus, a
// generation of its own in which only the newcomer carries i, until the
// last holds every node. The order keeps the powered PHYs one bus.
func TestPowerUpStaggered(t *testing.T) {
	for _, spec := range []string{"chain:4", "tree:9:3", "star:5"} {
		topo := mustGenerate(t, spec)
		for seed := range uint64(5) {
			res, problems, err := runTraced(topo, Options{Seed: seed, PowerUp: PowerUpStaggered})
			require.NoError(t, err)
			require.Empty(t, problems, "%s seed %d", spec, seed)
			require.Len(t, res.Generations, len(topo.Nodes), "%s seed %d: one generation per arrival", spec, seed)
			assert.Equal(t, PowerUpStaggered, res.PowerUp)
			var up []string
			for k, g := range res.Generations {
				require.Equal(t, OutcomeOK, g.Outcome, "%s seed %d generation %d", spec, seed, k)
				assert.InDelta(t, int64(k)*int64(DefaultPowerUpInterval), g.StartNs, 50, "%s: arrival %d a ms after the last", spec, k)
				newcomer := g.Cause.Node
				assert.Equal(t, fmt.Sprintf("power-up of %s (%d of %d)", newcomer, k+1, len(topo.Nodes)), g.Cause.Text)
				assert.Equal(t, []string{newcomer}, initiated(g), "%s seed %d generation %d", spec, seed, k)
				up = append(up, newcomer)
				var members []string
				for _, n := range g.Nodes {
					members = append(members, n.ID)
				}
				assert.ElementsMatch(t, up, members, "%s seed %d: the bus so far", spec, seed)
			}
			assert.Equal(t, up[0], res.Initiators[0])
			assert.Contains(t, res.FirstReset(), "staggered power-up from "+up[0])
		}
	}
}

func TestPowerUpOptionErrors(t *testing.T) {
	topo := mustGenerate(t, "chain:3")
	for name, tc := range map[string]struct {
		o    Options
		want string
	}{
		"initiators with all":  {Options{PowerUp: PowerUpAll, Initiators: []string{"n0"}}, "initiators with power-up all"},
		"initiators staggered": {Options{PowerUp: PowerUpStaggered, Initiators: []string{"n0"}}, "initiators with power-up staggered"},
		"negative interval":    {Options{PowerUp: PowerUpStaggered, PowerUpInterval: -1}, "power-up interval -1ns is negative"},
		"unknown mode":         {Options{PowerUp: 9}, "power-up mode 9"},
	} {
		_, err := Run(topo, tc.o)
		require.ErrorIs(t, err, ErrInvalidOptions, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
	for _, s := range []string{"one", "all", "staggered"} {
		p, err := ParsePowerUp(s)
		require.NoError(t, err)
		assert.Equal(t, s, p.String())
	}
	_, err := ParsePowerUp("default")
	assert.ErrorContains(t, err, `power-up "default": want one, all or staggered`)
}
