package election

import "github.com/fwsim/fwsim/lab/netsim"

// The message-efficient synchronous ring: rounds are counted from 1, and a
// node that is not yet a follower in round ID·n+1 becomes leader and sends
// LEADER clockwise; every node that receives it becomes a follower and
// passes it on, until it is back at the leader. Each node sends at most
// once: at most n messages, but Θ(n·min ID) rounds. The smallest ID wins.
var syncRing = &algorithm{
	name:      "sync-ring",
	summary:   "synchronous ring: the smallest ID speaks first, in round ID·n+1",
	needs:     needRing,
	mode:      Sync,
	only:      true,
	allStart:  true,
	types:     []string{"LEADER"},
	init:      initAll,
	announces: always,
	newProc:   func(*net, int) process { return &syncRingNode{} },
}

type syncRingNode struct{ base }

func (s *syncRingNode) start(n *net, v int) {
	// Start runs in round 1: waiting ID·n rounds reaches round ID·n+1.
	if wait := int(n.ids[v]) * len(n.g.Nodes); wait > 0 {
		n.SetTimer(v, wait, netsim.Message{})
	} else {
		s.timeout(n, v, netsim.Message{})
	}
}

func (s *syncRingNode) timeout(n *net, v int, _ netsim.Message) {
	if s.state == "" {
		s.lead(v)
		n.Send(v, n.ring.Next[v], netsim.Message{Value: n.ids[v], Aux: int64(v)})
	}
}

func (s *syncRingNode) receive(n *net, v, port int, m netsim.Message) {
	if s.state != Leader {
		s.follow(int(m.Aux))
		n.Send(v, n.ring.Next[v], m)
	}
}
