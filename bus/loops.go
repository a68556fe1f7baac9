package bus

// OnLoop reports, for each link, whether it lies on a loop of the cable
// graph: whether its two ends stay connected without it (it is no bridge).
// A port whose cable is on a loop is one that tree identify can never
// resolve; the rest of a looped bus can be.
func OnLoop(links []Link) []bool {
	type end struct{ node, link int }
	index := map[string]int{}
	var adj [][]end
	vertex := func(id string) int {
		v, ok := index[id]
		if !ok {
			v = len(adj)
			index[id] = v
			adj = append(adj, nil)
		}
		return v
	}
	on := make([]bool, len(links))
	for i, l := range links {
		on[i] = l.Nodes[0] == l.Nodes[1] // a cable from a node back to itself
		a, b := vertex(l.Nodes[0]), vertex(l.Nodes[1])
		adj[a] = append(adj[a], end{b, i})
		adj[b] = append(adj[b], end{a, i})
	}
	// Tarjan's bridges, iteratively: a link is a bridge when nothing below
	// its lower end reaches above it other than through it.
	order := make([]int, len(adj)) // discovery order, from 1; 0: not yet
	low := make([]int, len(adj))
	type frame struct{ v, via, next int }
	seen := 0
	for root := range adj {
		if order[root] != 0 {
			continue
		}
		seen++
		order[root], low[root] = seen, seen
		stack := []frame{{root, -1, 0}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(adj[f.v]) {
				e := adj[f.v][f.next]
				f.next++
				switch {
				case e.link == f.via:
				case order[e.node] == 0:
					seen++
					order[e.node], low[e.node] = seen, seen
					stack = append(stack, frame{e.node, e.link, 0})
				default: // a link outside the search tree closes a loop
					low[f.v] = min(low[f.v], order[e.node])
					on[e.link] = true
				}
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				p := &stack[len(stack)-1]
				low[p.v] = min(low[p.v], low[f.v])
				on[f.via] = low[f.v] <= order[p.v]
			}
		}
	}
	return on
}
