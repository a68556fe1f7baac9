package election

import "github.com/fwsim/fwsim/lab/netsim"

// The adoption procedure: an explorer wave and an echo wave as on trees,
// on any connected graph, with several initiators. An explorer carries its
// initiator's ID, an echo the ID of the explorer it answers. A node keeps
// IDi, the largest initiator ID it knows, and its parent edge, the one that
// brought IDi; every edge an explorer leaves on is marked with that
// explorer's ID (m). An explorer x arriving over edge k marked m is one of
// four cases:
//
//   - IDx = IDm: both ends sent the same wave over k, which is not part of
//     the virtual tree (settled, for the node's echo).
//   - IDx < IDm: a larger wave already left over k; x is ignored.
//   - IDm < IDx ≤ IDi: the node updates m and sends x back over k, where it
//     meets the mark x (the first case). When x is smaller than IDi the node
//     sends IDi instead: x's wave would otherwise close its tree around a
//     node of a larger one and elect a second leader.
//   - IDm ≤ IDi < IDx: adoption. k becomes the new parent edge, and x goes
//     on over the old parent edge, so that the old tree's path to its root
//     turns round and the whole old tree hangs under the new one; the old
//     root, an initiator, has no old parent edge and passes nothing on. A
//     node that had no wave yet passes x on over every other edge, as on
//     trees.
//
// A node whose edges but its parent edge are all settled (a child's ECHO,
// or the first case) sends ECHO to its parent; a node adopted since sends
// it again, to its new parent. The initiator whose own wave is settled on
// every edge has the largest initiator ID and is elected; with
// Options.Announce it sends LEADER down its tree, to the nodes that echoed
// to it and did not leave since.
var adoption = &algorithm{
	name:      "adoption",
	summary:   "any graph: explorers carry initiator IDs, the largest adopts the other trees",
	needs:     needConnected,
	mode:      Async,
	types:     []string{"EXPLORER", "ECHO", "LEADER"},
	init:      initAll,
	announces: ifAnnounce,
	newProc:   newAdoptNode,
}

const (
	adoptExplorer uint8 = iota
	adoptEcho
	adoptLeader
)

type adoptNode struct {
	base
	wave   int64   // IDi: the largest initiator ID known, -1 for none
	parent int     // the parent edge (port), -1 for none
	mark   []int64 // per edge: the ID of the last explorer sent on it, -1 for none
	// settled: the edge needs nothing more for the echo; child: its peer
	// echoed and has not left since.
	settled, child []bool
	echoed         bool // sent ECHO to the current parent
}

func newAdoptNode(n *net, v int) process {
	ports := len(n.g.Adj[v])
	a := &adoptNode{wave: -1, parent: -1, mark: make([]int64, ports), settled: make([]bool, ports), child: make([]bool, ports)}
	for p := range a.mark {
		a.mark[p] = -1
	}
	return a
}

func (a *adoptNode) start(n *net, v int) {
	a.wave = n.ids[v]
	a.flood(n, v)
}

// send sends the explorer of wave id over port, marking the edge.
func (a *adoptNode) send(n *net, v, port int, id int64) {
	a.mark[port] = id
	n.Send(v, port, netsim.Message{Type: adoptExplorer, Value: id})
}

// flood sends the node's wave over every edge but its parent, then echoes
// at once if that is nothing.
func (a *adoptNode) flood(n *net, v int) {
	for p := range n.g.Adj[v] {
		if p != a.parent {
			a.send(n, v, p, a.wave)
		}
	}
	a.complete(n, v)
}

func (a *adoptNode) receive(n *net, v, port int, m netsim.Message) {
	switch m.Type {
	case adoptExplorer:
		a.child[port] = false // a child that explores its old parent has left
		a.explorer(n, v, port, m.Value)
	case adoptEcho:
		a.settled[port], a.child[port] = true, true
		a.complete(n, v)
	case adoptLeader:
		a.follow(int(m.Aux))
		a.announce(n, v, m)
	}
}

// explorer is the notes' four cases for explorer x arriving over port.
func (a *adoptNode) explorer(n *net, v, port int, x int64) {
	m := a.mark[port]
	switch {
	case x == m: // not part of the virtual tree
		a.settled[port] = true
		a.complete(n, v)
	case x < m: // ignored
	case x <= a.wave: // the node knows as large a wave: back over k
		a.send(n, v, port, a.wave)
		a.settled[port] = x == a.wave
		a.complete(n, v)
	default: // adoption
		old, fresh := a.parent, a.wave < 0
		a.wave, a.parent, a.echoed = x, port, false
		a.lose()
		switch {
		case fresh:
			a.flood(n, v)
			return
		case old >= 0:
			a.send(n, v, old, x)
			a.settled[old] = false
		}
		a.complete(n, v)
	}
}

// complete echoes to the parent, or elects, once every other edge is
// settled.
func (a *adoptNode) complete(n *net, v int) {
	if a.echoed || a.state == Leader {
		return
	}
	for p, s := range a.settled {
		if !s && p != a.parent {
			return
		}
	}
	if a.parent >= 0 {
		a.echoed = true
		n.Send(v, a.parent, netsim.Message{Type: adoptEcho, Value: a.wave})
		return
	}
	a.lead(v)
	if n.opts.Announce {
		a.announce(n, v, netsim.Message{Type: adoptLeader, Value: a.wave, Aux: int64(v)})
	}
}

// announce passes LEADER on to the children.
func (a *adoptNode) announce(n *net, v int, m netsim.Message) {
	for p, c := range a.child {
		if c && p != a.parent {
			n.Send(v, p, m)
		}
	}
}
