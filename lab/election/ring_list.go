package election

import (
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// The ring algorithm with a list: an initiator sends ELECTION with a list
// holding its ID; every node appends its ID and passes the list on. When the
// list reaches a node already in it, that node knows every member, takes
// the largest ID as coordinator and sends COORDINATOR with the list round
// the ring; the node before the one that sent it does not pass it on. Nodes
// know their successor, as the algorithm assumes.
var ringList = &algorithm{
	name:      "ring-list",
	summary:   "ring: ELECTION collects every ID, COORDINATOR announces the largest",
	needs:     needRing,
	mode:      Async,
	types:     []string{"ELECTION", "COORDINATOR"},
	init:      initFirst,
	announces: always,
	newProc:   func(*net, int) process { return &ringListNode{} },
}

const (
	rlElection uint8 = iota
	rlCoordinator
)

type ringListNode struct{ base }

func (r *ringListNode) start(n *net, v int) {
	n.Send(v, n.ring.Next[v], netsim.Message{Type: rlElection, List: []int64{n.ids[v]}})
}

func (r *ringListNode) receive(n *net, v, port int, m netsim.Message) {
	own := n.ids[v]
	out := n.ring.Next[v]
	switch {
	case m.Type == rlCoordinator:
		r.elect(n, v, m.List)
		if n.g.Adj[v][out].Peer != int(m.Aux) {
			n.Send(v, out, m)
		}
	case slices.Contains(m.List, own):
		r.elect(n, v, m.List)
		n.Send(v, out, netsim.Message{Type: rlCoordinator, List: m.List, Aux: int64(v)})
	default:
		n.Send(v, out, netsim.Message{Type: rlElection, List: append(slices.Clip(m.List), own)})
	}
}

// elect records the largest ID of list as coordinator.
func (r *ringListNode) elect(n *net, v int, list []int64) {
	r.settle(v, n.vertexOf(slices.Max(list)))
}
