package mutex

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// benchMutex runs o on spec b.N times and reports messages per second.
func benchMutex(b *testing.B, spec string, o Options) {
	topo, err := bus.Generate(spec)
	require.NoError(b, err)
	res, err := Run(topo, o)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(topo, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Messages.Total)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// Ricart–Agrawala on 32 nodes, 4 entries each: 2·31 messages per entry,
// 7936 in all.
func BenchmarkRicartAgrawala32(b *testing.B) {
	benchMutex(b, "ring:32", Options{Algo: "ricart-agrawala", Requests: 4, CSTime: Delay, Think: 4 * Delay, Seed: 1})
}

// Central on 63 nodes, 4 entries each: 3·62·4 = 744 messages. The
// coordinator is named, so that the run does not include an election.
func BenchmarkCentral63(b *testing.B) {
	benchMutex(b, "ring:63", Options{Algo: "central", Coordinator: "n0", Requests: 4, CSTime: Delay, Think: 4 * Delay, Seed: 1})
}

// The token ring on 63 nodes, 4 entries each.
func BenchmarkTokenRing63(b *testing.B) {
	benchMutex(b, "ring:63", Options{Algo: "token-ring", Requests: 4, CSTime: Delay, Think: 4 * Delay, Seed: 1})
}
