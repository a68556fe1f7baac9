package election

import "github.com/fwsim/fwsim/lab/netsim"

// Adoption: the echo algorithm on any connected graph, with initiator IDs
// (echo with extinction). Every initiator starts a wave: EXPLORER messages
// carrying its ID. A node remembers the largest initiator ID it has met and
// the cable that brought it (its parent); an explorer of a smaller wave is
// ignored, one of a larger wave adopts the node (new parent, the count of
// messages restarts) and goes on over every other cable, and one of the
// same wave over another cable closes a loop. A node that has heard its
// wave on every cable sends ECHO to its parent; the initiator that has heard
// its own wave on every cable has the largest initiator ID and is elected.
// With Options.Announce it sends LEADER down the tree its wave built.
var adoption = &algorithm{
	name:      "adoption",
	summary:   "any graph: echo waves tagged with initiator IDs, the largest adopts all",
	needs:     needConnected,
	mode:      Async,
	types:     []string{"EXPLORER", "ECHO", "LEADER"},
	init:      initAll,
	announces: ifAnnounce,
	newProc:   func(n *net, v int) process { return &adoptNode{wave: -1} },
}

const (
	adoptExplorer uint8 = iota
	adoptEcho
	adoptLeader
)

type adoptNode struct {
	base
	wave     int64 // the largest initiator ID met, -1 for none
	parent   int   // -1 for the initiator of wave
	heard    int   // messages of wave received
	children []int // ports that echoed wave
}

func (a *adoptNode) start(n *net, v int) {
	a.join(n, v, -1, netsim.Message{Type: adoptExplorer, Value: n.ids[v], Aux: int64(v)})
}

// join makes the node part of m's wave, with parent port from.
func (a *adoptNode) join(n *net, v, from int, m netsim.Message) {
	a.wave, a.parent, a.heard, a.children = m.Value, from, 0, nil
	if from >= 0 {
		a.heard = 1
		a.lose()
	}
	n.SendAll(v, from, netsim.Message{Type: adoptExplorer, Value: m.Value, Aux: m.Aux})
	a.complete(n, v, m)
}

// complete echoes to the parent, or elects, once the wave came in on every
// cable.
func (a *adoptNode) complete(n *net, v int, m netsim.Message) {
	if a.heard < len(n.g.Adj[v]) {
		return
	}
	if a.parent >= 0 {
		n.Send(v, a.parent, netsim.Message{Type: adoptEcho, Value: a.wave, Aux: m.Aux})
		return
	}
	a.lead(v)
	if n.opts.Announce {
		a.announce(n, v)
	}
}

func (a *adoptNode) announce(n *net, v int) {
	for _, p := range a.children {
		n.Send(v, p, netsim.Message{Type: adoptLeader, Value: a.wave, Aux: int64(a.leader)})
	}
}

func (a *adoptNode) receive(n *net, v, port int, m netsim.Message) {
	switch {
	case m.Type == adoptLeader:
		a.follow(int(m.Aux))
		a.announce(n, v)
	case m.Value > a.wave:
		a.join(n, v, port, m)
	case m.Value == a.wave:
		a.heard++
		if m.Type == adoptEcho {
			a.children = append(a.children, port)
		}
		a.complete(n, v, m)
	}
}
