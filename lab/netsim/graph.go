package netsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// Graph is the undirected multigraph of a topology: one vertex per node, one
// edge per cable. Processes see only their own node's ports.
type Graph struct {
	// Nodes are the node ids in topology order; a vertex is an index here.
	Nodes []string
	// Adj lists every vertex's cables in the order of its physical ports.
	Adj [][]Half
	// Edges is the number of cables.
	Edges int

	first [2]int // the From end of the first cable: vertex and port
}

// Half is one end of a cable, seen from the vertex that owns it.
type Half struct {
	Peer     int // the vertex at the other end
	PeerPort int // the index of this cable in Adj[Peer]
	Cable    int // the index in Topology.Cables
	Port     int // the physical port number
}

// NewGraph derives the graph of t, which must be a valid topology whose
// cables at power-up join every node (scripted events are not part of a
// run and are ignored); a graph in two pieces is ErrUnsupportedTopology.
func NewGraph(t *bus.Topology) (*Graph, error) {
	if err := t.Validate(bus.ResolveOptions{AllowOutOfSpec: true, GraphOnly: true}); err != nil {
		return nil, err
	}
	g := &Graph{Nodes: make([]string, len(t.Nodes)), Adj: make([][]Half, len(t.Nodes)), Edges: len(t.Cables)}
	index := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		g.Nodes[i] = n.ID
		index[n.ID] = i
	}
	// A valid topology has well-formed, distinct port references. cableAt
	// holds, for every port of every node, the cable plugged into it (-1:
	// none), from first[v] on: a flat slice rather than a map per node, as
	// a million nodes would make a million maps.
	first := make([]int, len(t.Nodes)+1)
	for v, n := range t.Nodes {
		first[v+1] = first[v] + n.Ports
	}
	cableAt := make([]int32, first[len(t.Nodes)])
	for i := range cableAt {
		cableAt[i] = -1
	}
	type end struct{ vertex, port int }
	ends := make([][2]end, len(t.Cables))
	for i, c := range t.Cables {
		for j, ref := range [2]string{c.From, c.To} {
			id, num, _ := strings.Cut(ref, ":")
			p, _ := strconv.Atoi(num)
			v := index[id]
			ends[i][j] = end{v, p}
			cableAt[first[v]+p] = int32(i)
		}
	}
	slot := make([][2]int, len(t.Cables)) // cable → its index in Adj at each end
	// Every vertex's list is a stretch of one array, capped so that it
	// cannot grow into its neighbour's: one allocation, not one per node.
	halves := make([]Half, 0, 2*len(t.Cables))
	for v, n := range t.Nodes {
		start := len(halves)
		for p := range n.Ports {
			if c := int(cableAt[first[v]+p]); c >= 0 {
				side := 0
				if ends[c][1] == (end{v, p}) {
					side = 1
				}
				slot[c][side] = len(halves) - start
				halves = append(halves, Half{Peer: ends[c][1-side].vertex, Cable: c, Port: p})
			}
		}
		g.Adj[v] = halves[start:len(halves):len(halves)]
	}
	for c, e := range ends {
		g.Adj[e[0].vertex][slot[c][0]].PeerPort = slot[c][1]
		g.Adj[e[1].vertex][slot[c][1]].PeerPort = slot[c][0]
	}
	if len(ends) > 0 {
		g.first = [2]int{ends[0][0].vertex, slot[0][0]}
	}
	if far := g.unreachable(); far >= 0 {
		// The words are the election lab's, whose message this was first.
		return nil, fmt.Errorf("%w: node %q is not cabled to node %q at power-up: an election needs a connected graph",
			ErrUnsupportedTopology, g.Nodes[far], g.Nodes[0])
	}
	return g, nil
}

// Hops returns the distance in cables from start to every vertex, -1 for
// vertices it cannot reach.
func (g *Graph) Hops(start int) []int {
	dist := make([]int, len(g.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[start] = 0
	queue := []int{start}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, h := range g.Adj[v] {
			if dist[h.Peer] < 0 {
				dist[h.Peer] = dist[v] + 1
				queue = append(queue, h.Peer)
			}
		}
	}
	return dist
}

// unreachable is a vertex not connected to vertex 0, or -1.
func (g *Graph) unreachable() int {
	for v, d := range g.Hops(0) {
		if d < 0 {
			return v
		}
	}
	return -1
}

// Diameter is the longest shortest path, in cables. A tree's is found from
// two searches (the farthest node from any node ends a longest path) and a
// ring's is half its length, so that the large graphs of the lab cost time
// linear in their size; any other graph is searched from every node, which
// takes seconds on a dense graph of thousands: interrupt, when not nil,
// stops it between two searches with ErrInterrupted.
func (g *Graph) Diameter(interrupt <-chan struct{}) (int, error) {
	if g.IsTree() {
		dist := g.Hops(farthest(g.Hops(0)))
		return dist[farthest(dist)], nil
	}
	if _, err := g.Ring(); err == nil {
		return len(g.Nodes) / 2, nil
	}
	d := 0
	for v := range g.Nodes {
		select {
		case <-interrupt:
			return 0, ErrInterrupted
		default:
		}
		for _, h := range g.Hops(v) {
			d = max(d, h)
		}
	}
	return d, nil
}

// farthest is the vertex with the largest distance in dist.
func farthest(dist []int) int {
	best := 0
	for v, d := range dist {
		if d > dist[best] {
			best = v
		}
	}
	return best
}

// IsTree reports whether the graph is a tree (connected, one cable fewer
// than nodes, so no loop and no parallel cables).
func (g *Graph) IsTree() bool { return g.Edges == len(g.Nodes)-1 }

// IsComplete reports whether every two nodes share exactly one cable.
func (g *Graph) IsComplete() bool {
	n := len(g.Nodes)
	for v, adj := range g.Adj {
		if len(adj) != n-1 {
			return false
		}
		seen := make(map[int]bool, n)
		for _, h := range adj {
			if h.Peer == v || seen[h.Peer] {
				return false
			}
			seen[h.Peer] = true
		}
	}
	return true
}

// Ring is a graph that is one cycle, with a direction: messages "clockwise"
// travel along the first cable of the topology from its From end to its To
// end, and on around the ring.
type Ring struct {
	// Order lists the vertices in the direction of travel, starting at the
	// From end of the first cable.
	Order []int
	// Pos is each vertex's index in Order.
	Pos []int
	// Next and Prev are each vertex's port (its index in Graph.Adj) toward
	// its successor and its predecessor.
	Next, Prev []int
}

// Ring returns the ring view of g, or an error saying why g is not a ring.
func (g *Graph) Ring() (*Ring, error) {
	n := len(g.Nodes)
	for v, adj := range g.Adj {
		if len(adj) != 2 {
			return nil, fmt.Errorf("node %q has %d cables, a ring node has 2", g.Nodes[v], len(adj))
		}
	}
	if n < 2 || g.Edges != n {
		return nil, fmt.Errorf("%d nodes and %d cables are not one cycle", n, g.Edges)
	}
	r := &Ring{Pos: make([]int, n), Next: make([]int, n), Prev: make([]int, n)}
	start := g.first[0]
	v, out := start, g.first[1]
	for range n {
		r.Pos[v] = len(r.Order)
		r.Order = append(r.Order, v)
		r.Next[v] = out
		h := g.Adj[v][out]
		v, r.Prev[h.Peer] = h.Peer, h.PeerPort
		out = 1 - h.PeerPort
		if v == start {
			break
		}
	}
	if len(r.Order) != n {
		return nil, fmt.Errorf("the cycle through node %q has %d of the %d nodes", g.Nodes[start], len(r.Order), n)
	}
	return r, nil
}
