package election

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// The ring algorithm with a list: an initiator sends ELECTION with a list
// holding its ID; every node appends its ID and passes the list on. When the
// list reaches a node already in it, that node knows every member, takes
// the largest ID as coordinator and sends COORDINATOR with the list round
// the ring; the node before the one that sent it does not pass it on.
//
// The ring is logical: the cables of a ring, or a complete graph with the
// nodes in order. Every node knows the ring beyond its successor, so that
// when its successor cannot be reached (it crashed, and the connection
// fails) it addresses the next one, and strikes the skipped node from the
// list it passes on. On a ring of cables no cable leads past a crashed
// successor: the message is lost there, and the election does not end. A
// crash while a message is on its way loses it too: the skip covers a
// successor that is down when a node sends.
var ringList = &algorithm{
	name:      "ring-list",
	summary:   "logical ring: ELECTION lists IDs, COORDINATOR the largest; skips crashed nodes",
	needs:     needLogicalRing,
	mode:      Async,
	types:     []string{"ELECTION", "COORDINATOR"},
	init:      initFirst,
	faults:    true,
	announces: always,
	newProc:   newRingListNode,
	noLeader:  ringListBroken,
}

const (
	rlElection uint8 = iota
	rlCoordinator
)

type ringListNode struct {
	base
	// next is the port to v's successor on the logical ring.
	next int
}

// logicalRing is the ring ring-list runs on: the ring's order on a ring
// of cables, the nodes' order on a complete graph (a complete graph of
// three is both). skip is set when every node can address every other.
type logicalRing struct {
	order, pos []int
	skip       bool
}

// logicalRing is the run's logical ring, made once.
func (n *net) logicalRing() *logicalRing {
	if n.logical == nil {
		l := &logicalRing{skip: n.g.IsComplete()}
		if n.ring != nil {
			l.order, l.pos = n.ring.Order, n.ring.Pos
		} else {
			l.order, l.pos = make([]int, len(n.g.Nodes)), make([]int, len(n.g.Nodes))
			for v := range l.order {
				l.order[v], l.pos[v] = v, v
			}
		}
		n.logical = l
	}
	return n.logical
}

// after is the vertex after v on the ring.
func (l *logicalRing) after(v int) int { return l.order[(l.pos[v]+1)%len(l.order)] }

func newRingListNode(n *net, v int) process {
	return &ringListNode{next: n.portTo(v, n.logicalRing().after(v))}
}

func (r *ringListNode) start(n *net, v int) {
	r.pass(n, v, netsim.Message{Type: rlElection, List: []int64{n.ids[v]}})
}

func (r *ringListNode) receive(n *net, v, _ int, m netsim.Message) {
	own := n.ids[v]
	switch {
	case m.Type == rlCoordinator:
		r.elect(n, v, m.List)
		if r.successor(n, v) != int(m.Aux) {
			r.pass(n, v, m)
		}
	case slices.Contains(m.List, own):
		r.elect(n, v, m.List)
		r.pass(n, v, netsim.Message{Type: rlCoordinator, List: m.List, Aux: int64(v)})
	default:
		r.pass(n, v, netsim.Message{Type: rlElection, List: append(slices.Clip(m.List), own)})
	}
}

// successor is the vertex v sends to: its successor, or the first one
// after it that is up on a complete graph, where v can address it.
func (r *ringListNode) successor(n *net, v int) int {
	u, l := n.g.Adj[v][r.next].Peer, n.logicalRing()
	for k := len(l.order); l.skip && n.Crashed(u) && k > 0; k-- {
		u = l.after(u)
	}
	return u
}

// pass sends m to v's successor; a skipped successor is struck from an
// ELECTION's list, so that nobody elects it.
func (r *ringListNode) pass(n *net, v int, m netsim.Message) {
	u := r.successor(n, v)
	if u == v {
		r.elect(n, v, []int64{n.ids[v]}) // every other node is down
		return
	}
	port := r.next
	if u != n.g.Adj[v][r.next].Peer {
		port = n.portTo(v, u)
		if m.Type == rlElection {
			m.List = slices.DeleteFunc(slices.Clone(m.List), func(id int64) bool { return n.Crashed(n.vertexOf(id)) })
		}
	}
	n.Send(v, port, m)
}

// elect records the largest ID of list as coordinator.
func (r *ringListNode) elect(n *net, v int, list []int64) {
	r.settle(v, n.vertexOf(slices.Max(list)))
}

// ringListBroken is why ring-list elected nobody: on a ring of cables a
// crashed node swallows what reaches it, as for the other ring algorithms;
// on a complete graph a node crashed while a message was on its way to it.
func ringListBroken(n *net) string {
	if !n.logicalRing().skip {
		return ringBroken(n) + "; on a complete graph (a logical ring) ring-list skips a crashed successor"
	}
	down := n.crashedNames()
	if down == "" {
		return noneBecameLeader
	}
	return fmt.Sprintf("%s crashed while a message was on its way to it: a node skips a successor that is down when it sends, not one that crashes after", down)
}
