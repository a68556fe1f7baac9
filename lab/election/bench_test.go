package election

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// benchElection runs o on spec b.N times and reports messages per second:
// the runtime's hot path (send, schedule, pop, deliver) and the per-run
// set-up of processes, without deriving and validating the graph again.
func benchElection(b *testing.B, spec string, o Options) {
	topo, err := bus.Generate(spec)
	require.NoError(b, err)
	benchTopology(b, topo, o)
}

// benchTopology is benchElection on topo.
func benchTopology(b *testing.B, topo *bus.Topology, o Options) {
	g, err := netsim.NewGraph(topo)
	require.NoError(b, err)
	a, err := lookup(o.Algo)
	require.NoError(b, err)
	res, err := a.run(topo, g, o)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := a.run(topo, g, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Messages.Total)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// The worst case of Chang–Roberts on the largest ring: 2016 messages.
func BenchmarkChangRobertsWorstRing63(b *testing.B) {
	benchElection(b, "ring:63", Options{Algo: "chang-roberts", IDOrder: Descending})
}

// FloodMax on a random 63-node tree: 2·62·D messages, synchronous rounds.
func BenchmarkFloodMaxTree63(b *testing.B) {
	benchElection(b, "tree:63:1", Options{Algo: "floodmax"})
}

// LeLann carries lists: 63 initiators, 4032 messages that allocate.
func BenchmarkLeLannRing63(b *testing.B) {
	benchElection(b, "ring:63", Options{Algo: "lelann"})
}

// The 1394 row on a random tree of 1,000 nodes, beyond the bus's 63: the
// traced bus run and the million self-ID arrivals its observer sees, once
// each kept and formatted, its peer found by a search (4.2 s).
func BenchmarkIEEE1394Tree1000(b *testing.B) {
	benchElection(b, "tree:1000:1", Options{Algo: "1394"})
}

// Chang–Roberts on a ring of 10^5 nodes, IDs ascending: 2n−1 messages.
// With the two below it measures messages per second at the lab's scale
// (docs/performance.md).
func BenchmarkChangRobertsRing1e5(b *testing.B) {
	benchElection(b, "ring:100000", Options{Algo: "chang-roberts"})
}

// Echo on a random tree of 10^5 nodes: 3(n−1) messages.
func BenchmarkEchoTree1e5(b *testing.B) {
	benchElection(b, "tree:100000", Options{Algo: "echo"})
}

// The whole of Run on a ring of 10^5 nodes: the topology validated and the
// graph derived as well as the election, as fwsim elect runs it.
func BenchmarkRunChangRobertsRing1e5(b *testing.B) {
	topo, err := bus.Generate("ring:100000")
	require.NoError(b, err)
	b.ReportAllocs()
	messages := 0
	for range b.N {
		res, err := Run(topo, Options{Algo: "chang-roberts"})
		if err != nil {
			b.Fatal(err)
		}
		messages += res.Messages.Total
	}
	b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "msgs/s")
}

// Adoption on a random connected graph of 1,000 nodes and 2,989 cables,
// every node initiating: the trees merge by adoption (21,491 messages).
func BenchmarkAdoptionGraph1000(b *testing.B) {
	benchTopology(b, randomGraph(rand.New(rand.NewPCG(1, 1)), 1000, 2000), Options{Algo: "adoption", IDOrder: Random})
}

// Tree-min on a random tree of 10^5 nodes: 2N−2 proposals and winners, N−1
// wake-ups.
func BenchmarkTreeMinTree1e5(b *testing.B) {
	benchElection(b, "tree:100000", Options{Algo: "tree-min"})
}
