package election

import (
	"fmt"

	"github.com/fwsim/fwsim/lab/netsim"
)

// Bully (Garcia-Molina 1982) on a complete graph, after the coordinator
// crashed: a node that notices sends ELECTION to every node with a larger
// ID and waits two message delays (the longest round trip); silence means
// it is the largest alive and it sends COORDINATOR to every smaller node.
// An ANSWER means a larger node is alive and it steps back, and waits for
// that node's COORDINATOR; if none comes in time, the larger node crashed
// before announcing and it holds a new election. A node that receives
// ELECTION answers and holds its own election unless one is under way. A
// node that recovers from a crash holds an election, and bullies the
// others if it is the largest; a node that knows a larger leader than the
// sender of a COORDINATOR holds an election too, as one of the two may have
// crashed or recovered unseen by the other. Messages to crashed nodes are
// counted and lost.
var bully = &algorithm{
	name:      "bully",
	summary:   "complete graph: the largest live ID bullies the rest, after a crash",
	needs:     needComplete,
	mode:      Async,
	types:     []string{"ELECTION", "ANSWER", "COORDINATOR"},
	init:      initFirst,
	crashes:   true,
	faults:    true,
	recovers:  true,
	announces: always,
	newProc:   func(*net, int) process { return &bullyNode{} },
	noLeader:  bullyNoLeader,
}

// bullyNoLeader explains a run without a live leader: the winner crashed
// afterwards, and as no node watches the coordinator, nobody noticed.
func bullyNoLeader(n *net) string {
	for v, p := range n.procs {
		if state, _ := p.status(); state == Leader && n.Crashed(v) {
			return fmt.Sprintf("the leader %s crashed after winning, and nobody holds an election until a node notices", n.g.Nodes[v])
		}
	}
	return noneBecameLeader
}

const (
	bullyElection uint8 = iota
	bullyAnswer
	bullyCoordinator
)

// bullyTimeout is the wait for an ANSWER, in message delays: ELECTION there
// and ANSWER back.
const bullyTimeout = 2

// bullyCoordinatorWait is the second wait, for COORDINATOR once an ANSWER
// came: the node that answered had sent ELECTION to the largest live node
// within one delay, which waits out its own timeout and needs one delay to
// announce. The first timeout has covered one of those delays already.
const bullyCoordinatorWait = 3

// A node's phases: no election under way, waiting for ANSWERs, or waiting
// for COORDINATOR after one.
const (
	bullyIdle uint8 = iota
	bullyElecting
	bullyWaiting
)

type bullyNode struct {
	base
	phase    uint8
	answered bool
	// round numbers the node's elections; a timer carries the round that
	// set it, so that a timer of an election that has ended does nothing.
	round int64
}

func (b *bullyNode) start(n *net, v int) { b.hold(n, v) }

func (b *bullyNode) hold(n *net, v int) {
	if b.phase != bullyIdle {
		return
	}
	b.phase, b.answered = bullyElecting, false
	b.round++
	for p, h := range n.g.Adj[v] {
		if n.ids[h.Peer] > n.ids[v] {
			n.Send(v, p, netsim.Message{Type: bullyElection, Value: n.ids[v]})
		}
	}
	n.SetTimer(v, bullyTimeout, netsim.Message{Type: bullyElecting, Value: b.round})
}

func (b *bullyNode) receive(n *net, v, port int, m netsim.Message) {
	switch m.Type {
	case bullyElection:
		n.Send(v, port, netsim.Message{Type: bullyAnswer, Value: n.ids[v]})
		b.hold(n, v)
	case bullyAnswer:
		b.answered = true
	case bullyCoordinator:
		from := n.g.Adj[v][port].Peer
		if b.phase == bullyIdle && b.known && n.ids[b.leader] > n.ids[from] {
			// The sender has not heard of a larger leader, or that one
			// crashed since: an election tells which.
			b.hold(n, v)
			return
		}
		b.phase = bullyIdle
		b.follow(from)
	}
}

func (b *bullyNode) timeout(n *net, v int, tag netsim.Message) {
	if tag.Value != b.round || tag.Type != b.phase {
		return // that election has ended
	}
	b.phase = bullyIdle
	switch {
	case tag.Type == bullyWaiting:
		b.hold(n, v) // the node that answered never announced
	case b.answered:
		b.phase = bullyWaiting
		n.SetTimer(v, bullyCoordinatorWait, netsim.Message{Type: bullyWaiting, Value: b.round})
	default:
		b.lead(v)
		for p, h := range n.g.Adj[v] {
			if n.ids[h.Peer] < n.ids[v] {
				n.Send(v, p, netsim.Message{Type: bullyCoordinator, Value: n.ids[v]})
			}
		}
	}
}
