package election

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// IEEE 1394 tree identify, run on the PHY model through bus.Run from a
// power-up reset (or a reset from the initiators). It is the tree algorithm
// from the leaves without IDs: the root is the node that ends up with no
// parent, and root contention on the last cable is broken by random
// back-offs. Its messages are line states held on a cable:
//
//	PARENT_NOTIFY    a port starts driving PARENT_NOTIFY during tree
//	                 identify (again after every root-contention back-off)
//	CHILD_NOTIFY     a port starts driving CHILD_NOTIFY during tree
//	                 identify: the parent's answer that completes a handshake
//	ROOT_CONTENTION  a node waits out one root-contention back-off: the
//	                 signal both ends read when two PARENT_NOTIFYs cross
//
// Time is from the end of the bus reset (the last node entering tree
// identify) to the last node leaving it, in ns. Self identify then tells
// every node the root, so the outcome is announced.
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
var treeIDTypes = []string{"PARENT_NOTIFY", "CHILD_NOTIFY", "ROOT_CONTENTION"}

const (
	tiParentNotify = iota
	tiChildNotify
	tiContention
)

func run1394(t *bus.Topology, g *Graph, o *Options, res *Result) error {
	counts := make([]int, len(treeIDTypes))
	state := map[string]phy.State{}
	var trace []TraceEntry
	observer := func(e bus.TraceEvent) {
		switch e.Kind {
		case bus.TraceState:
			state[e.Node] = e.ToState
		case bus.TraceTransmit:
			s := state[e.Node]
			if s < phy.T0TreeIDStart || s > phy.T3RootContention {
				return
			}
			typ := -1
			switch e.ToLine {
			case phy.TxParentNotify:
				typ = tiParentNotify
			case phy.TxChildNotify:
				typ = tiChildNotify
			}
			if typ < 0 {
				return
			}
			counts[typ]++
			if o.Trace {
				trace = append(trace, TraceEntry{Sent: float64(e.TimeNs), Arrived: float64(e.TimeNs), From: e.Node,
					To: peerOf(g, e.Node, e.Port), Type: treeIDTypes[typ], Payload: "port " + fmt.Sprint(e.Port)})
			}
		}
	}
	bo := bus.Options{Seed: o.Seed, AllowOutOfSpec: true, Observer: observer}
	if len(res.Initiators) < len(g.Nodes) {
		bo.Initiators = res.Initiators
	} else {
		res.Initiators = nil // power-up: every PHY
	}
	r, err := bus.Run(t, bo)
	if err != nil {
		return err
	}
	gen := r.Generations[0]
	for _, c := range gen.Contention {
		counts[tiContention] += len(c.Backoffs)
	}
	res.Messages = countMessages(treeIDTypes, counts)
	res.TimeUnit, res.Trace, res.Announced = "ns", trace, true
	if gen.Timing.TreeIDDone >= 0 && gen.Timing.ResetEnd >= 0 {
		res.Time = float64(gen.Timing.TreeIDDone - gen.Timing.ResetEnd)
	}
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

// peerOf names the node at the other end of node's port, "" when nothing
// is cabled there.
func peerOf(g *Graph, node string, port int) string {
	if v := slices.Index(g.Nodes, node); v >= 0 {
		for _, h := range g.Adj[v] {
			if h.Port == port {
				return g.Nodes[h.Peer]
			}
		}
	}
	return ""
}
