package mutex

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// benchMutex runs o on spec and reports messages per second: the runtime's
// hot path under the workload's timers and the monitor's checks.
func benchMutex(b *testing.B, spec string, o Options) {
	topo, err := bus.Generate(spec)
	require.NoError(b, err)
	b.ReportAllocs()
	sent := 0
	for b.Loop() {
		res, err := Run(topo, o)
		require.NoError(b, err)
		sent += res.Messages.Total
	}
	b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "msgs/s")
}

// central on a 63-node tree, three requests a node: the coordinator comes
// from a 1394 tree identify of the same bus, part of every run.
func BenchmarkCentralTree63(b *testing.B) {
	benchMutex(b, "tree:63:3", Options{Algo: "central", Requests: 3, Seed: 1})
}

// Ricart–Agrawala on 63 nodes, three requests a node: 2·62 messages an
// entry, each carrying a vector clock of 63.
func BenchmarkRicartAgrawala63(b *testing.B) {
	benchMutex(b, "ring:63", Options{Algo: "ricart-agrawala", Requests: 3, Seed: 1})
}

// The token ring on 63 nodes, three requests a node.
func BenchmarkTokenRing63(b *testing.B) {
	benchMutex(b, "ring:63", Options{Algo: "token-ring", Requests: 3, Seed: 1})
}
