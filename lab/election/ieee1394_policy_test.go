package election

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/treeid"
)

// With the notes' alternative, the larger uid wins root contention: the
// 1394 row elects the root bus.Run elects with the same policy and seed,
// and on the pair it is always b, in one round, where the coin takes some
// seeds several.
func TestIEEE1394LargerIDWinsAsTheBusDoes(t *testing.T) {
	for _, spec := range []string{"pair", "tree:9:2", "chain:4"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		for seed := range uint64(8) {
			res, err := Run(topo, Options{Algo: "1394", Seed: seed, Policy: treeid.LargerIDWins})
			require.NoError(t, err)
			busRes, err := bus.Run(topo, bus.Options{Seed: seed, AllowOutOfSpec: true, PowerUp: bus.PowerUpAll, Policy: treeid.LargerIDWins})
			require.NoError(t, err)
			assert.Equal(t, busRes.Generations[0].Root, res.Leader, "%s seed %d", spec, seed)
			assert.Equal(t, "larger-id-wins", res.Policy)
			if spec == "pair" {
				assert.Equal(t, "b", res.Leader, "seed %d", seed)
			}
		}
	}
}
