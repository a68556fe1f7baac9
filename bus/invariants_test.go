package bus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The invariants below hold for every run, whatever happens at whatever
// instant (docs/protocol.md §1, §4, §7). The property tests, the scenario
// fuzz target and the examples of the issue tracker all check a run
// through runProblems.

// runProblems lists every way res and its trace break the invariants; none
// for a correct run.
func runProblems(topo *Topology, res *Result, trace []TraceEvent) []string {
	var problems []string
	for _, g := range res.Generations {
		problems = append(problems, phaseProblems(g, trace)...)
		if g.Outcome == OutcomeConfigTimeout {
			problems = append(problems, configTimeoutProblems(topo, g, trace)...)
			continue
		}
		problems = append(problems, generationProblems(g)...)
	}
	problems = append(problems, shortResetProblems(topo, res, trace)...)
	return append(problems, traceProblems(trace)...)
}

// configTimeoutProblems checks a generation that ended in CONFIG_TIMEOUT on
// a loop-free topology. That is the protocol's own outcome when the node
// that timed out waited in T0 for neighbours that had not yet left theirs: a
// reset restarted while the others were still in R0 ends up to RESET_TIME
// later, and force root holds a node in T0 longer still. So when it timed
// out, every neighbour across a port that is not the node's child must not
// have sent PARENT_NOTIFY yet: it is in R0, R1, T0 or T1, or it entered T2
// so recently that its PARENT_NOTIFY is still on the cable. One further on
// would mean a lost line state. Cables a scripted disconnect removes are
// left out: whether they were still there is not known here.
func configTimeoutProblems(topo *Topology, g Generation, trace []TraceEvent) []string {
	where := fmt.Sprintf("generation %d at %d ns (%s)", g.Index, g.StartNs, g.Cause)
	if len(g.Problems) == 0 {
		return []string{where + ": config-timeout without a problem"}
	}
	id, _, _ := strings.Cut(g.Problems[0], ":") // ids hold no ':'
	byID := map[string]NodeResult{}
	for _, n := range g.Nodes {
		byID[n.ID] = n
	}
	timedOut, ok := byID[id]
	if !ok || timedOut.State != phy.T0TreeIDStart {
		return []string{fmt.Sprintf("%s: %q timed out, but it is not a node in T0 here: %v", where, id, g.Problems)}
	}
	cables := slices.Clone(topo.Cables)
	removed := map[Cable]bool{}
	for _, e := range topo.Events {
		if e.Connect != nil {
			cables = append(cables, *e.Connect)
		}
		if e.Disconnect != nil {
			removed[Cable{From: e.Disconnect.From, To: e.Disconnect.To}] = true
		}
	}
	var problems []string
	for _, c := range cables {
		if removed[Cable{From: c.From, To: c.To}] {
			continue
		}
		for _, ends := range [][2]string{{c.From, c.To}, {c.To, c.From}} {
			node, port, _ := strings.Cut(ends[0], ":")
			peerID, _, _ := strings.Cut(ends[1], ":")
			p, err := strconv.Atoi(port)
			if node != id || err != nil || timedOut.Ports[p] == phy.PortChild {
				continue
			}
			peer, in := byID[peerID]
			if !in || slices.Contains([]phy.State{phy.R0ResetStart, phy.R1ResetWait, phy.T0TreeIDStart, phy.T1ChildHandshake}, peer.State) ||
				peer.State == phy.T2ParentHandshake && g.EndNs-stateSince(trace, peerID, g.EndNs) <= inFlightNs {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s timed out in T0 at %d ns while its neighbour on port %d, %s, was in %s: it should have sent PARENT_NOTIFY", where, id, g.EndNs, p, peerID, peer.State))
		}
	}
	return problems
}

// phaseProblems checks that a generation reports a phase time only for a
// phase every member finished (docs/timing.md): by the reset end every node
// entered T0, and by the end of tree identify S0, each since its last R0
// entry; and that an ok generation reports both.
func phaseProblems(g Generation, trace []TraceEvent) []string {
	where := fmt.Sprintf("generation %d at %d ns (%s)", g.Index, g.StartNs, g.Cause)
	var problems []string
	for _, phase := range []struct {
		name  string
		at    int64
		state phy.State
	}{{"reset end", g.Timing.ResetEnd, phy.T0TreeIDStart}, {"tree identify", g.Timing.TreeIDDone, phy.S0SelfIDStart}} {
		if phase.at < 0 {
			if g.Outcome == OutcomeOK {
				problems = append(problems, fmt.Sprintf("%s: ok, but no %s time", where, phase.name))
			}
			continue
		}
		end := g.StartNs + phase.at
		for _, n := range g.Nodes {
			entered := false
			for _, e := range trace {
				if e.TimeNs > end {
					break
				}
				// A reset at the phase's last instant began after it (it
				// ended the generation).
				if e.Kind == TraceState && e.Node == n.ID && !(e.TimeNs == end && e.ToState == phy.R0ResetStart) {
					entered = e.ToState == phase.state || entered && e.ToState != phy.R0ResetStart
				}
			}
			if !entered {
				problems = append(problems, fmt.Sprintf("%s: %s at %d ns, but %s had not entered %s since its last reset", where, phase.name, end, n.ID, phase.state))
			}
		}
	}
	return problems
}

// inFlightNs bounds how long a PARENT_NOTIFY can take to reach the next PHY's
// evaluation: the longest cable the standard allows (22.7 ns) and a clock
// cycle of the slowest clock a scenario uses (40.7 ns), with room to spare.
const inFlightNs = 100

// stateSince is when node last changed state at or before ns, by the trace.
func stateSince(trace []TraceEvent, node string, ns int64) int64 {
	since := int64(-1)
	for _, e := range trace {
		if e.TimeNs > ns {
			break
		}
		if e.Kind == TraceState && e.Node == node {
			since = e.TimeNs
		}
	}
	return since
}

// generationProblems checks one generation: it ended ok or was interrupted by
// a later reset, and an ok one is a tree whose phy_IDs follow the post-order
// walk of its cables, children in ascending port order.
func generationProblems(g Generation) []string {
	where := fmt.Sprintf("generation %d at %d ns (%s)", g.Index, g.StartNs, g.Cause)
	switch g.Outcome {
	case OutcomeInterrupted:
		return nil
	case OutcomeOK:
	default:
		return []string{fmt.Sprintf("%s ended %s: %v", where, g.Outcome, g.Problems)}
	}
	byID := map[string]NodeResult{}
	var root string
	for _, n := range g.Nodes {
		byID[n.ID] = n
		if n.Root {
			if root != "" {
				return []string{fmt.Sprintf("%s: two roots, %s and %s", where, root, n.ID)}
			}
			root = n.ID
		}
	}
	if root == "" || root != g.Root {
		return []string{fmt.Sprintf("%s: root %q, nodes say %q", where, g.Root, root)}
	}
	// child[node][port] is the node on that port's far end when the port is
	// a child port.
	child := map[string]map[int]string{}
	for _, l := range g.Links {
		a, b := byID[l.Nodes[0]], byID[l.Nodes[1]]
		if a.Ports == nil || b.Ports == nil {
			return []string{fmt.Sprintf("%s: link %v joins a node outside the generation", where, l)}
		}
		sa, sb := a.Ports[l.Ports[0]], b.Ports[l.Ports[1]]
		switch {
		case sa == phy.PortChild && sb == phy.PortParent:
			addChild(child, a.ID, l.Ports[0], b.ID)
		case sa == phy.PortParent && sb == phy.PortChild:
			addChild(child, b.ID, l.Ports[1], a.ID)
		default:
			return []string{fmt.Sprintf("%s: link %v has ends %s and %s", where, l, sa, sb)}
		}
	}
	next, problems := 0, []string(nil)
	var walk func(id string)
	walk = func(id string) {
		ports := make([]int, 0, len(child[id]))
		for p := range child[id] {
			ports = append(ports, p)
		}
		slices.Sort(ports)
		for _, p := range ports {
			walk(child[id][p])
		}
		if got := byID[id].PhyID; got != next {
			problems = append(problems, fmt.Sprintf("%s: %s has phy_ID %d, the post-order walk gives %d", where, id, got, next))
		}
		next++
	}
	walk(root)
	if next != len(g.Nodes) {
		problems = append(problems, fmt.Sprintf("%s: the tree from %s reaches %d of %d nodes", where, root, next, len(g.Nodes)))
	}
	if len(g.SelfIDs) < len(g.Nodes) || g.Tree == nil || len(g.Tree.Nodes) != len(g.Nodes) {
		problems = append(problems, fmt.Sprintf("%s: %d self-ID quadlets for %d nodes", where, len(g.SelfIDs), len(g.Nodes)))
	}
	return problems
}

func addChild(child map[string]map[int]string, parent string, port int, id string) {
	if child[parent] == nil {
		child[parent] = map[int]string{}
	}
	child[parent][port] = id
}

// traceProblems checks the rules a conformance author reads off a trace: a
// PHY drives at most one line state per port per instant, and CHILD_NOTIFY
// goes only to ports whose PARENT_NOTIFY arrived in T0 (before T0 counts:
// it is still there on entry) or that won the root contention in T3.
func traceProblems(trace []TraceEvent) []string {
	type portKey struct {
		node string
		port int
	}
	var problems []string
	state := map[string]phy.State{}
	rx := map[portKey]phy.LineState{}
	mayAck := map[portKey]bool{}
	lastTx := map[portKey]int64{}
	markNotifying := func(node string) {
		for k, l := range rx {
			if k.node == node && l == phy.RxParentNotify {
				mayAck[k] = true
			}
		}
	}
	for _, e := range trace {
		k := portKey{e.Node, e.Port}
		switch e.Kind {
		case TraceState:
			from := state[e.Node]
			state[e.Node] = e.ToState
			switch {
			case e.ToState == phy.R0ResetStart:
				for p := range mayAck {
					if p.node == e.Node {
						delete(mayAck, p)
					}
				}
			case e.ToState == phy.T0TreeIDStart, from == phy.T3RootContention && e.ToState == phy.T1ChildHandshake:
				markNotifying(e.Node)
			}
		case TraceReceive:
			rx[k] = e.ToLine
			if e.ToLine == phy.RxParentNotify && state[e.Node] == phy.T0TreeIDStart {
				mayAck[k] = true
			}
		case TraceTransmit:
			if t, ok := lastTx[k]; ok && t == e.TimeNs {
				problems = append(problems, fmt.Sprintf("%d ns: %s drives two line states on port %d at one instant (the second %s)", e.TimeNs, e.Node, e.Port, e.ToLine.TxName()))
			}
			lastTx[k] = e.TimeNs
			if s := state[e.Node]; e.ToLine == phy.TxChildNotify && s.InTreeID() && !mayAck[k] {
				problems = append(problems, fmt.Sprintf("%d ns: %s in %s sends CHILD_NOTIFY on port %d, whose PARENT_NOTIFY did not arrive in T0", e.TimeNs, e.Node, s, e.Port))
			}
		}
	}
	return problems
}
