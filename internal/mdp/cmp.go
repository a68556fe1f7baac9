package mdp

import (
	"cmp"
	"math/big"
	"math/bits"
)

// Cmp is x.Cmp(y) without big.Rat's scaling, which allocates, where both
// fractions are non-negative and fit in words: the values of deadlines
// (dyadic fractions of a coin, a window's 1/n) nearly always do, and the
// step functions of a deadline compare millions of them.
func Cmp(x, y *big.Rat) int {
	if x == y {
		return 0
	}
	xn, xd, xok := words(x)
	yn, yd, yok := words(y)
	if !xok || !yok {
		return x.Cmp(y)
	}
	// x/y's order is that of xn·yd and yn·xd, in 128 bits.
	ah, al := bits.Mul64(xn, yd)
	bh, bl := bits.Mul64(yn, xd)
	if ah != bh {
		return cmp.Compare(ah, bh)
	}
	return cmp.Compare(al, bl)
}

// words is r's numerator and denominator, if r ≥ 0 and both fit in 64
// bits. An integer's Denom would allocate; its denominator is 1.
func words(r *big.Rat) (num, den uint64, ok bool) {
	n := r.Num()
	if n.Sign() < 0 || !n.IsUint64() {
		return 0, 0, false
	}
	if r.IsInt() {
		return n.Uint64(), 1, true
	}
	d := r.Denom()
	if !d.IsUint64() {
		return 0, 0, false
	}
	return n.Uint64(), d.Uint64(), true
}
