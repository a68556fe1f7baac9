package player

import "math"

// LayoutTree places the nodes as a tree drawn top down: root at the top
// (an index of Nodes), each node one row below the node it was first
// reached from, breadth first over Edges, and each leaf in a column of its
// own, a parent centred over its children. Nodes the edges do not reach
// from root are laid out the same way to the right, from the first of
// them. Edges outside the tree (a loop's last cable) are drawn as they
// fall.
func (p *Page) LayoutTree(root int) {
	n := len(p.Nodes)
	if n == 0 {
		return
	}
	adj := make([][]int, n)
	for _, e := range p.Edges {
		adj[e.A] = append(adj[e.A], e.B)
		adj[e.B] = append(adj[e.B], e.A)
	}
	children := make([][]int, n)
	depth := make([]int, n)
	placed := make([]bool, n)
	column := 0.0
	// place lays out the subtree of v, depth first, and returns its x.
	var place func(v int) float64
	place = func(v int) float64 {
		p.Nodes[v].Y = float64(depth[v])
		if len(children[v]) == 0 {
			p.Nodes[v].X = column
			column++
			return p.Nodes[v].X
		}
		first, last := 0.0, 0.0
		for i, c := range children[v] {
			x := place(c)
			if i == 0 {
				first = x
			}
			last = x
		}
		p.Nodes[v].X = (first + last) / 2
		return p.Nodes[v].X
	}
	starts := make([]int, 0, n+1)
	if root >= 0 && root < n {
		starts = append(starts, root)
	}
	for v := range n {
		starts = append(starts, v)
	}
	for _, start := range starts {
		if placed[start] {
			continue
		}
		placed[start] = true
		queue := []int{start}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, w := range adj[v] {
				if !placed[w] {
					placed[w] = true
					depth[w] = depth[v] + 1
					children[v] = append(children[v], w)
					queue = append(queue, w)
				}
			}
		}
		place(start)
	}
}

// LayoutCircle places the nodes on a circle, in order, clockwise from the
// top: a ring drawn as a ring, and any other graph with its edges apart.
func (p *Page) LayoutCircle() {
	n := len(p.Nodes)
	// A node's spacing along the circle is about one layout unit.
	r := max(float64(n)/(2*math.Pi), 1)
	for i := range p.Nodes {
		a := 2 * math.Pi * float64(i) / float64(n)
		p.Nodes[i].X = r + r*math.Sin(a)
		p.Nodes[i].Y = r - r*math.Cos(a)
	}
}
