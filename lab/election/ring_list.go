package election

import "slices"

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
	n.send(v, n.ring.Next[v], msg{typ: rlElection, list: []int64{n.ids[v]}})
}

func (r *ringListNode) receive(n *net, v, port int, m msg) {
	own := n.ids[v]
	out := n.ring.Next[v]
	switch {
	case m.typ == rlCoordinator:
		r.elect(n, v, m.list)
		if n.g.Adj[v][out].Peer != int(m.aux) {
			n.send(v, out, m)
		}
	case slices.Contains(m.list, own):
		r.elect(n, v, m.list)
		n.send(v, out, msg{typ: rlCoordinator, list: m.list, aux: int64(v)})
	default:
		n.send(v, out, msg{typ: rlElection, list: append(slices.Clip(m.list), own)})
	}
}

// elect records the largest ID of list as coordinator.
func (r *ringListNode) elect(n *net, v int, list []int64) {
	r.settle(v, n.vertexOf(slices.Max(list)))
}
