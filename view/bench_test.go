package view_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/view"
)

// benchTree is the 63-node tree of bus's BenchmarkInit63: the first valid
// one the generator draws.
func benchTree(b *testing.B) *bus.Topology {
	b.Helper()
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

// BenchmarkInit63Views is bus's BenchmarkInit63Traced plus writing the VCD, the
// JSONL trace and the DOT of each run.
func BenchmarkInit63Views(b *testing.B) {
	topo := benchTree(b)
	b.ReportAllocs()
	var trace bus.Trace
	for i := 0; b.Loop(); i++ {
		trace.Events = trace.Events[:0]
		res, err := bus.Run(topo, bus.Options{Seed: uint64(i), Observer: trace.Record})
		if err != nil {
			b.Fatal(err)
		}
		if err := view.WriteVCD(io.Discard, res, trace.Events); err != nil {
			b.Fatal(err)
		}
		if err := view.WriteTraceJSONL(io.Discard, res, trace.Events); err != nil {
			b.Fatal(err)
		}
		if err := view.WriteDOT(io.Discard, res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunHTML63 writes the page that plays one traced run of the
// 63-node tree (fwsim run --html): the page's events and layout, and its
// HTML with the data inline.
func BenchmarkRunHTML63(b *testing.B) {
	topo := benchTree(b)
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 1, Observer: trace.Record})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := view.WriteRunHTML(io.Discard, "bench", res, trace.Events); err != nil {
			b.Fatal(err)
		}
	}
}
