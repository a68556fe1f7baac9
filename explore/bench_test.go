package explore

import (
	"testing"

	"github.com/fwsim/fwsim/bus"
)

// BenchmarkExplore explores and solves whole buses: the 1394-1995 pair on
// cycle clocks (a 6144-state contention cycle, bounded by value iteration)
// and on the ideal clock (solved exactly), and the pair with the
// unplug window of examples/unplug-window.yaml narrowed to 400 ns.
func BenchmarkExplore(b *testing.B) {
	unplug, err := bus.LoadTopology("../examples/unplug-window.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pair, err := bus.Generate("pair")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		topo *bus.Topology
		o    Options
	}{
		{"pair", pair, Options{Bus: bus.Options{Seed: 1}}},
		{"pair-ideal", pair, Options{Bus: bus.Options{Seed: 1, IdealClock: true}}},
		{"unplug-window", unplug, Options{Bus: bus.Options{Seed: 1}, Space: bus.ChoiceSpace{EventWindow: &bus.Window{From: 168_000, To: 168_400}}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			states := 0
			for b.Loop() {
				res, err := Explore(bc.topo, bc.o)
				if err != nil {
					b.Fatal(err)
				}
				states = res.States
			}
			b.ReportMetric(float64(states), "states/op")
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
