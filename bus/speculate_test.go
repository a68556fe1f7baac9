package bus

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The checkpoint a first run takes in case the next event makes the choice
// is the one the second run from power-up takes: on random paths through
// buses with coins, waits, clock phases and a moved hot plug, every stop
// has the same key, marks and choice with the speculation as without.
func TestSpeculativeCheckpointIsTheSecondRuns(t *testing.T) {
	hotplug, err := LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	pair, err := Generate("pair")
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		topo  *Topology
		opts  Options
		space ChoiceSpace
	}{
		{"pair", pair, Options{Seed: 3}, ChoiceSpace{}},
		{"pair ideal", pair, Options{Seed: 3, IdealClock: true}, ChoiceSpace{}},
		{"pair 1394a phases", pair, Options{Seed: 3, Profile: "1394a-2000"}, ChoiceSpace{PhaseGrid: 3}},
		{"hotplug window", hotplug, Options{Seed: 1}, ChoiceSpace{EventWindow: &Window{From: 166_000, To: 171_000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast, err := NewFollower(tc.topo, tc.opts, tc.space)
			require.NoError(t, err)
			slow, err := NewFollower(tc.topo, tc.opts, tc.space)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			spared := 0
			for range 60 {
				var path []int
				for {
					a, err := fast.Follow(path)
					require.NoError(t, err)
					key := slices.Clone(a.Key)
					saved := speculateEvents
					speculateEvents = 0
					b, err := slow.Follow(path)
					speculateEvents = saved
					require.NoError(t, err)
					require.True(t, bytes.Equal(key, b.Key), "path %v: the keys differ", path)
					require.Equal(t, b.Marks, a.Marks, "path %v", path)
					require.Equal(t, b.Choice, a.Choice, "path %v", path)
					require.Equal(t, b.Done, a.Done, "path %v", path)
					require.Equal(t, b.Metrics, a.Metrics, "path %v", path)
					if a.Events < b.Events {
						spared++
					}
					if a.Done {
						break
					}
					path = append(path, rng.IntN(a.Choice.Options))
				}
			}
			require.Positive(t, spared, "no second run was spared")
		})
	}
}
