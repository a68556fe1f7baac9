package explore

import (
	"math/big"

	"github.com/fwsim/fwsim/internal/mdp"
)

// deadline is the probability that time metric m (TimeMetrics' index) is
// reached within d ns. The graph's states forget how long the metric has
// run, so the question is asked of its unrolling: pairs of a state and the
// budget left, which every way inside the metric's interval spends. As
// every round of a contention spends some, the unrolling is finite even
// where the graph has cycles.
func (e *explorer) deadline(m int, d int64) (Interval, error) {
	u := unrolling{e: e, m: m, index: map[budgeted]int{}}
	u.missed = u.add(mdp.State{Kind: mdp.Terminal})
	if d -= e.initial[m]; d < 0 {
		return Interval{zero, zero}, nil // missed before the first choice
	}
	u.visit(budgeted{0, d})
	for i := 0; i < len(u.todo); i++ {
		if len(u.todo) > unrollFactor*e.o.MaxStates {
			// Past the bound, the rest stand for any value: the answer
			// becomes an interval, as for the graph itself.
			i := u.index[u.todo[i]]
			u.states[i] = mdp.State{Kind: mdp.Terminal}
			u.frontier = append(u.frontier, i)
			u.truncated = true
			continue
		}
		u.expand(u.todo[i])
	}
	met, err := u.bounds()
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
		return Interval{zero, zero}, nil
	}
	lo := new(big.Rat).Quo(met.Min, applies.Max)
	hi := one
	if applies.Min.Sign() > 0 {
		hi = new(big.Rat).Quo(met.Max, applies.Min)
		if hi.Cmp(one) > 0 {
			hi = one
		}
	}
	return Interval{lo, hi}, nil
}

// unrollFactor bounds the unrolling of a deadline at this many times
// Options.MaxStates states: each graph state appears there once per budget
// it can be reached with.
const unrollFactor = 50

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
	frontier  []int
	missed    int
	truncated bool
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
		if left := b.left - ed.spent[u.m]; left >= 0 {
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
	if !u.e.nondet && len(u.e.queue) == 0 && !u.truncated {
		return lo, nil
	}
	for _, i := range u.frontier {
		u.states[i].Value = one
	}
	hi, err := u.e.solveAt(m, mdp.Max, root)
	return Interval{lo.Min, hi.Max}, err
}

// rootIndex is the unrolling's start: the power-up state with the whole
// deadline.
func (u *unrolling) rootIndex() int { return u.index[u.todo[0]] }
