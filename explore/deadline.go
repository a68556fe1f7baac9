package explore

import (
	"container/heap"
	"math"
	"math/big"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/mdp"
)

// deadline is the probability that time metric m (bus.TimeMetrics' index) is
// reached within d ns. The graph's states forget how long the metric has
// run, so each state needs a value per budget left. Two ways give them:
// the unrolling, pairs of a state and a budget, is fast where every
// choice is random (each graph state is reached with few budgets once
// the budgets that cannot make it are cut), and finite even where the
// graph has cycles, as every round of a contention spends time; an
// adversary's waits reach each state with a budget per ns of them, and
// there step functions of the budget (budgetSolver) stay small. The
// unrolling falls back to them past its bound.
func (e *explorer) deadline(m int, d int64) (Interval, error) {
	if d -= e.initial[m]; d < 0 {
		return Interval{Min: zero, Max: zero}, nil // missed before the first choice
	}
	var met Interval
	var err error
	unrolled := false
	if !e.nondet {
		met, unrolled, err = e.unroll(m, d)
	}
	if err == nil && !unrolled {
		met, err = e.budgetBounds(m, d)
	}
	if err != nil {
		return Interval{}, err
	}
	if e.nondet || m != 2 {
		// Every run counts (a run that misses the metric misses the
		// deadline); under nondeterminism a scheduler also chooses whether
		// a contention happens.
		return met, nil
	}
	// contention_ns counts over the contended runs, as fwsim analyze does.
	applies, err := e.reach(func(st *state) bool { s := status(st.marks, 2); return s == present || s == absent })
	if err != nil {
		return Interval{}, err
	}
	if applies.Max.Sign() == 0 {
		return Interval{Min: zero, Max: zero}, nil
	}
	lo := new(big.Rat).Quo(met.Min, applies.Max)
	hi := one
	if applies.Min.Sign() > 0 {
		hi = new(big.Rat).Quo(met.Max, applies.Min)
		if hi.Cmp(one) > 0 {
			hi = one
		}
	}
	if met.Settled() && applies.Settled() {
		return Interval{Min: lo, Max: hi}, nil
	}
	return unsettled(lo, hi), nil
}

// unroll answers the question on the unrolling, unless it grows past
// its bound (done is then false).
func (e *explorer) unroll(m int, d int64) (met Interval, done bool, err error) {
	u := unrolling{e: e, m: m, index: map[budgeted]int{}, least: e.leastToGo(m)}
	u.missed = u.add(mdp.State{Kind: mdp.Terminal})
	u.visit(budgeted{0, d})
	for i := 0; i < len(u.todo); i++ {
		if len(u.todo) > e.unrollBound() {
			return Interval{}, false, nil
		}
		if i%(interruptEvery*interruptEvery) == 0 && e.interrupted() {
			return Interval{}, false, bus.ErrInterrupted
		}
		u.expand(u.todo[i])
	}
	met, err = u.bounds()
	return met, err == nil, err
}

// unrollFactor bounds the unrolling of a deadline at this many times
// Options.MaxStates states: each graph state appears there once per budget
// it can be reached with.
const unrollFactor = 50

// unrollStates is the fewest states an exploration bound by its memory
// (Options.MaxStates zero) scales the unrolling from: the states explored
// otherwise, as MaxStates when it is given. Its bound, in the millions of
// states, would let an unrolling grow far past the memory the states take.
const unrollStates = 50_000

// unrollBound is how many pairs of a state and a budget an unrolling, or
// the step functions of a deadline, may take.
func (e *explorer) unrollBound() int {
	if e.fitMemory {
		return unrollFactor * max(e.choicePoints(), unrollStates)
	}
	return unrollFactor * e.o.MaxStates
}

// budgeted is a state of the unrolling: a graph state with the ns of the
// deadline left.
type budgeted struct {
	s    int
	left int64
}

type unrolling struct {
	e      *explorer
	m      int
	index  map[budgeted]int
	todo   []budgeted
	states []mdp.State
	// frontier lists the unrolling's states that stand for unexplored
	// graph states; missed is the terminal of a deadline passed.
	frontier []int
	missed   int
	// least is, per graph state, the least ns the metric can still take
	// (explorer.leastToGo).
	least []int64
}

func (u *unrolling) add(st mdp.State) int {
	u.states = append(u.states, st)
	return len(u.states) - 1
}

// visit returns the unrolling state of b, adding it if new.
func (u *unrolling) visit(b budgeted) int {
	if i, ok := u.index[b]; ok {
		return i
	}
	i := u.add(mdp.State{})
	u.index[b] = i
	u.todo = append(u.todo, b)
	return i
}

// expand fills in the unrolling state of b.
func (u *unrolling) expand(b budgeted) {
	i := u.index[b]
	st := &u.e.states[b.s]
	switch s := status(st.marks, u.m); {
	case s == present:
		// Reached with b.left ≥ 0 to spare.
		u.states[i] = mdp.State{Kind: mdp.Terminal, Value: one}
		return
	case s == absent || s == notContended || st.terminal:
		u.states[i] = mdp.State{Kind: mdp.Terminal}
		return
	case !st.expanded:
		u.states[i] = mdp.State{Kind: mdp.Terminal}
		u.frontier = append(u.frontier, i)
		return
	}
	kind := mdp.Random
	if st.edges[0].p == nil {
		kind = mdp.Choice
	}
	edges := make([]mdp.Edge, len(st.edges))
	for j, ed := range st.edges {
		to := u.missed
		// A budget below the least the metric can still take from there
		// is missed whatever happens: no need to unroll it.
		if left := b.left - ed.spent[u.m]; left >= u.least[ed.to] {
			to = u.visit(budgeted{ed.to, left})
		}
		edges[j] = mdp.Edge{To: to, P: ed.p}
	}
	u.states[i] = mdp.State{Kind: kind, Edges: edges}
}

// bounds solves the unrolling as explorer.bounds solves the graph.
func (u *unrolling) bounds() (Interval, error) {
	m := &mdp.Model{States: u.states}
	root := u.rootIndex()
	lo, err := u.e.solveAt(m, mdp.Min, root)
	if err != nil {
		return Interval{}, err
	}
	if !u.e.nondet && len(u.e.queue) == 0 {
		return lo, nil
	}
	for _, i := range u.frontier {
		u.states[i].Value = one
	}
	hi, err := u.e.solveAt(m, mdp.Max, root)
	if err != nil {
		return Interval{}, err
	}
	return unsettled(lo.Min, hi.Max), nil
}

// rootIndex is the unrolling's start: the power-up state with the whole
// deadline.
func (u *unrolling) rootIndex() int { return u.index[u.todo[0]] }

// leastToGo is, for each state, the least ns that time metric m can still
// take from there before it ends, over every way on: a shortest path
// (Dijkstra, backwards) to a state where the metric has ended, each edge
// weighing what it spends on m. It is 0 where the metric has ended and for
// the unexplored states (anything may follow), math.MaxInt64 where it can
// no longer end.
func (e *explorer) leastToGo(m int) []int64 {
	n := len(e.states)
	least := make([]int64, n)
	preds := make([][]int, n) // state → the indices of the states with an edge to it
	q := &queue[distItem]{less: func(a, b distItem) bool { return a.d < b.d }}
	for i := range e.states {
		st := &e.states[i]
		for _, ed := range st.edges {
			preds[ed.to] = append(preds[ed.to], i)
		}
		switch s := status(st.marks, m); {
		case s == present || s == ended || (!st.terminal && !st.expanded):
			heap.Push(q, distItem{i, 0})
		default:
			least[i] = math.MaxInt64
		}
	}
	done := make([]bool, n)
	for q.Len() > 0 {
		it := heap.Pop(q).(distItem)
		if done[it.s] {
			continue
		}
		done[it.s] = true
		for _, p := range preds[it.s] {
			if done[p] {
				continue
			}
			for _, ed := range e.states[p].edges {
				if ed.to == it.s && it.d+ed.spent[m] < least[p] {
					least[p] = it.d + ed.spent[m]
					heap.Push(q, distItem{p, least[p]})
				}
			}
		}
	}
	return least
}
