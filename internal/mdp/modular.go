package mdp

import (
	"math/big"
	"math/bits"
)

// mulMod is a·b mod p, for a, b < p.
func mulMod(a, b, p uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, p)
}

// shoup is a multiplier w < p with its quotient ⌊w·2^64/p⌋ (Shoup's
// precomputation, as in NTL's MulModPrecon): w·x mod p then takes two
// multiplications and no division, several times faster than mulMod when
// w multiplies many residues, as the chain's fixed coefficients do.
type shoup struct{ w, q uint64 }

func newShoup(w, p uint64) shoup {
	q, _ := bits.Div64(w, 0, p)
	return shoup{w, q}
}

// mul is w·x mod p, for x < p < 2^63: w·x − ⌊q·x/2^64⌋·p lies in [0, 2p).
func (s shoup) mul(x, p uint64) uint64 {
	qx, _ := bits.Mul64(s.q, x)
	r := s.w*x - qx*p
	if r >= p {
		r -= p
	}
	return r
}

// addMod is a+b mod p, for a, b < p < 2^63.
func addMod(a, b, p uint64) uint64 {
	if s := a + b; s < p {
		return s
	}
	return a + b - p
}

// powMod is a^e mod p.
func powMod(a, e, p uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, a, p)
		}
		a = mulMod(a, a, p)
	}
	return r
}

// invertMod returns the inverse modulo p of a, whose entries are below p,
// by Gauss-Jordan elimination; ok is false when a is singular modulo p.
func invertMod(a [][]uint64, p uint64) (inv [][]uint64, ok bool) {
	n := len(a)
	w := make([][]uint64, n) // [a | I]
	for r := range n {
		w[r] = make([]uint64, 2*n)
		copy(w[r], a[r])
		w[r][n+r] = 1
	}
	for k := range n {
		piv := -1
		for r := k; r < n; r++ {
			if w[r][k] != 0 {
				piv = r
				break
			}
		}
		if piv < 0 {
			return nil, false
		}
		w[k], w[piv] = w[piv], w[k]
		row := w[k]
		if s := invMod(row[k], p); s != 1 {
			for c := k; c < 2*n; c++ {
				row[c] = mulMod(row[c], s, p)
			}
		}
		for r := range n {
			f := w[r][k]
			if r == k || f == 0 {
				continue
			}
			neg := newShoup(p-f, p)
			other := w[r]
			for c := k; c < 2*n; c++ {
				if row[c] != 0 {
					other[c] = addMod(other[c], neg.mul(row[c], p), p)
				}
			}
		}
	}
	for r := range n {
		w[r] = w[r][n:]
	}
	return w, true
}

// invMod is the inverse of a ≠ 0 modulo the prime p (Fermat).
func invMod(a, p uint64) uint64 { return powMod(a, p-2, p) }

// reconstructVector finds rationals x with x ≡ u (mod pk) whose
// numerators and denominators are at most √(pk/2), each unique (Wang).
// The values of a linear system share most of their denominator, so each
// residue is first tried times the least common denominator d found so
// far: if that is within the bound, as long as d is, it is the
// numerator, with no reconstruction of its own.
func reconstructVector(u []*big.Int, pk *big.Int) ([]*big.Rat, bool) {
	bound := new(big.Int).Rsh(pk, 1)
	bound.Sqrt(bound)
	half := new(big.Int).Rsh(pk, 1)
	d := big.NewInt(1)
	x := make([]*big.Rat, len(u))
	s, g := new(big.Int), new(big.Int)
	for i, ui := range u {
		if d.Cmp(bound) <= 0 {
			s.Mul(ui, d)
			s.Mod(s, pk)
			if s.Cmp(half) > 0 {
				s.Sub(s, pk)
			}
			if s.CmpAbs(bound) <= 0 {
				x[i] = new(big.Rat).SetFrac(s, d)
				continue
			}
		}
		num, den, ok := reconstruct(ui, pk, bound)
		if !ok {
			return nil, false
		}
		x[i] = new(big.Rat).SetFrac(num, den)
		d.Mul(d, den.Quo(den, g.GCD(nil, nil, d, den)))
	}
	return x, true
}

// reconstruct finds num/den ≡ u (mod pk) with |num| ≤ bound and
// 0 < den ≤ bound, by the extended Euclidean algorithm on pk and u
// stopped at the first remainder within the bound (Wang, A p-adic
// algorithm for univariate partial fractions, SYMSAC 1981).
func reconstruct(u, pk, bound *big.Int) (num, den *big.Int, ok bool) {
	r0, r1 := new(big.Int).Set(pk), new(big.Int).Mod(u, pk)
	t0, t1 := new(big.Int), big.NewInt(1)
	q, tmp := new(big.Int), new(big.Int)
	for r1.CmpAbs(bound) > 0 {
		q.Quo(r0, r1)
		r0.Sub(r0, tmp.Mul(q, r1))
		r0, r1 = r1, r0
		t0.Sub(t0, tmp.Mul(q, t1))
		t0, t1 = t1, t0
	}
	if t1.Sign() < 0 {
		r1.Neg(r1)
		t1.Neg(t1)
	}
	if t1.Sign() == 0 || t1.Cmp(bound) > 0 {
		return nil, nil, false
	}
	// With a common factor, u has no such fraction at all.
	if tmp.GCD(nil, nil, r1, t1); !tmp.IsInt64() || tmp.Int64() != 1 {
		return nil, nil, false
	}
	return r1, t1, true
}
