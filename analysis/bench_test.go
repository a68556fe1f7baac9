package analysis

import (
	"context"
	"fmt"
	"testing"

	"github.com/fwsim/fwsim/bus"
)

// benchTree63 is a 63-node random tree within the spec's 16 hops.
func benchTree63(b *testing.B) *bus.Topology {
	for seed := 1; ; seed++ {
		topo, err := bus.Generate(fmt.Sprintf("tree:63:%d", seed))
		if err != nil {
			b.Fatal(err)
		}
		if topo.Validate(bus.ResolveOptions{}) == nil {
			return topo
		}
	}
}

// BenchmarkAnalyze measures Monte Carlo throughput, runs per second, at one
// and two workers: root-contention trials on the pair and whole 63-node
// initialisations. One op is one run.
func BenchmarkAnalyze(b *testing.B) {
	pair, err := bus.Generate("pair")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		topo *bus.Topology
	}{{"pair", pair}, {"tree63", benchTree63(b)}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				sum, err := Run(context.Background(), Config{Topology: tc.topo, Runs: b.N, Workers: workers}, nil)
				if err != nil || sum.Failed() > 0 {
					b.Fatalf("%v, %d failed", err, sum.Failed())
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			})
		}
	}
}
