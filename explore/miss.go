package explore

import (
	"container/heap"
	"math/big"
	"slices"

	"github.com/fwsim/fwsim/bus"
)

// likeliestMiss finds a run, given the adversary's choices, in which time
// metric m (bus.TimeMetrics' index) exceeds d ns, or that ends without the
// metric where it applies (for contention_ns, a contention that never
// resolved), and how that run ends: a most probable way to the miss, then
// a most probable way on to the run's end. It searches best first over
// pairs of a state and the ns the metric has taken, capped just past d,
// so that cycles end; it gives up, returning nil, past
// explorer.unrollBound pairs.
func (e *explorer) likeliestMiss(m int, d int64) (*bus.Path, *big.Rat, bus.Outcome, error) {
	type node struct {
		s     int
		spent int64
	}
	type visit struct {
		p      *big.Rat
		prev   int // index in visits, -1 at the start
		option int
		n      node
		done   bool
	}
	var visits []visit
	index := map[node]int{}
	q := mostProbable()
	push := func(n node, p *big.Rat, prev, option int) {
		if i, ok := index[n]; ok {
			if visits[i].done || visits[i].p.Cmp(p) >= 0 {
				return
			}
			visits[i].p, visits[i].prev, visits[i].option = p, prev, option
			heap.Push(q, ratItem{i, p})
			return
		}
		index[n] = len(visits)
		visits = append(visits, visit{p: p, prev: prev, option: option, n: n})
		heap.Push(q, ratItem{len(visits) - 1, p})
	}
	push(node{0, min(e.initial[m], d+1)}, one, -1, 0)
	for q.Len() > 0 && len(visits) <= e.unrollBound() {
		it := heap.Pop(q).(ratItem)
		v := &visits[it.i]
		if v.done || v.p.Cmp(it.p) != 0 {
			continue
		}
		v.done = true
		from, at, p := it.i, v.n, v.p
		st := &e.states[at.s]
		if at.spent > d || (st.terminal && status(st.marks, m) == absent) {
			// Missed here: on to a likeliest end of the run, for a path
			// that replays whole.
			rest, end := e.likeliest(at.s, func(st *state) bool { return st.terminal })
			if rest == nil {
				return nil, nil, "", nil // every way on cycles forever
			}
			var path []int
			for i := from; visits[i].prev >= 0; i = visits[i].prev {
				path = append(path, visits[i].option)
			}
			slices.Reverse(path)
			path = append(path, rest...)
			p, prob, err := e.describePath(path)
			return p, prob, e.states[end].metrics.Outcome, err
		}
		for _, ed := range st.edges {
			np := p
			if ed.p != nil {
				np = new(big.Rat).Mul(p, ed.p)
			}
			push(node{ed.to, min(at.spent+ed.spent[m], d+1)}, np, from, ed.option)
		}
	}
	return nil, nil, "", nil
}
