package bus

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// generatorUsage lists the specs Generate reads.
const generatorUsage = "chain:N, star:N, tree:N[:SEED], ring:N, complete:N or pair"

// MaxGeneratedNodes is the largest N a generator takes: 2^24 nodes, about
// 16.8 million, which the election lab holds in a few GB.
const MaxGeneratedNodes = 1 << 24

// MaxCompleteNodes is the largest N complete:N takes: its N(N−1)/2 cables
// are about 2 million at 2048 nodes.
const MaxCompleteNodes = 2048

// treePorts is the port count of every node of a generated tree: with three
// ports, every node attached so far keeps a free port for the next.
const treePorts = 3

// Generate builds a standard topology from a spec, with nodes n0, n1, … and
// 4.5 m cables (the default length):
//
//	chain:N       N 2-port nodes in a line, n_i:1 to n_{i+1}:0
//	star:N        hub n0 with N−1 ports, n0:i−1 to leaf n_i:0 (1 port)
//	tree:N[:SEED] a random tree of 3-port nodes: node i hangs by its port 0 from
//	              a free port of an earlier node, both chosen uniformly by a
//	              PCG seeded with SEED (default 1); same spec, same tree
//	ring:N        a chain closed by n_{N−1}:1 to n0:0: a loop
//	complete:N    every node cabled to every other, N−1 ports each: loops
//	pair          1-port nodes a and b on one cable, the root-contention case
//
// N is at least 1 (2 for star, ring and complete) and at most
// MaxGeneratedNodes (MaxCompleteNodes for complete, whose cables grow with
// N²); every generator takes time and memory linear in its cables. Sizes
// beyond the bus's limits (more than 63 nodes, a 62-port hub, a 62-hop
// chain) are returned all the same: resolving the topology reports them,
// and the election lab, which reads a topology as a graph only
// (ResolveOptions.GraphOnly), runs them.
func Generate(spec string) (*Topology, error) {
	kind, n, seed, err := parseGenerator(spec)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "pair":
		return &Topology{
			Nodes:  []Node{{ID: "a", Ports: 1}, {ID: "b", Ports: 1}},
			Cables: []Cable{{From: "a:0", To: "b:0"}},
		}, nil
	case "chain":
		return chainTopology(n, false), nil
	case "ring":
		return chainTopology(n, true), nil
	case "star":
		return starTopology(n), nil
	case "tree":
		return treeTopology(n, seed), nil
	default:
		return completeTopology(n), nil
	}
}

// GeneratedSize is the number of nodes and cables Generate(spec) would
// make, without making them: what a command checks against its memory
// budget first.
func GeneratedSize(spec string) (nodes, cables int, err error) {
	kind, n, _, err := parseGenerator(spec)
	switch {
	case err != nil:
		return 0, 0, err
	case kind == "ring":
		return n, n, nil
	case kind == "complete":
		return n, n * (n - 1) / 2, nil
	}
	return n, n - 1, nil
}

// parseGenerator reads a spec of Generate: its kind, size (2 for pair) and
// seed.
func parseGenerator(spec string) (kind string, n int, seed uint64, err error) {
	kind, args, _ := strings.Cut(spec, ":")
	if kind == "pair" {
		if spec != "pair" {
			return "", 0, 0, badGenerator(spec, "pair takes no size")
		}
		return kind, 2, 0, nil
	}
	minNodes := map[string]int{"chain": 1, "tree": 1, "star": 2, "ring": 2, "complete": 2}[kind]
	if minNodes == 0 {
		return "", 0, 0, badGenerator(spec, "unknown kind "+strconv.Quote(kind))
	}
	size, seedText, hasSeed := strings.Cut(args, ":")
	if hasSeed && kind != "tree" {
		return "", 0, 0, badGenerator(spec, kind+" takes a size only")
	}
	maxNodes := MaxGeneratedNodes
	if kind == "complete" {
		maxNodes = MaxCompleteNodes
	}
	n, err = strconv.Atoi(size)
	if err != nil || n < minNodes || n > maxNodes {
		return "", 0, 0, badGenerator(spec, fmt.Sprintf("%s needs a size from %d to %d", kind, minNodes, maxNodes))
	}
	seed = 1
	if hasSeed {
		if seed, err = strconv.ParseUint(seedText, 10, 64); err != nil {
			return "", 0, 0, badGenerator(spec, "the seed must be an unsigned integer")
		}
	}
	return kind, n, seed, nil
}

func badGenerator(spec, why string) error {
	return fmt.Errorf("%w %q: %s (want %s)", ErrBadGenerator, spec, why, generatorUsage)
}

// generated builds a topology of nodes n0, n1, …: its ids and cable ends
// are cut from batches of text, one allocation each, as a million nodes'
// would otherwise be millions of small strings for the allocator and the
// collector.
type generated struct {
	t    *Topology
	text []byte    // the strings not yet set, end to end
	ends []int     // where each ends in text
	dst  []*string // the field each goes to
}

// generatedBatch is how many strings share an allocation.
const generatedBatch = 4096

// newGenerated starts a topology of n nodes of ports ports each, with room
// for cables cables.
func newGenerated(n, ports, cables int) *generated {
	g := &generated{t: &Topology{Nodes: make([]Node, n), Cables: slices.Grow([]Cable(nil), cables)}}
	for i := range g.t.Nodes {
		g.t.Nodes[i].Ports = ports
		g.name(&g.t.Nodes[i].ID, i, -1)
	}
	return g
}

// cable adds a cable from port fromPort of node from to port toPort of node
// to.
func (g *generated) cable(from, fromPort, to, toPort int) {
	if len(g.t.Cables) == cap(g.t.Cables) {
		g.flush() // the strings not yet set point into the cables about to move
	}
	g.t.Cables = append(g.t.Cables, Cable{})
	c := &g.t.Cables[len(g.t.Cables)-1]
	g.name(&c.From, from, fromPort)
	g.name(&c.To, to, toPort)
}

// name sets *dst to node's id or, for a port ≥ 0, to the port's reference:
// n12 or n12:0.
func (g *generated) name(dst *string, node, port int) {
	g.text = strconv.AppendInt(append(g.text, 'n'), int64(node), 10)
	if port >= 0 {
		g.text = strconv.AppendInt(append(g.text, ':'), int64(port), 10)
	}
	g.ends = append(g.ends, len(g.text))
	g.dst = append(g.dst, dst)
	if len(g.dst) == generatedBatch {
		g.flush()
	}
}

// flush sets the strings not yet set, from one allocation.
func (g *generated) flush() {
	text, start := string(g.text), 0
	for k, end := range g.ends {
		*g.dst[k] = text[start:end]
		start = end
	}
	g.text, g.ends, g.dst = g.text[:0], g.ends[:0], g.dst[:0]
}

func (g *generated) done() *Topology {
	g.flush()
	return g.t
}

func chainTopology(n int, closed bool) *Topology {
	cables := n - 1
	if closed {
		cables++
	}
	g := newGenerated(n, 2, cables)
	for i := 1; i < n; i++ {
		g.cable(i-1, 1, i, 0)
	}
	if closed {
		g.cable(n-1, 1, 0, 0)
	}
	return g.done()
}

func starTopology(n int) *Topology {
	g := newGenerated(n, 1, n-1)
	g.t.Nodes[0].Ports = n - 1
	for i := 1; i < n; i++ {
		g.cable(0, i-1, i, 0)
	}
	return g.done()
}

func treeTopology(n int, seed uint64) *Topology {
	rng := rand.New(rand.NewPCG(seed, 0))
	g := newGenerated(n, treePorts, n-1)
	free := make([]uint8, n) // each node's free ports, a bit each: no list per node
	free[0] = 1<<treePorts - 1
	// The earlier nodes with a free port, in node order: the parent is the
	// k-th of them for a uniform k. A Fenwick tree of 0/1 counts finds the
	// k-th in O(log n), where listing them for each node was quadratic.
	open := newRankSet(n)
	open.add(0)
	for i := 1; i < n; i++ {
		parent := open.kth(rng.IntN(open.count))
		port := nthBit(free[parent], rng.IntN(bits.OnesCount8(free[parent])))
		g.cable(parent, port, i, 0)
		if free[parent] &^= 1 << port; free[parent] == 0 {
			open.remove(parent)
		}
		free[i] = 1<<treePorts - 2 // port 0 leads to the parent
		open.add(i)
	}
	return g.done()
}

// nthBit is the position of the set bit of m with k set bits below it: the
// k-th free port, counting up from 0.
func nthBit(m uint8, k int) int {
	for p := 0; ; p++ {
		if m&(1<<p) != 0 {
			if k == 0 {
				return p
			}
			k--
		}
	}
}

// rankSet is a set of the integers 0 to n−1 that finds its k-th smallest
// member in O(log n): a Fenwick tree of membership counts.
type rankSet struct {
	tree  []int // tree[i] counts the members in (i − lowbit(i), i], 1-based
	count int
	top   int // the largest power of two ≤ n
}

func newRankSet(n int) *rankSet {
	top := 1
	for top*2 <= n {
		top *= 2
	}
	return &rankSet{tree: make([]int, n+1), top: top}
}

func (s *rankSet) update(x, d int) {
	s.count += d
	for i := x + 1; i < len(s.tree); i += i & -i {
		s.tree[i] += d
	}
}

func (s *rankSet) add(x int)    { s.update(x, 1) }
func (s *rankSet) remove(x int) { s.update(x, -1) }

// kth returns the member with k members below it (0 ≤ k < count).
func (s *rankSet) kth(k int) int {
	pos := 0
	for step := s.top; step > 0; step /= 2 {
		if next := pos + step; next < len(s.tree) && s.tree[next] <= k {
			pos = next
			k -= s.tree[next]
		}
	}
	return pos // 1-based position pos+1 is the member, so its value is pos
}

// completeTopology cables every pair: node i reaches node j on port j, or j−1 past
// itself, so ports run in the order of the nodes they lead to.
func completeTopology(n int) *Topology {
	g := newGenerated(n, n-1, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			g.cable(i, j-1, j, i)
		}
	}
	return g.done()
}
