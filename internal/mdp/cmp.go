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
	xn, xd, xok := Words(x)
	yn, yd, yok := Words(y)
	if !xok || !yok {
		return x.Cmp(y)
	}
	return CmpWords(xn, xd, yn, yd)
}

// CmpWords compares xn/xd with yn/yd, denominators not 0.
func CmpWords(xn, xd, yn, yd uint64) int {
	// The order is that of xn·yd and yn·xd, in 128 bits.
	ah, al := bits.Mul64(xn, yd)
	bh, bl := bits.Mul64(yn, xd)
	if ah != bh {
		return cmp.Compare(ah, bh)
	}
	return cmp.Compare(al, bl)
}

// Words is r's numerator and denominator, if r ≥ 0 and both fit in 64
// bits. An integer's Denom would allocate; its denominator is 1.
func Words(r *big.Rat) (num, den uint64, ok bool) {
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

// cmpSum compares r1 + a with r2 + b, all non-negative, without forming
// the sums where it can: big.Rat's sum reduces by a GCD, which on the
// thousands of bits of a chain's values is most of a policy improvement.
// Equal r1 and r2 leave a against b. Integers r1 and r2 and a shared
// denominator d of a and b (a chain's values, unreduced, have one) leave
// the sign of (r1 − r2)·d + a·d − b·d, in integers; t is scratch.
func cmpSum(r1, a, r2, b *big.Rat, t *big.Int) int {
	if r1 == r2 || Cmp(r1, r2) == 0 {
		return Cmp(a, b)
	}
	if r1.IsInt() && r2.IsInt() && a.Denom().Cmp(b.Denom()) == 0 {
		t.Sub(r1.Num(), r2.Num())
		t.Mul(t, a.Denom())
		t.Add(t, a.Num())
		t.Sub(t, b.Num())
		return t.Sign()
	}
	return new(big.Rat).Add(r1, a).Cmp(new(big.Rat).Add(r2, b))
}
