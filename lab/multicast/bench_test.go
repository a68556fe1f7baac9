package multicast

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// benchMulticast runs o on spec and reports messages per second.
func benchMulticast(b *testing.B, spec string, o Options) {
	topo, err := bus.Generate(spec)
	require.NoError(b, err)
	b.ReportAllocs()
	sent := 0
	for b.Loop() {
		res, err := Run(topo, o)
		require.NoError(b, err)
		sent += res.Sent.Total
	}
	b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "msgs/s")
}

// The benchmarks named 63 run on the mesh, the lab's model before the bus,
// so that their figures compare with the earlier ones; those named Bus run
// on the bus of a random tree of 63 nodes (a ring of 63 has paths of 31
// cables, which at a tenth lost per cable few round trips survive).

// ack on 63 nodes, 100 messages, a tenth lost.
func BenchmarkAck63(b *testing.B) {
	benchMulticast(b, "ring:63", Options{Algo: "ack", Messages: 100, Loss: 0.1, Seed: 1, Medium: MediumMesh})
}

// ack on the bus of a tree of 63 nodes, 100 messages, a tenth lost per
// cable.
func BenchmarkAckBus(b *testing.B) {
	benchMulticast(b, "tree:63", Options{Algo: "ack", Messages: 100, Loss: 0.1, Seed: 1})
}

// srm with the stop signal on the bus of a tree of 63 nodes, 100 messages,
// a tenth lost per cable: every NACK and repair floods the tree.
func BenchmarkSRMBus(b *testing.B) {
	benchMulticast(b, "tree:63", Options{Algo: "srm", Messages: 100, Loss: 0.1, Seed: 1, Stop: true})
}

// nack with the stop signal on 63 nodes, 100 messages, a tenth lost.
func BenchmarkNack63(b *testing.B) {
	benchMulticast(b, "ring:63", Options{Algo: "nack", Messages: 100, Loss: 0.1, Seed: 1, Stop: true, Medium: MediumMesh})
}

// srm with the stop signal on 63 nodes, 100 messages, a tenth lost: every
// NACK and repair goes to 62 nodes.
func BenchmarkSRM63(b *testing.B) {
	benchMulticast(b, "ring:63", Options{Algo: "srm", Messages: 100, Loss: 0.1, Seed: 1, Stop: true, Medium: MediumMesh})
}

// vsync on 63 nodes, 100 messages, a tenth lost, a member crashing and one
// joining: the heartbeats among 63 members dominate.
func BenchmarkVsync63(b *testing.B) {
	benchMulticast(b, "ring:63", Options{Algo: "vsync", Messages: 100, Loss: 0.1, Seed: 1, Medium: MediumMesh,
		Crashes: []Crash{{Node: "n5", At: 20 * Delay}}, Joins: []Event{{Node: "n9", At: 50 * Delay}}})
}
