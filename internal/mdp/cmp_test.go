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

// TestCmpSumIsSumsCmp holds cmpSum to comparing the sums: integer and
// fractional rewards, values with a shared unreduced denominator, with
// others, and equal rewards.
func TestCmpSumIsSumsCmp(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	d := new(big.Int).Lsh(big.NewInt(3), 200) // a chain's denominator, unreduced
	var vals, rewards []*big.Rat
	for range 60 {
		y := new(big.Int).Mul(d, big.NewInt(rng.Int64N(8)))
		y.Add(y, new(big.Int).Lsh(big.NewInt(rng.Int64N(1<<40)), uint(rng.IntN(200))))
		vals = append(vals, unreduced(y, d), big.NewRat(rng.Int64N(50), 1+rng.Int64N(9)))
	}
	for _, n := range []int64{0, 1, 2, 244, 245, 600} {
		rewards = append(rewards, big.NewRat(n, 1))
	}
	rewards = append(rewards, big.NewRat(1, 3), big.NewRat(245, 2))
	var scratch big.Int
	for _, r1 := range rewards {
		for _, r2 := range rewards {
			for _, a := range vals {
				for _, b := range vals[:20] {
					want := new(big.Rat).Add(r1, a).Cmp(new(big.Rat).Add(r2, b))
					require.Equal(t, want, cmpSum(r1, a, r2, b, &scratch), "%v + %v against %v + %v", r1, a, r2, b)
				}
			}
		}
	}
}
