package election

import (
	"slices"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// PCG streams of the seed besides the runtime's delays (netsim.StreamDelays),
// one per purpose, so that adding draws for one purpose does not shift
// another.
const (
	streamIDs = iota + netsim.StreamDelays + 1
	streamDirections
)

// process is one node's state machine. The runtime calls it; it answers by
// calling the net's Send and SetTimer and by updating its own status. No
// process sees the clock, the graph beyond its ports, or another process.
type process interface {
	// start: the node initiates (an external wake-up).
	start(n *net, v int)
	// receive: a message arrived on port (an index into the node's ports).
	receive(n *net, v, port int, m netsim.Message)
	// timeout: a timer fired; tag is what SetTimer was given.
	timeout(n *net, v int, tag netsim.Message)
	// status is the node's role and the leader it knows (-1: none).
	status() (NodeState, int)
}

// linkWatcher is a process that learns at once when the cable to a
// neighbour breaks because the neighbour crashed (netsim.LinkWatcher).
type linkWatcher interface {
	linkDown(n *net, v, port int)
}

// base is the status part every process embeds.
type base struct {
	state  NodeState
	leader int // valid when known
	known  bool
}

func (b *base) timeout(*net, int, netsim.Message) {}

func (b *base) status() (NodeState, int) {
	if !b.known {
		return b.state, -1
	}
	return b.state, b.leader
}

// lead makes the node the leader v.
func (b *base) lead(v int) { b.state, b.leader, b.known = Leader, v, true }

// follow makes the node a follower of leader l.
func (b *base) follow(l int) { b.state, b.leader, b.known = Follower, l, true }

// relayLeader passes the announcement m of leader m.Aux on over out and
// follows that leader, unless m is back at the leader, where it stops.
func (b *base) relayLeader(n *net, v, out int, m netsim.Message) {
	if m.Value != n.ids[v] {
		b.follow(int(m.Aux))
		n.Send(v, out, m)
	}
}

// settle makes the node the leader when the leader l is itself, and a
// follower of l otherwise.
func (b *base) settle(v, l int) {
	if l == v {
		b.lead(v)
	} else {
		b.follow(l)
	}
}

// lose makes the node a follower that does not know the leader yet.
func (b *base) lose() {
	if b.state != Leader {
		b.state = Follower
	}
}

// net is one election on the message-passing runtime: the run, and what
// the algorithms know of the nodes besides their ports.
type net struct {
	*netsim.Sim
	g     *netsim.Graph
	ring  *netsim.Ring // nil unless the graph is a ring
	ids   []int64
	opts  *Options
	algo  *algorithm
	procs []process

	symmetry string // what the anonymous ring's watcher found
	repairs  int    // tree-min: proposals and winners sent again after crashes
	diam     int    // the graph's diameter, when the algorithm's nodes know it
	ranks    []int  // virtual-tree: the registry's order, nil until needed
	logical  *logicalRing
}

// vertexOf is the vertex with ID id: nodes learn IDs from messages, and the
// Result names the node.
func (n *net) vertexOf(id int64) int { return slices.Index(n.ids, id) }

// portTo is v's port to u, which must be a neighbour: a search of v's
// ports, for what is sent past a node's usual neighbours rarely.
func (n *net) portTo(v, u int) int {
	return slices.IndexFunc(n.g.Adj[v], func(h netsim.Half) bool { return h.Peer == u })
}

// nodes are the election's processes as the runtime calls them: each call
// goes to the vertex's current process, which a recovery replaces.
type nodes struct{ n *net }

func (d nodes) Start(s *netsim.Sim, v int) {
	p := d.n.procs[v]
	before, was := p.status()
	p.start(d.n, v)
	d.decided(s, v, p, before, was)
}

func (d nodes) Receive(s *netsim.Sim, v, port int, m netsim.Message) {
	p := d.n.procs[v]
	before, was := p.status()
	p.receive(d.n, v, port, m)
	d.decided(s, v, p, before, was)
}

func (d nodes) Timer(s *netsim.Sim, v int, tag netsim.Message) {
	p := d.n.procs[v]
	before, was := p.status()
	p.timeout(d.n, v, tag)
	d.decided(s, v, p, before, was)
}

// decided tells the runtime when v's state or the leader it knows changed
// from before and was: a decision, which the time counts up to and the
// trace shows.
func (d nodes) decided(s *netsim.Sim, v int, p process, before NodeState, was int) {
	after, leader := p.status()
	if after == before && (leader == was || was < 0) {
		return
	}
	if !s.Tracing() { // what and detail are made for the trace only
		s.Decided(v, "", "")
		return
	}
	detail := ""
	if leader >= 0 && leader != v {
		detail = "leader " + s.Graph().Nodes[leader]
	}
	s.Decided(v, strings.ToUpper(string(after)), detail)
}

func (d nodes) LinkDown(s *netsim.Sim, v, port int) {
	p := d.n.procs[v]
	if w, ok := p.(linkWatcher); ok {
		before, was := p.status()
		w.linkDown(d.n, v, port)
		d.decided(s, v, p, before, was)
	}
}
