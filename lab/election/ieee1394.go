package election

import (
	"errors"
	"fmt"
	"strings"

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
// algorithms count theirs, wake-up and announcement included:
//
//	BUS_RESET      a port starts driving BUS_RESET: the wake-up wave (every
//	               PHY repeats it on all its ports, so 2 per cable)
//	PARENT_NOTIFY  a port starts driving PARENT_NOTIFY during tree identify
//	               (again after every root-contention back-off)
//	CHILD_NOTIFY   a port starts driving CHILD_NOTIFY during tree identify:
//	               the parent's answer that completes a handshake
//	SELF_ID        the root's self-ID packet reaches a node: the
//	               announcement wave, as the root speaks last in self
//	               identify and its packet tells every node the root
//
// A root-contention back-off is a wait, not a message, and the other
// nodes' self-ID packets build the topology map, which no other algorithm
// does: neither is counted. Time is from the end of the bus reset (the last
// node entering tree identify) to the last node leaving it, in ns: the
// reset lasts a fixed timer, not a propagation, that would drown the rest.
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
var treeIDTypes = []string{"BUS_RESET", "PARENT_NOTIFY", "CHILD_NOTIFY", "SELF_ID"}

const (
	tiBusReset = iota
	tiParentNotify
	tiChildNotify
	tiSelfID
)

// tiMessage is one message of a 1394 run, before the run tells which
// generation and which root it belongs to.
type tiMessage struct {
	typ    int
	at     int64
	packet phy.SelfID // SELF_ID: the packet
	node   string     // the node that transmitted or, for SELF_ID, received
	port   int
}

// entry is m as a trace shows it, the peer at the far end of its port
// named by peers.
func (m tiMessage) entry(peers *peerNames) netsim.TraceEntry {
	e := netsim.TraceEntry{Sent: float64(m.at), Arrived: float64(m.at), From: m.node,
		To: peers.of(m.node, m.port), Type: treeIDTypes[m.typ], Payload: "port " + fmt.Sprint(m.port)}
	if m.typ == tiSelfID { // the packet arrived: the sender is at the far end
		e.From, e.To, e.Payload = e.To, m.node, fmt.Sprintf("%08x", uint32(m.packet))
	}
	return e
}

func run1394(t *bus.Topology, g *netsim.Graph, o *Options, res *Result) error {
	state := map[string]phy.State{}
	var sent []tiMessage
	observer := func(e bus.TraceEvent) {
		m := tiMessage{typ: -1, at: e.TimeNs}
		switch {
		case e.Kind == bus.TraceState:
			state[e.Node] = e.ToState
		case e.Kind == bus.TraceTransmit && e.ToLine == phy.TxBusReset:
			m.typ = tiBusReset
		case e.Kind == bus.TraceTransmit && state[e.Node] >= phy.T0TreeIDStart && state[e.Node] <= phy.T3RootContention:
			switch e.ToLine {
			case phy.TxParentNotify:
				m.typ = tiParentNotify
			case phy.TxChildNotify:
				m.typ = tiChildNotify
			}
		case e.Kind == bus.TracePacket && e.Port >= 0:
			// Only the root's first packet counts, and the root of a
			// connected bus of n nodes takes phy_ID n−1: the n² other
			// arrivals are not kept (a bus of 16,384 nodes has 2^28).
			if e.Packet.IsExtended() || e.Packet.PhyID() != len(g.Nodes)-1 {
				return
			}
			m.typ, m.packet = tiSelfID, e.Packet
		}
		if m.typ < 0 {
			return
		}
		m.node, m.port = e.Node, e.Port
		sent = append(sent, m)
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
	r, err := bus.Run(t, bo)
	if errors.Is(err, bus.ErrInterrupted) {
		return ErrInterrupted
	}
	if err != nil {
		return err
	}
	gen := r.Generations[0]
	root := map[string]bool{}
	rootID := -1
	for _, nr := range gen.Nodes {
		root[nr.ID] = nr.Root
		if nr.Root {
			rootID = nr.PhyID
		}
	}
	counts := make([]int, len(treeIDTypes))
	var trace []netsim.TraceEntry
	peers := newPeerNames(g)
	for _, m := range sent {
		// Only the first generation's own messages, and of self identify
		// only the root's first packet.
		if m.at > gen.EndNs || m.typ == tiSelfID && (m.packet.IsExtended() || m.packet.PhyID() != rootID) {
			continue
		}
		counts[m.typ]++
		if o.Trace {
			trace = append(trace, m.entry(peers))
		}
	}
	res.Messages = netsim.NewMessages(treeIDTypes, counts)
	res.TimeUnit, res.Trace, res.Announced = "ns", trace, true
	if gen.Timing.TreeIDDone >= 0 && gen.Timing.ResetEnd >= 0 {
		res.Time = float64(gen.Timing.TreeIDDone - gen.Timing.ResetEnd)
	}
	res.Leader = gen.Root
	if gen.Outcome != bus.OutcomeOK {
		res.NoLeader = fmt.Sprintf("tree identify ended %s: %s", gen.Outcome, strings.Join(gen.Problems, "; "))
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
