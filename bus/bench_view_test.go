package bus

import (
	"io"
	"testing"
)

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

// BenchmarkInit63Views is BenchmarkInit63Traced plus writing the VCD, the
// JSONL trace and the DOT of each run.
func BenchmarkInit63Views(b *testing.B) {
	topo := benchTree(b)
	b.ReportAllocs()
	var trace Trace
	for i := 0; b.Loop(); i++ {
		trace.Events = trace.Events[:0]
		res, err := Run(topo, Options{Seed: uint64(i), Observer: trace.Record})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteVCD(io.Discard, res, trace.Events); err != nil {
			b.Fatal(err)
		}
		if err := WriteTraceJSONL(io.Discard, res, trace.Events); err != nil {
			b.Fatal(err)
		}
		if err := WriteDOT(io.Discard, res); err != nil {
			b.Fatal(err)
		}
	}
}
