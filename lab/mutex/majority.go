package mutex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// majority is Ricart–Agrawala's improvement the notes name, "a simple
// majority is enough", as a voting scheme (Maekawa 1985 with majorities
// for quorums): a node asks only its quorum, itself and the next ⌊n/2⌋
// nodes of the logical ring, and enters with the votes of all of them;
// every node votes for one request at a time and takes its vote back only
// on RELEASE. Any two majorities share a node, which votes for one of
// them only: mutual exclusion. Votes alone can deadlock (three requesters,
// each holding a vote another needs), so a voter whose vote is out to a
// later request (by Lamport timestamp and id) than a new one INQUIREs its
// holder, which YIELDs the vote back if it cannot win anyway (it was
// refused, FAILED, somewhere, or yielded already); a request that comes
// second to a better one is told it FAILED.
var majorityTypes = []string{"REQUEST", "VOTE", "RELEASE", "INQUIRE", "YIELD", "FAILED"}

const (
	mRequest uint8 = iota
	mVote
	mRelease
	mInquire
	mYield
	mFailed
)

// vote is a request as a voter holds it.
type vote struct {
	node   int
	stamp  int64
	failed bool // told FAILED (or it yielded): it knows it cannot win now
}

// before orders requests by (timestamp, id): the smaller goes first.
func before(a, b vote) bool { return a.stamp < b.stamp || (a.stamp == b.stamp && a.node < b.node) }

// majorityNode is one node: a requester and a voter.
type majorityNode struct {
	w      *world
	v      int
	quorum []int
	clock  int64
	// The requester: its open request, and per node of its quorum whether
	// its vote is here, whether it refused (FAILED), whether the node gave
	// it back (YIELD), and an INQUIRE that waits for an answer.
	state                             raState
	stamp                             int64
	voted, failed, yielded, inquiries []bool
	// The voter: whom it voted for (node −1: no one), the requests waiting
	// in (timestamp, id) order, and whether it has INQUIREd the holder.
	locked    vote
	queue     []vote
	inquiring bool
	// local holds the messages to itself, handled after the current step.
	local []local
}

type local struct {
	from int
	m    netsim.Message
}

func newMajority(w *world, v int) machine {
	n := len(w.nodes)
	q := []int{v}
	for i := 1; i <= n/2; i++ {
		q = append(q, w.along(v, i))
	}
	return &majorityNode{w: w, v: v, quorum: q, clock: w.nodes[v].clock, locked: vote{node: -1},
		voted: make([]bool, n), failed: make([]bool, n), yielded: make([]bool, n), inquiries: make([]bool, n)}
}

func (q *majorityNode) start(*netsim.Net) {}

func (q *majorityNode) lamport() int64 { return q.clock }

func (q *majorityNode) witness(ts int64) { q.clock = max(q.clock, ts) }

// post sends m to u, or, to itself, handles it after the current step.
func (q *majorityNode) post(x *netsim.Net, u int, m netsim.Message) {
	m.Clock = q.clock
	if u == q.v {
		q.local = append(q.local, local{q.v, m})
		return
	}
	q.w.send(x, q.v, u, m)
}

// drain handles the messages to itself.
func (q *majorityNode) drain(x *netsim.Net) {
	for len(q.local) > 0 {
		l := q.local[0]
		q.local = q.local[1:]
		q.handle(x, l.from, l.m)
	}
}

func (q *majorityNode) want(x *netsim.Net) {
	q.clock++
	q.stamp, q.state = q.clock, wanted
	q.w.requests[q.w.nodes[q.v].current].stamp = q.stamp
	for _, u := range q.quorum {
		q.voted[u], q.failed[u], q.yielded[u], q.inquiries[u] = false, false, false, false
		q.post(x, u, netsim.Message{Type: mRequest, Value: q.stamp})
	}
	q.drain(x)
}

func (q *majorityNode) release(x *netsim.Net) {
	q.state = released
	for _, u := range q.quorum {
		q.voted[u] = false
		q.post(x, u, netsim.Message{Type: mRelease, Value: q.stamp})
	}
	q.drain(x)
}

func (q *majorityNode) receive(x *netsim.Net, from int, m netsim.Message) {
	q.handle(x, from, m)
	q.drain(x)
}

func (q *majorityNode) timer(*netsim.Net, netsim.Message) {}

func (q *majorityNode) handle(x *netsim.Net, from int, m netsim.Message) {
	q.witness(m.Clock)
	switch m.Type {
	case mRequest:
		q.request(x, vote{node: from, stamp: m.Value})
	case mRelease, mYield:
		if q.locked.node != from || q.locked.stamp != m.Value {
			return
		}
		if m.Type == mYield {
			back := q.locked
			back.failed = true
			q.enqueue(back)
		}
		q.grantNext(x)
	default:
		q.answer(x, from, m)
	}
}

// request: the voter's side of a REQUEST.
func (q *majorityNode) request(x *netsim.Net, r vote) {
	if q.locked.node < 0 {
		q.lock(x, r)
		return
	}
	q.enqueue(r)
	if before(r, q.locked) && q.queue[0] == r {
		// r beats the holder and every waiting request: ask the holder
		// for the vote back, and tell the one r displaced that it failed.
		if !q.inquiring {
			q.inquiring = true
			q.post(x, q.locked.node, netsim.Message{Type: mInquire, Value: q.locked.stamp})
		}
		if len(q.queue) > 1 && !q.queue[1].failed {
			q.queue[1].failed = true
			q.post(x, q.queue[1].node, netsim.Message{Type: mFailed, Value: q.queue[1].stamp})
		}
		return
	}
	i := slices.Index(q.queue, r)
	q.queue[i].failed = true
	q.post(x, r.node, netsim.Message{Type: mFailed, Value: r.stamp})
}

func (q *majorityNode) enqueue(r vote) {
	i, _ := slices.BinarySearchFunc(q.queue, r, func(a, b vote) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	q.queue = slices.Insert(q.queue, i, r)
}

func (q *majorityNode) lock(x *netsim.Net, r vote) {
	q.locked, q.inquiring = r, false
	q.post(x, r.node, netsim.Message{Type: mVote, Value: r.stamp})
}

// grantNext: the vote is back; it goes to the first request waiting.
func (q *majorityNode) grantNext(x *netsim.Net) {
	q.locked, q.inquiring = vote{node: -1}, false
	if len(q.queue) > 0 {
		r := q.queue[0]
		q.queue = q.queue[1:]
		q.lock(x, r)
	}
}

// answer: the requester's side of VOTE, FAILED and INQUIRE.
func (q *majorityNode) answer(x *netsim.Net, from int, m netsim.Message) {
	if q.state != wanted || m.Value != q.stamp {
		return // an answer to an old request, or an INQUIRE inside: RELEASE comes
	}
	switch m.Type {
	case mVote:
		q.voted[from], q.failed[from], q.yielded[from] = true, false, false
		for _, u := range q.quorum {
			if !q.voted[u] {
				return
			}
		}
		q.state = held
		q.w.enter(x, q.v)
	case mFailed:
		q.failed[from] = true
		for _, u := range q.quorum {
			if q.inquiries[u] {
				q.yield(x, u)
			}
		}
	case mInquire:
		if !q.voted[from] {
			return
		}
		if slices.Contains(q.failed, true) || slices.Contains(q.yielded, true) {
			q.yield(x, from)
			return
		}
		q.inquiries[from] = true
	}
}

// yield gives u's vote back.
func (q *majorityNode) yield(x *netsim.Net, u int) {
	q.inquiries[u] = false
	if !q.voted[u] {
		return
	}
	q.voted[u], q.yielded[u] = false, true
	q.post(x, u, netsim.Message{Type: mYield, Value: q.stamp})
}

func (q *majorityNode) why() string {
	w := q.w
	name := w.g.Nodes
	var missing []string
	explained := false
	for _, k := range q.quorum {
		if q.voted[k] {
			continue
		}
		voter := w.machines[k].(*majorityNode)
		var s string
		lost := func(typ uint8, a, b int, stamp int64, what string) bool {
			if l, ok := w.lostLast(typ, a, b, stamp); ok {
				s = fmt.Sprintf("%s at %s", what, Format(l.at))
				explained = true
				return true
			}
			return false
		}
		h := voter.locked.node
		switch {
		case !w.live(k):
			s = "crashed at " + Format(w.nodes[k].crashAt)
			explained = true
		case lost(mRequest, q.v, k, q.stamp, "its REQUEST was lost"):
		case lost(mVote, k, q.v, q.stamp, "the VOTE was lost"):
		case h == q.v && lost(mYield, q.v, k, q.stamp, "its YIELD was lost, so "+name[k]+" counts its vote given"):
		case h >= 0:
			who := name[h]
			if h == k {
				who = "itself"
			}
			s = "voted for " + who
			switch {
			case !w.live(h):
				s += ", which crashed at " + Format(w.nodes[h].crashAt)
				explained = true
			case lost(mRelease, h, k, voter.locked.stamp, "voted for "+name[h]+", whose RELEASE was lost"):
			case lost(mYield, h, k, voter.locked.stamp, "voted for "+name[h]+", whose YIELD was lost"):
			case lost(mInquire, k, h, voter.locked.stamp, "voted for "+name[h]+"; its INQUIRE to "+name[h]+" was lost"):
			case lost(mVote, k, h, voter.locked.stamp, "voted for "+name[h]+", and that VOTE was lost"):
			case h == k:
				s += " and waits too"
			default:
				s += ", which waits too"
			}
		default:
			s = "has not voted"
		}
		missing = append(missing, fmt.Sprintf("%s (%s)", name[k], s))
	}
	out := "no vote yet from " + strings.Join(missing, ", ")
	if !explained && len(w.lost) == 0 && len(w.opts.Crashes) == 0 {
		out += " (a bug: no fault explains it)"
	}
	return out
}
