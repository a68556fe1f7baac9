package mutex

import (
	"fmt"

	"github.com/fwsim/fwsim/lab/netsim"
)

var tokenTypes = []string{"TOKEN"}

const tokenMsg uint8 = 0

// tagToken: the first holder takes the token at time 0.
const tagToken = tagAlgo

// tokenNode is one node of the token ring. The token starts at the first
// node of the ring.
type tokenNode struct {
	w       *world
	v       int
	next    int // the successor on the logical ring
	wanting bool
}

// tokenTrail is where the token went last: from (-1 for where it starts)
// to, when, and whether it was lost on the way.
type tokenTrail struct {
	from, to int
	at       int64
	lost     bool
}

func newTokenNode(w *world, v int) machine { return &tokenNode{w: w, v: v, next: w.along(v, 1)} }

func (t *tokenNode) start(x *netsim.Net) {
	if t.v == t.w.order[0] {
		x.TimerAt(t.v, 0, netsim.Message{Type: tagToken})
	}
}

func (t *tokenNode) want(*netsim.Net) { t.wanting = true }

func (t *tokenNode) release(x *netsim.Net) {
	t.wanting = false
	t.pass(x)
}

func (t *tokenNode) receive(x *netsim.Net, _ int, _ netsim.Message) { t.visit(x) }

func (t *tokenNode) timer(x *netsim.Net, _ netsim.Message) { t.visit(x) }

// visit: the token is here; the node enters once if it wants to, else
// passes the token on.
func (t *tokenNode) visit(x *netsim.Net) {
	if t.wanting {
		t.w.enter(x, t.v)
		return
	}
	t.pass(x)
}

func (t *tokenNode) pass(x *netsim.Net) {
	w, o := t.w, &t.w.opts
	w.token = tokenTrail{from: t.v, to: t.next, at: x.Now()}
	// Once lost, no token is left to pass: only the first is lost.
	if o.LoseToken && x.Now() >= o.LoseTokenAt {
		w.token.lost = true
		w.nodes[t.v].sent++
		x.Lose(t.v, t.next, netsim.Message{Type: tokenMsg})
		return
	}
	w.send(x, t.v, t.next, netsim.Message{Type: tokenMsg})
}

func (t *tokenNode) why() string {
	w, tr := t.w, t.w.token
	name := w.g.Nodes
	switch {
	case tr.lost:
		return fmt.Sprintf("the token %s sent to %s at %s was lost; that looks like a long stay inside",
			name[tr.from], name[tr.to], Format(tr.at))
	case tr.from >= 0 && !w.live(tr.to) && w.nodes[tr.to].crashAt <= tr.at:
		return fmt.Sprintf("the token %s sent to %s at %s was lost: %s had crashed at %s",
			name[tr.from], name[tr.to], Format(tr.at), name[tr.to], Format(w.nodes[tr.to].crashAt))
	case !w.live(tr.to):
		return fmt.Sprintf("%s crashed at %s holding the token", name[tr.to], Format(w.nodes[tr.to].crashAt))
	}
	return "the token never came (a bug: no fault explains it)"
}
