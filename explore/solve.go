package explore

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/big"
	"slices"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/mdp"
)

// solve computes every answer from the graph.
func (e *explorer) solve() (*Result, error) {
	res := &Result{States: e.choicePoints(), Complete: len(e.queue) == 0, Nondeterministic: e.nondet,
		MaxStates: e.o.MaxStates, MaxStatesFromMemory: e.fitMemory, Runs: e.runs, Events: e.events}
	var outcomes []bus.Outcome
	for _, st := range e.states {
		if st.terminal {
			res.Terminals++
			if !slices.Contains(outcomes, st.metrics.Outcome) {
				outcomes = append(outcomes, st.metrics.Outcome)
			}
		}
	}
	// Runs that never end (a contention that no coin can settle, say) end
	// budget-exhausted in fwsim run, which gives up after its event budget.
	never, err := e.neverEnds()
	if err != nil {
		return nil, err
	}
	if never.Max.Sign() > 0 && (res.Complete || never.Min.Sign() > 0) && !slices.Contains(outcomes, bus.OutcomeBudgetExhausted) {
		outcomes = append(outcomes, bus.OutcomeBudgetExhausted)
	}
	slices.SortFunc(outcomes, func(a, b bus.Outcome) int {
		if (a == bus.OutcomeOK) != (b == bus.OutcomeOK) {
			if a == bus.OutcomeOK {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})
	for _, o := range outcomes {
		var p Interval
		if o == bus.OutcomeBudgetExhausted {
			// Ending so, or never: everything but ending otherwise.
			other, err := e.reach(func(st *state) bool { return st.terminal && st.metrics.Outcome != o })
			if err != nil {
				return nil, err
			}
			p = other.complement()
		} else if p, err = e.reach(func(st *state) bool { return st.terminal && st.metrics.Outcome == o }); err != nil {
			return nil, err
		}
		r := OutcomeResult{Outcome: o, P: p}
		// Runs that never end have no finite path to write.
		if o != bus.OutcomeOK && e.reaches(o) {
			if r.Path, r.PathP, err = e.likeliestPath(o); err != nil {
				return nil, err
			}
		}
		res.Outcomes = append(res.Outcomes, r)
	}
	if !res.Complete {
		u, err := e.unexplored()
		if err != nil {
			return nil, err
		}
		res.Unexplored = &u
	}
	for _, d := range e.o.Deadlines {
		for m, name := range bus.TimeMetrics {
			if d.Metric == "" || d.Metric == name {
				e.longestBudget[m] = max(e.longestBudget[m], int64(d.D)-e.initial[m])
			}
		}
	}
	for _, d := range e.o.Deadlines {
		for m, name := range bus.TimeMetrics {
			if d.Metric != "" && d.Metric != name {
				continue
			}
			p, err := e.deadline(m, int64(d.D))
			if err != nil {
				return nil, err
			}
			r := DeadlineResult{Metric: name, DeadlineNs: int64(d.D), P: p}
			if e.o.MissPaths && p.Min.Cmp(one) < 0 {
				if r.Miss, r.MissP, r.MissOutcome, err = e.likeliestMiss(m, int64(d.D)); err != nil {
					return nil, err
				}
			}
			res.Deadlines = append(res.Deadlines, r)
		}
	}
	for m, name := range append(slices.Clone(bus.TimeMetrics), bus.MetricContentionRounds) {
		x, err := e.expected(m)
		if err != nil {
			return nil, err
		}
		x.Metric = name
		res.Expected = append(res.Expected, x)
	}
	if e.o.Roots {
		if res.Roots, err = e.roots(); err != nil {
			return nil, err
		}
	}
	res.Bounded = e.bounded
	return res, nil
}

// neverEnds is the probability that a run never ends: it cycles through
// the graph's states forever.
func (e *explorer) neverEnds() (Interval, error) {
	ends, err := e.reach(func(st *state) bool { return st.terminal })
	if err != nil {
		return Interval{}, err
	}
	return ends.complement(), nil
}

// unexplored is the probability that a run reaches a state the
// exploration left unexplored. The ways there are all explored, so it is
// exact but for what the solver can only bound.
func (e *explorer) unexplored() (Interval, error) {
	none := func(*state) *big.Rat { return zero }
	lo, err := e.solveAt(e.model(none, one, nil), mdp.Min, 0)
	if err != nil || !e.nondet {
		return lo, err
	}
	hi, err := e.solveAt(e.model(none, one, nil), mdp.Max, 0)
	if err != nil {
		return Interval{}, err
	}
	return spanning(lo, hi), nil
}

// spanning is the interval from the minimum a Min solve found to the
// maximum a Max solve found.
func spanning(lo, hi Interval) Interval {
	return Interval{Min: lo.Min, Max: hi.Max, MinUpper: lo.MinUpper, MaxLower: hi.MaxLower}
}

// reaches reports whether some run ends with outcome o.
func (e *explorer) reaches(o bus.Outcome) bool {
	return slices.ContainsFunc(e.states, func(st state) bool { return st.terminal && st.metrics.Outcome == o })
}

var (
	zero = new(big.Rat)
	one  = big.NewRat(1, 1)
)

// model is the graph as an MDP: value gives each terminal's value,
// frontier each unexpanded choice point's, and reward each edge's (nil for
// none). Every question asks it of the same states and edges, so it is
// built once and its values and rewards set again at each call: a model
// holds until the next.
func (e *explorer) model(value func(*state) *big.Rat, frontier *big.Rat, reward func(*edge) *big.Rat) *mdp.Model {
	if e.mdpModel == nil {
		e.mdpModel = e.newModel()
	}
	m := e.mdpModel
	for i := range e.states {
		st, ms := &e.states[i], &m.States[i]
		switch {
		case st.terminal:
			ms.Value = value(st)
		case !st.expanded:
			ms.Value = frontier
		default:
			for j := range ms.Edges {
				ms.Edges[j].Reward = nil
				if reward != nil {
					ms.Edges[j].Reward = reward(&st.edges[j])
				}
			}
		}
	}
	return m
}

// newModel is the graph as an MDP without values or rewards, with the
// graph the solver finds in it.
func (e *explorer) newModel() *mdp.Model {
	n := 0
	for i := range e.states {
		n += len(e.states[i].edges)
	}
	m := &mdp.Model{States: make([]mdp.State, len(e.states))}
	edges := make([]mdp.Edge, 0, n)
	for i := range e.states {
		st := &e.states[i]
		if st.terminal || !st.expanded {
			m.States[i] = mdp.State{Kind: mdp.Terminal}
			continue
		}
		kind := mdp.Random
		if st.edges[0].p == nil {
			kind = mdp.Choice
		}
		from := len(edges)
		for j := range st.edges {
			edges = append(edges, mdp.Edge{To: st.edges[j].to, P: st.edges[j].p})
		}
		m.States[i] = mdp.State{Kind: kind, Edges: edges[from:len(edges):len(edges)]}
	}
	m.Graph = mdp.NewGraph(m)
	return m
}

// integer is n as a fraction, one per value: the rewards of the ns a way
// spends repeat across the graph and its questions.
func (e *explorer) integer(n int64) *big.Rat {
	r, ok := e.integers[n]
	if !ok {
		r = big.NewRat(n, 1)
		e.integers[n] = r
	}
	return r
}

// bounds solves value under the least and the greatest scheduler, the
// unexplored states at 0 and at 1: an interval that holds the exact value
// (a single value for a complete graph without adversary choices, when the
// solver could solve it exactly). When the exploration stopped at
// MaxStates under an adversary, two more solves bound the minimum from
// above (the unexplored states at 1) and the maximum from below (at 0).
func (e *explorer) bounds(value func(*state) *big.Rat) (Interval, error) {
	lo, err := e.solveAt(e.model(value, zero, nil), mdp.Min, 0)
	complete := len(e.queue) == 0
	if err != nil || (!e.nondet && complete) {
		return lo, err
	}
	hi, err := e.solveAt(e.model(value, one, nil), mdp.Max, 0)
	if err != nil {
		return Interval{}, err
	}
	if !e.nondet {
		return unsettled(lo.Min, hi.Max), nil
	}
	i := spanning(lo, hi)
	if complete {
		return i, nil
	}
	minUp, err := e.solveAt(e.model(value, one, nil), mdp.Min, 0)
	if err != nil {
		return Interval{}, err
	}
	maxLow, err := e.solveAt(e.model(value, zero, nil), mdp.Max, 0)
	if err != nil {
		return Interval{}, err
	}
	_, i.MinUpper = minUp.MinBounds()
	i.MaxLower, _ = maxLow.MaxBounds()
	return i, nil
}

// solveModel solves m for opt within the exploration's limits.
func (e *explorer) solveModel(m *mdp.Model, opt mdp.Opt) (*mdp.Solution, error) {
	// Solving takes seconds on the larger graphs, a fraction of one a
	// solve: Ctrl-C is heard between two.
	if e.interrupted() {
		return nil, bus.ErrInterrupted
	}
	sol, err := mdp.Solve(m, opt, e.o.Limits)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	if !e.bounded && !exactAll(sol) {
		e.bounded = true
	}
	return sol, nil
}

// solveAt solves a probability m and returns state s's bounds: exact
// where the solver solved every component it depends on exactly. A bound
// the solver could not find is the trivial one, 1.
func (e *explorer) solveAt(m *mdp.Model, opt mdp.Opt, s int) (Interval, error) {
	sol, err := e.solveModel(m, opt)
	if err != nil {
		return Interval{}, err
	}
	if sol.Lo(s) == nil {
		return Interval{}, fmt.Errorf("explore: a probability came out infinite")
	}
	hi := sol.Hi(s)
	if hi == nil || hi.Cmp(one) > 0 {
		hi = one
	}
	return unsettled(sol.Lo(s), hi), nil
}

func indicator(b bool) *big.Rat {
	if b {
		return one
	}
	return zero
}

// reach is the probability of ending in a terminal target accepts.
func (e *explorer) reach(target func(*state) bool) (Interval, error) {
	return e.bounds(func(st *state) *big.Rat { return indicator(target(st)) })
}

// likeliestPath finds a most probable run ending with outcome o, given the
// nondeterministic choices along it.
func (e *explorer) likeliestPath(o bus.Outcome) (*bus.Path, *big.Rat, error) {
	path, _ := e.likeliest(0, func(st *state) bool { return st.terminal && st.metrics.Outcome == o })
	if path == nil {
		return nil, nil, fmt.Errorf("explore: no path to outcome %s", o)
	}
	return e.describePath(path)
}

// likeliest is a most probable way, given the adversary's choices, from
// state from to a state target accepts, as the options taken (empty when
// from is one), and that state, by a best-first search over the graph's
// states; nil when there is none.
func (e *explorer) likeliest(from int, target func(*state) bool) (path []int, end int) {
	best := make([]*big.Rat, len(e.states))
	prev := make([]int, len(e.states))
	option := make([]int, len(e.states))
	done := make([]bool, len(e.states))
	best[from] = one
	q := mostProbable()
	heap.Push(q, ratItem{from, one})
	for q.Len() > 0 {
		it := heap.Pop(q).(ratItem)
		s := it.i
		if done[s] || best[s] != it.p {
			continue
		}
		done[s] = true
		st := &e.states[s]
		if target(st) {
			path = []int{}
			for t := s; t != from; t = prev[t] {
				path = append(path, option[t])
			}
			slices.Reverse(path)
			return path, s
		}
		for _, ed := range st.edges {
			p := best[s]
			if ed.p != nil {
				p = new(big.Rat).Mul(p, ed.p)
			}
			if !done[ed.to] && (best[ed.to] == nil || p.Cmp(best[ed.to]) > 0) {
				best[ed.to], prev[ed.to], option[ed.to] = p, s, ed.option
				heap.Push(q, ratItem{ed.to, p})
			}
		}
	}
	return nil, -1
}

// expected is the expected value of metric m (bus.TimeMetrics' index, or
// len(bus.TimeMetrics) for the contention rounds) over the runs that reach it.
func (e *explorer) expected(m int) (ExpectedResult, error) {
	if len(e.queue) > 0 {
		return ExpectedResult{Why: "the exploration stopped at max states: unexplored states could add any amount"}, nil
	}
	reached := func(st *state) bool {
		return m == len(bus.TimeMetrics) || status(st.marks, m) == present
	}
	gain := func(ed *edge) *big.Rat {
		if m == len(bus.TimeMetrics) {
			return e.integer(int64(ed.rounds))
		}
		return e.integer(ed.spent[m])
	}
	if e.nondet {
		// Only whether every scheduler reaches it surely matters: a
		// question of the graph alone.
		if !mdp.ReachedSurely(e.model(func(st *state) *big.Rat { return indicator(reached(st)) }, zero, nil))[0] {
			return ExpectedResult{Why: "a scheduler can avoid the metric: the expectation over the runs that reach it depends on the scheduler's odds"}, nil
		}
		low, err := e.solveModel(e.model(func(*state) *big.Rat { return zero }, zero, gain), mdp.Min)
		if err != nil {
			return ExpectedResult{}, err
		}
		high, err := e.solveModel(e.model(func(*state) *big.Rat { return zero }, zero, gain), mdp.Max)
		if err != nil {
			return ExpectedResult{}, err
		}
		if low.Lo(0) == nil || high.Hi(0) == nil {
			return ExpectedResult{Why: "unbounded: a scheduler can make it as long as it likes"}, nil
		}
		return ExpectedResult{Defined: true, Value: Interval{Min: low.Lo(0), Max: high.Hi(0)}.plus(e.before(m))}, nil
	}
	// E[X | reached] = E[X·1reached] / P(reached): what a way adds counts
	// with the probability that the metric is then reached. Where that
	// probability is only bounded, its bounds give the expectation's.
	q, err := e.solveModel(e.model(func(st *state) *big.Rat { return indicator(reached(st)) }, zero, nil), mdp.Min)
	if err != nil {
		return ExpectedResult{}, err
	}
	if q.Hi(0) != nil && q.Hi(0).Sign() == 0 {
		return ExpectedResult{Why: "no run reaches the metric"}, nil
	}
	if q.Lo(0).Sign() == 0 {
		return ExpectedResult{Why: "the probability of reaching the metric could not be bounded away from 0"}, nil
	}
	weighted := func(p func(int) *big.Rat) (*mdp.Solution, error) {
		return e.solveModel(e.model(func(*state) *big.Rat { return zero }, zero, func(ed *edge) *big.Rat {
			w := p(ed.to)
			if w == nil {
				w = one // no upper bound found: a probability is at most 1
			}
			return new(big.Rat).Mul(gain(ed), w)
		}), mdp.Min)
	}
	low, err := weighted(q.Lo)
	if err != nil {
		return ExpectedResult{}, err
	}
	high := low
	if !exactAll(q) {
		if high, err = weighted(q.Hi); err != nil {
			return ExpectedResult{}, err
		}
	}
	lowSum, highSum := low.Lo(0), high.Hi(0)
	if lowSum == nil || highSum == nil {
		return ExpectedResult{Why: "unbounded"}, nil
	}
	qHi := q.Hi(0)
	if qHi == nil || qHi.Cmp(one) > 0 {
		qHi = one
	}
	x := unsettled(new(big.Rat).Quo(lowSum, qHi), new(big.Rat).Quo(highSum, q.Lo(0)))
	return ExpectedResult{Defined: true, Value: x.plus(e.before(m))}, nil
}

// exactAll reports whether every value of sol is exact.
func exactAll(sol *mdp.Solution) bool {
	for i := range sol.Len() {
		if !sol.Exact(i) {
			return false
		}
	}
	return true
}

// before is what metric m measured before the first state.
func (e *explorer) before(m int) *big.Rat {
	if m == len(bus.TimeMetrics) {
		return big.NewRat(int64(e.initialRounds), 1)
	}
	return big.NewRat(e.initial[m], 1)
}

// plus shifts both bounds by d.
func (i Interval) plus(d *big.Rat) Interval {
	add := func(r *big.Rat) *big.Rat {
		if r == nil {
			return nil
		}
		return new(big.Rat).Add(r, d)
	}
	return Interval{Min: add(i.Min), Max: add(i.Max), MinUpper: add(i.MinUpper), MaxLower: add(i.MaxLower)}
}
