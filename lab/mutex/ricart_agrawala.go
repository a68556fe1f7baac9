package mutex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

var raTypes = []string{"REQUEST", "REPLY", "DEFER"}

// Message types: a REQUEST carries its timestamp; a REPLY or DEFER the
// timestamp of the request it answers, so that an answer to an old request
// is never taken for one to the current. Every message carries its
// sender's Lamport clock besides (Message.Clock), which the receiver
// witnesses: a request that happened before another through a REPLY then
// has the smaller timestamp too, and enters first.
const (
	raRequest uint8 = iota
	raReply
	raDefer // only with the request-reply remedy: "queued, and alive"
)

// tagSuspect is the remedy's timer: the answers to a REQUEST are due.
const tagSuspect = tagAlgo

type raState uint8

const (
	released raState = iota
	wanted
	held
)

// ra is one node of Ricart–Agrawala.
type ra struct {
	w     *world
	v     int
	clock int64 // the largest timestamp seen (Lamport's clock)
	state raState
	stamp int64 // the timestamp of the open request
	// replied marks the nodes whose REPLY to the open request came (or,
	// with the remedy, that were given up as crashed); need counts the rest.
	replied []bool
	need    int
	// deferred are the requests answered only on release, in arrival order.
	deferred []deferral
	// The remedy: heard marks answers since the last REQUEST, dead the
	// nodes taken for crashed, round the timer that counts, and patience
	// the delays until the next look, doubled at every look so that a long
	// wait costs few re-asks.
	heard    []bool
	dead     []bool
	round    int64
	patience int64
}

type deferral struct {
	node  int
	stamp int64
}

func newRA(w *world, v int) machine {
	n := len(w.nodes)
	return &ra{w: w, v: v, clock: w.nodes[v].clock, replied: make([]bool, n), heard: make([]bool, n), dead: make([]bool, n)}
}

func (r *ra) start(*netsim.Net) {}

func (r *ra) lamport() int64 { return r.clock }

func (r *ra) witness(ts int64) { r.clock = max(r.clock, ts) }

func (r *ra) want(x *netsim.Net) {
	r.clock++
	r.stamp, r.state, r.patience = r.clock, wanted, 2
	r.w.requests[r.w.nodes[r.v].current].stamp = r.stamp
	r.need = 0
	for u := range r.replied {
		r.replied[u] = u == r.v || r.dead[u]
		if !r.replied[u] {
			r.need++
			r.ask(x, u)
		}
	}
	r.patience *= 2
	r.suspectLater(x)
	r.enterIfDone(x)
}

// ask sends u the open request.
func (r *ra) ask(x *netsim.Net, u int) {
	r.heard[u] = false
	r.send(x, u, netsim.Message{Type: raRequest, Value: r.stamp})
}

// suspectLater sets the remedy's timer: an answer sent at once is in two
// delays (and a tick) after the REQUEST, and patience is at least two.
func (r *ra) suspectLater(x *netsim.Net) {
	if r.w.opts.RequestReply && r.need > 0 {
		r.round++
		r.w.timer(x, r.v, r.patience*Delay+1, netsim.Message{Type: tagSuspect, Value: r.round})
	}
}

func (r *ra) enterIfDone(x *netsim.Net) {
	if r.state == wanted && r.need == 0 {
		r.state = held
		r.w.enter(x, r.v)
	}
}

func (r *ra) release(x *netsim.Net) {
	r.state = released
	for _, d := range r.deferred {
		r.send(x, d.node, netsim.Message{Type: raReply, Value: d.stamp})
	}
	r.deferred = r.deferred[:0]
}

// send sends m to u with r's clock.
func (r *ra) send(x *netsim.Net, u int, m netsim.Message) {
	m.Clock = r.clock
	r.w.send(x, r.v, u, m)
}

func (r *ra) receive(x *netsim.Net, from int, m netsim.Message) {
	r.witness(m.Clock)
	switch m.Type {
	case raRequest:
		mine := r.state == held || (r.state == wanted && (r.stamp < m.Value || (r.stamp == m.Value && r.v < from)))
		if !mine {
			r.send(x, from, netsim.Message{Type: raReply, Value: m.Value})
			return
		}
		d := deferral{from, m.Value}
		if !slices.Contains(r.deferred, d) {
			r.deferred = append(r.deferred, d)
		}
		if r.w.opts.RequestReply {
			r.send(x, from, netsim.Message{Type: raDefer, Value: m.Value})
		}
	case raReply:
		if r.state == wanted && m.Value == r.stamp && !r.replied[from] {
			r.replied[from], r.heard[from] = true, true
			r.need--
			r.enterIfDone(x)
		}
	case raDefer:
		if r.state == wanted && m.Value == r.stamp {
			r.heard[from] = true
		}
	}
}

// timer is the remedy's: a node that answered nothing since the last
// REQUEST has crashed and is no longer waited for; one that deferred is
// asked again, so that its crash is noticed too.
func (r *ra) timer(x *netsim.Net, tag netsim.Message) {
	if tag.Type != tagSuspect || tag.Value != r.round || r.state != wanted {
		return
	}
	for u, ok := range r.replied {
		switch {
		case ok:
		case !r.heard[u]:
			r.dead[u], r.replied[u] = true, true
			r.need--
		default:
			r.ask(x, u)
		}
	}
	r.patience *= 2
	r.suspectLater(x)
	r.enterIfDone(x)
}

func (r *ra) why() string {
	w := r.w
	var crashed, waiting, lost []string
	for u, ok := range r.replied {
		switch {
		case ok:
		case !w.live(u):
			crashed = append(crashed, w.g.Nodes[u]+w.crashNote(u))
		default:
			if l, ok := w.lostLast(raRequest, r.v, u, r.stamp); ok {
				lost = append(lost, fmt.Sprintf("its REQUEST to %s was lost at %s", w.g.Nodes[u], Format(l.at)))
			} else if l, ok := w.lostLast(raReply, u, r.v, r.stamp); ok {
				lost = append(lost, fmt.Sprintf("%s's REPLY was lost at %s", w.g.Nodes[u], Format(l.at)))
			} else {
				waiting = append(waiting, w.g.Nodes[u])
			}
		}
	}
	var parts []string
	if crashed != nil {
		parts = append(parts, "no REPLY from "+strings.Join(crashed, "; "))
	}
	parts = append(parts, lost...)
	if waiting != nil {
		parts = append(parts, strings.Join(waiting, ", ")+" defer theirs while they wait too")
	}
	return strings.Join(parts, "; ")
}
