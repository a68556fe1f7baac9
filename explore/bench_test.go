package explore

import (
	"testing"

	"github.com/fwsim/fwsim/bus"
)

// BenchmarkExplore explores and solves whole buses: the 1394-1995 pair on
// cycle clocks and on the ideal clock, the pair with the unplug window of
// examples/unplug-window.yaml narrowed to 400 ns, and under an adversary
// the 360 ns prism pair at 10 ns steps and the 1394-1995 pair on the ideal
// clock at 1 ns (whose expectations the policy iteration solves).
func BenchmarkExplore(b *testing.B) {
	unplug, err := bus.LoadTopology("../examples/unplug-window.yaml")
	if err != nil {
		b.Fatal(err)
	}
	pair, err := bus.Generate("pair")
	if err != nil {
		b.Fatal(err)
	}
	prism360, err := bus.LoadTopology("../examples/prism-pair-360.yaml")
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
		{"prism-360-adversary", prism360, Options{Bus: bus.Options{Seed: 1, AllowOutOfSpec: true, IdealClock: true}, Timing: Nondet, Space: bus.ChoiceSpace{Resolution: 10}}},
		{"pair-ideal-adversary", pair, Options{Bus: bus.Options{Seed: 1, IdealClock: true}, Timing: Nondet}},
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
