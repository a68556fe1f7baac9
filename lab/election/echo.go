package election

import "github.com/fwsim/fwsim/lab/netsim"

// Echo election on a tree: initiators send EXPLORER to every neighbour, and
// a node woken by an explorer passes it to its other neighbours. A node
// with k cables that has an ECHO on k−1 of them sends an ECHO carrying the
// largest ID it knows over the last one (a leaf does so at once); a node
// that then receives an echo over that same cable knows the largest ID of
// the tree, and so does the node at the other end. Both start the
// information wave (INFO) that tells everyone.
var echo = &algorithm{
	name:      "echo",
	summary:   "tree: explorer wave out, echo wave in with the largest ID, information wave",
	needs:     needTree,
	mode:      Async,
	types:     []string{"EXPLORER", "ECHO", "INFO"},
	init:      initFirst,
	announces: always,
	newProc:   func(n *net, v int) process { return newSaturation(n, v, func(a, b int64) bool { return a > b }) },
}

// The message types of every saturation algorithm (echo and tree-min).
const (
	satWake uint8 = iota
	satEcho
	satInfo
)

// saturation is the node of echo and tree-min, which differ in the ID they
// look for (better) and in the names of their messages. Each port keeps
// the proposal (echo) that came over it, so that tree-min can take back
// the part of a crashed neighbour (tree_min.go).
type saturation struct {
	base
	better func(a, b int64) bool
	awake  bool
	ports  []satPort
	sentOn int // the port it proposed on, -1 before
	// proposed is the best ID it proposed; best is the best ID it knows
	// as the winner, bestV its vertex.
	proposed int64
	best     int64
	bestV    int
	core     bool // it learnt the winner from the last proposal, not from a WINNER
	repairs  *int // the run's count of messages sent again after crashes
}

// satPort is what a node knows of one of its ports.
type satPort struct {
	val  int64 // the proposal's best ID, and its vertex
	valV int32
	got  bool // a proposal arrived
	down bool // the neighbour crashed (tree-min)
}

func newSaturation(n *net, v int, better func(a, b int64) bool) *saturation {
	return &saturation{better: better, ports: make([]satPort, len(n.g.Adj[v])), sentOn: -1, repairs: &n.repairs}
}

func (s *saturation) start(n *net, v int) { s.wake(n, v, -1) }

// wake passes the wake-up on to every live port but from, then proposes at
// once if it is a leaf.
func (s *saturation) wake(n *net, v, from int) {
	if s.awake {
		return
	}
	s.awake = true
	for p := range s.ports {
		if p != from && !s.ports[p].down {
			n.Send(v, p, netsim.Message{Type: satWake})
		}
	}
	s.propose(n, v)
}

// bestBut is the best of the node's own ID and the proposals that came
// over its live ports but skip (-1: none).
func (s *saturation) bestBut(n *net, v, skip int) (int64, int) {
	best, bestV := n.ids[v], v
	for p, pt := range s.ports {
		if p != skip && pt.got && !pt.down && s.better(pt.val, best) {
			best, bestV = pt.val, int(pt.valV)
		}
	}
	return best, bestV
}

// propose sends the best ID on the last live port once all the others have
// proposed; when every live port has, the node knows the winner.
func (s *saturation) propose(n *net, v int) {
	if s.sentOn >= 0 {
		return
	}
	last, missing := -1, 0
	for p, pt := range s.ports {
		if !pt.got && !pt.down {
			last = p
			missing++
		}
	}
	switch missing {
	case 0: // a node alone, or all its live neighbours proposed
		s.decide(n, v)
	case 1:
		s.sentOn = last
		s.sendProposal(n, v)
	}
}

func (s *saturation) receive(n *net, v, port int, m netsim.Message) {
	if s.ports[port].down && m.Type != satWake {
		return // sent before the neighbour crashed: its part is gone
	}
	switch m.Type {
	case satWake:
		s.wake(n, v, port)
	case satEcho:
		s.wake(n, v, port)
		pt := &s.ports[port]
		again := pt.got
		pt.got, pt.val, pt.valV = true, m.Value, int32(m.Aux)
		switch {
		case again: // a proposal resent after a crash
			s.repair(n, v)
		case port == s.sentOn: // both ends of this cable now know the winner
			s.decide(n, v)
		default:
			s.propose(n, v)
		}
	case satInfo:
		again := s.known
		s.best, s.bestV = m.Value, int(m.Aux)
		s.settle(v, s.bestV)
		if sent := s.announce(n, v, port); again { // a winner told again after a crash
			n.repairs += sent
		}
	}
}

// sendProposal sends the best ID of the node's side on its proposal port.
func (s *saturation) sendProposal(n *net, v int) {
	val, valV := s.bestBut(n, v, s.sentOn)
	s.proposed = val
	n.Send(v, s.sentOn, netsim.Message{Type: satEcho, Value: val, Aux: int64(valV)})
}

// decide: the node heard from every live port, so it knows the winner and
// tells every other port. It returns the messages it sent.
func (s *saturation) decide(n *net, v int) int {
	s.core = true
	s.best, s.bestV = s.bestBut(n, v, -1)
	s.settle(v, s.bestV)
	return s.announce(n, v, s.sentOn)
}

// announce sends the winner on every live port but from, and returns how
// many it sent.
func (s *saturation) announce(n *net, v, from int) int {
	sent := 0
	for p, pt := range s.ports {
		if p != from && !pt.down {
			n.Send(v, p, netsim.Message{Type: satInfo, Value: s.best, Aux: int64(s.bestV)})
			sent++
		}
	}
	return sent
}
