package multicast

import (
	"math/rand/v2"
	"testing"

	"github.com/fwsim/fwsim/bus"
)

var specs = []string{"chain:2", "ring:5", "tree:6:2", "ring:12", "tree:20:3"}

// FuzzRunUnderLossAndCrashes runs every algorithm under random loss, crashes
// and stop signal, and vsync under joins and leaves too: a run always ends,
// always delivers in order, and misses part of the stream at a live member
// only where the model says it may: a crashed sender, a give-up after
// MaxTries, or the undetected tail of nack and srm without the stop signal.
// vsync keeps every guarantee.
func FuzzRunUnderLossAndCrashes(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(3))
	f.Add(uint64(77), uint8(7))
	f.Add(uint64(531), uint8(120)) // srm on chain:2 at loss 0.5: the back-off once doubled without bound
	f.Fuzz(func(t *testing.T, seed uint64, spec uint8) {
		topo, err := bus.Generate(specs[int(spec)%len(specs)])
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		o := Options{Algo: algorithms[r.IntN(len(algorithms))].Name, Messages: 1 + r.IntN(30),
			Loss: float64(r.IntN(6)) / 10, Seed: seed, MaxEvents: 5_000_000, Medium: Media()[r.IntN(2)]}
		if o.Algo == "vsync" && o.Medium == MediumBus { // as in TestVsyncKeepsItsGuaranteesUnderFaults
			o.Loss /= 5
		}
		o.Stop = (o.Algo == "nack" || o.Algo == "srm") && r.IntN(2) == 0
		if o.Algo == "vsync" {
			groupFaults(r, topo, &o)
		} else {
			for v := range len(topo.Nodes) {
				if r.IntN(4) == 0 {
					o.Crashes = append(o.Crashes, Crash{Node: topo.Nodes[v].ID, At: r.Int64N(int64(o.Messages+3) * Delay)})
				}
			}
		}
		res, err := Run(topo, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if !res.Guarantees[0].Held {
			t.Fatalf("%+v: %s", o, res.Guarantees[0].Detail)
		}
		if !res.Violated() {
			return
		}
		if o.Algo == "vsync" {
			t.Fatalf("%+v: %+v", o, res.Guarantees)
		}
		for _, m := range res.Members {
			if len(m.Missing) == 0 || m.CrashedAt >= 0 || m.GaveUp {
				continue
			}
			if o.Algo == "ack" || o.Stop {
				t.Fatalf("%+v: %s misses %v without a cause", o, m.Node, m.Missing)
			}
		}
	})
}
