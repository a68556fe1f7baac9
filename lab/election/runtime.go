package election

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// ticksPerDelay is the kernel's resolution: an asynchronous message takes
// 1 to ticksPerDelay ticks, and one time unit (the longest delay) is
// ticksPerDelay ticks.
const ticksPerDelay = 1000

// PCG streams derived from the seed, one per purpose, so that adding draws
// for one purpose does not shift another.
const (
	streamDelays = iota + 1
	streamIDs
	streamDirections
)

// msg is a message on the wire. Its fields mean what the algorithm says;
// value is usually an ID.
type msg struct {
	typ   uint8 // index into the algorithm's types
	value int64
	aux   int64
	list  []int64
	// back marks a token sent straight back over a loop, so that its sender
	// does not take the cable for a tree edge.
	back bool
}

type evKind uint8

const (
	evStart evKind = iota
	evDeliver
	evTimer
	evCrash
	evRecover
)

// event is a kernel payload: a node starts, receives a message on one of
// its ports, its timer fires, or it crashes or recovers.
type event struct {
	kind evKind
	node int32
	port int32
	// inc is the node's incarnation when the message was sent or the timer
	// set: one that crashed since has lost both.
	inc  int32
	sent int64
	m    msg
}

// process is one node's state machine. The runtime calls it; it answers by
// calling the net's send and setTimer and by updating its own status. No
// process sees the clock, the graph beyond its ports, or another process.
type process interface {
	// start: the node initiates (an external wake-up).
	start(n *net, v int)
	// receive: a message arrived on port (an index into the node's ports).
	receive(n *net, v, port int, m msg)
	// timeout: a timer fired; tag is what setTimerAt was given (zero for
	// setTimer).
	timeout(n *net, v int, tag msg)
	// status is the node's role and the leader it knows (-1: none).
	status() (NodeState, int)
}

// linkWatcher is a process that holds connections to its neighbours and
// learns at once when one breaks because the neighbour crashed, as a
// connection-oriented transport reports it. Processes that do not watch
// their links notice a crash only by silence.
type linkWatcher interface {
	linkDown(n *net, v, port int)
}

// base is the status part every process embeds.
type base struct {
	state  NodeState
	leader int // valid when known
	known  bool
}

func (b *base) timeout(*net, int, msg) {}

func (b *base) status() (NodeState, int) {
	if !b.known {
		return b.state, -1
	}
	return b.state, b.leader
}

// lead makes the node the leader v.
func (b *base) lead(v int) { b.state, b.leader, b.known = Leader, v, true }

// follow makes the node a follower of leader l.
func (b *base) follow(l int) { b.state, b.leader, b.known = Follower, l, true }

// relayLeader passes the announcement m of leader m.aux on over out and
// follows that leader, unless m is back at the leader, where it stops.
func (b *base) relayLeader(n *net, v, out int, m msg) {
	if m.value != n.ids[v] {
		b.follow(int(m.aux))
		n.send(v, out, m)
	}
}

// settle makes the node the leader when the leader l is itself, and a
// follower of l otherwise.
func (b *base) settle(v, l int) {
	if l == v {
		b.lead(v)
	} else {
		b.follow(l)
	}
}

// lose makes the node a follower that does not know the leader yet.
func (b *base) lose() {
	if b.state != Leader {
		b.state = Follower
	}
}

// net is one run: the graph, the processes and the kernel that delivers
// their messages.
type net struct {
	g     *Graph
	ring  *Ring // nil unless the graph is a ring
	ids   []int64
	opts  *Options
	algo  *algorithm
	procs []process

	k       bus.Kernel[event]
	sync    bool
	rng     *rand.Rand
	fifo    [][]int64 // per vertex and port: when the last message sent there arrives
	counts  []int
	awake   []bool
	crashed []bool
	inc     []int32 // per vertex: how often it crashed or recovered during the run
	last    int64   // kernel time of the last delivery or decision

	tracing bool
	trace   []TraceEntry
	// afterRound, when set, is called at the end of every synchronous round;
	// true stops the run.
	afterRound func(round int64) bool
	// done, when set, is asked after every event; true stops the run.
	done     func() bool
	symmetry string // what the anonymous ring's watcher found
	diam     int    // the graph's diameter, -1 until needed
	ranks    []int  // virtual-tree: the registry's order, nil until needed
}

// diameter is the graph's diameter, computed once per run.
func (n *net) diameter() int {
	if n.diam < 0 {
		n.diam = n.g.Diameter()
	}
	return n.diam
}

// send sends m from vertex v on its port. A message to a crashed node is
// counted and lost.
func (n *net) send(v, port int, m msg) {
	n.counts[m.typ]++
	h := n.g.Adj[v][port]
	now := n.k.Now()
	if n.crashed[h.Peer] {
		n.record(now, 0, v, h.Peer, m, true)
		return
	}
	var at int64
	if n.sync {
		at = (now/2 + 1) * 2 // the delivery phase of the next round
	} else {
		d := int64(ticksPerDelay)
		if !n.opts.UnitDelays {
			d = 1 + n.rng.Int64N(ticksPerDelay)
		}
		at = max(now+d, n.fifo[v][port]) // links are FIFO
		n.fifo[v][port] = at
	}
	n.record(now, at, v, h.Peer, m, false)
	n.k.Schedule(at, event{kind: evDeliver, node: int32(h.Peer), port: int32(h.PeerPort), inc: n.inc[h.Peer], sent: now, m: m})
}

// sendAll sends m on every port of v except skip (-1: none).
func (n *net) sendAll(v, skip int, m msg) {
	for p := range n.g.Adj[v] {
		if p != skip {
			n.send(v, p, m)
		}
	}
}

// setTimer fires v's timeout with tag after k message delays: in the timer
// phase of the k-th round from now, or just after k time units, so that a
// reply to a message sent now has surely arrived.
func (n *net) setTimer(v, k int, tag msg) {
	now := n.k.Now()
	at := now + int64(k)*ticksPerDelay + 1
	if n.sync {
		at = (now/2+int64(k))*2 + 1
	}
	n.setTimerAt(v, at, tag)
}

// setTimerAt fires v's timeout with tag at kernel time at.
func (n *net) setTimerAt(v int, at int64, tag msg) {
	n.k.Schedule(at, event{kind: evTimer, node: int32(v), inc: n.inc[v], m: tag})
}

// vertexOf is the vertex with ID id: nodes learn IDs from messages, and the
// Result names the node.
func (n *net) vertexOf(id int64) int { return slices.Index(n.ids, id) }

// units converts kernel time to the Result's unit.
func (n *net) units(t int64) float64 {
	if n.sync {
		return float64(t / 2)
	}
	return float64(t) / ticksPerDelay
}

// record traces m when Options.Trace asks for it; a lost message arrives
// at 0.
func (n *net) record(sent, arrived int64, from, to int, m msg, lost bool) {
	if !n.tracing {
		return
	}
	n.trace = append(n.trace, TraceEntry{Sent: n.units(sent), Arrived: n.units(arrived), Lost: lost,
		From: n.g.Nodes[from], To: n.g.Nodes[to], Type: n.algo.types[m.typ], Payload: payload(m)})
}

func payload(m msg) string {
	if m.list == nil {
		return strconv.FormatInt(m.value, 10)
	}
	parts := make([]string, len(m.list))
	for i, id := range m.list {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// offBus counts and traces a message between v and a party off the bus
// (a registry): sent by v when out, received by v otherwise.
func (n *net) offBus(v int, typ uint8, party string, out bool) {
	n.counts[typ]++
	if !n.tracing {
		return
	}
	now := n.units(n.k.Now())
	e := TraceEntry{Sent: now, Arrived: now, From: n.g.Nodes[v], To: party, Type: n.algo.types[typ]}
	if !out {
		e.From, e.To = party, n.g.Nodes[v]
	}
	n.trace = append(n.trace, e)
}

// lostOnArrival marks as lost the trace entry of a message that arrives
// at a node that crashed after it was sent.
func (n *net) lostOnArrival(ev event, at int64) {
	if !n.tracing {
		return
	}
	to := n.g.Nodes[ev.node]
	from := n.g.Nodes[n.g.Adj[ev.node][ev.port].Peer]
	sent, arrived := n.units(ev.sent), n.units(at)
	for i := len(n.trace) - 1; i >= 0; i-- {
		if e := &n.trace[i]; !e.Lost && e.To == to && e.From == from && e.Sent == sent && e.Arrived == arrived {
			e.Lost, e.Arrived = true, 0
			return
		}
	}
}

// interruptEvery is how many events a run processes between looks at
// Options.Interrupt: a fraction of a millisecond apart, and free.
const interruptEvery = 4096

// run delivers events until none is left (or afterRound stops the run).
// faults are crashes and recoveries during the run, in time order.
func (n *net) run(initiators []int, faults []fault) error {
	startAt := int64(0)
	if n.sync {
		startAt = 3 // the timer phase of round 1
	}
	for _, v := range initiators {
		n.k.Schedule(startAt, event{kind: evStart, node: int32(v)})
	}
	for _, f := range faults {
		kind := evCrash
		if f.recover {
			kind = evRecover
		}
		n.k.Schedule(f.at, event{kind: kind, node: int32(f.v)})
	}
	budget := n.opts.MaxEvents
	if budget == 0 {
		budget = DefaultMaxEvents
	}
	round := startAt / 2
	for {
		at, ok := n.k.PeekTime()
		if !ok {
			return nil
		}
		if n.sync && n.afterRound != nil && at/2 > round {
			if n.afterRound(round) {
				return nil
			}
			round = at / 2
		}
		if n.opts.Interrupt != nil && n.k.Processed()%interruptEvery == 0 {
			select {
			case <-n.opts.Interrupt:
				return ErrInterrupted
			default:
			}
		}
		if n.k.Processed() >= budget {
			return fmt.Errorf("%w: %s used up its budget of %d events", ErrNoTermination, n.algo.name, budget)
		}
		_, ev, _ := n.k.Next()
		v := int(ev.node)
		switch {
		case ev.kind == evCrash:
			n.crashed[v] = true
			n.inc[v]++
			for _, h := range n.g.Adj[v] {
				if w, ok := n.procs[h.Peer].(linkWatcher); ok && !n.crashed[h.Peer] {
					w.linkDown(n, h.Peer, h.PeerPort)
				}
			}
			continue
		case ev.kind == evRecover:
			// A recovered node remembers nothing and starts afresh, as an
			// initiator.
			n.crashed[v] = false
			n.inc[v]++
			n.procs[v] = n.algo.newProc(n, v)
			ev.kind = evStart
		case ev.inc != n.inc[v]:
			if ev.kind == evDeliver {
				n.lostOnArrival(ev, at)
			}
			continue
		}
		p := n.procs[v]
		before, _ := p.status()
		switch ev.kind {
		case evStart:
			n.awake[v] = true
			p.start(n, v)
		case evDeliver:
			n.awake[v] = true
			n.last = at
			p.receive(n, v, int(ev.port), ev.m)
		case evTimer:
			p.timeout(n, v, ev.m)
		}
		if after, _ := p.status(); after != before {
			n.last = max(n.last, at)
		}
		if n.done != nil && n.done() {
			return nil
		}
	}
}
