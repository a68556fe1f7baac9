package election

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// Chang–Roberts on a unidirectional ring: every initiator sends its ID
// clockwise; a node forwards a larger ID (and is no longer electable) and
// swallows a smaller one; a node that gets its own ID back is the leader. A
// node that is not an initiator joins when the first message wakes it, by
// sending its own ID, unless Options.Suppress is set and the waking ID is
// larger. With Options.Announce the leader then sends LEADER once around.
var changRoberts = &algorithm{
	name:      "chang-roberts",
	summary:   "unidirectional ring: forward larger IDs, swallow smaller ones",
	needs:     needRing,
	mode:      Async,
	faults:    true,
	noLeader:  ringBroken,
	types:     []string{"ELECTION", "LEADER"},
	init:      initAll,
	announces: ifAnnounce,
	newProc:   func(n *net, v int) process { return &crNode{out: n.ring.Next[v]} },
}

// Message types shared by both Chang–Roberts variants.
const (
	crElection uint8 = iota
	crLeader
)

type crNode struct {
	base
	started bool
	max     int64 // the largest ID seen
	// out is the port the node sends its own ID on: clockwise, or for the
	// bidirectional variant the direction it drew.
	out int
}

func (c *crNode) start(n *net, v int) {
	c.started, c.max = true, n.ids[v]
	n.Send(v, c.out, netsim.Message{Type: crElection, Value: n.ids[v]})
}

func (c *crNode) receive(n *net, v, port int, m netsim.Message) {
	if m.Type == crLeader {
		c.relayLeader(n, v, 1-port, m)
		return
	}
	if !c.started {
		if n.opts.Suppress && m.Value > n.ids[v] {
			c.started, c.max = true, n.ids[v]
		} else {
			c.start(n, v)
		}
	}
	switch {
	case m.Value > c.max:
		c.max = m.Value
		c.lose()
		n.Send(v, 1-port, m) // on in the direction it travels
	case m.Value == n.ids[v] && c.state != Follower:
		c.lead(v)
		if n.opts.Announce {
			n.Send(v, n.ring.Next[v], netsim.Message{Type: crLeader, Value: n.ids[v], Aux: int64(v)})
		}
	}
}

// The bidirectional variant: each node sends its own ID in a direction
// drawn from the seed; IDs travel on in the direction they came, and a node
// swallows every ID smaller than the largest it has seen.
var changRobertsBidi = &algorithm{
	name:      "chang-roberts-bidi",
	summary:   "bidirectional ring: each ID goes a random way, smaller ones are swallowed",
	needs:     needRing,
	mode:      Async,
	faults:    true,
	noLeader:  ringBroken,
	types:     changRoberts.types,
	init:      initAll,
	announces: ifAnnounce,
	newProc: func(n *net, v int) process {
		rng := rand.New(rand.NewPCG(n.opts.Seed, streamDirections<<32|uint64(v)))
		out := n.ring.Next[v]
		if rng.IntN(2) == 1 {
			out = n.ring.Prev[v]
		}
		return &crNode{out: out}
	},
}

// The variant of the Greek notes: only initiators stand and the smallest ID
// wins. An initiator remembers the smallest ID it has seen, its own
// included, and forwards only a smaller one; a node that did not initiate
// forwards every ID and never stands. The initiator whose ID comes back
// wins and always announces with LEADER once around, which the notes'
// figures count: N+M−1+N messages at best, 2N for one initiator.
var changRobertsMin = &algorithm{
	name:      "chang-roberts-min",
	summary:   "unidirectional ring: only initiators stand, the smallest ID wins",
	needs:     needRing,
	mode:      Async,
	faults:    true,
	noLeader:  ringBroken,
	types:     changRoberts.types,
	init:      initAll,
	announces: always,
	newProc:   func(*net, int) process { return &crMinNode{} },
}

type crMinNode struct {
	base
	initiator bool
	min       int64 // the smallest ID an initiator has seen
}

func (c *crMinNode) start(n *net, v int) {
	c.initiator, c.min = true, n.ids[v]
	n.Send(v, n.ring.Next[v], netsim.Message{Type: crElection, Value: n.ids[v]})
}

func (c *crMinNode) receive(n *net, v, _ int, m netsim.Message) {
	out := n.ring.Next[v]
	switch {
	case m.Type == crLeader:
		c.relayLeader(n, v, out, m)
	case !c.initiator:
		c.lose()
		n.Send(v, out, m)
	case m.Value == n.ids[v]:
		c.lead(v)
		n.Send(v, out, netsim.Message{Type: crLeader, Value: m.Value, Aux: int64(v)})
	case m.Value < c.min:
		c.min = m.Value
		c.lose()
		n.Send(v, out, m)
	}
}

// ringBroken is why a ring algorithm elected nobody: a crashed node swallows
// every message sent to it, and an ID must go all the way round, so under
// failures the election never ends (termination is not guaranteed).
func ringBroken(n *net) string {
	down := n.crashedNames()
	if down == "" {
		return noneBecameLeader
	}
	return fmt.Sprintf("the ring is broken at %s, which swallows what reaches it, and an ID must go all the way round: under failures the election never ends", down)
}

// crashedNames lists the nodes down at the end of the run, "" for none.
func (n *net) crashedNames() string {
	var down []string
	for v, name := range n.g.Nodes {
		if n.Crashed(v) {
			down = append(down, name)
		}
	}
	return strings.Join(down, ", ")
}
