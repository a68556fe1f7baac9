package view_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/view"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden/ with the current output")

// goldenView compares got with testdata/golden/name, or rewrites the file
// with -update.
func goldenView(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./view -run Golden -update")
	assert.Equal(t, string(want), string(got), "output differs from %s; if the change is intended, run go test ./view -run Golden -update and review the diff", path)
}

// viewRun is a fixed (topology, seed) pair whose views the golden files pin.
type viewRun struct {
	name string
	topo func(t *testing.T) *bus.Topology
	opts bus.Options
}

func generated(spec string) func(t *testing.T) *bus.Topology {
	return func(t *testing.T) *bus.Topology {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		return topo
	}
}

func loaded(path string) func(t *testing.T) *bus.Topology {
	return func(t *testing.T) *bus.Topology {
		topo, err := bus.LoadTopology(path)
		require.NoError(t, err)
		return topo
	}
}

var viewRuns = []viewRun{
	// Two nodes: root contention, a handful of signals to read by eye.
	{"pair-seed7", generated("pair"), bus.Options{Seed: 7}},
	// Three PHYs in a line, reset from one end: no contention, a parent
	// with two children.
	{"chain3-seed1", generated("chain:3"), bus.Options{Seed: 1, Initiators: []string{"n2"}}},
	// Every reset of a hot-plug scenario in one file.
	{"hotplug", loaded("../examples/hotplug.yaml"), bus.Options{Seed: 1}},
	// A loop: no tree, config timeout.
	{"ring3", generated("ring:3"), bus.Options{Seed: 1}},
}

// runTraced runs r with tracing on.
func runTraced(t *testing.T, r viewRun) (*bus.Result, []bus.TraceEvent) {
	t.Helper()
	var trace bus.Trace
	opts := r.opts
	opts.Observer = trace.Record
	res, err := bus.Run(r.topo(t), opts)
	require.NoError(t, err)
	return res, trace.Events
}

func TestViewsGolden(t *testing.T) {
	for _, r := range viewRuns {
		t.Run(r.name, func(t *testing.T) {
			res, trace := runTraced(t, r)
			for _, view := range []struct {
				ext   string
				write func(*bytes.Buffer) error
			}{
				{"vcd", func(b *bytes.Buffer) error { return view.WriteVCD(b, res, trace) }},
				{"sigrok.vcd", func(b *bytes.Buffer) error {
					return view.WriteVCDWith(b, res, trace, view.VCDOptions{Dialect: view.VCDSigrok})
				}},
				{"jsonl", func(b *bytes.Buffer) error { return view.WriteTraceJSONL(b, res, trace) }},
				{"dot", func(b *bytes.Buffer) error { return view.WriteDOT(b, res) }},
				{"gtkw", func(b *bytes.Buffer) error {
					return view.WriteGTKW(b, res, trace, view.GTKWOptions{DumpFile: r.name + ".vcd"})
				}},
			} {
				var first bytes.Buffer
				require.NoError(t, view.write(&first))
				goldenView(t, r.name+"."+view.ext, first.Bytes())

				// Determinism: a second run of the same seed gives the same bytes.
				res2, trace2 := runTraced(t, r)
				res, trace = res2, trace2
				var second bytes.Buffer
				require.NoError(t, view.write(&second))
				assert.Equal(t, first.String(), second.String(), "%s: a second run differs", view.ext)
			}
		})
	}
}
