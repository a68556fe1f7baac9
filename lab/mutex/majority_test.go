package mutex

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// The majority improvement is safe and live on random topologies,
// workloads and seeds, busy ones included, where votes split among
// concurrent requesters and only INQUIRE and YIELD keep them from
// deadlocking.
func TestMajorityIsSafeAndLive(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	inquiries := 0
	for i := range 2 * cases() {
		spec, topo := randomTopology(t, rng)
		o := randomWorkload(rng)
		o.Algo = "majority"
		res, err := Run(topo, o)
		require.NoError(t, err)
		name := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		assert.Empty(t, res.Violations, name)
		assert.True(t, res.Live, "%s: %v", name, res.Unserved)
		assert.Len(t, res.Entries, len(topo.Nodes)*o.Requests, name)
		inquiries += byType(res)["YIELD"]
	}
	assert.Positive(t, inquiries, "some runs need a vote back, or INQUIRE and YIELD are not tested")
}

// Without contention a node asks its majority m = ⌊n/2⌋+1, itself
// included: m−1 REQUESTs, VOTEs and RELEASEs, 3(m−1) per entry, against
// Ricart–Agrawala's 2(n−1).
func TestMajorityMessagesPerEntry(t *testing.T) {
	for _, n := range []int{2, 3, 5, 6, 9, 16} {
		m := n/2 + 1
		topo, err := bus.Generate(fmt.Sprintf("ring:%d", n))
		require.NoError(t, err)
		res, err := Run(topo, Options{Algo: "majority", Requesters: []string{"n1"}, Requests: 3, CSTime: Delay, Think: Delay, Seed: 3})
		require.NoError(t, err)
		assert.InDelta(t, float64(3*(m-1)), res.PerEntry, 1e-9, "n=%d", n)
		assert.Equal(t, map[string]int{"REQUEST": 3 * (m - 1), "VOTE": 3 * (m - 1), "RELEASE": 3 * (m - 1), "INQUIRE": 0, "YIELD": 0, "FAILED": 0}, byType(res), "n=%d", n)
	}
}

// Every node asking at once, repeatedly: votes split, and the run still
// serves everyone, in fewer messages per entry than Ricart–Agrawala on
// large rings.
func TestMajorityUnderContention(t *testing.T) {
	for seed := range uint64(30) {
		res := run(t, "ring:9", Options{Algo: "majority", Requests: 3, CSTime: Delay / 4, Think: 0, Seed: seed})
		assert.True(t, res.Live, "seed %d: %v", seed, res.Unserved)
		assert.Empty(t, res.Violations, "seed %d", seed)
	}
}
