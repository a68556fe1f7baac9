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
// look for (better) and in the names of their messages.
type saturation struct {
	base
	better func(a, b int64) bool
	awake  bool
	got    []bool // an echo arrived on the port
	echoes int
	sentOn int   // the port it echoed on, -1 before
	best   int64 // the best ID known, and its vertex
	bestV  int
}

func newSaturation(n *net, v int, better func(a, b int64) bool) *saturation {
	return &saturation{better: better, got: make([]bool, len(n.g.Adj[v])), sentOn: -1}
}

func (s *saturation) start(n *net, v int) { s.wake(n, v, -1) }

// wake passes the wake-up on to every port but from, then echoes at once
// if it is a leaf.
func (s *saturation) wake(n *net, v, from int) {
	if s.awake {
		return
	}
	s.awake, s.best, s.bestV = true, n.ids[v], v
	n.SendAll(v, from, netsim.Message{Type: satWake})
	if len(n.g.Adj[v]) == 0 {
		s.lead(v)
		return
	}
	s.echo(n, v)
}

// echo sends the best ID on the last port once k−1 ports have echoed.
func (s *saturation) echo(n *net, v int) {
	if s.sentOn >= 0 || s.echoes != len(s.got)-1 {
		return
	}
	for p, got := range s.got {
		if !got {
			s.sentOn = p
			n.Send(v, p, netsim.Message{Type: satEcho, Value: s.best, Aux: int64(s.bestV)})
			return
		}
	}
}

func (s *saturation) receive(n *net, v, port int, m netsim.Message) {
	switch m.Type {
	case satWake:
		s.wake(n, v, port)
	case satEcho:
		s.wake(n, v, port)
		s.got[port] = true
		s.echoes++
		if s.better(m.Value, s.best) {
			s.best, s.bestV = m.Value, int(m.Aux)
		}
		if port == s.sentOn { // both ends of this cable now know the best
			s.decide(n, v, port)
		} else {
			s.echo(n, v)
		}
	case satInfo:
		s.best, s.bestV = m.Value, int(m.Aux)
		s.decide(n, v, port)
	}
}

// decide takes the best ID as the outcome and tells every other port.
func (s *saturation) decide(n *net, v, from int) {
	s.settle(v, s.bestV)
	n.SendAll(v, from, netsim.Message{Type: satInfo, Value: s.best, Aux: int64(s.bestV)})
}
