package mdp

import "fmt"

// Graph is what Solve finds from a model's edges alone: the live edges
// into each state and the strongly connected components. The models of
// one state space that differ only in their values and rewards (every
// question asked of one explored graph) share it: see Model.Graph.
type Graph struct {
	preds      [][]pred
	components [][]int
	live       int // live edges
}

// NewGraph finds m's graph; m need not be checked yet.
func NewGraph(m *Model) *Graph {
	g := &Graph{preds: predecessors(m), components: components(m)}
	for _, p := range g.preds {
		g.live += len(p)
	}
	return g
}

// fits reports how m's live edges differ from g's, if they do: each of
// g's is one of m's, and m has no more.
func (g *Graph) fits(m *Model) error {
	if len(g.preds) != len(m.States) {
		return fmt.Errorf("mdp: a graph of %d states given with a model of %d", len(g.preds), len(m.States))
	}
	for to, ps := range g.preds {
		for _, p := range ps {
			st := &m.States[p.From]
			if p.Edge >= len(st.Edges) || st.Edges[p.Edge].To != to || !live(st, &st.Edges[p.Edge]) {
				return fmt.Errorf("mdp: state %d: the graph given has a live edge %d to state %d that the model has not", p.From, p.Edge, to)
			}
		}
	}
	n := 0
	for i := range m.States {
		st := &m.States[i]
		for j := range st.Edges {
			if live(st, &st.Edges[j]) {
				n++
			}
		}
	}
	if n != g.live {
		return fmt.Errorf("mdp: the model has %d live edges, the graph given %d", n, g.live)
	}
	return nil
}

// pred is a live edge seen from its end: edge Edge of state From.
type pred struct{ From, Edge int }

// predecessors lists, for each state, the live edges into it.
func predecessors(m *Model) [][]pred {
	preds := make([][]pred, len(m.States))
	for i := range m.States {
		st := &m.States[i]
		for j := range st.Edges {
			if e := &st.Edges[j]; live(st, e) {
				preds[e.To] = append(preds[e.To], pred{i, j})
			}
		}
	}
	return preds
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
