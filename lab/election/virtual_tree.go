package election

import (
	"cmp"
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// The virtual tree built at start-up through a registry, then an echo
// election on it. Nodes join one at a time, in breadth-first order from the
// topology's first node, one every vtSlot delays (the registry admits them
// in turn). A joining node registers (REGISTER) and the registry answers
// with the nodes already in the system (NODES); both are messages off the
// bus. The node connects (CONNECT) to each of those its cables reach (a
// connection over no cable fails, and is not tried), and each answers with
// its level (ACCEPT). As the notes' code does with every answer, the node
// takes level L+1 and that neighbour as its parent when it has no level yet
// or a level larger than L: the parent is the neighbour closest to the
// root, and among equals the last to answer. It then tells its parent
// (CHILD). The first node is the root, level 0.
//
// When a parent's connection breaks (it crashed), the node chooses again
// among the neighbours it is connected to, but only one whose level is
// smaller than its own. Levels only ever fall (a new parent's level is
// smaller than the node's), so every node's descendants have larger levels
// than it has, and the choice can never close a loop; a node with no such
// neighbour stays cut off with its subtree. Once the last node had its
// slot, the root starts the echo election down the tree: EXPLORER to the
// children, ECHO back with the largest ID below, and LEADER from the root
// to every node it reached.
var virtualTree = &algorithm{
	name:      "virtual-tree",
	summary:   "any graph: joins through a registry build a tree, echo elects on it",
	needs:     needConnected,
	mode:      Async,
	only:      true,
	types:     []string{"REGISTER", "NODES", "CONNECT", "ACCEPT", "CHILD", "EXPLORER", "ECHO", "LEADER"},
	init:      initAll,
	allStart:  true,
	faults:    true,
	announces: always,
	newProc:   newVTNode,
}

const (
	vtRegister uint8 = iota
	vtNodes
	vtConnect
	vtAccept
	vtChild
	vtExplorer
	vtEcho
	vtLeader
)

// vtSlot is the time between two joins, in delays: the registry's answer
// (two delays for the round trip), the connections' answers (two more) and
// CHILD (one) fit in it, so that a node joins a settled tree.
const vtSlot = 6

// Timer tags: the node's slot comes, the registry answers, the
// connections have answered, the start-up is over.
const (
	vtJoin uint8 = iota
	vtListed
	vtChoose
	vtWave
)

type vtNode struct {
	base
	ranks  []int // every node's place in the registry's order, shared by all
	rank   int   // the join order
	level  int   // -1 until the node has a parent (or is the root), and once cut off
	parent int   // port; -1 for the root, before joining and once cut off
	told   bool  // the parent it chose at joining has had its CHILD
	// Per port: a connection is up, the level the peer reported (-1:
	// unknown), the peer is a child, the child's ECHO arrived.
	connected, child, echoed []bool
	levels                   []int
	waiting                  bool  // explored, and not yet echoed (the root: not yet decided)
	best                     int64 // the largest ID the echo collected
}

func newVTNode(n *net, v int) process {
	ports := len(n.g.Adj[v])
	ranks := n.registryOrder()
	t := &vtNode{ranks: ranks, rank: ranks[v], level: -1, parent: -1, connected: make([]bool, ports), child: make([]bool, ports),
		echoed: make([]bool, ports), levels: make([]int, ports)}
	for i := range t.levels {
		t.levels[i] = -1
	}
	return t
}

// joinsBefore reports whether u has its slot before w.
func (t *vtNode) joinsBefore(u, w int) bool { return t.ranks[u] < t.ranks[w] }

// registryOrder is every node's place in the order the registry gives the
// slots: nearer the root first, and among equals earlier in the topology.
// It is computed once per run, not once per node, which would be quadratic.
func (n *net) registryOrder() []int {
	if n.ranks == nil {
		hops := n.g.Hops(0)
		order := make([]int, len(hops))
		for v := range order {
			order[v] = v
		}
		slices.SortStableFunc(order, func(u, w int) int { return cmp.Compare(hops[u], hops[w]) })
		n.ranks = make([]int, len(order))
		for r, v := range order {
			n.ranks[v] = r
		}
	}
	return n.ranks
}

func (t *vtNode) start(n *net, v int) { n.SetTimer(v, t.rank*vtSlot, netsim.Message{Type: vtJoin}) }

func (t *vtNode) timeout(n *net, v int, tag netsim.Message) {
	switch tag.Type {
	case vtJoin:
		n.OffBus(v, vtRegister, "registry", true)
		n.OffBus(v, vtNodes, "registry", false)
		n.SetTimer(v, 2, netsim.Message{Type: vtListed})
	case vtListed:
		if t.rank == 0 {
			t.level = 0
			n.SetTimer(v, len(n.g.Nodes)*vtSlot, netsim.Message{Type: vtWave})
			return
		}
		for p, h := range n.g.Adj[v] {
			if t.joinsBefore(h.Peer, v) {
				n.Send(v, p, netsim.Message{Type: vtConnect})
			}
		}
		n.SetTimer(v, 2, netsim.Message{Type: vtChoose})
	case vtChoose:
		t.told = true
		if t.parent >= 0 {
			n.Send(v, t.parent, netsim.Message{Type: vtChild, Value: int64(t.level)})
		}
	case vtWave:
		t.explore(n, v)
	}
}

func (t *vtNode) receive(n *net, v, port int, m netsim.Message) {
	switch m.Type {
	case vtConnect:
		t.connected[port] = true
		n.Send(v, port, netsim.Message{Type: vtAccept, Value: int64(t.level)})
	case vtAccept:
		t.connected[port], t.levels[port] = true, int(m.Value)
		if l := int(m.Value); l >= 0 && (t.level < 0 || t.level > l) {
			t.level, t.parent = l+1, port
		}
	case vtChild:
		t.child[port], t.levels[port] = true, int(m.Value)
	case vtExplorer:
		t.explore(n, v)
	case vtEcho:
		t.echoed[port] = true
		t.best = max(t.best, m.Value)
		t.echo(n, v)
	case vtLeader:
		t.decide(n, v, m)
	}
}

// explore passes the explorer wave to the children, or echoes at a leaf.
func (t *vtNode) explore(n *net, v int) {
	t.waiting, t.best = true, n.ids[v]
	for p, c := range t.child {
		if c {
			n.Send(v, p, netsim.Message{Type: vtExplorer})
		}
	}
	t.echo(n, v)
}

// echo sends the largest ID of the subtree up once every child has echoed;
// the root then knows the leader.
func (t *vtNode) echo(n *net, v int) {
	for p, c := range t.child {
		if c && !t.echoed[p] {
			return
		}
	}
	if !t.waiting {
		return
	}
	t.waiting = false
	switch {
	case t.rank == 0:
		t.decide(n, v, netsim.Message{Type: vtLeader, Value: t.best, Aux: int64(n.vertexOf(t.best))})
	case t.parent >= 0:
		n.Send(v, t.parent, netsim.Message{Type: vtEcho, Value: t.best})
	}
}

// decide takes the leader m announces and tells the children.
func (t *vtNode) decide(n *net, v int, m netsim.Message) {
	t.settle(v, int(m.Aux))
	for p, c := range t.child {
		if c {
			n.Send(v, p, m)
		}
	}
}

// linkDown: the connection on port broke, its peer having crashed. A child
// is no longer waited for. A parent is replaced by the connected neighbour
// with the smallest level below the node's own, the last among equals as
// at joining; with none, the node leaves the tree with its subtree, and
// answers later joiners with no level, so that none attaches through it.
func (t *vtNode) linkDown(n *net, v, port int) {
	t.connected[port] = false
	if t.child[port] {
		t.child[port] = false
		t.echo(n, v)
		return
	}
	if port != t.parent {
		return
	}
	t.parent = -1
	best := t.level
	for p, up := range t.connected {
		if up && t.levels[p] >= 0 && t.levels[p] < t.level && t.levels[p] <= best {
			best, t.parent = t.levels[p], p
		}
	}
	if t.parent < 0 {
		t.level = -1
		return
	}
	t.level = best + 1
	if t.told { // otherwise CHILD goes when the answers are in
		n.Send(v, t.parent, netsim.Message{Type: vtChild, Value: int64(t.level)})
	}
}
