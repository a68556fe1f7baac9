package explore

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// The graph, and so every answer, counterexample and count, is the same
// at any number of workers, also when MaxStates stops the exploration in
// the middle of a batch of runs.
func TestWorkersGiveTheSameBytes(t *testing.T) {
	unplug, err := bus.LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		topo *bus.Topology
		o    Options
	}{
		{"pair, adversary", generatedTopo(t, "pair"), Options{Bus: bus.Options{Seed: 3, IdealClock: true, Timing: narrow(t)}, Timing: Nondet,
			Deadlines: every(bus.MetricContention, 600*time.Nanosecond, 900*time.Nanosecond)}},
		{"pair, stopped at 300 states", generatedTopo(t, "pair"), Options{Bus: bus.Options{Seed: 1}, MaxStates: 300, MissPaths: true,
			Deadlines: every(bus.MetricContention, 2*time.Microsecond)}},
		{"unplug window", unplug, Options{Bus: bus.Options{Seed: 1}, Roots: true, Space: bus.ChoiceSpace{EventWindow: &bus.Window{From: 168_000, To: 168_200}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []byte
			for _, workers := range []int{1, 2, 3} {
				o := tc.o
				o.Workers = workers
				got, _ := exploredJSON(t, tc.topo, o, false)
				if want == nil {
					want = got
					continue
				}
				assert.JSONEq(t, string(want), string(got), "%d workers", workers)
			}
		})
	}
}

// exploredJSON is the JSON of an exploration of topo, all but its wall
// time and, with dropEvents, the events it ran, which it returns.
func exploredJSON(t *testing.T, topo *bus.Topology, o Options, dropEvents bool) ([]byte, uint64) {
	t.Helper()
	res, err := Explore(topo, o)
	require.NoError(t, err)
	out := NewJSON("test", o, res, nil)
	events := out.Events
	out.ElapsedNs = 0
	if dropEvents {
		out.Events = 0
	}
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return data, events
}
