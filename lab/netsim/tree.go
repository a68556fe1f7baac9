package netsim

import "slices"

// Tree is a spanning tree of a graph, rooted: what a broadcast medium over
// the graph's cables can use when the cables close loops (a 1394 bus is a
// tree, and a loop is a cable it leaves unused).
type Tree struct {
	// Parent is every vertex's parent, -1 at the root.
	Parent []int
	// Depth is every vertex's distance in cables from the root.
	Depth []int
	// Adj lists every vertex's neighbours in the tree.
	Adj [][]int
}

// SpanningTree is the breadth-first spanning tree of g from root: the
// cables of g when g is a tree, and otherwise, of the cables that close a
// loop, those reached first from the root (in port order) kept.
func (g *Graph) SpanningTree(root int) *Tree {
	n := len(g.Nodes)
	t := &Tree{Parent: make([]int, n), Depth: make([]int, n), Adj: make([][]int, n)}
	for v := range t.Parent {
		t.Parent[v], t.Depth[v] = -1, -1
	}
	t.Depth[root] = 0
	queue := []int{root}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, h := range g.Adj[v] {
			if t.Depth[h.Peer] < 0 {
				t.Parent[h.Peer], t.Depth[h.Peer] = v, t.Depth[v]+1
				t.Adj[v] = append(t.Adj[v], h.Peer)
				t.Adj[h.Peer] = append(t.Adj[h.Peer], v)
				queue = append(queue, h.Peer)
			}
		}
	}
	return t
}

// Path appends to dst the cables of the tree path from v to u, as the
// vertices it crosses them from and to, in order: up from v to the nearest
// common ancestor, then down to u.
func (t *Tree) Path(dst [][2]int, v, u int) [][2]int {
	top, w := v, u
	for top != w {
		if t.Depth[top] >= t.Depth[w] {
			top = t.Parent[top]
		} else {
			w = t.Parent[w]
		}
	}
	for ; v != top; v = t.Parent[v] {
		dst = append(dst, [2]int{v, t.Parent[v]})
	}
	down := len(dst)
	for ; u != top; u = t.Parent[u] {
		dst = append(dst, [2]int{t.Parent[u], u})
	}
	slices.Reverse(dst[down:])
	return dst
}
