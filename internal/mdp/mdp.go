package mdp

import (
	"errors"
	"fmt"
	"math/big"
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
type Model struct{ States []State }

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
		sum := new(big.Rat)
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
			sum.Add(sum, e.P)
		}
		if s.Kind == Random && sum.Cmp(one) != 0 {
			return fmt.Errorf("mdp: state %d: probabilities sum to %s, not 1", i, sum.RatString())
		}
	}
	return nil
}

var (
	zero = new(big.Rat)
	one  = big.NewRat(1, 1)
)

// ErrImproper reports a policy whose chain has no unique solution: a bug
// in the solver's choice of policies, never a property of a valid model.
var ErrImproper = errors.New("mdp: singular system")

// Solve returns every state's value, the least fixed point of the
// Bellman equations (see the package doc), nil meaning +infinity, and for
// each Choice state an optimal edge (-1 elsewhere and where the value is
// infinite).
func Solve(m *Model, opt Opt) (values []*big.Rat, decision []int, err error) {
	if err := m.Check(); err != nil {
		return nil, nil, err
	}
	s := solver{m: m, opt: opt, values: make([]*big.Rat, len(m.States)), inf: make([]bool, len(m.States)),
		decision: make([]int, len(m.States)), solved: make([]bool, len(m.States))}
	for i := range s.decision {
		s.decision[i] = -1
	}
	s.positive = positive(m)
	for _, scc := range components(m) {
		if err := s.component(scc); err != nil {
			return nil, nil, err
		}
	}
	for i := range s.values {
		if s.inf[i] {
			s.values[i] = nil
			s.decision[i] = -1
		}
	}
	return s.values, s.decision, nil
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
func positive(m *Model) []bool {
	n := len(m.States)
	pos := make([]bool, n)
	preds := make([][]int, n)
	var stack []int
	for i := range m.States {
		st := &m.States[i]
		if st.Kind == Terminal && st.Value != nil && st.Value.Sign() > 0 {
			pos[i] = true
		}
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) {
				continue
			}
			if reward(e).Sign() > 0 {
				pos[i] = true
			}
			preds[e.To] = append(preds[e.To], i)
		}
		if pos[i] {
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range preds[i] {
			if !pos[p] {
				pos[p] = true
				stack = append(stack, p)
			}
		}
	}
	return pos
}

// components returns the strongly connected components of m's live edges
// in the order Tarjan's algorithm finds them: each after every component
// it reaches. The search is iterative: chains can be long.
func components(m *Model) [][]int {
	n := len(m.States)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var out [][]int
	var stack []int
	type frame struct{ v, edge int }
	next := 0
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			st := &m.States[f.v]
			if f.edge < len(st.Edges) {
				e := &st.Edges[f.edge]
				f.edge++
				if !live(st, e) {
					continue
				}
				w := e.To
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				case onStack[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				var scc []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					scc = append(scc, w)
					if w == v {
						break
					}
				}
				out = append(out, scc)
			}
		}
	}
	return out
}

type solver struct {
	m        *Model
	opt      Opt
	values   []*big.Rat
	inf      []bool
	decision []int
	solved   []bool
	positive []bool
}

// better reports whether a is strictly better than b for the optimiser.
func (s *solver) better(a, b *big.Rat) bool {
	if s.opt == Min {
		return a.Cmp(b) < 0
	}
	return a.Cmp(b) > 0
}

// component solves one strongly connected component, every state it
// reaches outside already solved.
func (s *solver) component(scc []int) error {
	if len(scc) == 1 && !s.selfLoop(scc[0]) {
		s.single(scc[0])
		return nil
	}
	in := make(map[int]int, len(scc)) // state → position in scc
	for k, i := range scc {
		in[i] = k
	}
	// States that cannot collect anything are 0.
	var rest []int
	for _, i := range scc {
		if !s.positive[i] || s.m.States[i].Kind == Terminal {
			s.values[i] = zero
			if st := &s.m.States[i]; st.Kind == Terminal && st.Value != nil {
				s.values[i] = st.Value
			}
			if st := &s.m.States[i]; st.Kind == Choice {
				s.decision[i] = 0
			}
			s.solved[i] = true
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) == 0 {
		return nil
	}
	if s.opt == Min {
		s.zeroForMin(rest, in)
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
	return s.policyIteration(rest)
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
	s.solved[i] = true
	switch st.Kind {
	case Terminal:
		s.values[i] = zero
		if st.Value != nil {
			s.values[i] = st.Value
		}
	case Random:
		sum := new(big.Rat)
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) {
				continue
			}
			if s.inf[e.To] {
				s.inf[i] = true
				return
			}
			sum.Add(sum, new(big.Rat).Mul(e.P, new(big.Rat).Add(reward(e), s.values[e.To])))
		}
		s.values[i] = sum
	case Choice:
		var best *big.Rat
		for j := range st.Edges {
			e := &st.Edges[j]
			if s.inf[e.To] {
				if s.opt == Max {
					s.inf[i] = true
					return
				}
				continue
			}
			if v := new(big.Rat).Add(reward(e), s.values[e.To]); best == nil || s.better(v, best) {
				best, s.decision[i] = v, j
			}
		}
		if best == nil {
			s.inf[i] = true
			return
		}
		s.values[i] = best
	}
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

// zeroForMin finds the states of rest where a minimising scheduler can
// collect nothing forever: the greatest set X in which every Random state
// keeps all its edges, and every Choice state one edge, inside X or at a
// solved state of value 0, each of zero reward.
func (s *solver) zeroForMin(rest []int, in map[int]int) {
	x := make(map[int]bool, len(rest))
	for _, i := range rest {
		x[i] = true
	}
	ok := func(e *Edge) bool {
		if reward(e).Sign() > 0 {
			return false
		}
		if s.solved[e.To] {
			return !s.inf[e.To] && s.values[e.To].Sign() == 0
		}
		return x[e.To]
	}
	for changed := true; changed; {
		changed = false
		for _, i := range rest {
			if !x[i] {
				continue
			}
			st := &s.m.States[i]
			keep := st.Kind == Random
			for j := range st.Edges {
				e := &st.Edges[j]
				if !live(st, e) {
					continue
				}
				if st.Kind == Random && !ok(e) {
					keep = false
					break
				}
				if st.Kind == Choice && ok(e) {
					keep = true
					break
				}
			}
			if !keep {
				delete(x, i)
				changed = true
			}
		}
	}
	for i := range x {
		s.values[i], s.solved[i] = zero, true
		st := &s.m.States[i]
		if st.Kind == Choice {
			for j := range st.Edges {
				if ok(&st.Edges[j]) {
					s.decision[i] = j
					break
				}
			}
		}
	}
}

// markInfinite solves as infinite the states of rest whose value must be:
// those from which no scheduler (Max: the maximiser can keep; Min: the
// minimiser cannot avoid) reaches a solved state, and those an infinite
// state's edges force.
func (s *solver) markInfinite(rest []int) {
	// rank: the states of rest that reach solved, finite states (Min: by
	// some choice; Max: by some choice too, a proper start), backwards.
	reach := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for _, i := range rest {
			if reach[i] {
				continue
			}
			st := &s.m.States[i]
			for j := range st.Edges {
				e := &st.Edges[j]
				if !live(st, e) {
					continue
				}
				if (s.solved[e.To] && !s.inf[e.To]) || reach[e.To] {
					reach[i] = true
					changed = true
					break
				}
			}
		}
	}
	for _, i := range rest {
		st := &s.m.States[i]
		infinite := !reach[i]
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) || !s.inf[e.To] {
				continue
			}
			if st.Kind == Random || s.opt == Max {
				infinite = true
			}
		}
		if st.Kind == Choice && s.opt == Min && !infinite {
			all := true
			for j := range st.Edges {
				if !s.inf[st.Edges[j].To] {
					all = false
				}
			}
			infinite = all
		}
		if infinite {
			s.inf[i], s.solved[i] = true, true
		}
	}
	if s.opt == Max {
		s.markMaxTraps(rest)
	}
}

// markMaxTraps marks infinite the states where a maximiser can stay among
// unsolved states forever while collecting a positive reward: the greatest
// set Y where every Random state keeps all its edges in Y and every Choice
// state one; a state of Y from which such an edge of positive reward is
// reachable inside Y collects without end.
func (s *solver) markMaxTraps(rest []int) {
	y := map[int]bool{}
	for _, i := range rest {
		if !s.solved[i] {
			y[i] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range y {
			st := &s.m.States[i]
			keep := st.Kind == Random
			for j := range st.Edges {
				e := &st.Edges[j]
				if !live(st, e) {
					continue
				}
				if st.Kind == Random && !y[e.To] {
					keep = false
					break
				}
				if st.Kind == Choice && y[e.To] {
					keep = true
					break
				}
			}
			if !keep {
				delete(y, i)
				changed = true
			}
		}
	}
	// Inside Y, a positive reward reachable along edges that stay in Y.
	hot := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for i := range y {
			if hot[i] {
				continue
			}
			st := &s.m.States[i]
			for j := range st.Edges {
				e := &st.Edges[j]
				if live(st, e) && y[e.To] && (reward(e).Sign() > 0 || hot[e.To]) {
					hot[i] = true
					changed = true
					break
				}
			}
		}
	}
	for i := range hot {
		s.inf[i], s.solved[i] = true, true
	}
}

// policyIteration solves the states of rest, which all reach solved finite
// states, by evaluating a memoryless policy exactly and improving it until
// no state can do strictly better.
func (s *solver) policyIteration(rest []int) error {
	pos := make(map[int]int, len(rest))
	for k, i := range rest {
		pos[i] = k
	}
	// Start from an attractor policy: each Choice state takes an edge
	// towards the solved states, so that the chain leaves rest.
	policy := make([]int, len(rest))
	dist := map[int]int{}
	for level := 0; len(dist) < len(rest); level++ {
		grew := false
		for k, i := range rest {
			if _, ok := dist[i]; ok {
				continue
			}
			st := &s.m.States[i]
			for j := range st.Edges {
				e := &st.Edges[j]
				if !live(st, e) || s.inf[e.To] {
					continue
				}
				d, ok := dist[e.To]
				if (s.solved[e.To] && !s.inf[e.To]) || (ok && d < level) {
					dist[i] = level
					policy[k] = j
					grew = true
					break
				}
			}
		}
		if !grew {
			break
		}
	}
	for {
		v, err := s.evaluate(rest, pos, policy)
		if err != nil {
			return err
		}
		changed := false
		for k, i := range rest {
			st := &s.m.States[i]
			if st.Kind != Choice {
				continue
			}
			cur := s.edgeValue(&st.Edges[policy[k]], v, pos)
			for j := range st.Edges {
				e := &st.Edges[j]
				if s.inf[e.To] {
					continue
				}
				if c := s.edgeValue(e, v, pos); s.better(c, cur) {
					cur, policy[k], changed = c, j, true
				}
			}
		}
		if !changed {
			for k, i := range rest {
				s.values[i], s.solved[i] = v[k], true
				if s.m.States[i].Kind == Choice {
					s.decision[i] = policy[k]
				}
			}
			return nil
		}
	}
}

// edgeValue is reward + value of the edge's end under the values v of
// rest.
func (s *solver) edgeValue(e *Edge, v []*big.Rat, pos map[int]int) *big.Rat {
	to := s.values[e.To]
	if k, ok := pos[e.To]; ok {
		to = v[k]
	}
	return new(big.Rat).Add(reward(e), to)
}

// evaluate solves the chain policy makes of rest exactly. Its cycles all
// pass through a feedback set F (the targets of a depth-first search's
// back edges); without F's states the rest is acyclic. So each state of F
// is followed forward, in topological order, to the next states of F it
// reaches and what it collects on the way: a linear system in F's values
// alone, solved by Gaussian elimination. The other states then follow in
// one backward pass. A chain of rounds, such as repeated root contention,
// has a small F, and each state of F reaches few others in one round.
func (s *solver) evaluate(rest []int, pos map[int]int, policy []int) ([]*big.Rat, error) {
	n := len(rest)
	type out struct {
		to int // position in rest, or -1 outside
		p  *big.Rat
		e  *Edge
	}
	succ := make([][]out, n)
	for k, i := range rest {
		st := &s.m.States[i]
		add := func(e *Edge, p *big.Rat) {
			to := -1
			if c, ok := pos[e.To]; ok {
				to = c
			}
			succ[k] = append(succ[k], out{to, p, e})
		}
		if st.Kind == Choice {
			add(&st.Edges[policy[k]], one)
			continue
		}
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) {
				add(e, e.P)
			}
		}
	}
	// The feedback set: targets of back edges of an iterative DFS.
	inF := make([]bool, n)
	state := make([]uint8, n) // 0 new, 1 on the stack, 2 done
	type frame struct{ v, next int }
	for root := range n {
		if state[root] != 0 {
			continue
		}
		stack := []frame{{root, 0}}
		state[root] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(succ[f.v]) {
				to := succ[f.v][f.next].to
				f.next++
				switch {
				case to < 0:
				case state[to] == 0:
					state[to] = 1
					stack = append(stack, frame{to, 0})
				case state[to] == 1:
					inF[to] = true
				}
				continue
			}
			state[f.v] = 2
			stack = stack[:len(stack)-1]
		}
	}
	// A topological order of the states outside F (Kahn's algorithm on
	// the edges between them).
	indeg := make([]int, n)
	for k := range n {
		if inF[k] {
			continue
		}
		for _, o := range succ[k] {
			if o.to >= 0 && !inF[o.to] {
				indeg[o.to]++
			}
		}
	}
	order := make([]int, 0, n)
	for k := range n {
		if !inF[k] && indeg[k] == 0 {
			order = append(order, k)
		}
	}
	for h := 0; h < len(order); h++ {
		for _, o := range succ[order[h]] {
			if o.to >= 0 && !inF[o.to] {
				if indeg[o.to]--; indeg[o.to] == 0 {
					order = append(order, o.to)
				}
			}
		}
	}
	topo := make([]int, n) // position in order
	for h, k := range order {
		topo[k] = h
	}
	var fs []int
	fIndex := make([]int, n)
	for k := range n {
		if inF[k] {
			fIndex[k] = len(fs)
			fs = append(fs, k)
		}
	}
	// From each state of F to the next ones.
	nf := len(fs)
	a := make([][]*big.Rat, nf)
	b := make([]*big.Rat, nf)
	mass := make([]*big.Rat, n)
	for r, f := range fs {
		row := make([]*big.Rat, nf)
		for c := range row {
			row[c] = new(big.Rat)
		}
		row[r].SetInt64(1)
		rhs := new(big.Rat)
		var touched []int
		flow := func(from *big.Rat, o out) {
			p := new(big.Rat).Mul(from, o.p)
			rhs.Add(rhs, new(big.Rat).Mul(p, reward(o.e)))
			switch {
			case o.to < 0:
				rhs.Add(rhs, p.Mul(p, s.values[o.e.To]))
			case inF[o.to]:
				row[fIndex[o.to]].Sub(row[fIndex[o.to]], p)
			default:
				if mass[o.to] == nil {
					mass[o.to] = new(big.Rat)
					touched = append(touched, o.to)
				}
				mass[o.to].Add(mass[o.to], p)
			}
		}
		for _, o := range succ[f] {
			flow(one, o)
		}
		// Push the mass through the acyclic part in topological order.
		for h := 0; h < len(touched); h++ {
			// touched grows as mass spreads; process in topological order
			// by sorting what is pending.
			best := h
			for j := h + 1; j < len(touched); j++ {
				if topo[touched[j]] < topo[touched[best]] {
					best = j
				}
			}
			touched[h], touched[best] = touched[best], touched[h]
			k := touched[h]
			m := mass[k]
			for _, o := range succ[k] {
				flow(m, o)
			}
		}
		for _, k := range touched {
			mass[k] = nil
		}
		a[r], b[r] = row, rhs
	}
	vf, err := gauss(a, b)
	if err != nil {
		return nil, err
	}
	v := make([]*big.Rat, n)
	for r, f := range fs {
		v[f] = vf[r]
	}
	for h := len(order) - 1; h >= 0; h-- {
		k := order[h]
		sum := new(big.Rat)
		for _, o := range succ[k] {
			to := s.values[o.e.To]
			if o.to >= 0 {
				to = v[o.to]
			}
			sum.Add(sum, new(big.Rat).Mul(o.p, new(big.Rat).Add(reward(o.e), to)))
		}
		v[k] = sum
	}
	if len(order)+nf != n {
		return nil, ErrImproper
	}
	return v, nil
}

// gauss solves a·x = b in place by Gaussian elimination, skipping zeros.
func gauss(a [][]*big.Rat, b []*big.Rat) ([]*big.Rat, error) {
	n := len(b)
	for col := range n {
		p := -1
		for r := col; r < n; r++ {
			if a[r][col].Sign() != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			return nil, ErrImproper
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		inv := new(big.Rat).Inv(a[col][col])
		for c := col; c < n; c++ {
			if a[col][c].Sign() != 0 {
				a[col][c].Mul(a[col][c], inv)
			}
		}
		b[col].Mul(b[col], inv)
		for r := range n {
			if r == col || a[r][col].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(a[r][col])
			for c := col; c < n; c++ {
				if a[col][c].Sign() != 0 {
					a[r][c].Sub(a[r][c], new(big.Rat).Mul(f, a[col][c]))
				}
			}
			b[r].Sub(b[r], new(big.Rat).Mul(f, b[col]))
		}
	}
	return b, nil
}
