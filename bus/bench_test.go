package bus

import (
	"fmt"
	"testing"
	"time"
)

// benchTree is a 63-node random tree within the spec's 16 hops.
func benchTree(b *testing.B) *Topology {
	b.Helper()
	for seed := 1; ; seed++ {
		topo := mustGenerate(b, fmt.Sprintf("tree:63:%d", seed))
		if topo.Validate(ResolveOptions{}) == nil {
			return topo
		}
	}
}

// BenchmarkInit63 is one full bus initialisation of a 63-node random tree:
// reset, tree identify and self identify, with the result checked.
func BenchmarkInit63(b *testing.B) {
	topo := benchTree(b)
	b.ReportAllocs()
	var events uint64
	for i := 0; b.Loop(); i++ {
		res, err := Run(topo, Options{Seed: uint64(i)})
		if err != nil || res.Generations[0].Outcome != OutcomeOK {
			b.Fatalf("run %d: %v %v", i, err, res.Generations[0].Problems)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkPairContention is one bus initialisation of the classic
// root-contention setting: two nodes, one cable.
func BenchmarkPairContention(b *testing.B) {
	topo := mustGenerate(b, "pair")
	b.ReportAllocs()
	rounds := 0
	for i := 0; b.Loop(); i++ {
		// Nominal timers: both leaves leave reset together and contend.
		res, err := Run(topo, Options{Seed: uint64(i), NominalTimers: true})
		if err != nil || res.Generations[0].Outcome != OutcomeOK || len(res.Generations[0].Contention) != 1 {
			b.Fatalf("run %d: %v", i, err)
		}
		rounds += res.Generations[0].Contention[0].Rounds
	}
	b.ReportMetric(float64(rounds)/float64(b.N), "rounds/op")
}

// BenchmarkSimulatorPair is one root-contention trial on a reused world.
func BenchmarkSimulatorPair(b *testing.B) { benchSimulator(b, mustGenerate(b, "pair")) }

// BenchmarkSimulatorInit63 is BenchmarkInit63 on a reused world: what one
// Monte Carlo run costs.
func BenchmarkSimulatorInit63(b *testing.B) { benchSimulator(b, benchTree(b)) }

func benchSimulator(b *testing.B, topo *Topology) {
	sim, err := NewSimulator(topo, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var events, evaluations, idle uint64
	for i := 0; b.Loop(); i++ {
		m := sim.Run(uint64(i))
		if m.Outcome != OutcomeOK {
			b.Fatalf("run %d: %s", i, m.Outcome)
		}
		events += m.Events
		evaluations += sim.w.evaluations
		idle += sim.w.idle
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	// The input evaluations, and those that found nothing to do: each is
	// an event, and the idle ones are the events left to remove.
	b.ReportMetric(float64(evaluations)/float64(b.N), "evaluations/op")
	b.ReportMetric(float64(idle)/float64(b.N), "idle-evaluations/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// BenchmarkInit63Traced is BenchmarkInit63 with tracing on: every event
// goes to an Observer that records it, as the CLI's --vcd and --trace do.
// BenchmarkInit63 itself is the figure with tracing off.
func BenchmarkInit63Traced(b *testing.B) {
	topo := benchTree(b)
	b.ReportAllocs()
	var trace Trace
	events := 0
	for i := 0; b.Loop(); i++ {
		trace.Events = trace.Events[:0]
		res, err := Run(topo, Options{Seed: uint64(i), Observer: trace.Record})
		if err != nil || res.Generations[0].Outcome != OutcomeOK {
			b.Fatalf("run %d: %v", i, err)
		}
		events += len(trace.Events)
	}
	b.ReportMetric(float64(events)/float64(b.N), "trace-events/op")
}

// BenchmarkTraffic16 is the 16-node chain of examples/traffic.yaml at the
// table's gap count carrying its traffic for 1 ms after initialisation
// (8 cycles, about 200 transmissions): the traffic phase's cost is this
// less BenchmarkTraffic16Init's.
func BenchmarkTraffic16(b *testing.B) { benchTraffic(b, time.Millisecond) }

// BenchmarkTraffic16Init is the same bus's initialisation alone.
func BenchmarkTraffic16Init(b *testing.B) { benchTraffic(b, 0) }

func benchTraffic(b *testing.B, until time.Duration) {
	topo, err := LoadTopology("../examples/traffic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for i := range topo.Nodes {
		gap := 40
		topo.Nodes[i].GapCount = &gap
	}
	if until == 0 {
		topo.Traffic = nil
	}
	b.ReportAllocs()
	sent := 0
	for i := 0; b.Loop(); i++ {
		res, err := Run(topo, Options{Seed: uint64(i + 1), Until: until})
		if err != nil {
			b.Fatal(err)
		}
		if res.Traffic != nil {
			for _, f := range res.Traffic.Flows {
				sent += f.Sent
			}
		}
	}
	b.ReportMetric(float64(sent)/float64(b.N), "sent/op")
}
