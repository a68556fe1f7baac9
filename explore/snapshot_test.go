package explore

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// The runs that go on from a choice point's snapshot find the graph that
// runs from power-up find: every answer, counterexample and count is the
// same whether every state keeps its snapshot, a few do (the memory share
// full) or none, but the events run, which the snapshots cut.
func TestSnapshotsGiveTheSameGraph(t *testing.T) {
	unplug, err := bus.LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	prism, err := bus.LoadTopology("../examples/prism-pair.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		topo *bus.Topology
		o    Options
	}{
		{"prism pair, adversary, 10 ns", prism, Options{Bus: bus.Options{Seed: 1, IdealClock: true, AllowOutOfSpec: true}, Timing: Nondet,
			Space: bus.ChoiceSpace{Resolution: 10}, MissPaths: true, Deadlines: every(bus.MetricContention, 2*time.Microsecond, 4*time.Microsecond)}},
		{"1394a pair, stopped at 500 states", generatedTopo(t, "pair"), Options{Bus: bus.Options{Seed: 2, Profile: "1394a-2000"}, MaxStates: 500,
			Deadlines: every(bus.MetricContention, 2*time.Microsecond)}},
		{"unplug window, roots", unplug, Options{Bus: bus.Options{Seed: 1}, Roots: true, Space: bus.ChoiceSpace{EventWindow: &bus.Window{From: 168_000, To: 168_300}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := snapshotShare
			defer func() { snapshotShare = saved }()
			var want []byte
			var wantEvents uint64
			for _, share := range []int64{math.MaxInt64, DefaultMaxMemory / 20_000, saved} {
				snapshotShare = share
				got, events := exploredJSON(t, tc.topo, tc.o, true)
				if want == nil {
					want, wantEvents = got, events
					continue
				}
				assert.JSONEq(t, string(want), string(got), "memory share 1/%d", share)
				assert.Less(t, events, wantEvents, "memory share 1/%d: no events spared", share)
			}
		})
	}
}
