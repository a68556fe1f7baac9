package explore

import (
	"math/big"
	"slices"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/mdp"
)

// A deadline question asks, of every state s and budget b (the ns the
// metric may still take), V(s, b): the optimal probability that the metric
// ends within b. The graph's states forget how long the metric has run, so
// V is a function of b per state. It is a step function: it changes only
// at the budgets some way to the metric's end takes, which are few where
// an adversary picks the waits (its best choice shifts one function, it
// does not mix them) and where the waits are pinned. budgetSolver keeps
// one step function per state over [0, D] and iterates the equations
//
//	V(s, b) = Σ P(e)·V(to(e), b − spent(e))      Random
//	V(s, b) = min or max of V(to(e), b − spent(e)) Choice
//
// from V = 0, with V(·, b) = 0 for b < 0 (the deadline was missed). The
// iteration climbs to the least fixed point; every cycle of states whose
// metric runs spends time, so after at most a sweep per ns of D no value
// on [0, D] changes again, and the fixed point reached is exact. States
// where the budget no longer matters are constants: the metric ended (the
// probability that it is then reported, from the graph's solution),
// present or absent, and the unexplored states (0 or 1, as for the graph).

// stepFn is a step function of the budget over [0, D]: v[i] from at[i]
// up to at[i+1] (at[0] is 0), v[len-1] from there to D. Adjacent values
// differ.
type stepFn struct {
	at []int64
	v  []prob
}

// prob is a probability of a step function: the exact fraction, and its
// numerator and denominator where both fit in words (den 0 where not),
// which compare in two multiplications; a deadline's step functions
// compare millions of them.
type prob struct {
	r        *big.Rat
	num, den uint64
}

func newProb(r *big.Rat) prob {
	n, d, ok := mdp.Words(r)
	if !ok {
		return prob{r: r}
	}
	return prob{r, n, d}
}

func (x prob) cmp(y prob) int {
	switch {
	case x.r == y.r:
		return 0
	case x.den != 0 && y.den != 0:
		return mdp.CmpWords(x.num, x.den, y.num, y.den)
	}
	return mdp.Cmp(x.r, y.r)
}

func constant(c prob) stepFn { return stepFn{at: []int64{0}, v: []prob{c}} }

// value is f(b) for 0 ≤ b ≤ D.
func (f stepFn) value(b int64) *big.Rat {
	i, found := slices.BinarySearch(f.at, b)
	if !found {
		i--
	}
	return f.v[i].r
}

func (f stepFn) equal(g stepFn) bool {
	if len(f.at) != len(g.at) {
		return false
	}
	for i := range f.at {
		if f.at[i] != g.at[i] || f.v[i].cmp(g.v[i]) != 0 {
			return false
		}
	}
	return true
}

// budgetSolver answers one deadline question for one optimiser.
type budgetSolver struct {
	e    *explorer
	m    int
	d    int64
	opt  mdp.Opt
	f    []stepFn
	live []bool // the states whose value depends on the budget
	// steps counts the steps of every function: bounded, as the
	// unrolling is, by explorer.unrollBound.
	steps int
	// combine's scratch: the function it builds, and a cursor per edge.
	at      []int64
	v       []prob
	cursor  []int
	product big.Rat
	never   prob // 0
}

// maxSweeps bounds the iteration: a sweep per ns of the budget, and some.
func (bs *budgetSolver) maxSweeps() int64 { return bs.d + 2 }

// solve iterates the step functions and reports whether they reached
// their fixed point (false where a cycle that spends nothing keeps a
// state's value moving, or where the functions grow past their bound:
// every value is then a lower bound, as every sweep climbs from below).
// The error is bus.ErrInterrupted.
func (bs *budgetSolver) solve(frontier *big.Rat, endedValue []*big.Rat) (bool, error) {
	e := bs.e
	n := len(e.states)
	bs.f = make([]stepFn, n)
	bs.live = make([]bool, n)
	bs.never = newProb(zero)
	certain, unexplored, never := newProb(one), newProb(frontier), bs.never
	for i := range e.states {
		st := &e.states[i]
		switch s := status(st.marks, bs.m); {
		case s == present:
			bs.f[i] = constant(certain)
		case s == absent || s == notContended || st.terminal:
			bs.f[i] = constant(never)
		case !st.expanded:
			bs.f[i] = constant(unexplored)
		case s == ended:
			bs.f[i] = constant(newProb(endedValue[i]))
		default:
			bs.f[i] = constant(never)
			bs.live[i] = true
		}
	}
	// A state is evaluated again only when a successor's function changed.
	preds := make([][]int32, n)
	for i := range e.states {
		for _, ed := range e.states[i].edges {
			preds[ed.to] = append(preds[ed.to], int32(i))
		}
	}
	dirty := slices.Clone(bs.live)
	bs.steps = n
	evaluated := 0
	for sweep := int64(0); sweep < bs.maxSweeps(); sweep++ {
		changed := false
		// States were found breadth first: backwards, most ways are
		// followed in one sweep.
		for i := n - 1; i >= 0; i-- {
			if !dirty[i] {
				continue
			}
			if evaluated++; evaluated%interruptEvery == 0 && e.interrupted() {
				return false, bus.ErrInterrupted
			}
			dirty[i] = false
			g := bs.combine(&e.states[i])
			if g.equal(bs.f[i]) {
				continue
			}
			g = stepFn{at: slices.Clone(g.at), v: slices.Clone(g.v)}
			bs.steps += len(g.at) - len(bs.f[i].at)
			bs.f[i] = g
			if bs.steps > e.unrollBound() {
				return false, nil
			}
			for _, p := range preds[i] {
				if bs.live[p] {
					dirty[p], changed = true, true
				}
			}
		}
		if !changed {
			return true, nil
		}
	}
	return false, nil
}

// combine is the right side of state st's equation. It sweeps the
// budgets at which some shifted successor changes value, in order, with a
// cursor per edge on its successor's steps: no sorting, no searching.
func (bs *budgetSolver) combine(st *state) stepFn {
	edges := st.edges
	bs.cursor = bs.cursor[:0]
	for range edges {
		bs.cursor = append(bs.cursor, 0)
	}
	bs.at, bs.v = bs.at[:0], bs.v[:0]
	random := edges[0].p != nil
	for b := int64(0); b <= bs.d; {
		var v prob
		same := true // every edge brings the same value: under chance, v
		next := bs.d + 1
		for k := range edges {
			ed := &edges[k]
			w := ed.spent[bs.m]
			x := bs.never // below w, the deadline is missed
			if b < w {
				next = min(next, w)
			} else {
				f := bs.f[ed.to]
				c := bs.cursor[k]
				for c+1 < len(f.at) && f.at[c+1] <= b-w {
					c++
				}
				bs.cursor[k] = c
				x = f.v[c]
				if c+1 < len(f.at) {
					next = min(next, f.at[c+1]+w)
				}
			}
			switch {
			case k == 0:
				v = x
			case random:
				same = same && x.r == v.r
			case (bs.opt == mdp.Min && x.cmp(v) < 0) || (bs.opt == mdp.Max && x.cmp(v) > 0):
				v = x
			}
		}
		if random && !same {
			sum := new(big.Rat)
			for k := range edges {
				ed := &edges[k]
				if b >= ed.spent[bs.m] {
					sum.Add(sum, bs.product.Mul(ed.p, bs.f[ed.to].v[bs.cursor[k]].r))
				}
			}
			v = newProb(sum)
		}
		if k := len(bs.v); k == 0 || bs.v[k-1].cmp(v) != 0 {
			bs.at, bs.v = append(bs.at, b), append(bs.v, v)
		}
		b = next
	}
	return stepFn{at: bs.at, v: bs.v}
}

// budgetBounds is the probability that metric m ends within d ns of the
// first state: exact, or bounds that hold it (under nondeterminism, the
// minimum and maximum over every scheduler).
func (e *explorer) budgetBounds(m int, d int64) (Interval, error) {
	lo, loExact, err := e.budgetValue(m, d, mdp.Min, zero)
	if err != nil {
		return Interval{}, err
	}
	complete := len(e.queue) == 0
	if !e.nondet && complete && loExact {
		return Interval{Min: lo, Max: lo}, nil
	}
	hi, hiExact, err := e.budgetValue(m, d, mdp.Max, one)
	if err != nil {
		return Interval{}, err
	}
	if !hiExact {
		hi = one // the iteration stopped below the fixed point
	}
	if e.nondet && complete && loExact && hiExact {
		return Interval{Min: lo, Max: hi}, nil // the minimum and maximum over every scheduler
	}
	return unsettled(lo, hi), nil
}

// budgetValue solves the question for opt, the unexplored states worth
// frontier: for Min, a lower bound of the value, exact when it says so;
// for Max, an upper bound when it says exact. V(s, b) reads only budgets
// up to b, so the step functions over the longest budget any deadline of
// metric m asks (explorer.longestBudget) answer every shorter one: they
// are solved once for all, and a question they cannot answer exactly (the
// iteration stopped at its bound) is solved again over its own budget.
func (e *explorer) budgetValue(m int, d int64, opt mdp.Opt, frontier *big.Rat) (*big.Rat, bool, error) {
	if longest := e.longestBudget[m]; longest >= d {
		key := budgetKey{m, opt}
		all, ok := e.budgets[key]
		if !ok {
			f, exact, err := e.budgetSolve(m, longest, opt, frontier)
			if err != nil {
				return nil, false, err
			}
			all = solvedBudget{f, exact}
			e.budgets[key] = all
		}
		if all.exact {
			return all.f.value(d), true, nil
		}
	}
	f, exact, err := e.budgetSolve(m, d, opt, frontier)
	if err != nil {
		return nil, false, err
	}
	return f.value(d), exact, nil
}

// budgetKey names the step functions of one metric and optimiser;
// solvedBudget is the first state's, and whether they are exact.
type (
	budgetKey struct {
		m   int
		opt mdp.Opt
	}
	solvedBudget struct {
		f     stepFn
		exact bool
	}
)

// budgetSolve iterates the step functions of metric m over [0, d] for opt,
// and returns the first state's and whether they are exact.
func (e *explorer) budgetSolve(m int, d int64, opt mdp.Opt, frontier *big.Rat) (stepFn, bool, error) {
	sol, err := e.solveModel(e.model(func(st *state) *big.Rat { return indicator(status(st.marks, m) == present) }, frontier, nil), opt)
	if err != nil {
		return stepFn{}, false, err
	}
	exact := true
	reported := make([]*big.Rat, len(e.states))
	for i := range e.states {
		reported[i] = sol.Lo(i)
		if opt == mdp.Max {
			if reported[i] = sol.Hi(i); reported[i] == nil {
				reported[i] = one
			}
		}
		if !sol.Exact(i) && status(e.states[i].marks, m) == ended {
			exact = false
		}
	}
	bs := budgetSolver{e: e, m: m, d: d, opt: opt}
	converged, err := bs.solve(frontier, reported)
	return bs.f[0], exact && converged, err
}
