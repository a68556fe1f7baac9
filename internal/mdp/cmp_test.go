package mdp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCmpIsRatCmp holds Cmp to big.Rat's own comparison: fractions in
// words, at the 64-bit ends, negative and longer than a word, unreduced.
func TestCmpIsRatCmp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	frac := func(n, d *big.Int) *big.Rat { return new(big.Rat).SetFrac(n, d) }
	u := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	vals := []*big.Rat{
		big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(-1, 2), big.NewRat(3, 7),
		frac(u(1<<64-1), u(1<<64-2)), frac(u(1<<64-2), u(1<<64-1)), frac(u(1<<64-1), big.NewInt(1)),
		frac(huge, big.NewInt(3)), frac(big.NewInt(1), huge), new(big.Rat),
		unreduced(big.NewInt(4), big.NewInt(2)), unreduced(big.NewInt(6), big.NewInt(4)),
	}
	for range 2000 {
		vals = append(vals, frac(u(rng.Uint64()>>rng.IntN(64)), u(1+rng.Uint64()>>rng.IntN(64))))
	}
	for _, x := range vals {
		for _, y := range vals[:40] {
			require.Equal(t, x.Cmp(y), Cmp(x, y), "%v against %v", x, y)
			require.Equal(t, y.Cmp(x), Cmp(y, x), "%v against %v", y, x)
		}
	}
}
