package mdp

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Kind of a state.
type Kind uint8

const (
	// Terminal has no edges; its Value is given.
	Terminal Kind = iota
	// Random takes its edges with probabilities P summing to exactly 1.
	Random
	// Choice lets an adversary (the scheduler) pick one edge; P is nil.
	Choice
)

// Edge leads to state To.
type Edge struct {
	To int
	// P is the edge's probability in a Random state, nil in a Choice state.
	P *big.Rat
	// Reward is earned when the edge is taken: nil means 0; never negative.
	Reward *big.Rat
}

// State is one state of a Model.
type State struct {
	Kind  Kind
	Edges []Edge
	// Value is a Terminal state's value (nil means 0); never negative.
	Value *big.Rat
}

// Model is a finite Markov decision process in alternating form.
type Model struct {
	States []State
	// Graph, when not nil, is NewGraph of this model or of one with the
	// same live edges (only values and rewards differ): Solve then uses it
	// instead of finding the components again. Check refuses one whose
	// live edges are not this model's.
	Graph *Graph
}

// Opt says which scheduler Solve optimises for.
type Opt uint8

const (
	Min Opt = iota
	Max
)

// Check reports the first structural problem of m.
func (m *Model) Check() error {
	for i, s := range m.States {
		switch s.Kind {
		case Terminal:
			if len(s.Edges) > 0 {
				return fmt.Errorf("mdp: state %d: a terminal state has edges", i)
			}
			if s.Value != nil && s.Value.Sign() < 0 {
				return fmt.Errorf("mdp: state %d: negative value %s", i, s.Value.RatString())
			}
			continue
		case Random, Choice:
		default:
			return fmt.Errorf("mdp: state %d: unknown kind %d", i, s.Kind)
		}
		if s.Value != nil {
			return fmt.Errorf("mdp: state %d: a value on a state that is not terminal", i)
		}
		if len(s.Edges) == 0 {
			return fmt.Errorf("mdp: state %d: no edges", i)
		}
		var sum probabilitySum
		for j, e := range s.Edges {
			if e.To < 0 || e.To >= len(m.States) {
				return fmt.Errorf("mdp: state %d, edge %d: no state %d", i, j, e.To)
			}
			if e.Reward != nil && e.Reward.Sign() < 0 {
				return fmt.Errorf("mdp: state %d, edge %d: negative reward %s", i, j, e.Reward.RatString())
			}
			if s.Kind == Choice {
				if e.P != nil {
					return fmt.Errorf("mdp: state %d, edge %d: a probability on a choice", i, j)
				}
				continue
			}
			if e.P == nil || e.P.Sign() < 0 || e.P.Cmp(one) > 0 {
				return fmt.Errorf("mdp: state %d, edge %d: probability %v outside [0, 1]", i, j, e.P)
			}
			sum.add(e.P)
		}
		if s.Kind == Random && !sum.isOne() {
			return fmt.Errorf("mdp: state %d: probabilities sum to %s, not 1", i, sum.rat().RatString())
		}
	}
	if m.Graph != nil {
		return m.Graph.fits(m)
	}
	return nil
}

// probabilitySum adds probabilities, in a word while they share a
// denominator that fits one (a coin's halves, a window's 1/n each), as
// nearly every state's do: big.Rat's sum reduces at every addition.
type probabilitySum struct {
	num, den uint64 // the sum num/den while den > 0 and big is nil
	big      *big.Rat
}

func (p *probabilitySum) add(x *big.Rat) {
	if p.big == nil {
		if n, d, ok := Words(x); ok && (p.den == 0 || d == p.den) {
			if s, carry := bits.Add64(p.num, n, 0); carry == 0 {
				p.num, p.den = s, d
				return
			}
		}
		p.big = p.rat()
	}
	p.big.Add(p.big, x)
}

func (p *probabilitySum) rat() *big.Rat {
	switch {
	case p.big != nil:
		return p.big
	case p.den == 0:
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(p.num), new(big.Int).SetUint64(p.den))
}

func (p *probabilitySum) isOne() bool {
	if p.big == nil {
		return p.den != 0 && p.num == p.den
	}
	return p.big.Cmp(one) == 0
}

var (
	zero = new(big.Rat)
	one  = big.NewRat(1, 1)
)

// ErrImproper reports a policy whose chain has no unique solution: a bug
// in the solver's choice of policies, never a property of a valid model.
var ErrImproper = errors.New("mdp: singular system")

// Solution is Solve's answer. Its methods reduce the fractions they
// return, once each, so a Solution is not for concurrent use.
type Solution struct {
	lo, hi []*big.Rat
	// unreduced holds the values not reduced to lowest terms yet (see
	// unreduced).
	unreduced map[*big.Rat]struct{}
	// Decision is, for each Choice state, an optimal edge: -1 elsewhere
	// and where the value is infinite. Where the value is not exact, the
	// edge is optimal when every inexact value the state depends on is at
	// its lower bound.
	Decision []int
}

// Lo(i) ≤ v(i) ≤ Hi(i) for every state i, v being the exact value of the
// package doc. Where the value is known exactly, Lo(i) and Hi(i) are the
// same *big.Rat (see Exact). nil in both means +infinity; nil in Hi alone
// means that no finite upper bound was found (value iteration stopped at
// its cap before every state could leave its component). Callers must not
// modify the values: they may be shared with each other and with the
// Model's terminal values.
func (s *Solution) Lo(i int) *big.Rat { return s.reduced(s.lo[i]) }

// Hi is state i's upper bound (see Lo).
func (s *Solution) Hi(i int) *big.Rat { return s.reduced(s.hi[i]) }

// Len is the number of states.
func (s *Solution) Len() int { return len(s.lo) }

// reduced reduces r in place the first time it is read.
func (s *Solution) reduced(r *big.Rat) *big.Rat {
	if _, ok := s.unreduced[r]; ok {
		r.SetFrac(new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom()))
		delete(s.unreduced, r)
	}
	return r
}

// Exact reports whether state i's value is known exactly: Lo(i) = Hi(i),
// both finite, or both nil (+infinity).
func (s *Solution) Exact(i int) bool {
	return exact(s.lo[i], s.hi[i])
}

func exact(lo, hi *big.Rat) bool {
	if lo == nil || hi == nil {
		return lo == nil && hi == nil
	}
	return Cmp(lo, hi) == 0
}

// Limits bound the exact work; the zero value means the defaults.
type Limits struct {
	// MaxExactFeedback is the largest feedback set (see the package doc)
	// of a component of Random states only that is solved exactly; a
	// component with a larger one is bounded instead by sound value
	// iteration. 0 means DefaultMaxExactFeedback; a negative value sends
	// every such component to value iteration. Components with Choice
	// states are always solved exactly.
	MaxExactFeedback int
	// Precision is the relative width at which value iteration stops: it
	// stops once, at every state s of the component, the part of the
	// interval's width that is due to stopping, as opposed to inexact
	// successors, is at most Precision·Lo[s]. 0 means DefaultPrecision;
	// it must be below 1. It also sets the working precision of the
	// iteration's floating-point numbers (64 bits more than -log2
	// Precision, and at least 128), every one rounded in the safe
	// direction.
	Precision float64
	// MaxIterations caps the sweeps of value iteration per component
	// (each sweep is one step of the equations at every state of the
	// component); 0 means DefaultMaxIterations. At the cap the bounds are
	// still sound, only wider than Precision. (Should some state of the
	// component still be unable to leave it within the sweeps, which the
	// order of the sweeps makes possible after the first unless leaving
	// is less likely than the working precision resolves, Lo falls back
	// to what was collected within the sweeps and Hi is nil, no finite
	// bound, throughout the component.)
	MaxIterations int
}

const (
	// DefaultMaxExactFeedback: the exact solution costs an inversion
	// modulo a prime, about |F|³ word operations, and a few hundred sweeps
	// of the component (see evaluate): on walks on Z_n with ns rewards
	// (8 states a round, |F| = n/2), 0.5 s at |F| = 384, 3 s at 512, 18 s
	// at 1,024. fwsim's two-node root contention has a feedback set of
	// about 40 states on the 1394-1995 profile (see feedback) and 266 on
	// 1394a-2000, whose windows hold two cycle counts.
	DefaultMaxExactFeedback = 512
	// DefaultPrecision is 2^-64, about 5.4e-20: beyond any timing the
	// emulator resolves.
	DefaultPrecision = 0x1p-64
	// DefaultMaxIterations is the default cap on value iteration sweeps.
	DefaultMaxIterations = 1 << 16
)

func (l Limits) withDefaults() (Limits, error) {
	if l.MaxExactFeedback == 0 {
		l.MaxExactFeedback = DefaultMaxExactFeedback
	}
	if l.Precision == 0 {
		l.Precision = DefaultPrecision
	}
	if !(l.Precision > 0 && l.Precision < 1) {
		return l, fmt.Errorf("mdp: precision %v outside (0, 1)", l.Precision)
	}
	if l.MaxIterations <= 0 {
		l.MaxIterations = DefaultMaxIterations
	}
	return l, nil
}

// bits is the working precision of value iteration.
func (l Limits) bits() uint {
	b := max(uint(math.Ceil(-math.Log2(l.Precision))), 64) + 64
	return b
}

// Solve returns every state's value, the least fixed point of the Bellman
// equations (see the package doc), as an interval that is a single value
// wherever the exact work stays within lim, and for each Choice state an
// optimal edge.
func Solve(m *Model, opt Opt, lim Limits) (*Solution, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(m.States)
	s := &solver{m: m, opt: opt, lim: lim, lo: make([]*big.Rat, n), hi: make([]*big.Rat, n),
		dec: make([]int, n), solved: make([]bool, n), split: make([]bool, n), pos: make([]int, n), mark: make([]bool, n),
		unreduced: map[*big.Rat]struct{}{}}
	for i := range s.dec {
		s.dec[i], s.pos[i] = -1, -1
	}
	g := m.Graph
	if g == nil {
		g = NewGraph(m)
	}
	s.preds = g.preds
	s.positive = positive(m, g)
	for _, scc := range g.components {
		if err := s.component(scc); err != nil {
			return nil, err
		}
	}
	for i := range n {
		if s.lo[i] == nil {
			s.hi[i], s.dec[i] = nil, -1
		}
	}
	return &Solution{lo: s.lo, hi: s.hi, unreduced: s.unreduced, Decision: s.dec}, nil
}

// live reports whether edge e counts: a Random edge of probability 0 never
// happens.
func live(st *State, e *Edge) bool { return st.Kind != Random || e.P.Sign() > 0 }

func reward(e *Edge) *big.Rat {
	if e.Reward == nil {
		return zero
	}
	return e.Reward
}

// positive marks the states that can reach, through live edges, a terminal
// of positive value or an edge of positive reward: every other state's
// value is 0 whatever the scheduler does.
func positive(m *Model, g *Graph) []bool {
	pos := make([]bool, len(m.States))
	var stack []int
	for i := range m.States {
		st := &m.States[i]
		if st.Kind == Terminal && st.Value != nil && st.Value.Sign() > 0 {
			pos[i] = true
		}
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) && reward(e).Sign() > 0 {
				pos[i] = true
			}
		}
		if pos[i] {
			stack = append(stack, i)
		}
	}
	g.backward(stack, func(from int) bool {
		was := pos[from]
		pos[from] = true
		return !was
	})
	return pos
}

// passMode says which bounds a pass over a component computes.
type passMode uint8

const (
	// bothPass: every successor outside the component is exact; the pass
	// sets lo, and hi to the same values except where value iteration
	// sets them apart.
	bothPass passMode = iota
	// loPass and hiPass solve the component with the successors' lower,
	// respectively upper, bounds.
	loPass
	hiPass
)

type solver struct {
	m        *Model
	opt      Opt
	lim      Limits
	positive []bool
	preds    [][]pred
	lo, hi   []*big.Rat
	dec      []int
	// solved marks the states whose value in the current pass is known:
	// every state of an earlier component, and those of the current one
	// settled so far. val is the current pass's values (lo or hi): nil
	// for a solved state means +infinity.
	solved []bool
	val    []*big.Rat
	mode   passMode
	// split marks the states to which value iteration gave lo and hi of
	// their own in a bothPass.
	split []bool
	// pos is each state's position in the states being worked on (rest),
	// -1 elsewhere; see setPos.
	pos []int
	// mark is greatest's scratch set, all false between calls.
	mark []bool
	// unreduced holds the exact values that evaluate left unreduced.
	unreduced map[*big.Rat]struct{}
	scratch   big.Int // betterEdge's
}

func (s *solver) inf(i int) bool    { return s.solved[i] && s.val[i] == nil }
func (s *solver) finite(i int) bool { return s.solved[i] && s.val[i] != nil }

// settle solves state i in the current pass; v nil means +infinity.
func (s *solver) settle(i int, v *big.Rat) { s.val[i], s.solved[i] = v, true }

func (s *solver) setPos(rest []int) {
	for k, i := range rest {
		s.pos[i] = k
	}
}

func (s *solver) clearPos(rest []int) {
	for _, i := range rest {
		s.pos[i] = -1
	}
}

// better reports whether a is strictly better than b for the optimiser.
func (s *solver) better(a, b *big.Rat) bool {
	if s.opt == Min {
		return Cmp(a, b) < 0
	}
	return Cmp(a, b) > 0
}

// component solves one strongly connected component, every state it
// reaches outside already solved. Where one of those is not exact, the
// component is solved twice, with the successors' lower bounds and with
// their upper ones: the Bellman operator is monotone in the successors'
// values, and so is its least fixed point, under Min as under Max.
func (s *solver) component(scc []int) error {
	exactOut := true
	for _, i := range scc {
		st := &s.m.States[i]
		for j := range st.Edges {
			e := &st.Edges[j]
			if live(st, e) && s.solved[e.To] && !exact(s.lo[e.To], s.hi[e.To]) {
				exactOut = false
			}
		}
	}
	if exactOut {
		if err := s.pass(scc, bothPass); err != nil {
			return err
		}
		for _, i := range scc {
			if !s.split[i] {
				s.hi[i] = s.lo[i]
			}
		}
		return nil
	}
	// The lower pass last: its decisions are the ones reported.
	if err := s.pass(scc, hiPass); err != nil {
		return err
	}
	return s.pass(scc, loPass)
}

// pass solves the component scc with the current mode's successor values.
func (s *solver) pass(scc []int, mode passMode) error {
	s.mode, s.val = mode, s.lo
	if mode == hiPass {
		s.val = s.hi
	}
	for _, i := range scc {
		s.val[i], s.solved[i], s.dec[i], s.split[i] = nil, false, -1, false
	}
	if len(scc) == 1 && !s.selfLoop(scc[0]) {
		s.single(scc[0])
		return nil
	}
	// States that cannot collect anything are 0.
	var rest []int
	for _, i := range scc {
		st := &s.m.States[i]
		if !s.positive[i] || st.Kind == Terminal {
			v := zero
			if st.Kind == Terminal && st.Value != nil {
				v = st.Value
			}
			s.settle(i, v)
			if st.Kind == Choice {
				s.dec[i] = 0
			}
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) == 0 {
		return nil
	}
	if s.opt == Min {
		s.zeroForMin(rest)
		rest = s.unsolved(rest)
	}
	for {
		// A state that cannot leave the component's unsolved states (an
		// adversary's or chance's trap) collects forever: it is positive,
		// so its value is infinite; so is what must reach such a state.
		before := len(rest)
		s.markInfinite(rest)
		rest = s.unsolved(rest)
		if len(rest) == before {
			break
		}
	}
	if len(rest) == 0 {
		return nil
	}
	s.setPos(rest)
	defer s.clearPos(rest)
	policy, order := s.attractor(rest)
	if c := s.uniform(rest); c != nil {
		for k, i := range rest {
			s.settle(i, c)
			if s.m.States[i].Kind == Choice {
				s.dec[i] = policy[k]
			}
		}
		return nil
	}
	return s.policyIteration(rest, policy, order)
}

func (s *solver) selfLoop(i int) bool {
	st := &s.m.States[i]
	for j := range st.Edges {
		if st.Edges[j].To == i && live(st, &st.Edges[j]) {
			return true
		}
	}
	return false
}

// single solves a state on no cycle: one step of the equations.
func (s *solver) single(i int) {
	st := &s.m.States[i]
	switch st.Kind {
	case Terminal:
		v := zero
		if st.Value != nil {
			v = st.Value
		}
		s.settle(i, v)
	case Random:
		// Where every live edge brings the same c, the state's value is c,
		// its probabilities summing to 1: in a question of probability
		// most states are sure of their answer, and c is shared as is.
		var same *big.Rat
		alike := true
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) {
				continue
			}
			if s.val[e.To] == nil {
				s.settle(i, nil)
				return
			}
			if c := s.gain(e); same == nil {
				same = c
			} else if alike && Cmp(c, same) != 0 {
				alike = false
			}
		}
		if alike && same != nil {
			s.settle(i, same)
			return
		}
		sum, t := new(big.Rat), new(big.Rat)
		for j := range st.Edges {
			e := &st.Edges[j]
			if live(st, e) {
				sum.Add(sum, t.Mul(s.gain(e), e.P))
			}
		}
		s.settle(i, sum)
	case Choice:
		var best *big.Rat
		for j := range st.Edges {
			e := &st.Edges[j]
			if s.val[e.To] == nil {
				if s.opt == Max {
					s.dec[i] = -1
					s.settle(i, nil)
					return
				}
				continue
			}
			if v := s.gain(e); best == nil || s.better(v, best) {
				best, s.dec[i] = v, j
			}
		}
		s.settle(i, best)
	}
}

// gain is the edge's reward plus its end's value, which must be solved
// and finite: the value itself, shared, where the reward is 0.
func (s *solver) gain(e *Edge) *big.Rat {
	if e.Reward == nil || e.Reward.Sign() == 0 {
		return s.val[e.To]
	}
	return new(big.Rat).Add(e.Reward, s.val[e.To])
}

func (s *solver) unsolved(states []int) []int {
	var out []int
	for _, i := range states {
		if !s.solved[i] {
			out = append(out, i)
		}
	}
	return out
}

// greatest finds the greatest subset X of rest in which every Random
// state keeps all its live edges ok and every Choice state at least one,
// ok(e, x) telling whether edge e is, given membership x, and calls then
// with X's membership (valid during the call only). ok may depend on x
// only through x[e.To] (to find whom a removal affects).
func (s *solver) greatest(rest []int, ok func(e *Edge, x []bool) bool, then func(x []bool)) {
	x := s.mark
	defer func() {
		for _, i := range rest {
			x[i] = false
		}
	}()
	for _, i := range rest {
		x[i] = true
	}
	count := make(map[int]int) // Choice state → its ok edges
	var removed []int
	for _, i := range rest {
		st := &s.m.States[i]
		n, bad := 0, false
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) {
				continue
			}
			if ok(e, x) {
				n++
			} else {
				bad = true
			}
		}
		if (st.Kind == Random && bad) || (st.Kind == Choice && n == 0) {
			removed = append(removed, i)
		}
		count[i] = n
	}
	for _, i := range removed {
		x[i] = false
	}
	for len(removed) > 0 {
		t := removed[len(removed)-1]
		removed = removed[:len(removed)-1]
		for _, p := range s.preds[t] {
			if !x[p.From] {
				continue
			}
			st := &s.m.States[p.From]
			e := &st.Edges[p.Edge]
			x[t] = true
			was := ok(e, x)
			x[t] = false
			if !was {
				continue
			}
			if st.Kind == Choice {
				if count[p.From]--; count[p.From] > 0 {
					continue
				}
			}
			x[p.From] = false
			removed = append(removed, p.From)
		}
	}
	then(x)
}

// zeroForMin finds the states of rest where a minimising scheduler can
// collect nothing forever: the greatest set X in which every Random state
// keeps all its edges, and every Choice state one edge, inside X or at a
// solved state of value 0, each of zero reward.
func (s *solver) zeroForMin(rest []int) {
	ok := func(e *Edge, x []bool) bool {
		if reward(e).Sign() > 0 {
			return false
		}
		if s.solved[e.To] {
			return s.finite(e.To) && s.val[e.To].Sign() == 0
		}
		return x[e.To]
	}
	s.greatest(rest, ok, func(x []bool) {
		var zeros []int
		for _, i := range rest {
			if !x[i] {
				continue
			}
			zeros = append(zeros, i)
			st := &s.m.States[i]
			if st.Kind == Choice {
				for j := range st.Edges {
					if ok(&st.Edges[j], x) {
						s.dec[i] = j
						break
					}
				}
			}
		}
		// Settled only now: ok reads x for unsolved states only.
		for _, i := range zeros {
			s.settle(i, zero)
		}
	})
}

// markInfinite solves as infinite the states of rest whose value must be:
// those from which no scheduler (Max: the maximiser can keep; Min: the
// minimiser cannot avoid) reaches a solved state, and those an infinite
// state's edges force.
func (s *solver) markInfinite(rest []int) {
	// reach: the states of rest that reach solved, finite states through
	// live edges, found backwards.
	reach := make(map[int]bool, len(rest))
	in := make(map[int]bool, len(rest))
	for _, i := range rest {
		in[i] = true
	}
	s.spreadBack(rest, func(i int) bool { return in[i] }, reach, func(e *Edge) bool { return s.finite(e.To) })
	for _, i := range rest {
		st := &s.m.States[i]
		infinite := !reach[i]
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) || !s.inf(e.To) {
				continue
			}
			if st.Kind == Random || s.opt == Max {
				infinite = true
			}
		}
		if st.Kind == Choice && s.opt == Min && !infinite {
			all := true
			for j := range st.Edges {
				if !s.inf(st.Edges[j].To) {
					all = false
				}
			}
			infinite = all
		}
		if infinite {
			s.settle(i, nil)
		}
	}
	if s.opt == Max {
		s.markMaxTraps(rest)
	}
}

// spreadBack marks in mark the states of rest, within the set in, that
// have a live edge hit accepts, and then, backwards along live edges, every
// state within the set that reaches a marked one.
func (s *solver) spreadBack(rest []int, in func(int) bool, mark map[int]bool, hit func(*Edge) bool) {
	var stack []int
	for _, i := range rest {
		if !in(i) {
			continue
		}
		st := &s.m.States[i]
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) && hit(e) {
				mark[i] = true
				stack = append(stack, i)
				break
			}
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range s.preds[t] {
			if in(p.From) && !mark[p.From] {
				mark[p.From] = true
				stack = append(stack, p.From)
			}
		}
	}
}

// markMaxTraps marks infinite the states where a maximiser can stay among
// unsolved states forever while collecting a positive reward: the greatest
// set Y where every Random state keeps all its edges in Y and every Choice
// state one; a state of Y from which such an edge of positive reward is
// reachable inside Y collects without end.
func (s *solver) markMaxTraps(rest []int) {
	rest = s.unsolved(rest)
	hot := map[int]bool{}
	s.greatest(rest, func(e *Edge, x []bool) bool { return x[e.To] }, func(y []bool) {
		// Inside Y, a positive reward reachable along edges that stay in Y.
		inY := func(i int) bool { return y[i] }
		s.spreadBack(rest, inY, hot, func(e *Edge) bool { return y[e.To] && reward(e).Sign() > 0 })
	})
	for i := range hot {
		s.settle(i, nil)
	}
}

// attractor returns, for the states of rest (which all reach solved,
// finite states, and whose positions are set), a policy that leaves rest
// almost surely: each Choice state takes an edge one step closer to the
// solved finite states; and rest's positions ordered by that distance,
// closest first.
func (s *solver) attractor(rest []int) (policy, order []int) {
	policy = make([]int, len(rest))
	seen := make([]bool, len(rest))
	for k, i := range rest {
		st := &s.m.States[i]
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) && s.pos[e.To] < 0 && s.finite(e.To) {
				policy[k], seen[k] = j, true
				order = append(order, k)
				break
			}
		}
	}
	for h := 0; h < len(order); h++ {
		for _, p := range s.preds[rest[order[h]]] {
			if k := s.pos[p.From]; k >= 0 && !seen[k] {
				policy[k], seen[k] = p.Edge, true
				order = append(order, k)
			}
		}
	}
	for k := range rest {
		if !seen[k] { // cannot happen after markInfinite
			order = append(order, k)
		}
	}
	return policy, order
}

// uniform returns the value c shared by every state of rest when no live
// edge between them has a positive reward and every live edge leaving
// them (a Min choice's edges to infinite states aside) earns reward plus
// value c, the same for all; nil otherwise.
//
// Then every state of rest is worth exactly c, and the attractor policy
// is optimal. A run from rest either leaves it, collecting exactly c, or
// stays in it forever collecting 0. Under Min, zeroForMin has removed
// every end component inside rest (it would have been a set where the
// minimiser stays forever at 0), and markInfinite the states with no
// finite way out; a finite MDP's runs end, almost surely, in an end
// component or outside, so every policy that avoids the infinite states
// leaves rest almost surely and is worth c. Under Max, staying forever
// is worth 0 ≤ c, so no policy does better than c, and the attractor
// policy, which leaves rest almost surely (every state keeps a positive
// probability of leaving within |rest| steps), attains it. A Random
// state's edges, for both, all lead to finite states by markInfinite.
// This settles reachability probabilities at once, however large the
// component.
func (s *solver) uniform(rest []int) *big.Rat {
	var c *big.Rat
	t := new(big.Rat)
	for _, i := range rest {
		st := &s.m.States[i]
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) {
				continue
			}
			if s.pos[e.To] >= 0 {
				if reward(e).Sign() > 0 {
					return nil
				}
				continue
			}
			if s.val[e.To] == nil {
				if st.Kind == Choice && s.opt == Min {
					continue
				}
				return nil
			}
			t.Add(reward(e), s.val[e.To])
			if c == nil {
				c = new(big.Rat).Set(t)
			} else if c.Cmp(t) != 0 {
				return nil
			}
		}
	}
	return c
}

// arc is an edge of the chain a policy makes of rest.
type arc struct {
	to int // position in rest, or -1 outside
	p  *big.Rat
	e  *Edge
}

// succs returns the chain policy makes of rest (positions set).
func (s *solver) succs(rest []int, policy []int) [][]arc {
	succ := make([][]arc, len(rest))
	for k, i := range rest {
		st := &s.m.States[i]
		if st.Kind == Choice {
			e := &st.Edges[policy[k]]
			succ[k] = []arc{{s.pos[e.To], one, e}}
			continue
		}
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) {
				succ[k] = append(succ[k], arc{s.pos[e.To], e.P, e})
			}
		}
	}
	return succ
}

// policyIteration solves the states of rest (positions set), which all
// reach solved finite states, by evaluating a memoryless policy exactly
// and improving it until no state can do strictly better; it starts from
// the attractor policy, which leaves rest, as the float iteration of
// warmPolicy improves it. A component of Random states
// only has a single policy; when its feedback set exceeds
// MaxExactFeedback, it is bounded by value iteration instead.
func (s *solver) policyIteration(rest []int, policy, order []int) error {
	random := true
	for _, i := range rest {
		if s.m.States[i].Kind != Random {
			random = false
			break
		}
	}
	if !random && warmStart {
		policy = s.warmPolicy(rest, policy)
	}
	for {
		succ := s.succs(rest, policy)
		ch := feedback(succ)
		if random && (s.lim.MaxExactFeedback < 0 || len(ch.fs) > s.lim.MaxExactFeedback) {
			return s.iterate(rest, order, succ)
		}
		v, err := s.evaluate(succ, ch)
		if err != nil {
			return err
		}
		changed := false
		for k, i := range rest {
			st := &s.m.States[i]
			if st.Kind != Choice {
				continue
			}
			cur := &st.Edges[policy[k]]
			for j := range st.Edges {
				e := &st.Edges[j]
				if s.inf(e.To) {
					continue
				}
				if s.betterEdge(e, cur, v) {
					cur, policy[k], changed = e, j, true
				}
			}
		}
		if !changed {
			for k, i := range rest {
				s.settle(i, v[k])
				s.unreduced[v[k]] = struct{}{}
				if s.m.States[i].Kind == Choice {
					s.dec[i] = policy[k]
				}
			}
			return nil
		}
	}
}

// betterEdge reports whether edge e is strictly better than edge f for
// the optimiser, each worth its reward plus the value of its end, v for
// the states of rest.
func (s *solver) betterEdge(e, f *Edge, v []*big.Rat) bool {
	c := cmpSum(reward(e), s.endValue(e, v), reward(f), s.endValue(f, v), &s.scratch)
	if s.opt == Min {
		return c < 0
	}
	return c > 0
}

// endValue is the value of the edge's end: v for the states of rest.
func (s *solver) endValue(e *Edge, v []*big.Rat) *big.Rat {
	if k := s.pos[e.To]; k >= 0 {
		return v[k]
	}
	return s.val[e.To]
}

// iterate bounds the values of rest, Random states only (positions set),
// by sound value iteration (Quatmann and Katoen, Sound Value Iteration,
// CAV 2018). For every state s it keeps x(s) and y(s) such that
//
//	v(s) = x(s) + Σ_t M(s, t)·v(t)
//
// for some non-negative M over rest with row sums y(s): at the start x = 0
// and y = 1 (M the identity); one step of the equations at s, from its
// successors' pairs, keeps this true whatever the order of the steps, so
// the sweeps go in place (Gauss-Seidel), states closest to the exits
// first. With m and M the least and greatest values in rest, every
// x(s) + y(s)·m ≤ v(s) ≤ x(s) + y(s)·M; at the state where v is least,
// m ≥ x/(1-y), and at the one where it is greatest, M ≤ x/(1-y). So with
// L the least x/(1-y) over rest and U the greatest, once every y < 1,
//
//	x(s) + y(s)·L ≤ v(s) ≤ x(s) + y(s)·U.
//
// Lower and upper quantities are kept apart in big.Float, each operation
// rounded down for the lower ones and up for the upper ones; as values
// are non-negative, rounding x and y down only lowers the lower bound, and
// up only raises the upper. The sweeps stop when the bounds are as
// narrow as lim.Precision asks (see Limits) or at lim.MaxIterations.
func (s *solver) iterate(rest []int, order []int, succ [][]arc) error {
	n := len(rest)
	prec := s.lim.bits()
	down := func() *big.Float { return new(big.Float).SetPrec(prec).SetMode(big.ToNegativeInf) }
	up := func() *big.Float { return new(big.Float).SetPrec(prec).SetMode(big.ToPositiveInf) }
	type inner struct {
		to     int
		pl, ph *big.Float
	}
	ins := make([][]inner, n)
	cl, ch := make([]*big.Float, n), make([]*big.Float, n) // what one step collects
	xl, xh, yl, yh := make([]*big.Float, n), make([]*big.Float, n), make([]*big.Float, n), make([]*big.Float, n)
	c, t := new(big.Rat), new(big.Rat)
	for k := range n {
		c.SetInt64(0)
		for _, o := range succ[k] {
			t.Set(reward(o.e))
			if o.to < 0 {
				w := s.val[o.e.To]
				if w == nil {
					return ErrImproper // markInfinite settles such states
				}
				t.Add(t, w)
			} else {
				ins[k] = append(ins[k], inner{o.to, down().SetRat(o.p), up().SetRat(o.p)})
			}
			c.Add(c, t.Mul(t, o.p))
		}
		cl[k], ch[k] = down().SetRat(c), up().SetRat(c)
		xl[k], xh[k] = down(), up()
		yl[k], yh[k] = down().SetInt64(1), up().SetInt64(1)
	}
	pl, ph := down(), up() // products
	sxl, sxh, syl, syh := down(), up(), down(), up()
	lo, hi := make([]*big.Float, n), make([]*big.Float, n)
	for k := range n {
		lo[k], hi[k] = down(), up()
	}
	// bounds sets lo and hi from x and y; it reports whether they are
	// narrow enough, and whether hi is finite.
	var (
		l, u, d, q = down(), up(), new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
		w, tol     = up(), down()
		oneF       = new(big.Float).SetInt64(1)
		precision  = new(big.Float).SetFloat64(s.lim.Precision)
	)
	bounds := func() (narrow, finite bool) {
		// L: the least x/(1-y), the denominator rounded up; U: the
		// greatest, the denominator rounded down. A y not below 1 leaves
		// L = 0 (always sound: values are non-negative) and U infinite.
		lok, uok := true, true
		for k := range n {
			if lok && yl[k].Cmp(oneF) < 0 {
				d.SetMode(big.ToPositiveInf).Sub(oneF, yl[k])
				q.SetMode(big.ToNegativeInf).Quo(xl[k], d)
				if k == 0 || q.Cmp(l) < 0 {
					l.Set(q)
				}
			} else {
				lok = false
			}
			if uok {
				d.SetMode(big.ToNegativeInf).Sub(oneF, yh[k])
				if d.Sign() > 0 {
					q.SetMode(big.ToPositiveInf).Quo(xh[k], d)
					if k == 0 || q.Cmp(u) > 0 {
						u.Set(q)
					}
				} else {
					uok = false
				}
			}
		}
		if !lok {
			l.SetInt64(0)
		}
		narrow = uok
		for k := range n {
			lo[k].Add(xl[k], pl.Mul(yl[k], l))
			if !uok {
				continue
			}
			hi[k].Add(xh[k], ph.Mul(yh[k], u))
			// The part of the width due to stopping: yh·U - yl·L.
			w.Sub(ph, pl)
			if narrow && w.Cmp(tol.Mul(precision, lo[k])) > 0 {
				narrow = false
			}
		}
		return narrow, uok
	}
	var finite bool
	for sweep := 1; ; sweep++ {
		for _, k := range order {
			// In place: the new pair goes into spare Floats, then swaps
			// with the old one (all of one precision and mode).
			sxl.Set(cl[k])
			sxh.Set(ch[k])
			syl.SetInt64(0)
			syh.SetInt64(0)
			for _, a := range ins[k] {
				sxl.Add(sxl, pl.Mul(a.pl, xl[a.to]))
				sxh.Add(sxh, ph.Mul(a.ph, xh[a.to]))
				syl.Add(syl, pl.Mul(a.pl, yl[a.to]))
				syh.Add(syh, ph.Mul(a.ph, yh[a.to]))
			}
			xl[k], sxl = sxl, xl[k]
			xh[k], sxh = sxh, xh[k]
			yl[k], syl = syl, yl[k]
			yh[k], syh = syh, yh[k]
		}
		if sweep%4 != 0 && sweep < s.lim.MaxIterations {
			continue
		}
		var narrow bool
		narrow, finite = bounds()
		if narrow || sweep >= s.lim.MaxIterations {
			break
		}
	}
	for k, i := range rest {
		lr, _ := lo[k].Rat(nil)
		var hr *big.Rat
		if finite {
			hr, _ = hi[k].Rat(nil)
		}
		switch s.mode {
		case bothPass:
			s.lo[i], s.hi[i], s.split[i] = lr, hr, true
		case loPass:
			s.lo[i] = lr
		case hiPass:
			s.hi[i] = hr
		}
		s.solved[i] = true
	}
	return nil
}
