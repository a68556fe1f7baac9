package mdp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvertMod(t *testing.T) {
	p := liftPrimes[0]
	rng := rand.New(rand.NewPCG(3, 4))
	n := 12
	a := make([][]uint64, n)
	for i := range a {
		a[i] = make([]uint64, n)
		for j := range a[i] {
			if rng.IntN(3) == 0 {
				a[i][j] = rng.Uint64N(p)
			}
		}
		a[i][i] = 1 + rng.Uint64N(p-1)
	}
	inv, ok := invertMod(a, p)
	require.True(t, ok)
	for i := range n {
		for j := range n {
			var acc uint64
			for k := range n {
				acc = addMod(acc, mulMod(a[i][k], inv[k][j], p), p)
			}
			assert.Equal(t, map[bool]uint64{true: 1, false: 0}[i == j], acc, "(A·A⁻¹)[%d][%d]", i, j)
		}
	}
	// Two equal rows: singular.
	a[1] = append([]uint64(nil), a[0]...)
	_, ok = invertMod(a, p)
	assert.False(t, ok)
}

func TestReconstruct(t *testing.T) {
	pb := new(big.Int).SetUint64(liftPrimes[0])
	pk := new(big.Int).Exp(pb, big.NewInt(8), nil) // 496 bits
	rng := rand.New(rand.NewPCG(5, 6))
	residue := func(x *big.Rat) *big.Int {
		inv := new(big.Int).ModInverse(x.Denom(), pk)
		u := new(big.Int).Mul(x.Num(), inv)
		return u.Mod(u, pk)
	}
	random := func(bits uint) *big.Int { // uniform below 2^bits
		x := new(big.Int)
		for range (bits + 63) / 64 {
			x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(rng.Uint64()))
		}
		return x.Rsh(x, (bits+63)/64*64-bits)
	}
	var want []*big.Rat
	var us []*big.Int
	common := new(big.Int).Add(random(100), big.NewInt(1))
	for i := range 20 {
		den := new(big.Int).Mul(common, new(big.Int).Add(random(uint(i*5)), big.NewInt(1)))
		if den.Cmp(pb) == 0 {
			continue
		}
		x := new(big.Rat).SetFrac(new(big.Int).Sub(random(200), random(200)), den)
		want = append(want, x)
		us = append(us, residue(x))
	}
	got, ok := reconstructVector(us, pk)
	require.True(t, ok)
	for i := range want {
		assert.Equal(t, want[i].RatString(), got[i].RatString(), "value %d", i)
	}
	// Too few digits for a 600-bit fraction: no fraction within the bound.
	big600 := new(big.Rat).SetFrac(random(300), new(big.Int).Add(random(300), big.NewInt(1)))
	if x, ok := reconstructVector([]*big.Int{residue(big600)}, pk); ok {
		assert.NotEqual(t, big600.RatString(), x[0].RatString())
	}
}

// TestShoupMultiplies holds Shoup's multiplication to big.Int's w·x mod p,
// at the residues' ends and at random ones, for every prime lift uses.
func TestShoupMultiplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range liftPrimes {
		edges := []uint64{0, 1, 2, p/2 - 1, p / 2, p - 2, p - 1}
		pb, want := new(big.Int).SetUint64(p), new(big.Int)
		check := func(w, x uint64) {
			want.Mul(new(big.Int).SetUint64(w), new(big.Int).SetUint64(x)).Mod(want, pb)
			require.Equal(t, want.Uint64(), newShoup(w, p).mul(x, p), "%d·%d mod %d", w, x, p)
		}
		for _, w := range edges {
			for _, x := range edges {
				check(w, x)
			}
		}
		for range 10000 {
			check(rng.Uint64N(p), rng.Uint64N(p))
		}
	}
}
