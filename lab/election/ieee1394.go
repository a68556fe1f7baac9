package election

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// IEEE 1394 tree identify, run on the PHY model through bus.Run from a
// power-up reset (or a reset from the initiators). It is the tree algorithm
// from the leaves without IDs: the root is the node that ends up with no
// parent, and root contention on the last cable is broken by random
// back-offs. Its messages are what its PHYs send, counted as the other
// algorithms count theirs, from the wake-up to the end of tree identify:
//
//	BUS_RESET      the reset reaches a cable: the wake-up wave, one per
//	               cable (the first of its two ends to drive it; the other
//	               end's reset travels the same wire)
//	PARENT_NOTIFY  a port starts driving PARENT_NOTIFY during tree identify
//	               (again after every root-contention back-off)
//	CHILD_NOTIFY   a port starts driving CHILD_NOTIFY during tree identify:
//	               the parent's answer that completes a handshake
//
// When tree identify ends every node knows its parent port, the way to the
// root, which is all a node without an ID can know of its leader: the
// election is announced. Self identify, which comes after and builds the
// topology map no other algorithm builds, is neither counted nor timed. A
// root-contention back-off is a wait, not a message.
//
// Time covers the same span as the count: from the first BUS_RESET to the
// last node leaving tree identify, less the reset's hold, from the first
// BUS_RESET to the first node entering tree identify: RESET_TIME and
// RESET_WAIT, fixed timers of the standard (166.7 µs whatever the bus)
// that would drown the rest. The wake-up wave is timed before the hold,
// tree identify after it. The span is in
// delays, as the asynchronous algorithms' time: one delay is the longest
// cable's propagation plus a PHY's repeat delay (23 + 144 = 167 ns on 4.5 m
// cables), and Result.TimeNs keeps it in ns.
var ieee1394 = &algorithm{
	name:      "1394",
	summary:   "tree: IEEE 1394 tree identify on the PHY model, no IDs",
	needs:     needTree,
	mode:      Timed,
	only:      true,
	types:     treeIDTypes,
	init:      initAll,
	noIDs:     true,
	announces: always,
	direct:    run1394,
}

// treeIDTypes are 1394's message types, indexed by the constants below.
var treeIDTypes = []string{"BUS_RESET", "PARENT_NOTIFY", "CHILD_NOTIFY"}

const (
	tiBusReset = iota
	tiParentNotify
	tiChildNotify
)

// tiMessage is one message of a 1394 run, before the run tells which
// generation and which root it belongs to.
type tiMessage struct {
	typ  int
	at   int64  // ns on the bus's clock
	node string // the node that transmitted
	port int
}

func run1394(t *bus.Topology, g *netsim.Graph, o *Options, res *Result) error {
	state := map[string]phy.State{}
	var sent []tiMessage
	treeStart := int64(-1) // the first node entering tree identify
	observer := func(e bus.TraceEvent) {
		m := tiMessage{typ: -1, at: e.TimeNs, node: e.Node, port: e.Port}
		switch {
		case e.Kind == bus.TraceState:
			state[e.Node] = e.ToState
			if e.ToState == phy.T0TreeIDStart && treeStart < 0 {
				treeStart = e.TimeNs
			}
		case e.Kind == bus.TraceTransmit && e.ToLine == phy.TxBusReset:
			m.typ = tiBusReset
		case e.Kind == bus.TraceTransmit && state[e.Node] >= phy.T0TreeIDStart && state[e.Node] <= phy.T3RootContention:
			switch e.ToLine {
			case phy.TxParentNotify:
				m.typ = tiParentNotify
			case phy.TxChildNotify:
				m.typ = tiChildNotify
			}
		}
		if m.typ >= 0 {
			sent = append(sent, m)
		}
	}
	bo := bus.Options{Seed: o.Seed, AllowOutOfSpec: true, Observer: observer, Interrupt: o.Interrupt, Policy: o.Policy}
	if o.Policy != treeid.Coin {
		res.Policy = o.Policy.String()
	}
	if len(res.Initiators) < len(g.Nodes) {
		bo.Initiators = res.Initiators
	} else {
		// Every node starts, as the other algorithms' initiators do: a
		// power-up of every PHY at once.
		res.Initiators, bo.PowerUp = nil, bus.PowerUpAll
	}
	perDelay, err := nsPerDelay(t)
	if err != nil {
		return err
	}
	r, err := bus.Run(t, bo)
	if errors.Is(err, bus.ErrInterrupted) {
		return ErrInterrupted
	}
	if err != nil {
		return err
	}
	gen := r.Generations[0]
	span := treeIDSpan{start: sent[0].at, hold: treeStart - sent[0].at, end: max(gen.Timing.TreeIDDone, treeStart)}
	counts := make([]int, len(treeIDTypes))
	var trace []netsim.TraceEntry
	peers := newPeerNames(g)
	reset := map[[2]string]bool{} // the cables the reset has reached
	for _, m := range sent {
		at, ok := span.of(m.at)
		if !ok {
			continue // another generation's, or the reset's hold
		}
		if m.typ == tiBusReset {
			peer := peers.of(m.node, m.port)
			cable := [2]string{min(m.node, peer), max(m.node, peer)}
			if reset[cable] {
				continue
			}
			reset[cable] = true
		}
		counts[m.typ]++
		if o.Trace {
			d := toDelays(at, perDelay)
			trace = append(trace, netsim.TraceEntry{Sent: d, Arrived: d, From: m.node, To: peers.of(m.node, m.port),
				Type: treeIDTypes[m.typ], Payload: fmt.Sprintf("port %d, bus %d ns", m.port, m.at)})
		}
	}
	res.Messages = netsim.NewMessages(treeIDTypes, counts)
	res.TimeUnit, res.Trace, res.Announced, res.NsPerDelay = "delays", trace, true, perDelay
	res.TimeNs, res.Time = span.length(), toDelays(span.length(), perDelay)
	res.Leader = gen.Root
	if gen.Outcome != bus.OutcomeOK {
		res.NoLeader = fmt.Sprintf("tree identify ended %s: %s", gen.Outcome, strings.Join(gen.Problems, "; "))
	}
	root := map[string]bool{}
	for _, nr := range gen.Nodes {
		root[nr.ID] = nr.Root
	}
	for _, name := range g.Nodes {
		nr := NodeResult{Node: name, State: Follower, Leader: gen.Root}
		switch {
		case gen.Root == "":
			nr.State, nr.Leader = Undecided, ""
		case root[name]:
			nr.State = Leader
		}
		res.Nodes = append(res.Nodes, nr)
	}
	return nil
}

// treeIDSpan is what 1394's time covers, in ns on the bus's clock: from
// the first BUS_RESET to the last node leaving tree identify, less the
// reset's hold, from the first BUS_RESET to the first node entering tree
// identify.
type treeIDSpan struct {
	start, hold, end int64
}

// of is the time of a message sent at ns on the span's clock, and whether
// the span holds it: the wake-up wave before the hold, tree identify
// after it.
func (s treeIDSpan) of(ns int64) (int64, bool) {
	if ns < s.start+s.hold {
		return ns - s.start, ns >= s.start
	}
	return ns - s.start - s.hold, ns <= s.end
}

// length is the span's time in ns.
func (s treeIDSpan) length() int64 { return s.end - s.start - s.hold }

// toDelays is ns in delays of perDelay ns, to the thousandth of a delay
// (the other algorithms' tick).
func toDelays(ns int64, perDelay float64) float64 {
	return math.Round(float64(ns)/perDelay*netsim.TicksPerDelay) / netsim.TicksPerDelay
}

// nsPerDelay is 1394's message delay in ns: the longest cable's propagation
// (a cable of no stated length or delay is the standard's longest, 4.5 m)
// plus the repeat delay of the bus's profile, as the topology may override
// it. The other algorithms' delays are at most one unit, so one unit is
// the longest a signal takes from one PHY to the next.
func nsPerDelay(t *bus.Topology) (float64, error) {
	p, err := phy.LookupProfile(t.Profile)
	if err != nil {
		return 0, err
	}
	repeat := p.Timing.RepeatDelay
	if t.Timing != nil && t.Timing.RepeatDelay != nil {
		repeat = time.Duration(*t.Timing.RepeatDelay)
	}
	longest := 0.0
	for _, c := range t.Cables {
		d := phy.MaxCableLengthM * phy.CableNsPerMetre
		switch {
		case c.DelayNs != nil:
			d = *c.DelayNs
		case c.LengthM != nil:
			d = *c.LengthM * phy.CableNsPerMetre
		}
		longest = max(longest, math.Round(d))
	}
	return longest + float64(repeat.Nanoseconds()), nil
}

// peerNames names the node at the other end of a port: a trace of a bus of
// n nodes has n² self-ID arrivals, so a node is found by its name in a map,
// not by a search.
type peerNames struct {
	g      *netsim.Graph
	vertex map[string]int
}

func newPeerNames(g *netsim.Graph) *peerNames {
	p := &peerNames{g: g, vertex: make(map[string]int, len(g.Nodes))}
	for v, name := range g.Nodes {
		p.vertex[name] = v
	}
	return p
}

// of names the node at the other end of node's port, "" when nothing is
// cabled there.
func (p *peerNames) of(node string, port int) string {
	if v, ok := p.vertex[node]; ok {
		for _, h := range p.g.Adj[v] {
			if h.Port == port {
				return p.g.Nodes[h.Peer]
			}
		}
	}
	return ""
}
