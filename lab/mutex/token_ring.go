package mutex

import (
	"fmt"

	"github.com/fwsim/fwsim/lab/netsim"
)

var tokenTypes = []string{"TOKEN"}

const tokenMsg uint8 = 0

// Timers: the first holder takes the token at time 0; the coordinator's
// timeout (Options.Regenerate) finds the token overdue.
const (
	tagToken   = tagAlgo
	tagTimeout = tagAlgo + 1
)

// tokenNode is one node of the token ring. The token starts at the first
// node of the ring.
type tokenNode struct {
	w       *world
	v       int
	next    int // the successor on the logical ring
	wanting bool
	// The coordinator's (Options.Regenerate): seen counts the token's
	// visits, and fruitless the regenerated tokens in a row that never
	// came back.
	seen, fruitless int64
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
	w := t.w
	if t.v == w.order[0] {
		w.tokens, w.maxTokens = 1, 1
		x.TimerAt(t.v, 0, netsim.Message{Type: tagToken})
	}
	if t.coordinator() {
		t.timeoutLater(x)
	}
}

// coordinator says whether t regenerates lost tokens.
func (t *tokenNode) coordinator() bool { return t.w.opts.Regenerate && t.v == t.w.coord }

// roundTrip is the longest the token can take to come back to a node that
// passed it on: n hops of at most a delay each, and a stay in the critical
// section at each of the n−1 others. A token not back by then is lost.
func (w *world) roundTrip() int64 {
	n := int64(len(w.nodes))
	return n*Delay + (n-1)*w.opts.CSTime
}

// timeoutLater sets the coordinator's timeout: the token, seen now for the
// seen-th time, is overdue a round trip (and a tick) from now.
func (t *tokenNode) timeoutLater(x *netsim.Net) {
	t.w.timer(x, t.v, t.w.roundTrip()+1, netsim.Message{Type: tagTimeout, Value: t.seen})
}

func (t *tokenNode) want(*netsim.Net) { t.wanting = true }

func (t *tokenNode) release(x *netsim.Net) {
	t.wanting = false
	t.pass(x)
}

func (t *tokenNode) receive(x *netsim.Net, _ int, _ netsim.Message) { t.visit(x) }

func (t *tokenNode) timer(x *netsim.Net, tag netsim.Message) {
	if tag.Type == tagTimeout {
		t.timeout(x, tag.Value)
		return
	}
	t.visit(x)
}

// timeout: the coordinator has not seen the token for a round trip since
// it last did (the visit numbered seen): it is lost, and the coordinator
// makes a new one, unless it has done so n times in a row with none coming
// back: then the ring is broken (a crashed node swallows every token), and
// it gives up.
func (t *tokenNode) timeout(x *netsim.Net, seen int64) {
	w := t.w
	if seen != t.seen || w.gaveUp >= 0 {
		return
	}
	if t.fruitless >= int64(len(w.nodes)) {
		w.gaveUp = x.Now()
		x.Note(t.v, netsim.EventDecide, "GIVE UP", fmt.Sprintf("%d tokens in a row never came back", t.fruitless))
		return
	}
	t.fruitless++
	if w.tokenAlive() {
		w.maxTokens = max(w.maxTokens, 2)
	}
	w.tokens = 1
	w.regenerated = append(w.regenerated, x.Now())
	x.Note(t.v, netsim.EventDecide, "REGENERATE", fmt.Sprintf("not seen for %s", Format(w.roundTrip())))
	w.token = tokenTrail{from: -1, to: t.v, at: x.Now()}
	t.visit(x)
}

// tokenAlive says whether the last token still exists: not lost, and its
// holder, or the node it is on its way to, alive.
func (w *world) tokenAlive() bool { return !w.token.lost && w.live(w.token.to) }

// visit: the token is here; the node enters once if it wants to, else
// passes the token on.
func (t *tokenNode) visit(x *netsim.Net) {
	if t.coordinator() {
		t.seen++
		if t.w.token.from >= 0 {
			t.fruitless = 0 // it came round
		}
	}
	if t.wanting {
		t.w.enter(x, t.v)
		return
	}
	t.pass(x)
}

func (t *tokenNode) pass(x *netsim.Net) {
	w, o := t.w, &t.w.opts
	w.token = tokenTrail{from: t.v, to: t.next, at: x.Now()}
	if t.coordinator() {
		t.timeoutLater(x)
	}
	// Once lost, no token is left to pass: only the first is lost.
	if o.LoseToken && x.Now() >= o.LoseTokenAt && !w.tokenLostAt {
		w.tokenLostAt = true
		w.token.lost = true
		w.tokens = 0
		w.nodes[t.v].sent++
		w.hops += int64(w.distance(t.v, t.next))
		x.Lose(t.v, t.next, netsim.Message{Type: tokenMsg})
		return
	}
	if !w.send(x, t.v, t.next, netsim.Message{Type: tokenMsg}) {
		w.token.lost = true
		w.tokens = 0
	}
}

func (t *tokenNode) why() string {
	w, tr := t.w, t.w.token
	name := w.g.Nodes
	var s string
	switch {
	case tr.lost:
		s = fmt.Sprintf("the token %s sent to %s at %s was lost; that looks like a long stay inside",
			name[tr.from], name[tr.to], Format(tr.at))
	case tr.from >= 0 && !w.live(tr.to) && w.nodes[tr.to].crashAt <= tr.at:
		s = fmt.Sprintf("the token %s sent to %s at %s was lost: %s had crashed at %s",
			name[tr.from], name[tr.to], Format(tr.at), name[tr.to], Format(w.nodes[tr.to].crashAt))
	case !w.live(tr.to):
		s = fmt.Sprintf("%s crashed at %s holding the token", name[tr.to], Format(w.nodes[tr.to].crashAt))
	default:
		return "the token never came (a bug: no fault explains it)"
	}
	if w.opts.Regenerate {
		switch {
		case !w.live(w.coord):
			s += fmt.Sprintf("; the coordinator %s, which would regenerate it, crashed at %s", name[w.coord], Format(w.nodes[w.coord].crashAt))
		case w.gaveUp >= 0:
			s += fmt.Sprintf("; the coordinator %s regenerated it %d times, and gave up at %s when %d in a row never came back",
				name[w.coord], len(w.regenerated), Format(w.gaveUp), len(w.nodes))
		}
	}
	return s
}
