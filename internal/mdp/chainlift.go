package mdp

import (
	"errors"
	"math/big"
	"math/bits"
)

// evaluate solves the chain succ exactly, every state's value, for
// policy iteration (its cycles all pass through the feedback set of ch).
//
// By Dixon's p-adic lifting (Dixon, Exact solution of linear equations
// using p-adic expansions, Numer. Math. 40, 1982) on the chain's own
// sparse equations, each row scaled to integers: M·y = rhs, y the values
// times a common denominator l of the rows' right-hand sides (see
// integerChain). With p a word-sized prime, each step takes the next
// base-p digit z of y, solving M·z ≡ r (mod p), and the residual
// r ← (r − M·z)/p, an exact division; M's entries are the probabilities'
// small numerators, so residuals stay a word or two long. M·z ≡ r is
// solved along the chain's structure: without F the chain is acyclic, so
// the states off F are solved backward from their successors, F's
// values from the |F|×|F| system that F's equations make once the rest
// is substituted, inverted modulo p once, before the first step. Only
// F's digits are kept. Every few steps F's values are recovered from
// their digits by rational reconstruction (Wang's, through the extended
// Euclidean algorithm) and checked (see check), which completes them into
// every state's value; Hadamard's inequality bounds the steps this can
// take (hadamardBits), but fwsim's values need far fewer.
//
// The cost is an inversion of about |F|³ word operations, a few hundred
// sweeps of the chain in words, and one exact backward pass a check,
// where Gaussian elimination on F's system in fractions needs that system
// first, about |F| fractions a state, each as long as the paths that lead
// there. A chain whose system is singular modulo each of liftPrimes, which
// a nonsingular one would be only were its determinant divisible by all
// of them, is reported as ErrImproper.
func (s *solver) evaluate(succ [][]arc, ch chain) ([]*big.Rat, error) {
	sys := s.integerChain(succ)
	for _, p := range liftPrimes {
		v, err := sys.lift(ch, p)
		if err != errSingularModP {
			return v, err
		}
	}
	return nil, ErrImproper
}

// liftPrimes are the moduli evaluate tries, the largest primes below
// 2^62.
var liftPrimes = []uint64{1<<62 - 57, 1<<62 - 87, 1<<62 - 117}

// errSingularModP: a diagonal off F, or F's substituted system, is 0 or
// singular modulo the prime; the next one is tried.
var errSingularModP = errors.New("mdp: singular modulo p")

// intChain is a chain's equations in integers: for each position k,
// diag[k]·y[k] − Σ m·y[to] over arcs[k] = rhs[k], and v = y/l.
type intChain struct {
	diag []*big.Int
	arcs [][]intArc
	rhs  []*big.Int
	l    *big.Int
}

// intArc is an arc between two positions, with the integer m of the
// equation.
type intArc struct {
	to int
	m  *big.Int
}

// integerChain writes the chain's equations v(k) = Σ P·(reward + v(to))
// in integers: each row times the least common multiple d of its
// probabilities' denominators, then all of them times the least common
// denominator l of their right-hand sides.
func (s *solver) integerChain(succ [][]arc) *intChain {
	n := len(succ)
	c := &intChain{diag: make([]*big.Int, n), arcs: make([][]intArc, n), rhs: make([]*big.Int, n), l: big.NewInt(1)}
	rhs := make([]*big.Rat, n)
	d, g, t, mr := new(big.Int), new(big.Int), new(big.Rat), new(big.Rat)
	lcm := func(acc, x *big.Int) {
		g.GCD(nil, nil, acc, x)
		acc.Mul(acc, new(big.Int).Quo(x, g))
	}
	for k, arcs := range succ {
		d.SetInt64(1)
		for _, o := range arcs {
			lcm(d, o.p.Denom())
		}
		c.diag[k] = new(big.Int).Set(d)
		sum := new(big.Rat)
		for _, o := range arcs {
			m := new(big.Int).Quo(d, o.p.Denom())
			m.Mul(m, o.p.Num())
			switch {
			case o.to == k:
				c.diag[k].Sub(c.diag[k], m)
			case o.to >= 0:
				c.arcs[k] = append(c.arcs[k], intArc{o.to, m})
			}
			w := reward(o.e)
			if o.to < 0 {
				w = t.Add(w, s.val[o.e.To])
			}
			if w.Sign() == 0 {
				continue
			}
			if !m.IsInt64() || m.Int64() != 1 {
				w = t.Mul(w, mr.SetInt(m))
			}
			sum.Add(sum, w)
		}
		rhs[k] = sum
		if !sum.IsInt() {
			lcm(c.l, sum.Denom())
		}
	}
	for k, r := range rhs {
		c.rhs[k] = new(big.Int).Quo(c.l, r.Denom())
		c.rhs[k].Mul(c.rhs[k], r.Num())
	}
	return c
}

// hadamardBits bounds, in bits, the determinant of M and Cramer's
// numerators (M with a column replaced by rhs): by Hadamard's
// inequality on columns, ‖rhs‖ times the product of M's column norms,
// every norm at least 1.
func (c *intChain) hadamardBits() int {
	n := len(c.diag)
	biggest, entries := make([]int, n), make([]int, n)
	see := func(j int, v *big.Int) {
		biggest[j] = max(biggest[j], v.BitLen())
		entries[j]++
	}
	rb, rn := 0, 0
	for k := range n {
		see(k, c.diag[k])
		for _, a := range c.arcs[k] {
			see(a.to, a.m)
		}
		if c.rhs[k].Sign() != 0 {
			rb = max(rb, c.rhs[k].BitLen())
			rn++
		}
	}
	total := rb + (bits.Len(uint(rn))+1)/2
	for j := range n {
		total += biggest[j] + (bits.Len(uint(entries[j]))+1)/2
	}
	return total
}

// lift runs evaluate's steps modulo p.
func (c *intChain) lift(ch chain, p uint64) ([]*big.Rat, error) {
	n, nf := len(c.diag), len(ch.fs)
	pb := new(big.Int).SetUint64(p)
	t := new(big.Int)
	mod := func(v *big.Int) uint64 { return t.Mod(v, pb).Uint64() }
	diag, inv := make([]uint64, n), make([]shoup, n)
	inverses := map[uint64]shoup{1: newShoup(1, p)}
	arcs := make([][]shoup, n)
	for k := range n {
		diag[k] = mod(c.diag[k])
		if !ch.inF[k] {
			if diag[k] == 0 {
				return nil, errSingularModP
			}
			// Diagonals are the rows' few common denominators.
			var ok bool
			if inv[k], ok = inverses[diag[k]]; !ok {
				inv[k] = newShoup(invMod(diag[k], p), p)
				inverses[diag[k]] = inv[k]
			}
		}
		arcs[k] = make([]shoup, len(c.arcs[k]))
		for j, a := range c.arcs[k] {
			arcs[k][j] = newShoup(mod(a.m), p)
		}
	}
	fIndex := make([]int, n)
	for r, f := range ch.fs {
		fIndex[f] = r
	}
	// F's system once the rest is substituted: row r is F's r-th state's
	// equation, each state off F replaced, in topological order, by its
	// own equation (a coefficient w on y[k] becomes w·m/diag on each of
	// k's successors).
	a := make([][]uint64, nf)
	w := make([]uint64, n)
	for r, f := range ch.fs {
		row := make([]uint64, nf)
		row[r] = diag[f]
		sub := func(to int, coef uint64) { // row −= coef·y[to]
			if ch.inF[to] {
				row[fIndex[to]] = addMod(row[fIndex[to]], p-coef, p)
			} else {
				w[to] = addMod(w[to], coef, p)
			}
		}
		for j, o := range c.arcs[f] {
			sub(o.to, arcs[f][j].w)
		}
		for _, k := range ch.order {
			if w[k] == 0 {
				continue
			}
			coef := inv[k].mul(w[k], p)
			w[k] = 0
			for j, o := range c.arcs[k] {
				sub(o.to, arcs[k][j].mul(coef, p))
			}
		}
		a[r] = row
	}
	ainvRows, ok := invertMod(a, p)
	if !ok {
		return nil, errSingularModP
	}
	// F's inverse multiplies a vector at every step: its nonzero entries
	// with their Shoup quotients.
	type entry struct {
		j int
		c shoup
	}
	ainv := make([][]entry, nf)
	for i, row := range ainvRows {
		for j, cij := range row {
			if cij != 0 {
				ainv[i] = append(ainv[i], entry{j, newShoup(cij, p)})
			}
		}
	}
	r := newResidual(c)
	xf := make([]*big.Int, nf) // F's values modulo pk
	for i := range xf {
		xf[i] = new(big.Int)
	}
	rm, g, z := make([]uint64, n), make([]uint64, n), make([]uint64, n)
	b := make([]uint64, nf)
	pk := big.NewInt(1)
	zb := new(big.Int)
	// back solves M·z ≡ rm (mod p) for the states off F, given out on F
	// (0 for g, F's values for z), in reverse topological order.
	back := func(out []uint64) {
		for h := len(ch.order) - 1; h >= 0; h-- {
			k := ch.order[h]
			acc := rm[k]
			for j, o := range c.arcs[k] {
				acc = addMod(acc, arcs[k][j].mul(out[o.to], p), p)
			}
			out[k] = inv[k].mul(acc, p)
		}
	}
	// Past this length of pk, Cramer's rule guarantees the
	// reconstruction.
	enough := 2*c.hadamardBits() + 2
	for step, check := 1, 1; ; step++ {
		for k := range n {
			rm[k] = r.mod(k, p, pb, t)
		}
		for _, f := range ch.fs {
			g[f] = 0
		}
		back(g)
		for i, f := range ch.fs {
			acc := rm[f]
			for j, o := range c.arcs[f] {
				if !ch.inF[o.to] {
					acc = addMod(acc, arcs[f][j].mul(g[o.to], p), p)
				}
			}
			b[i] = acc
		}
		for i, f := range ch.fs {
			var acc uint64
			for _, e := range ainv[i] {
				if b[e.j] != 0 {
					acc = addMod(acc, e.c.mul(b[e.j], p), p)
				}
			}
			z[f] = acc
			if acc != 0 {
				xf[i].Add(xf[i], zb.Mul(zb.SetUint64(acc), pk))
			}
		}
		back(z)
		for k := range n {
			r.step(c, k, z, p, pb)
		}
		pk.Mul(pk, pb)
		if step < check && pk.BitLen() < enough {
			continue
		}
		check = step + min(step, max(8, step/4)) // 1, 2, 4, 8, 16, 24, 32, 40, 50, …
		if yf, ok := reconstructVector(xf, pk); ok {
			if v, ok := c.check(ch, yf); ok {
				return v, nil
			}
		}
		if pk.BitLen() >= enough {
			return nil, errNoReconstruction
		}
	}
}

// errNoReconstruction would mean a bug: past Hadamard's bound the
// solution reconstructs and checks.
var errNoReconstruction = errors.New("mdp: the p-adic solution does not reconstruct within Hadamard's bound")

// check completes F's candidate values yf (in ch.fs order, of y) into
// every state's value by one exact backward pass over the rest, and
// reports whether F's own equations then hold: if so, y solves M·y = rhs,
// whose solution is unique, and v = y/l. The pass runs in integers,
// Y = d·y for a common denominator d, which spares a GCD at every
// operation: d starts as the least common one of yf and takes in a
// state's diagonal, where it does not divide the state's sum, times
// everything so far.
func (c *intChain) check(ch chain, yf []*big.Rat) ([]*big.Rat, bool) {
	n := len(c.diag)
	d := big.NewInt(1)
	g, q, rem := new(big.Int), new(big.Int), new(big.Int)
	for _, v := range yf {
		g.GCD(nil, nil, d, v.Denom())
		d.Mul(d, q.Quo(v.Denom(), g))
	}
	y := make([]*big.Int, n)
	var done []int // the positions of y set so far
	for i, f := range ch.fs {
		y[f] = new(big.Int).Quo(d, yf[i].Denom())
		y[f].Mul(y[f], yf[i].Num())
		done = append(done, f)
	}
	t, sum := new(big.Int), new(big.Int)
	combine := func(k int) *big.Int { // d·rhs + Σ m·Y[to]
		sum.Mul(d, c.rhs[k])
		for _, o := range c.arcs[k] {
			sum.Add(sum, t.Mul(o.m, y[o.to]))
		}
		return sum
	}
	for h := len(ch.order) - 1; h >= 0; h-- {
		k := ch.order[h]
		q.QuoRem(combine(k), c.diag[k], rem)
		if rem.Sign() != 0 {
			f := new(big.Int).Quo(c.diag[k], g.GCD(nil, nil, rem, c.diag[k]))
			d.Mul(d, f)
			for _, j := range done {
				y[j].Mul(y[j], f)
			}
			q.QuoRem(combine(k), c.diag[k], rem)
		}
		y[k] = new(big.Int).Set(q)
		done = append(done, k)
	}
	for _, f := range ch.fs {
		if combine(f).Cmp(t.Mul(c.diag[f], y[f])) != 0 {
			return nil, false
		}
	}
	d.Mul(d, c.l)
	v := make([]*big.Rat, n)
	for k := range y {
		v[k] = unreduced(y[k], d)
	}
	return v, true
}

// unreduced is y/d as a big.Rat, not reduced to lowest terms: through
// the references that Num and Denom return, which big.Rat documents as
// setting the value, and which its arithmetic and comparisons take as
// they come. Reducing costs a GCD as long as d, thousands of bits on long
// chains, and more than the rest of evaluate together; most values are
// only compared or added to, so Solution reduces a value when it is read.
func unreduced(y, d *big.Int) *big.Rat {
	r := big.NewRat(1, 2) // a denominator of its own: Denom is a reference
	r.Num().Set(y)
	r.Denom().Set(d)
	return r
}

// residual is lift's r, each entry in a word where it fits (small), which
// after the first steps is nearly every one: |r| ≤ |r|/p + Σ|M's row|.
// The rows of M whose integers all fit in 31 bits then take their step in
// 128-bit words.
type residual struct {
	small []int64
	big   []*big.Int // nil where small holds the entry
	row31 []bool     // the row's diagonal and arcs fit in 31 bits
	t, zb *big.Int
}

func newResidual(c *intChain) *residual {
	n := len(c.diag)
	r := &residual{small: make([]int64, n), big: make([]*big.Int, n), row31: make([]bool, n), t: new(big.Int), zb: new(big.Int)}
	fits := func(v *big.Int) bool { return v.BitLen() <= 31 }
	for k := range n {
		if c.rhs[k].IsInt64() {
			r.small[k] = c.rhs[k].Int64()
		} else {
			r.big[k] = new(big.Int).Set(c.rhs[k])
		}
		r.row31[k] = fits(c.diag[k])
		for _, o := range c.arcs[k] {
			r.row31[k] = r.row31[k] && fits(o.m)
		}
	}
	return r
}

// mod is entry k modulo p.
func (r *residual) mod(k int, p uint64, pb, t *big.Int) uint64 {
	if b := r.big[k]; b != nil {
		return t.Mod(b, pb).Uint64()
	}
	v := r.small[k] % int64(p)
	if v < 0 {
		v += int64(p)
	}
	return uint64(v)
}

// step sets entry k to (r − M·z)/p, an exact division.
func (r *residual) step(c *intChain, k int, z []uint64, p uint64, pb *big.Int) {
	if r.big[k] == nil && r.row31[k] {
		// In 128-bit two's complement: |r − M·z| < 2^63 + Σ|M's row|·p,
		// so its high word stays below p and its quotient fits int64.
		lo, hi := uint64(r.small[k]), uint64(r.small[k]>>63)
		var c0 uint64
		if z[k] != 0 {
			ph, pl := bits.Mul64(c.diag[k].Uint64(), z[k])
			lo, c0 = bits.Sub64(lo, pl, 0)
			hi, _ = bits.Sub64(hi, ph, c0)
		}
		for _, o := range c.arcs[k] {
			if z[o.to] != 0 {
				ph, pl := bits.Mul64(o.m.Uint64(), z[o.to])
				lo, c0 = bits.Add64(lo, pl, 0)
				hi, _ = bits.Add64(hi, ph, c0)
			}
		}
		neg := int64(hi) < 0
		if neg {
			lo, c0 = bits.Sub64(0, lo, 0)
			hi, _ = bits.Sub64(0, hi, c0)
		}
		q, _ := bits.Div64(hi, lo, p)
		if neg {
			r.small[k] = -int64(q)
		} else {
			r.small[k] = int64(q)
		}
		return
	}
	rk := r.big[k]
	if rk == nil {
		rk = new(big.Int).SetInt64(r.small[k])
		r.big[k] = rk
	}
	t, zb := r.t, r.zb
	if z[k] != 0 {
		rk.Sub(rk, t.Mul(c.diag[k], zb.SetUint64(z[k])))
	}
	for _, o := range c.arcs[k] {
		if z[o.to] != 0 {
			rk.Add(rk, t.Mul(o.m, zb.SetUint64(z[o.to])))
		}
	}
	rk.Quo(rk, pb)
	if rk.IsInt64() {
		r.small[k], r.big[k] = rk.Int64(), nil
	}
}
