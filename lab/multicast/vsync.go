package multicast

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/lab/netsim"
)

// vsync's message types, after DATA, RETRANS and ACK, which mean what they
// mean in ack.
var vsyncTypes = []string{"DATA", "RETRANS", "ACK", "HEARTBEAT", "JOIN", "LEAVE", "FLUSH", "FORWARD", "FLUSH_OK", "VIEW", "VIEW_OK"}

const (
	typeHeartbeat = typeAck + 1 + iota
	typeJoin
	typeLeave
	typeFlush
	typeForward
	typeFlushOK
	typeView
	typeViewOK
)

// vsync's timer tags, after the common ones.
const (
	tagBeat = tagRepair + 1 + iota
	tagJoin
	tagLeave
	tagChange
)

// HeartbeatEvery is how often a member tells every other member of its
// view that it is alive.
const HeartbeatEvery = 2 * Delay

// SuspectAfter is the failure detector's timeout: a node not heard from
// for that long is taken for crashed. Thirty heartbeats in a row must be
// lost first, which on the mesh at the highest loss (one half) happens
// with probability 2⁻³⁰: the detector may in principle suspect a live node
// (it cannot tell a crash from a long silence), in practice it does not.
// On the bus a heartbeat crosses every cable of its path, each losing it
// with the loss asked for: across h cables at loss P it arrives with
// probability (1−P)^h, and a detector that should hold on long paths
// wants a small loss (at 0.1 per cable and 10 cables, 30 heartbeats in a
// row are lost with probability about 2·10⁻⁶).
const SuspectAfter = 30 * HeartbeatEvery

// view is one group view as its coordinator proposed it. A VIEW message
// carries the proposal's index in group.views: the runtime's messages hold
// two numbers, a real one would carry the members and the cut.
type view struct {
	num int
	// members, oldest first: the first one not suspected coordinates.
	members []int
	by      int // the coordinator that proposed it
	// base is the cut of the view before: the messages up to base belong
	// to earlier views, those sent in this one come after.
	base int
}

// Phases of a view change.
const (
	gathering  = iota // FLUSH to every survivor, until all answered
	filling           // FORWARD the messages up to the cut to who lacks them
	installing        // VIEW to every survivor and joiner, until all answered
)

// change is a view change its coordinator runs.
type change struct {
	phase int
	// keep are the members of the view it flushes (the survivors, leavers
	// included); joiners and leavers are the requests it grants.
	keep, joiners, leavers []int
	// h[u] is the last prefix u reported, in the view at[u] (-1: a joiner
	// not yet in), once answered[u].
	h, at    []int
	answered []bool
	cut      int
	proposal int
	acked    []bool
}

// vnode is one node's part in the group.
type vnode struct {
	view int // the installed view, an index into group.views; -1 none yet
	// frozen: it answered a FLUSH, and delivers nothing new of its view
	// until it installs the next; flushBy is the coordinator it answered.
	frozen  bool
	flushBy int
	left    bool
	joinAt  int64 // -1: it starts in the group
	leaveAt int64 // -1: it stays
	suspect []bool
	heard   []int64
	// installs lists the views it installed; deliveredIn[i] is the view it
	// delivered its i-th message in.
	installs    []int
	installedAt int64
	deliveredIn []int
	// A coordinator's state: the requests it heard, and its view change.
	wantsIn, wantsOut []bool
	ch                *change
	// tick is the generation of ch's round-trip timer: a step taken early
	// moves it on, so that the timer it replaced passes unheeded.
	tick int64
}

// group is vsync's state.
type group struct {
	views []view
	nodes []vnode
	// due is how many messages the sender should have sent by now; sentIn[s]
	// is the view it sent message s in (-1: never sent).
	due    int
	sentIn []int
}

// newGroup checks the joins and leaves and sets up the first view: every
// node that does not join later, in topology order.
func (w *world) newGroup() error {
	n := len(w.names)
	g := &group{nodes: make([]vnode, n), sentIn: make([]int, w.opts.Messages+1)}
	for s := range g.sentIn {
		g.sentIn[s] = -1
	}
	for v := range g.nodes {
		g.nodes[v] = vnode{view: -1, flushBy: -1, joinAt: -1, leaveAt: -1, suspect: make([]bool, n),
			heard: make([]int64, n), wantsIn: make([]bool, n), wantsOut: make([]bool, n)}
	}
	for _, e := range w.opts.Joins {
		v := slices.Index(w.names, e.Node)
		switch {
		case v < 0:
			return fmt.Errorf("%w: joining node %q is not on the bus", ErrBadOptions, e.Node)
		case v == w.sender:
			return fmt.Errorf("%w: the sender %s starts the group and cannot join it", ErrBadOptions, e.Node)
		case g.nodes[v].joinAt >= 0:
			return fmt.Errorf("%w: node %q joins twice", ErrBadOptions, e.Node)
		}
		g.nodes[v].joinAt = e.At
	}
	for _, e := range w.opts.Leaves {
		v := slices.Index(w.names, e.Node)
		switch {
		case v < 0:
			return fmt.Errorf("%w: leaving node %q is not on the bus", ErrBadOptions, e.Node)
		case g.nodes[v].leaveAt >= 0:
			return fmt.Errorf("%w: node %q leaves twice", ErrBadOptions, e.Node)
		case g.nodes[v].joinAt >= e.At:
			return fmt.Errorf("%w: node %q leaves at %s, not after it joins at %s", ErrBadOptions, e.Node,
				Format(e.At), Format(g.nodes[v].joinAt))
		}
		g.nodes[v].leaveAt = e.At
	}
	first := view{num: 1}
	for v := range g.nodes {
		if g.nodes[v].joinAt < 0 {
			first.members = append(first.members, v)
		}
	}
	first.by = first.members[0] // nobody proposed it: its coordinator
	g.views = []view{first}
	w.vs = g
	return nil
}

// startMember starts node v: a member of the first view installs it, a
// joiner and a leaver set their times.
func (w *world) startMember(x *netsim.Net, v int) {
	n := &w.vs.nodes[v]
	if n.joinAt >= 0 {
		x.TimerAt(v, n.joinAt, netsim.Message{Type: tagJoin})
	} else {
		w.install(x, v, 0)
	}
	if n.leaveAt >= 0 {
		x.TimerAt(v, n.leaveAt, netsim.Message{Type: tagLeave})
	}
}

// coordinator is who v takes for its view's coordinator: the oldest member
// it does not suspect.
func (w *world) coordinator(v int) int {
	n := &w.vs.nodes[v]
	for _, u := range w.vs.views[n.view].members {
		if !n.suspect[u] {
			return u
		}
	}
	return v
}

// install makes v install view p. A joiner delivers from the view's first
// message on. Every node of the view is heard from afresh: v may now watch
// nodes it did not watch before.
func (w *world) install(x *netsim.Net, v, p int) {
	n, me := &w.vs.nodes[v], &w.members[v]
	if n.view < 0 || w.opts.breakFlush {
		me.next = max(me.next, w.vs.views[p].base+1)
	}
	if n.view < 0 {
		x.TimerAt(v, x.Now()+HeartbeatEvery, netsim.Message{Type: tagBeat})
	}
	if n.view < 0 && n.joinAt >= 0 {
		x.Note(v, netsim.EventJoin, "JOIN", fmt.Sprintf("view %d", w.vs.views[p].num))
	}
	n.view, n.frozen, n.installedAt = p, false, x.Now()
	n.installs = append(n.installs, p)
	for u := range n.heard {
		n.heard[u] = x.Now()
	}
	if v == w.sender {
		w.sendDue(x)
	}
}

// sendDue multicasts, in the sender's view, every message due and not yet
// sent, unless the sender is flushing, out of the group or crashed.
func (w *world) sendDue(x *netsim.Net) {
	v := w.sender
	n, me := &w.vs.nodes[v], &w.members[v]
	if me.crashed || n.left || n.frozen || n.view < 0 {
		return
	}
	for me.last < w.vs.due {
		s := me.last + 1
		me.last = s
		w.vs.sentIn[s] = n.view
		w.deliver(x, v, s) // the sender delivers its own messages as it sends them
		w.cast(x, v, w.othersIn(v, w.vs.views[n.view].members), netsim.Message{Type: typeData, Value: int64(s), Aux: int64(n.view)})
		x.TimerAt(v, x.Now()+roundTrip, netsim.Message{Type: tagRetry, Value: int64(s)})
	}
}

// deliver takes message s at v, in v's view, and records the view of every
// message it delivers.
func (w *world) deliver(x *netsim.Net, v, s int) {
	me := &w.members[v]
	before := len(me.delivered)
	if me.got[s] {
		me.duplicates++
		return
	}
	me.got[s] = true
	for me.next < len(me.got) && me.got[me.next] {
		me.delivered = append(me.delivered, me.next)
		x.Note(v, netsim.EventDeliver, "DELIVER", strconv.Itoa(me.next))
		me.next++
	}
	n := &w.vs.nodes[v]
	for range len(me.delivered) - before {
		n.deliveredIn = append(n.deliveredIn, n.view)
	}
}

func (w *world) vsTimer(x *netsim.Net, v int, tag netsim.Message) {
	n := &w.vs.nodes[v]
	switch tag.Type {
	case tagSend:
		w.vs.due = int(tag.Value)
		w.sendDue(x)
	case tagRetry:
		w.resend(x, int(tag.Value))
	case tagJoin:
		if n.view < 0 {
			w.multicast(x, v, netsim.Message{Type: typeJoin})
			x.TimerAt(v, x.Now()+roundTrip, tag)
		}
	case tagLeave:
		switch {
		case n.left:
		case n.view < 0: // not in yet: it asks once it is
			x.TimerAt(v, x.Now()+roundTrip, tag)
		case w.coordinator(v) == v:
			n.wantsOut[v] = true
			w.startChange(x, v)
		default:
			w.send(x, v, w.coordinator(v), netsim.Message{Type: typeLeave})
			x.TimerAt(v, x.Now()+roundTrip, tag)
		}
	case tagBeat:
		if !n.left {
			w.beat(x, v)
			x.TimerAt(v, x.Now()+HeartbeatEvery, tag)
		}
	case tagChange:
		if tag.Aux == n.tick {
			w.step(x, v)
		}
	}
}

// resend is the sender's retransmission of message s, as in ack: to every
// member of the view that has not acknowledged it, every round trip, for as
// long as the view lasts. A flush settles the message otherwise.
func (w *world) resend(x *netsim.Net, s int) {
	v := w.sender
	n := &w.vs.nodes[v]
	if n.left || n.frozen || n.view != w.vs.sentIn[s] {
		return
	}
	pending := false
	for _, u := range w.vs.views[n.view].members {
		if u != v && w.acked[s][u] == 0 {
			w.send(x, v, u, netsim.Message{Type: typeRetrans, Value: int64(s), Aux: int64(n.view)})
			pending = true
		}
	}
	if pending {
		x.TimerAt(v, x.Now()+roundTrip, netsim.Message{Type: tagRetry, Value: int64(s)})
	}
}

// beat is v's heartbeat and failure detector: v beats to every member of
// its view and suspects any it has not heard from for SuspectAfter, and a
// coordinator also any node its view change waits for. Everyone hears from
// everyone, so that the members agree on who is gone, and so on who
// coordinates.
func (w *world) beat(x *netsim.Net, v int) {
	n := &w.vs.nodes[v]
	watched := w.vs.views[n.view].members
	if n.ch != nil {
		watched = slices.Clone(watched)
		for _, u := range slices.Concat(n.ch.keep, n.ch.joiners) {
			if !slices.Contains(watched, u) {
				watched = append(watched, u)
			}
		}
	}
	to := w.others[:0]
	for _, u := range watched {
		switch {
		case u == v || n.suspect[u]:
		case x.Now()-n.heard[u] > SuspectAfter:
			n.suspect[u] = true
		case slices.Contains(w.vs.views[n.view].members, u):
			to = append(to, u)
		}
	}
	w.others = to
	if len(to) > 0 {
		w.cast(x, v, to, netsim.Message{Type: typeHeartbeat, Value: int64(w.vs.views[n.view].num)})
	}
	w.startChange(x, v)
}

// startChange starts a view change at v if v coordinates, none is under way,
// and one is called for: a member suspected, a join or a leave asked for.
// The coordinator freezes first, as every survivor will.
func (w *world) startChange(x *netsim.Net, v int) {
	n := &w.vs.nodes[v]
	if n.ch != nil || n.left || w.coordinator(v) != v {
		return
	}
	ch := &change{h: make([]int, len(w.names)), at: make([]int, len(w.names)), answered: make([]bool, len(w.names))}
	for _, u := range w.vs.views[n.view].members {
		switch {
		case n.suspect[u]:
		case n.wantsOut[u]:
			ch.leavers = append(ch.leavers, u)
			ch.keep = append(ch.keep, u)
		default:
			ch.keep = append(ch.keep, u)
		}
	}
	for u, in := range n.wantsIn {
		if in && !n.suspect[u] {
			ch.joiners = append(ch.joiners, u)
		}
	}
	if len(ch.keep) == len(w.vs.views[n.view].members) && len(ch.joiners) == 0 && len(ch.leavers) == 0 {
		return
	}
	w.freeze(v, v)
	ch.h[v], ch.at[v], ch.answered[v] = w.members[v].next-1, n.view, true
	n.ch = ch
	w.step(x, v)
}

// step drives v's view change one round trip on: it sends what each node
// still needs and moves to the next phase once none needs anything.
func (w *world) step(x *netsim.Net, v int) {
	n, ch := &w.vs.nodes[v], w.vs.nodes[v].ch
	if ch == nil {
		return
	}
	mine := w.members[v].next - 1
	flush := netsim.Message{Type: typeFlush, Value: int64(mine), Aux: int64(n.view)}
	waiting := false
	for _, u := range ch.keep {
		if u == v || n.suspect[u] {
			continue
		}
		switch {
		case ch.phase == installing:
			if !ch.acked[u] {
				w.send(x, v, u, netsim.Message{Type: typeView, Value: int64(w.vs.views[ch.proposal].num), Aux: int64(ch.proposal)})
				waiting = true
			}
		case ch.answered[u] && (ch.at[u] < 0 || w.vs.views[ch.at[u]].num < w.vs.views[n.view].num):
			// u missed the view this coordinator installed, when the one
			// that proposed it crashed: u holds its cut, or joins with it.
			w.send(x, v, u, netsim.Message{Type: typeView, Value: int64(w.vs.views[n.view].num), Aux: int64(n.view)})
			w.send(x, v, u, flush)
			waiting = true
		case !ch.answered[u] || ch.phase == gathering && ch.h[u] > mine:
			w.send(x, v, u, flush)
			waiting = true
		case ch.phase == filling && ch.h[u] < ch.cut:
			for s := ch.h[u] + 1; s <= ch.cut; s++ {
				w.send(x, v, u, netsim.Message{Type: typeForward, Value: int64(s), Aux: int64(n.view)})
			}
			w.send(x, v, u, flush)
			waiting = true
		}
	}
	if ch.phase == installing {
		for _, u := range ch.joiners {
			if !ch.acked[u] && !n.suspect[u] {
				w.send(x, v, u, netsim.Message{Type: typeView, Value: int64(w.vs.views[ch.proposal].num), Aux: int64(ch.proposal)})
				waiting = true
			}
		}
	}
	switch {
	case waiting:
		n.tick++
		x.TimerAt(v, x.Now()+roundTrip, netsim.Message{Type: tagChange, Aux: n.tick})
	case ch.phase == gathering:
		// The coordinator holds every message any survivor delivered: that
		// is the cut.
		ch.phase, ch.cut = filling, mine
		if w.opts.breakFlush {
			ch.phase = installing
			w.propose(x, v)
		}
		w.step(x, v)
	case ch.phase == filling:
		ch.phase = installing
		w.propose(x, v)
		w.step(x, v)
	default:
		n.ch = nil
		if !slices.Contains(w.vs.views[ch.proposal].members, v) {
			w.leave(x, v)
			return
		}
		w.startChange(x, v)
	}
}

// propose makes v's next view: the survivors but the leavers, then the
// joiners, and installs it at v unless v leaves.
func (w *world) propose(x *netsim.Net, v int) {
	n, ch := &w.vs.nodes[v], w.vs.nodes[v].ch
	next := view{num: w.vs.views[n.view].num + 1, by: v, base: ch.cut}
	for _, u := range ch.keep {
		if !n.suspect[u] && !slices.Contains(ch.leavers, u) {
			next.members = append(next.members, u)
		}
	}
	for _, u := range ch.joiners {
		if !n.suspect[u] {
			next.members = append(next.members, u)
		}
		n.wantsIn[u] = false
	}
	for _, u := range ch.leavers {
		n.wantsOut[u] = false
	}
	ch.proposal = len(w.vs.views)
	ch.acked = make([]bool, len(w.names))
	w.vs.views = append(w.vs.views, next)
	if slices.Contains(next.members, v) {
		w.install(x, v, ch.proposal)
	}
}

func (w *world) vsReceive(x *netsim.Net, v, from int, m netsim.Message) {
	n := &w.vs.nodes[v]
	n.heard[from] = x.Now()
	p := int(m.Aux)
	switch {
	case m.Type == typeView:
		w.hearView(x, v, from, p)
	case n.left:
	case n.view < 0:
		if m.Type == typeFlush { // a view that names it was proposed, and its VIEW lost
			w.send(x, v, from, netsim.Message{Type: typeFlushOK, Aux: -1})
		}
	case m.Type == typeData || m.Type == typeRetrans:
		if p == n.view && !n.frozen {
			w.deliver(x, v, int(m.Value))
			w.send(x, v, from, netsim.Message{Type: typeAck, Value: m.Value})
		}
	case m.Type == typeHeartbeat:
		w.relay(x, v, from, int(m.Value))
	case m.Type == typeAck:
		w.acked[m.Value][from] = 1
	case m.Type == typeForward:
		if p == n.view {
			w.deliver(x, v, int(m.Value))
		}
	case m.Type == typeFlush:
		w.hearFlush(x, v, from, m)
	case m.Type == typeFlushOK:
		w.hearReport(x, v, from, int(m.Value), p)
	case m.Type == typeViewOK:
		if ch := n.ch; ch != nil && ch.phase == installing && int(m.Value) == w.vs.views[ch.proposal].num {
			ch.acked[from] = true
		}
	case w.coordinator(v) != v: // JOIN and LEAVE are for the coordinator
	case m.Type == typeJoin && !slices.Contains(w.vs.views[n.view].members, from):
		n.wantsIn[from] = true
		w.startChange(x, v)
	case m.Type == typeLeave && slices.Contains(w.vs.views[n.view].members, from):
		n.wantsOut[from] = true
		w.startChange(x, v)
	}
}

// relay: u beats in view number k. If u missed the VIEW that followed,
// when the coordinator that sent it crashed, v, which installed that view a
// while ago (not just before u, whose VIEW may be on its way), sends it on.
// If v is the one behind, it beats back, so that u, which may not be in v's
// view and so not hear its beats, sends it on.
func (w *world) relay(x *netsim.Net, v, u, k int) {
	n := &w.vs.nodes[v]
	mine := w.vs.views[n.view].num
	if k > mine {
		w.send(x, v, u, netsim.Message{Type: typeHeartbeat, Value: int64(mine)})
	}
	if x.Now()-n.installedAt <= 2*roundTrip {
		return
	}
	for _, p := range n.installs {
		if w.vs.views[p].num == k+1 {
			w.send(x, v, u, netsim.Message{Type: typeView, Value: int64(k + 1), Aux: int64(p)})
		}
	}
}

// hearFlush: coordinator c asks v to flush. v freezes, forwards to c the
// messages of their view that c lacks, and reports its prefix and view. A
// FLUSH from a member younger than v's coordinator means the older ones
// are gone: v suspects them too. A FLUSH from a node v's view left out
// (a leaver whose VIEW was lost with the coordinator that sent it) is
// answered with that view, which tells it it is out.
func (w *world) hearFlush(x *netsim.Net, v, c int, m netsim.Message) {
	n, me := &w.vs.nodes[v], &w.members[v]
	report := netsim.Message{Type: typeFlushOK, Value: int64(me.next - 1), Aux: int64(n.view)}
	members := w.vs.views[n.view].members
	i := slices.Index(members, c)
	switch {
	case n.suspect[c]:
		return
	case i < 0:
		w.send(x, v, c, report)
		return
	}
	for _, u := range members[:i] {
		n.suspect[u] = true
	}
	w.freeze(v, c)
	if int(m.Aux) == n.view {
		for s := int(m.Value) + 1; s < me.next; s++ {
			w.send(x, v, c, netsim.Message{Type: typeForward, Value: int64(s), Aux: m.Aux})
		}
	}
	w.send(x, v, c, report)
}

// hearReport: u reports to coordinator v its prefix h in view p. A report
// of a later view than v's own means the coordinator before v crashed while
// installing it: v installs it too (it holds its cut) and starts over from
// there, or, left out of it, leaves.
func (w *world) hearReport(x *netsim.Net, v, u, h, p int) {
	n, ch := &w.vs.nodes[v], w.vs.nodes[v].ch
	if ch == nil || ch.phase == installing {
		return
	}
	if p >= 0 && w.vs.views[p].num > w.vs.views[n.view].num {
		n.ch = nil
		if !slices.Contains(w.vs.views[p].members, v) {
			w.leave(x, v)
			return
		}
		w.install(x, v, p)
		w.startChange(x, v)
		return
	}
	ch.h[u], ch.at[u], ch.answered[u] = h, p, true
}

// leave: v is out of the group, its view's successor leaving it out.
func (w *world) leave(x *netsim.Net, v int) {
	n := &w.vs.nodes[v]
	n.left = true
	x.Note(v, netsim.EventLeave, "LEAVE", fmt.Sprintf("view %d", w.vs.views[n.view].num))
}

// freeze: v flushes for coordinator c. It drops the messages it holds
// beyond its prefix: they may lie beyond the cut, and those up to the cut
// come again as FORWARDs.
func (w *world) freeze(v, c int) {
	n, me := &w.vs.nodes[v], &w.members[v]
	n.frozen, n.flushBy = true, c
	clear(me.got[me.next:])
}

// hearView: v hears VIEW p from c. A joiner installs the view that names
// it; a survivor installs the view that follows its own, proposed by the
// coordinator it flushed for (sent by it, or relayed), once it holds the
// cut, and otherwise reports what it lacks; a member the view leaves out
// leaves. Every VIEW v has acted on is acknowledged, again if repeated.
func (w *world) hearView(x *netsim.Net, v, c, p int) {
	n, me := &w.vs.nodes[v], &w.members[v]
	next := &w.vs.views[p]
	ok := netsim.Message{Type: typeViewOK, Value: int64(next.num)}
	switch {
	case n.view < 0:
		if !slices.Contains(next.members, v) {
			return
		}
		w.install(x, v, p)
	case next.num <= w.vs.views[n.view].num, n.left:
	case c != n.flushBy && next.by != n.flushBy || next.num != w.vs.views[n.view].num+1:
		return
	case !slices.Contains(next.members, v):
		w.leave(x, v)
	case me.next-1 < next.base && !w.opts.breakFlush:
		w.send(x, v, c, netsim.Message{Type: typeFlushOK, Value: int64(me.next - 1), Aux: int64(n.view)})
		return
	default:
		w.install(x, v, p)
	}
	w.send(x, v, c, ok)
}

// settled ends a vsync run, whose heartbeats would go on for ever, once no
// crash, join or leave is to come, the sender has sent its stream (or is
// gone), and every live member is in the latest view, which holds no
// crashed node, has delivered all of it and is in no view change. It is
// asked after every event: the cheap conditions come first.
func (w *world) settled() bool {
	g := w.vs
	if s := &w.members[w.sender]; !s.crashed && !g.nodes[w.sender].left && (g.due < w.opts.Messages || s.last < g.due) {
		return false
	}
	latest := -1
	for v := range g.nodes {
		n, m := &g.nodes[v], &w.members[v]
		switch {
		case m.crashAt >= 0 && !m.crashed, n.leaveAt >= 0 && !m.crashed && !n.left && n.view >= 0:
			return false
		case !m.crashed && !n.left && n.view >= 0 && (latest < 0 || g.views[n.view].num > g.views[latest].num):
			latest = n.view
		}
	}
	if latest < 0 {
		return true // nobody is left to join
	}
	for v := range g.nodes {
		n, m := &g.nodes[v], &w.members[v]
		if !m.crashed && !n.left && (n.view != latest || n.frozen || n.ch != nil) {
			return false
		}
	}
	for _, u := range g.views[latest].members {
		if w.members[u].crashed || g.nodes[u].left {
			return false
		}
	}
	high := g.views[latest].base
	for s, p := range g.sentIn {
		if p == latest {
			high = max(high, s)
		}
	}
	for _, u := range g.views[latest].members {
		if w.members[u].next-1 != high {
			return false
		}
	}
	return true
}

// checkViews fills in what each vsync member should have delivered, the
// views, and the guarantees, checked from what the nodes recorded: the
// views they installed, in order, and the view they delivered each message
// in.
func (w *world) checkViews(res *Result) {
	g := w.vs
	fail := func(c *Guarantee, format string, args ...any) {
		if c.Held {
			c.Held, c.Detail = false, fmt.Sprintf(format, args...)
		}
	}
	ordered := Guarantee{Name: "in order, once each", Promised: true, Held: true}
	agreed := Guarantee{Name: "view agreement", Promised: true, Held: true}
	atomic := Guarantee{Name: "all or none per view", Promised: true, Held: true}
	sameView := Guarantee{Name: "same-view delivery", Promised: true, Held: true}
	byNum := map[int]int{} // a view's number to the proposal installed as it
	last := 0
	// A crashed node may have installed a view nobody alive saw (the
	// coordinator that proposed it, alone in it): agreement is among the
	// survivors, whose views come first.
	for _, crashed := range []bool{false, true} {
		for v, n := range g.nodes {
			if w.members[v].crashed != crashed {
				continue
			}
			for i, p := range n.installs {
				num := g.views[p].num
				q, ok := byNum[num]
				switch {
				case !ok:
					byNum[num] = p
				case !crashed && !slices.Equal(g.views[q].members, g.views[p].members):
					fail(&agreed, "%s installed view %d as %v, another node as %v", w.names[v], num,
						w.nodeNames(g.views[p].members), w.nodeNames(g.views[q].members))
				}
				if i > 0 && num != g.views[n.installs[i-1]].num+1 {
					fail(&agreed, "%s went from view %d to view %d", w.names[v], g.views[n.installs[i-1]].num, num)
				}
				if !crashed {
					last = max(last, num)
				}
			}
		}
	}
	alive := func(v int) bool { return !w.members[v].crashed && !g.nodes[v].left && g.nodes[v].view >= 0 }
	for v, n := range g.nodes {
		if alive(v) && g.views[n.view].num != last {
			fail(&agreed, "%s ended in view %d, another node in view %d", w.names[v], g.views[n.view].num, last)
		}
	}
	// The messages of each view: up to the next view's base, or all that
	// were sent in the last.
	to := map[int]int{}
	for num, p := range byNum {
		to[num] = g.views[p].base
		if q, ok := byNum[num+1]; ok {
			to[num] = g.views[q].base
			continue
		}
		for s, in := range g.sentIn {
			if in >= 0 && g.views[in].num == num {
				to[num] = max(to[num], s)
			}
		}
	}
	delivered := map[int]map[int][]int{} // view number, node: the messages of the view it delivered
	for v, n := range g.nodes {
		m := &w.members[v]
		for i, s := range m.delivered {
			if in := n.deliveredIn[i]; in != g.sentIn[s] {
				fail(&sameView, "%s delivered message %d, sent in view %d, in view %d", w.names[v], s, g.views[g.sentIn[s]].num, g.views[in].num)
			}
			if i == 0 && s != g.views[n.installs[0]].base+1 || i > 0 && s != m.delivered[i-1]+1 {
				fail(&ordered, "%s delivered message %d after %v", w.names[v], s, m.delivered[max(i-1, 0):i])
			}
			num := g.views[n.deliveredIn[i]].num
			if delivered[num] == nil {
				delivered[num] = map[int][]int{}
			}
			delivered[num][v] = append(delivered[num][v], s)
		}
	}
	expected := make([][]int, len(w.names))
	for num := 1; num <= last; num++ {
		p, ok := byNum[num]
		if !ok {
			continue
		}
		// The survivors saw the view to its end: they installed the next,
		// left with it, or are alive in the last.
		var survivors []int
		for v, n := range g.nodes {
			i := slices.Index(n.installs, p)
			switch {
			case i < 0:
			case i+1 < len(n.installs), n.left && i == len(n.installs)-1, num == last && alive(v):
				survivors = append(survivors, v)
				for s := g.views[p].base + 1; s <= to[num]; s++ {
					expected[v] = append(expected[v], s)
				}
			}
		}
		for _, v := range survivors[min(1, len(survivors)):] {
			if u := survivors[0]; !slices.Equal(delivered[num][u], delivered[num][v]) {
				fail(&atomic, "view %d: %s delivered %d of its messages, %s %d", num, w.names[u], len(delivered[num][u]), w.names[v], len(delivered[num][v]))
			}
		}
		if s := w.sender; num == last && slices.Contains(survivors, s) && len(delivered[num][s]) != to[num]-g.views[p].base {
			fail(&atomic, "view %d: the sender %s delivered %d of its %d messages", num, w.names[s], len(delivered[num][s]), to[num]-g.views[p].base)
		}
		installed := []int{}
		for v, n := range g.nodes {
			if slices.Contains(n.installs, p) {
				installed = append(installed, v)
			}
		}
		res.Views = append(res.Views, View{Number: num, Members: w.nodeNames(g.views[p].members), Coordinator: w.names[g.views[p].by],
			From: g.views[p].base + 1, To: to[num], Installed: w.nodeNames(installed)})
	}
	i := 0
	for v, n := range g.nodes {
		if v == w.sender {
			continue
		}
		r := &res.Members[i]
		i++
		r.Expected = len(expected[v])
		for _, s := range expected[v] {
			if !slices.Contains(w.members[v].delivered, s) {
				r.Missing = append(r.Missing, s)
			}
		}
		for _, p := range n.installs {
			r.Views = append(r.Views, g.views[p].num)
		}
	}
	res.Guarantees = []Guarantee{ordered, agreed, atomic, sameView}
}

// nodeNames names the nodes vs.
func (w *world) nodeNames(vs []int) []string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = w.names[v]
	}
	return names
}
