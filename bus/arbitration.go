package bus

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/phy"
)

// After self identify the bus carries packets: each node with something to
// send waits until it has seen the bus idle for the gap its packet needs,
// asks its root for the bus, and sends once granted; every PHY repeats the
// data to its other ports. A node decides the bus is idle from what has
// reached it, so a gap too short for the bus's round trip lets a node ask
// while an acknowledgement is still on its way: the root grants it, and the
// two transmissions meet on a cable (docs/protocol.md §9.6).
//
// The model is one of signals, not line states: a transmission is a span of
// data that reaches each node after the cable delays and repeat delays of
// the path, and a request and its grant travel the same path to and from
// the root. Arbitration is won by the request that reaches the root first:
// nodes nearer the root win, and the root itself, whose request travels no
// cable, wins most ties. That is why the cycle master is the root.

// trafficKind is what a transmission carries.
type trafficKind uint8

const (
	sendAsync      trafficKind = iota // an asynchronous request, or a ping
	sendAck                           // its acknowledgement, or the ping's answer
	sendCycleStart                    // the cycle master's cycle start
	sendIso                           // an isochronous packet
)

// transmission is one span of data on the bus.
type transmission struct {
	kind       trafficKind
	src, dst   int // dst: the addressee of a request or acknowledgement, else -1
	start, end int64
	flow       int // the traffic item: a request's, an ack's, a talker's; -1 for a cycle start
	acks       int // an acknowledgement: the request it acknowledges
	cycle      int // a cycle start: the cycle it starts, from 1
	// meets are the nodes where this transmission met another: beyond
	// each, seen from src, it arrives broken.
	meets []int
}

// afterKind is what an event of the traffic phase does.
type afterKind uint8

const (
	afQueue     afterKind = iota // flow arg queues a new request
	afCycleSync                  // the cycle master's 125 µs tick
	afCheck                      // node looks at the bus: has it been idle long enough?
	afRequest                    // node's request reaches its root
	afTransmit                   // node starts the transmission it was granted
	afDelivered                  // request arg ends at its destination
	afAckStart                   // the destination of request arg starts its acknowledgement
	afAckSeen                    // acknowledgement arg ends at the sender
)

type afterEvent struct {
	kind afterKind
	node int32
	arg  int64
}

// trafficNode is one node's state in the traffic phase.
type trafficNode struct {
	gaps phy.Gaps
	root int // the root of its tree; -1 when its part of the bus did not initialise
	// check is the last look at the bus queued; -1 when none.
	check int64
	// requesting says a request of kind asking is on its way to the root.
	requesting bool
	asking     trafficKind
	askedAt    int64
	// arbEnabled is fair arbitration's enable: cleared when the node sends
	// a request, set again by an arbitration reset gap.
	arbEnabled bool
	queue      []int // flows of the requests waiting, oldest first
	waitAck    int   // the request awaiting its acknowledgement; -1 when none
	tries      int   // transmissions of the request at the head of queue
	talker     int   // the isochronous flow; -1 when none
	isoCycle   int   // the last cycle it sent in
}

// treeRoot is the arbitration state of one tree's root.
type treeRoot struct {
	// granted is the node whose grant is on its way, -1 when none, and
	// holdUntil when the data of the last grant reaches the root: until
	// then every request is denied.
	granted   int
	holdUntil int64
	last      int   // the transmission of the last grant, an index of sent
	waiting   []int // nodes denied while a grant was on its way: they look again after its data
}

// afterInit runs the bus after initialisation.
type afterInit struct {
	w            *world
	start, end   int64
	k            Kernel[afterEvent]
	nodes        []trafficNode
	roots        map[int]*treeRoot
	flows        []resolvedTraffic
	dist         [][]int64 // per source, computed when first needed: when its data reaches each node; -1: never
	hops         [][]int32
	reach        []int64 // per source: when its data has reached every node
	sent         []transmission
	firstLive    int // sent[:firstLive] have passed every node long ago
	maxGap       int64
	master       int // the cycle master; -1 when none
	cycle        int // cycle starts due so far
	cyclePending bool
	cycleDue     int64
	lastCycle    int // the last cycle start sent, an index of sent; -1 none
	// trace holds the phase's trace events (Options.Observer), handed over
	// in time order once it ends: a transmission is known before it
	// reaches the nodes.
	trace []TraceEvent
	res   *TrafficResult
}

// runTraffic runs the bus for until ns after the world's last activity.
func (w *world) runTraffic(until int64) *TrafficResult {
	a := &afterInit{w: w, start: w.lastActive, roots: map[int]*treeRoot{}, flows: w.topo.traffic, master: -1, lastCycle: -1}
	a.end = a.start + until
	a.res = &TrafficResult{StartNs: a.start, EndNs: a.end}
	n := len(w.nodes)
	a.nodes = make([]trafficNode, n)
	a.dist, a.hops, a.reach = make([][]int64, n), make([][]int32, n), make([]int64, n)
	for i := range a.nodes {
		nd := &a.nodes[i]
		nd.gaps = w.nodes[i].phy.Timing.Gaps(w.nodes[i].m.GapCount())
		nd.check, nd.waitAck, nd.talker, nd.isoCycle, nd.arbEnabled, nd.root = -1, -1, -1, -1, true, -1
		a.maxGap = max(a.maxGap, int64(nd.gaps.ArbReset), int64(nd.gaps.Subaction))
	}
	a.findRoots()
	for f, fl := range a.flows {
		a.res.Flows = append(a.res.Flows, FlowResult{Node: w.topo.nodes[fl.node].id, Iso: fl.iso, Ping: fl.ping, Speed: fl.speed, Bytes: fl.size})
		fr := &a.res.Flows[f]
		if !fl.iso {
			fr.To = w.topo.nodes[fl.to].id
		}
		if why := a.unreachable(fl); why != "" {
			fr.Unsent = why
			continue
		}
		if fl.iso {
			a.nodes[fl.node].talker = f
		} else {
			a.k.Schedule(a.start, afterEvent{kind: afQueue, arg: int64(f)})
		}
	}
	if a.master >= 0 {
		a.res.CycleMaster = w.topo.nodes[a.master].id
		a.k.Schedule(a.start, afterEvent{kind: afCycleSync})
	}
	for i := range a.nodes {
		a.poke(i, a.start)
	}
	for {
		at, ev, ok := a.k.Next()
		if !ok || at > a.end {
			break
		}
		a.dispatch(at, ev)
	}
	a.measure()
	if obs := w.opts.Observer; obs != nil {
		slices.SortStableFunc(a.trace, func(x, y TraceEvent) int { return cmp.Compare(x.TimeNs, y.TimeNs) })
		for _, e := range a.trace {
			if e.TimeNs <= a.end {
				obs(e)
			}
		}
	}
	return a.res
}

// note traces detail at node i at time at, when the run is traced.
func (a *afterInit) note(at int64, i int, detail string) {
	if a.w.opts.Observer != nil {
		a.trace = append(a.trace, TraceEvent{TimeNs: at, Kind: TraceBus, Node: a.w.topo.nodes[i].id, Port: -1, Detail: detail})
	}
}

// describe names a transmission as the trace shows it.
func (a *afterInit) describe(t *transmission) string {
	id := func(i int) string { return a.w.topo.nodes[i].id }
	switch t.kind {
	case sendCycleStart:
		return "cycle start " + strconv.Itoa(t.cycle) + " from " + id(t.src)
	case sendIso:
		return "iso from " + id(t.src) + " " + a.flows[t.flow].speed.String()
	case sendAck:
		if a.flows[t.flow].ping {
			return "ping answer " + id(t.src) + " to " + id(t.dst)
		}
		return "ack " + id(t.src) + " to " + id(t.dst)
	}
	if a.flows[t.flow].ping {
		return "ping " + id(t.src) + " to " + id(t.dst)
	}
	return "async " + id(t.src) + " to " + id(t.dst) + " " + a.flows[t.flow].speed.String()
}

// findRoots finds each node's root and the cycle master: the root of the
// bus's largest tree when its link is on and it can be cycle master (the
// contender bit, as fwsim's bus manager takes it).
func (a *afterInit) findRoots() {
	best := 0
	for r := range a.nodes {
		if !a.w.nodes[r].m.Root() || a.w.nodes[r].state != phy.A0Idle {
			continue
		}
		a.roots[r] = &treeRoot{granted: -1}
		size := 0
		for x, d := range a.distFrom(r) {
			if d >= 0 {
				a.nodes[x].root = r
				size++
			}
		}
		if cfg := a.w.topo.nodes[r]; cfg.link && cfg.contender && size > best {
			a.master, best = r, size
		}
	}
}

// unreachable says why flow fl cannot send, "" when it can.
func (a *afterInit) unreachable(fl resolvedTraffic) string {
	if a.nodes[fl.node].root < 0 {
		return "its part of the bus did not initialise"
	}
	if fl.iso {
		if a.master < 0 || a.nodes[fl.node].root != a.master {
			return "no cycle master on its bus: the root must be a contender with its link on"
		}
		return ""
	}
	if a.nodes[fl.to].root != a.nodes[fl.node].root {
		return "its destination is on another bus"
	}
	for x := range a.nodes {
		if a.onPath(fl.node, x, fl.to) && a.w.topo.nodes[x].speed < fl.speed {
			return fmt.Sprintf("%s on its way is an %v PHY", a.w.topo.nodes[x].id, a.w.topo.nodes[x].speed)
		}
	}
	return ""
}

// distFrom returns, per node, when data node src sends reaches it (0 at
// src, -1 where it never does): the cable delays and the repeat delays of
// the PHYs between, as world.walk spreads self-ID packets.
func (a *afterInit) distFrom(src int) []int64 {
	if a.dist[src] != nil {
		return a.dist[src]
	}
	n := len(a.nodes)
	dist, hops := make([]int64, n), make([]int32, n)
	for i := range dist {
		dist[i], hops[i] = -1, -1
	}
	dist[src], hops[src] = 0, 0
	type hop struct{ node, from int }
	stack := []hop{{src, -1}}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out := dist[h.node]
		if h.node != src {
			out += int64(a.w.nodes[h.node].phy.Timing.RepeatDelay)
		}
		for p, c := range a.w.nodes[h.node].cable {
			if c < 0 || p == h.from || !a.w.cables[c].connected {
				continue
			}
			far := a.w.cables[c].peer(portRef{h.node, p})
			if dist[far.node] >= 0 {
				continue // a loop: the bus did not initialise, and no root claims it
			}
			dist[far.node], hops[far.node] = out+a.w.cables[c].delayNs, hops[h.node]+1
			a.reach[src] = max(a.reach[src], dist[far.node])
			stack = append(stack, hop{far.node, far.port})
		}
	}
	a.dist[src], a.hops[src] = dist, hops
	return dist
}

// onPath reports whether node m lies on the path from a to b, ends included.
func (a *afterInit) onPath(from, m, to int) bool {
	a.distFrom(from)
	a.distFrom(m)
	return a.hops[from][m] >= 0 && a.hops[from][m]+a.hops[m][to] == a.hops[from][to]
}

func (a *afterInit) dispatch(now int64, ev afterEvent) {
	a.k.AdvanceTo(now)
	i := int(ev.node)
	switch ev.kind {
	case afQueue:
		fl := a.flows[ev.arg]
		nd := &a.nodes[fl.node]
		a.res.Flows[ev.arg].Queued++
		nd.queue = append(nd.queue, int(ev.arg))
		if fl.every > 0 {
			a.k.Schedule(now+fl.every, ev)
		}
		a.poke(fl.node, now)
	case afCycleSync:
		if a.cyclePending {
			a.res.CyclesSkipped++
		}
		a.cycle++
		a.res.Timeline = append(a.res.Timeline, CycleLine{Cycle: a.cycle, DueNs: now, StartNs: -1})
		a.cyclePending, a.cycleDue = true, now
		a.k.Schedule(now+int64(phy.CycleTime), ev)
		a.poke(a.master, now)
	case afCheck:
		a.look(i, now)
	case afRequest:
		a.request(i, now)
	case afTransmit:
		a.transmit(i, now)
	case afDelivered:
		p := &a.sent[ev.arg]
		if a.broken(int(ev.arg), p.dst) {
			a.res.Flows[p.flow].Broken++
			return
		}
		// The destination's PHY repeats the request's end to its other
		// ports first; the acknowledgement, or a ping's answer, follows an
		// ack gap later.
		a.k.Schedule(now+int64(a.w.nodes[p.dst].phy.Timing.RepeatDelay+a.nodes[p.dst].gaps.Ack), afterEvent{kind: afAckStart, arg: ev.arg})
	case afAckStart:
		p := a.sent[ev.arg]
		fl := a.flows[p.flow]
		// An acknowledgement is 8 bits at the request's speed; a ping's
		// answer is the target's self-ID packet, 64 bits at S100.
		end := now + a.duration(8, fl.speed)
		if fl.ping {
			end = now + a.duration(64, phy.S100)
		}
		ack := a.send(transmission{kind: sendAck, src: p.dst, dst: p.src, start: now, end: end, flow: p.flow, acks: int(ev.arg)})
		a.k.Schedule(a.sent[ack].end+a.distFrom(p.dst)[p.src], afterEvent{kind: afAckSeen, arg: int64(ack)})
	case afAckSeen:
		ack := a.sent[ev.arg]
		nd := &a.nodes[ack.dst]
		if a.broken(int(ev.arg), ack.dst) {
			a.res.Flows[ack.flow].AcksLost++
			return
		}
		if nd.waitAck != ack.acks {
			// The sender saw a subaction gap first and took it missing.
			a.res.Flows[ack.flow].AcksLate++
			return
		}
		a.res.Flows[ack.flow].Acked++
		if a.flows[ack.flow].ping {
			// The PHY times from the end of its ping to the start of the
			// answer.
			at := a.distFrom(ack.src)[ack.dst]
			a.res.Flows[ack.flow].RoundTrip.add(ack.start + at - a.sent[ack.acks].end)
		}
		nd.waitAck = -1
		a.done(ack.dst, now)
	}
}

// poke has node i look at the bus at time at. Every reason to look gets
// its own look, but two at one instant are one.
func (a *afterInit) poke(i int, at int64) {
	nd := &a.nodes[i]
	if nd.root < 0 || nd.check == at {
		return
	}
	nd.check = at
	a.k.Schedule(at, afterEvent{kind: afCheck, node: int32(i)})
}

// view is the bus as node i sees it at now: whether data is passing, and
// since when it has been idle.
func (a *afterInit) view(i int, now int64) (busy bool, idleSince int64) {
	idleSince = a.start
	for s := a.firstLive; s < len(a.sent); s++ {
		t := &a.sent[s]
		d := a.distFrom(t.src)[i]
		if d < 0 || t.start+d >= now {
			continue // data arriving at now is not seen before now has passed
		}
		if t.end+d > now {
			return true, 0
		}
		idleSince = max(idleSince, t.end+d)
	}
	return false, idleSince
}

// look is node i looking at the bus: it acts on what the idle time it has
// seen allows, or looks again when it will allow more.
func (a *afterInit) look(i int, now int64) {
	nd := &a.nodes[i]
	if nd.requesting {
		return
	}
	busy, since := a.view(i, now)
	if busy {
		return // the data's end has it look again (send)
	}
	idle := now - since
	if !nd.arbEnabled && idle >= int64(nd.gaps.ArbReset) {
		nd.arbEnabled = true
	}
	if nd.waitAck >= 0 && idle >= int64(nd.gaps.Subaction) {
		a.ackMissing(i)
	}
	var need int64 = -1
	var kind trafficKind
	switch {
	case i == a.master && a.cyclePending:
		need, kind = int64(nd.gaps.Subaction), sendCycleStart
	case nd.talker >= 0 && a.isoDue(i, now):
		if idle >= int64(nd.gaps.Subaction) {
			// The isochronous period ended before the talker won the bus.
			nd.isoCycle = a.sent[a.lastCycle].cycle
			a.res.Flows[nd.talker].Missed++
			a.look(i, now)
			return
		}
		need, kind = int64(nd.gaps.Iso), sendIso
	case nd.waitAck >= 0:
		need = int64(nd.gaps.Subaction) // to tell its acknowledgement missing
	case len(nd.queue) > 0 && nd.arbEnabled:
		need, kind = int64(nd.gaps.Subaction), sendAsync
	case len(nd.queue) > 0:
		need = int64(nd.gaps.ArbReset) // to have its arbitration enabled again
	default:
		return
	}
	if idle < need {
		a.poke(i, since+need)
		return
	}
	nd.requesting, nd.asking, nd.askedAt = true, kind, now
	a.note(now, i, "request "+[...]string{"async", "ack", "cycle start", "iso"}[kind])
	a.k.Schedule(now+a.distFrom(i)[nd.root]+a.respond(nd.root), afterEvent{kind: afRequest, node: int32(i)})
}

// isoDue reports whether talker i has seen this cycle's cycle start and not
// yet sent in it, while the isochronous period lasts: a subaction gap ends
// it.
func (a *afterInit) isoDue(i int, now int64) bool {
	nd := &a.nodes[i]
	if a.lastCycle < 0 || nd.isoCycle >= a.sent[a.lastCycle].cycle {
		return false
	}
	c := a.sent[a.lastCycle]
	return c.end+a.distFrom(c.src)[i] <= now
}

// ackMissing is the sender of an unacknowledged request seeing a
// subaction gap: it sends the request again in a later fairness interval,
// or gives it up.
func (a *afterInit) ackMissing(i int) {
	nd := &a.nodes[i]
	f := a.sent[nd.waitAck].flow
	nd.waitAck = -1
	if nd.tries > a.flows[f].retries {
		a.res.Flows[f].Failed++
		a.done(i, a.k.Now())
		return
	}
	a.res.Flows[f].Retries++
}

// done ends the request at the head of node i's queue; a flow that keeps
// one always waiting queues the next.
func (a *afterInit) done(i int, now int64) {
	nd := &a.nodes[i]
	f := nd.queue[0]
	nd.tries, nd.queue = 0, nd.queue[1:]
	if a.flows[f].every == 0 {
		a.k.Schedule(now, afterEvent{kind: afQueue, arg: int64(f)})
	}
	a.poke(i, now)
}

// request is node i's request reaching its root at now. A PHY that
// repeats data when the request reaches it denies it, as does a root that
// has granted another node whose data is not yet back: the denied node
// looks again once that data has passed it. Otherwise the root grants the
// bus.
func (a *afterInit) request(i int, now int64) {
	nd := &a.nodes[i]
	nd.requesting = false
	r := a.roots[nd.root]
	if r.granted >= 0 {
		r.waiting = append(r.waiting, i) // the winner's data is not sent yet
		a.res.Denied++
		return
	}
	if now <= r.holdUntil {
		a.deny(i, r.last)
		return
	}
	if s := a.passing(nd.root, now); s >= 0 {
		a.deny(i, s) // data reached the root while it answered
		return
	}
	for y, d := range a.distFrom(i) {
		if d >= 0 && a.onPath(i, y, nd.root) {
			if s := a.passing(y, nd.askedAt+d); s >= 0 {
				a.deny(i, s)
				return
			}
		}
	}
	r.granted = i
	a.note(now, nd.root, "grants "+a.w.topo.nodes[i].id)
	a.k.Schedule(now+a.distFrom(nd.root)[i]+a.respond(i), afterEvent{kind: afTransmit, node: int32(i)})
}

// respond is how long node i's PHY takes to answer an arbitration signal:
// the root a request, the requester its grant. fwsim takes its repeat
// delay [U]. Without it a node next to the root could take the bus before
// a leaf one hop further, which saw the bus idle a repeat delay later, has
// seen the arbitration reset gap: the leaf would miss its fairness
// interval.
func (a *afterInit) respond(i int) int64 { return int64(a.w.nodes[i].phy.Timing.RepeatDelay) }

// deny is node i's request denied by transmission s: it looks again when s
// has passed it.
func (a *afterInit) deny(i, s int) {

	a.res.Denied++
	t := a.sent[s]
	a.poke(i, max(a.k.Now(), t.end+a.distFrom(t.src)[i]))
}

// passing is the transmission passing node x at time at, -1 when none: a
// PHY arbitrating at the instant data reaches it takes the data.
func (a *afterInit) passing(x int, at int64) int {
	for s := a.firstLive; s < len(a.sent); s++ {
		t := &a.sent[s]
		if d := a.distFrom(t.src)[x]; d >= 0 && t.start+d <= at && t.end+d > at {
			return s
		}
	}
	return -1
}

// transmit is node i sending what it was granted the bus for.
func (a *afterInit) transmit(i int, now int64) {
	nd := &a.nodes[i]
	nd.requesting = false
	t := transmission{src: i, dst: -1, start: now, flow: -1, kind: nd.asking}
	switch nd.asking {
	case sendCycleStart:
		// A cycle start is a quadlet packet of four header quadlets and
		// its CRC, at S100, with priority.
		t.end, t.cycle = now+a.duration(8*20, phy.S100), a.cycle
		a.res.Cycles++
		delay := now - a.cycleDue
		a.res.CycleStartDelay.add(delay)
		a.res.Timeline[len(a.res.Timeline)-1].StartNs = now
		a.cyclePending = false
	case sendIso:
		fl := a.flows[nd.talker]
		t.flow, t.end = nd.talker, now+a.duration(8*(8+fl.size+crc(fl.size)), fl.speed)
		nd.isoCycle = a.sent[a.lastCycle].cycle
		a.res.Flows[nd.talker].Sent++
	case sendAsync:
		f := nd.queue[0]
		fl := a.flows[f]
		// A write request: four header quadlets, the header CRC, the
		// payload and its CRC; a ping: a PHY packet, its quadlet and the
		// quadlet's inverse, at S100.
		t.flow, t.dst, t.end = f, fl.to, now+a.duration(8*(20+fl.size+crc(fl.size)), fl.speed)
		if fl.ping {
			t.end = now + a.duration(64, phy.S100)
		}
		nd.arbEnabled = false
		nd.tries++
		a.res.Flows[f].Sent++
	}
	s := a.send(t)
	switch t.kind {
	case sendAsync:
		nd.waitAck = s
		a.k.Schedule(t.end+a.distFrom(i)[t.dst], afterEvent{kind: afDelivered, arg: int64(s)})
	case sendCycleStart:
		a.lastCycle = s
	}
	r := a.roots[nd.root]
	r.granted, r.holdUntil, r.last = -1, now+a.distFrom(i)[nd.root], s
	for _, w := range r.waiting {
		a.deny(w, s)
		a.res.Denied-- // counted when it waited
	}
	r.waiting = r.waiting[:0]
}

// crc is the bytes of a data block's CRC: none without a payload.
func crc(payload int) int {
	if payload == 0 {
		return 0
	}
	return 4
}

// duration is how long bits take at speed, with the data prefix and data
// end that frame every packet.
func (a *afterInit) duration(bits int, speed phy.Speed) int64 {
	t := a.w.nodes[0].phy.Timing
	rate := speed.BitsPerSecond(t.BaseRateBitsPerSecond)
	return int64(t.DataPrefix+t.DataEnd) + (int64(bits)*1e9+rate-1)/rate
}

// send puts t on the bus: it finds where it meets transmissions still
// passing, and has every node look at the bus once it has passed.
func (a *afterInit) send(t transmission) int {
	s := len(a.sent)
	for a.firstLive < s && a.sent[a.firstLive].end+a.reach[a.sent[a.firstLive].src]+a.maxGap < t.start {
		a.firstLive++
	}
	dt := a.distFrom(t.src)
	for o := a.firstLive; o < s; o++ {
		other := &a.sent[o]
		do := a.distFrom(other.src)
		meet, at := -1, int64(math.MaxInt64)
		for x := range a.nodes {
			if dt[x] < 0 || do[x] < 0 {
				continue
			}
			from := max(t.start+dt[x], other.start+do[x])
			if from < min(t.end+dt[x], other.end+do[x]) && from < at {
				meet, at = x, from
			}
		}
		if meet >= 0 {
			a.res.Collisions++
			t.meets = append(t.meets, meet)
			other.meets = append(other.meets, meet)
		}
	}
	if n := len(a.res.Timeline); n > 0 {
		line := &a.res.Timeline[n-1]
		line.Collisions += len(t.meets)
		switch t.kind {
		case sendIso:
			line.Iso++
		case sendAsync:
			line.Async++
		case sendAck:
			line.Acks++
		}
	}
	a.sent = append(a.sent, t)
	for x, d := range dt {
		if d >= 0 {
			a.poke(x, t.end+d)
		}
	}
	if a.w.opts.Observer != nil {
		what := a.describe(&t)
		for x, d := range dt {
			if d >= 0 {
				a.note(t.start+d, x, what)
				a.note(t.end+d, x, "idle")
			}
		}
		for _, m := range t.meets {
			a.note(t.start+dt[m], m, "collision: "+what+" meets another transmission")
		}
	}
	return s
}

// broken reports whether transmission s arrives broken at node x: it met
// another transmission at x or on its way there.
func (a *afterInit) broken(s, x int) bool {
	t := a.sent[s]
	return slices.ContainsFunc(t.meets, func(m int) bool { return a.onPath(t.src, m, x) })
}

// measure sums up the run from what was sent: the time each root saw data
// and the fairness intervals its arbitration reset gaps delimit.
func (a *afterInit) measure() {
	res := a.res
	for r := range a.roots {
		type span struct {
			from, to int64
			src      int
			async    bool
		}
		var spans []span
		for _, t := range a.sent {
			if d := a.distFrom(t.src)[r]; d >= 0 && t.start+d < a.end {
				spans = append(spans, span{t.start + d, min(t.end+d, a.end), t.src, t.kind == sendAsync})
			}
		}
		slices.SortFunc(spans, func(x, y span) int { return int(x.from - y.from) })
		// A node tells an arbitration reset gap from what has reached it,
		// so the root may see an idle time up to twice the bus's one-way
		// delay shorter than the node that saw the gap: an interval ends at
		// any idle time that long short of the shortest arbitration reset
		// gap, which every node's does.
		arbReset := int64(math.MaxInt64)
		for x := range a.nodes {
			if a.nodes[x].root == r {
				arbReset = min(arbReset, int64(a.nodes[x].gaps.ArbReset))
			}
		}
		arbReset -= 2 * (a.reach[r] + int64(a.w.nodes[r].phy.Timing.RepeatDelay))
		last := a.start
		perNode := map[int]int{}
		res.FairnessIntervals++
		for _, s := range spans {
			if s.from-last >= arbReset {
				res.FairnessIntervals++
				clear(perNode)
			}
			if s.async {
				perNode[s.src]++
				res.MostInOneInterval = max(res.MostInOneInterval, perNode[s.src])
			}
			if s.to > last {
				res.BusyNs += s.to - max(s.from, last)
				last = s.to
			}
		}
	}
	if d := a.end - a.start; d > 0 && len(a.roots) > 0 {
		res.Utilisation = float64(res.BusyNs) / float64(d*int64(len(a.roots)))
	}
}
