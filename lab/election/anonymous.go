package election

import (
	"fmt"

	"github.com/fwsim/fwsim/lab/netsim"
)

// The anonymous ring: the nodes have no IDs, so every node runs the same
// deterministic rule from the same state. The rule is Chang–Roberts with the
// only identity an anonymous node has: each round it sends its value
// clockwise; a larger value would make it a follower and its own value
// coming back would make it leader, but it cannot tell its own value from
// an equal one, so on an equal value it advances its value modulo n and
// tries again. The runtime checks after every round that all nodes are in
// the same state, and stops when that common state repeats: from then on the
// run repeats forever, and no leader is ever elected (Angluin 1980).
var anonymous = &algorithm{
	name:      "anonymous",
	summary:   "anonymous ring: a deterministic rule never breaks the symmetry",
	needs:     needRing,
	mode:      Sync,
	only:      true,
	allStart:  true,
	types:     []string{"VALUE"},
	init:      initAll,
	noIDs:     true,
	announces: never,
	newProc: func(n *net, v int) process {
		if v == 0 {
			watchSymmetry(n)
		}
		return &anonNode{}
	},
	noLeader: func(n *net) string { return n.symmetry },
}

type anonNode struct {
	base
	value, got int64
}

func (a *anonNode) start(n *net, v int) {
	a.state = Undecided
	n.Send(v, n.ring.Next[v], netsim.Message{Value: a.value})
	n.SetTimer(v, 1, netsim.Message{})
}

func (a *anonNode) receive(_ *net, _, _ int, m netsim.Message) { a.got = m.Value }

// timeout ends a round: apply the rule to what arrived, send again.
func (a *anonNode) timeout(n *net, v int, _ netsim.Message) {
	if a.got > a.value {
		a.lose() // cannot happen: every node sends the same value
	} else {
		a.value = (a.value + 1) % int64(len(n.g.Nodes))
	}
	n.Send(v, n.ring.Next[v], netsim.Message{Value: a.value})
	n.SetTimer(v, 1, netsim.Message{})
}

// watchSymmetry stops the run when the state all nodes share repeats, and
// records why there is no leader; it records it too if the states ever
// differ, which would disprove the theorem.
func watchSymmetry(n *net) {
	seen := map[string]int64{}
	n.AfterRound(func(round int64) bool {
		states := make([]string, len(n.procs))
		for v, p := range n.procs {
			a := p.(*anonNode)
			states[v] = fmt.Sprintf("%s, value %d", a.state, a.value)
			if states[v] != states[0] {
				n.symmetry = fmt.Sprintf("symmetry broke in round %d: %s is %s, %s is %s",
					round, n.g.Nodes[0], states[0], n.g.Nodes[v], states[v])
				return true
			}
		}
		if first, ok := seen[states[0]]; ok {
			n.symmetry = fmt.Sprintf("all nodes alike (%s) in rounds %d and %d: repeats forever", states[0], first, round)
			return true
		}
		seen[states[0]] = round
		return false
	})
}
