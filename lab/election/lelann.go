package election

import (
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// LeLann on a unidirectional ring: every initiator sends a CANDIDATE list
// holding its ID clockwise; every node forwards candidate lists, and an
// initiator appends its own ID to the lists of others. An initiator whose
// own list comes back has seen every initiator's ID and picks the largest;
// the winner sends LEADER once around. M initiators cost M·N candidate
// messages and N leader messages.
var leLann = &algorithm{
	name:      "lelann",
	summary:   "ring: every initiator's list goes all the way round",
	needs:     needRing,
	mode:      Async,
	faults:    true,
	noLeader:  ringBroken,
	types:     []string{"CANDIDATE", "LEADER"},
	init:      initAll,
	announces: always,
	newProc:   func(*net, int) process { return &leLannNode{} },
}

const (
	llCandidate uint8 = iota
	llLeader
)

type leLannNode struct {
	base
	initiator bool
}

func (l *leLannNode) start(n *net, v int) {
	l.initiator = true
	n.Send(v, n.ring.Next[v], netsim.Message{Type: llCandidate, List: []int64{n.ids[v]}})
}

func (l *leLannNode) receive(n *net, v, port int, m netsim.Message) {
	own := n.ids[v]
	out := n.ring.Next[v]
	switch {
	case m.Type == llLeader:
		l.relayLeader(n, v, out, m)
	case m.List[0] == own: // our own list is back
		if slices.Max(m.List) == own {
			l.lead(v)
			n.Send(v, out, netsim.Message{Type: llLeader, Value: own, Aux: int64(v)})
		} else {
			l.lose()
		}
	case l.initiator:
		// Clip so that append copies: the list is shared with the trace.
		n.Send(v, out, netsim.Message{Type: llCandidate, List: append(slices.Clip(m.List), own)})
	default:
		n.Send(v, out, m)
	}
}
