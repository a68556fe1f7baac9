package view

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view/player"
)

// ErrPageTooLarge is the error of a page of more events than a browser
// plays (player.MaxEvents).
var ErrPageTooLarge = player.ErrTooManyEvents

// WriteRunHTML writes the page that plays a run (fwsim run --html): the
// bus drawn as a tree, every state change, line state and self-ID packet
// of its trace on a time axis, each explained.
func WriteRunHTML(w io.Writer, source string, res *bus.Result, trace []bus.TraceEvent) error {
	p := RunPage(source, res, trace)
	return p.Write(w)
}

// RunPage is the player's page of a run and its trace.
func RunPage(source string, res *bus.Result, trace []bus.TraceEvent) *player.Page {
	b := newRunPage(res, trace)
	p := &player.Page{
		Title: "fwsim run: " + source,
		About: []string{fmt.Sprintf("seed %d, profile %s, %d generation%s, %d trace events; drag the slider, "+
			"or step with ← and →; a link to an instant ends in #t=NS", res.Seed, res.Profile, len(res.Generations), Plural(len(res.Generations)), len(trace))},
		Unit:   "ns",
		Nodes:  b.nodes,
		Edges:  b.edges,
		Phases: runPhases(res),
		End:    res.EndNs,
		Legend: runLegend,
	}
	root := -1
	if len(res.Generations) > 0 {
		if r, ok := b.index[res.Generations[0].Root]; ok {
			root = r
		}
	}
	p.LayoutTree(root)
	// The generations' milestones go in before the trace's events of a
	// later instant, so that badges change in time order.
	milestones := generationMilestones(res, b.index)
	for _, e := range trace {
		for len(milestones) > 0 && milestones[0].At < e.TimeNs {
			b.milestone(milestones[0])
			milestones = milestones[1:]
		}
		b.add(e)
	}
	for _, m := range milestones {
		b.milestone(m)
	}
	p.Events = b.events
	return p
}

var runLegend = []player.LegendEntry{
	{Class: "reset", Text: "reset (R0, R1), BUS_RESET"},
	{Class: "tree", Text: "tree identify (T0–T2), PARENT_NOTIFY"},
	{Class: "contention", Text: "root contention (T3)"},
	{Class: "child", Text: "CHILD_NOTIFY, IDENT_DONE"},
	{Class: "self", Text: "self identify (S0–S4)"},
	{Class: "data", Text: "DATA_PREFIX, DATA_END (a packet)"},
	{Class: "request", Text: "GRANT, REQUEST"},
	{Class: "idle", Text: "idle (A0)"},
}

// runPage turns a trace into the player's events.
type runPage struct {
	nodes []player.Node
	edges []player.Edge
	index map[string]int      // node id → Nodes
	ends  map[nodePort][2]int // a cabled port → its edge and side
	state map[string]phy.State
	peer  map[nodePort]nodePort
	badge map[string]string
	// waits gives, for a node's entry into T3 at an instant, its wait.
	waits  map[waitKey]string
	events []player.Event
}

type waitKey struct {
	node string
	at   int64 // ns since power-up
}

func newRunPage(res *bus.Result, trace []bus.TraceEvent) *runPage {
	b := &runPage{index: map[string]int{}, ends: map[nodePort][2]int{}, state: map[string]phy.State{},
		peer: map[nodePort]nodePort{}, badge: map[string]string{}, waits: map[waitKey]string{}}
	for _, g := range res.Generations {
		for _, c := range g.Contention {
			rounds := map[string]int{}
			for _, w := range c.Backoffs {
				rounds[w.Node]++
				peer := c.Nodes[0]
				if peer == w.Node {
					peer = c.Nodes[1]
				}
				b.waits[waitKey{w.Node, g.StartNs + w.StartNs}] = fmt.Sprintf("; round %d against %s: it waits %d ns (%s)",
					rounds[w.Node], peer, w.WaitNs, fastOrSlow(w.Fast))
			}
		}
	}
	for _, n := range bus.TracedNodes(res, trace) {
		b.index[n.ID] = len(b.nodes)
		b.state[n.ID] = n.State
		b.nodes = append(b.nodes, player.Node{ID: n.ID, State: n.State.String(), Class: stateClass(n.State)})
	}
	// Every cable some generation had, once: a port plugged into another
	// node later keeps its first cable on the page.
	for _, g := range res.Generations {
		for _, l := range g.Links {
			a, c := nodePort{l.Nodes[0], l.Ports[0]}, nodePort{l.Nodes[1], l.Ports[1]}
			if _, ok := b.ends[a]; ok {
				continue
			}
			ia, okA := b.index[a.node]
			ic, okC := b.index[c.node]
			if !okA || !okC {
				continue
			}
			b.ends[a], b.ends[c] = [2]int{len(b.edges), 0}, [2]int{len(b.edges), 1}
			b.peer[a], b.peer[c] = c, a
			b.edges = append(b.edges, player.Edge{A: ia, B: ic, PortA: "p" + strconv.Itoa(a.port), PortB: "p" + strconv.Itoa(c.port)})
		}
	}
	return b
}

// add turns one trace event into the page's.
func (b *runPage) add(e bus.TraceEvent) {
	n, ok := b.index[e.Node]
	if !ok {
		n = -1
	}
	at := e.TimeNs
	switch e.Kind {
	case bus.TraceState:
		b.state[e.Node] = e.ToState
		b.events = append(b.events, player.Event{At: at, Kind: player.SetState, Node: n, Edge: -1,
			Value: e.ToState.String(), Class: stateClass(e.ToState),
			Text: fmt.Sprintf("%s enters %s %s: %s%s", e.Node, e.ToState, e.ToState.LongName(), stateReason(e.ToState), b.waits[waitKey{e.Node, at}])})
	case bus.TraceTransmit, bus.TraceReceive:
		b.events = append(b.events, b.line(e, n))
	case bus.TracePacket:
		b.events = append(b.events, b.packet(e, n))
	case bus.TraceLink:
		b.events = append(b.events, player.Event{At: at, Kind: player.Note, Node: n, Edge: -1,
			Text: fmt.Sprintf("%s reports %s to its link", e.Node, e.Detail)})
	case bus.TraceBus:
		b.events = append(b.events, player.Event{At: at, Kind: player.Note, Node: n, Edge: -1,
			Text: fmt.Sprintf("%s on the bus: %s", e.Node, e.Detail)})
	default:
		b.events = append(b.events, player.Event{At: at, Kind: player.Note, Node: -1, Edge: -1, Text: "scenario: " + e.Detail})
	}
}

// line is a port's change of what it drives or receives.
func (b *runPage) line(e bus.TraceEvent, n int) player.Event {
	p := nodePort{e.Node, e.Port}
	st := b.state[e.Node]
	end, cabled := b.ends[p]
	ev := player.Event{At: e.TimeNs, Kind: player.Note, Node: n, Edge: -1}
	if cabled {
		ev.Edge, ev.Side = end[0], end[1]
	}
	if e.Kind == bus.TraceTransmit {
		name := txName(e.ToLine, st)
		if cabled {
			ev.Kind, ev.Value, ev.Class = player.Drive, name, lineClass(name)
		}
		ev.Text = fmt.Sprintf("%s drives %s on p%d: %s", e.Node, name, e.Port, txReason(name))
		if name == "IDLE" {
			ev.Text = fmt.Sprintf("%s stops driving p%d (IDLE)", e.Node, e.Port)
		}
		return ev
	}
	name := rxName(e.ToLine, st)
	if cabled {
		ev.Kind, ev.Value = player.Receive, name
	}
	from := ""
	if q, ok := b.peer[p]; ok {
		from = fmt.Sprintf(", from %s p%d", q.node, q.port)
	}
	ev.Text = fmt.Sprintf("%s receives %s on p%d%s", e.Node, name, e.Port, from)
	if name == "ROOT_CONTENTION" {
		ev.Text += ": both ends drive PARENT_NOTIFY, each asks the other to be its parent"
	}
	return ev
}

// packet is a self-ID packet reaching a PHY: its own (port -1) or one a
// port repeats to it.
func (b *runPage) packet(e bus.TraceEvent, n int) player.Event {
	q := e.Packet
	ev := player.Event{At: e.TimeNs, Kind: player.Note, Node: n, Edge: -1, Detail: fmt.Sprintf("0x%08x: %s", uint32(q), q)}
	if e.Port < 0 {
		ev.Text = fmt.Sprintf("%s sends its self-ID packet (phy_ID %d)", e.Node, q.PhyID())
		if !q.IsExtended() && n >= 0 {
			b.setBadge(e.TimeNs, e.Node, n, joinBadge(b.badge[e.Node], "phy "+strconv.Itoa(q.PhyID())))
		}
		return ev
	}
	ev.Text = fmt.Sprintf("%s receives the self-ID packet of phy_ID %d on p%d", e.Node, q.PhyID(), e.Port)
	return ev
}

func joinBadge(old, add string) string {
	if old == "root" {
		return "root · " + add
	}
	return add
}

func (b *runPage) setBadge(at int64, id string, n int, badge string) {
	b.badge[id] = badge
	b.events = append(b.events, player.Event{At: at, Kind: player.SetBadge, Node: n, Edge: -1, Value: badge,
		Text: fmt.Sprintf("%s is now %s", id, badge)})
}

// generationMilestones are each generation's milestones in time order: its
// badges cleared at its start, its root once tree identify is done, its
// outcome.
func generationMilestones(res *bus.Result, index map[string]int) []player.Event {
	var out []player.Event
	for _, g := range res.Generations {
		name := "generation " + strconv.Itoa(g.Index)
		for _, nr := range g.Nodes {
			if n, ok := index[nr.ID]; ok {
				out = append(out, player.Event{At: g.StartNs, Kind: player.SetBadge, Node: n, Edge: -1,
					Text: fmt.Sprintf("%s begins (%s): %s forgets its phy_ID", name, g.Cause.Kind, nr.ID)})
			}
		}
		if r, ok := index[g.Root]; ok && g.Timing.TreeIDDone >= 0 {
			out = append(out, player.Event{At: g.StartNs + g.Timing.TreeIDDone, Kind: player.SetBadge, Node: r, Edge: -1, Value: "root",
				Text: fmt.Sprintf("tree identify of %s is done: %s is the root", name, g.Root)})
		}
		if t := g.Timing.SelfIDDone; t >= 0 {
			out = append(out, player.Event{At: g.StartNs + t, Kind: player.Note, Node: -1, Edge: -1,
				Text: fmt.Sprintf("self identify of %s is done: %s", name, g.Outcome)})
		}
	}
	slices.SortStableFunc(out, func(x, y player.Event) int { return cmp.Compare(x.At, y.At) })
	return out
}

// milestone adds a generation's milestone, keeping the badges it sets.
func (b *runPage) milestone(m player.Event) {
	if m.Kind == player.SetBadge {
		b.badge[b.nodes[m.Node].ID] = m.Value
	}
	b.events = append(b.events, m)
}

// runPhases are each generation's reset, tree identify and self identify.
func runPhases(res *bus.Result) []player.Phase {
	var out []player.Phase
	for _, g := range res.Generations {
		group := "g" + strconv.Itoa(g.Index)
		start := g.StartNs
		for _, ph := range []struct {
			end         int64
			name, class string
		}{{g.Timing.ResetEnd, "reset", "reset"}, {g.Timing.TreeIDDone, "tree identify", "tree"}, {g.Timing.SelfIDDone, "self identify", "self"}} {
			end := g.EndNs
			if ph.end >= 0 {
				end = g.StartNs + ph.end
			}
			if end > start {
				out = append(out, player.Phase{Name: ph.name, Group: group, Start: start, End: end, Class: ph.class})
			}
			if ph.end < 0 {
				break
			}
			start = end
		}
	}
	return out
}

// stateClass colours a PHY state by its phase.
func stateClass(s phy.State) string {
	switch {
	case s == phy.R0ResetStart || s == phy.R1ResetWait:
		return "reset"
	case s == phy.T3RootContention:
		return "contention"
	case s >= phy.T0TreeIDStart && s <= phy.T2ParentHandshake:
		return "tree"
	case s >= phy.S0SelfIDStart && s <= phy.S4SelfIDTransmit:
		return "self"
	}
	return "idle"
}

// stateReason says what a PHY does in state s (docs/protocol.md §3).
func stateReason(s phy.State) string {
	switch s {
	case phy.R0ResetStart:
		return "a bus reset: it drives BUS_RESET on every connected port for RESET_TIME"
	case phy.R1ResetWait:
		return "it stops driving BUS_RESET and waits for every port to go idle"
	case phy.T0TreeIDStart:
		return "tree identify: it waits until all its connected ports but at most one have sent PARENT_NOTIFY"
	case phy.T1ChildHandshake:
		return "it accepts the ports that sent PARENT_NOTIFY as children and answers them with CHILD_NOTIFY"
	case phy.T2ParentHandshake:
		return "it asks the node on its one remaining port to be its parent, or, with none left, is the root"
	case phy.T3RootContention:
		return "root contention: it and the node on its parent port asked each other; it waits a random time, fast or slow, and listens again"
	case phy.S0SelfIDStart:
		return "self identify: it waits for a grant from its parent, or, as the root, starts granting"
	case phy.S1SelfIDGrant:
		return "it grants its lowest-numbered child that has not identified yet"
	case phy.S2SelfIDReceive:
		return "it receives and repeats a self-ID packet"
	case phy.S3SendSpeedCapabilities:
		return "it signals its speed to its parent"
	case phy.S4SelfIDTransmit:
		return "it sends its own self-ID packets, to every port"
	case phy.A0Idle:
		return "it is idle: initialisation is over for it"
	}
	return ""
}

// txName names what a PHY in state st drives: where one pair of signals
// has two meanings, the state tells which.
func txName(l phy.LineState, st phy.State) string {
	switch l {
	case phy.TxChildNotify:
		if st >= phy.T0TreeIDStart && st <= phy.T3RootContention {
			return "CHILD_NOTIFY"
		}
		return "IDENT_DONE"
	case phy.TxRequest:
		if st == phy.S1SelfIDGrant {
			return "GRANT"
		}
		return "REQUEST"
	}
	return l.TxName()
}

// rxName names what a PHY in state st receives, as txName does.
func rxName(l phy.LineState, st phy.State) string {
	tree := st >= phy.T0TreeIDStart && st <= phy.T3RootContention
	switch l {
	case phy.RxSelfIDGrant:
		if st == phy.S0SelfIDStart || st == phy.S2SelfIDReceive {
			return "SELF_ID_GRANT"
		}
		return "REQUEST"
	case phy.RxRootContention:
		if tree {
			return "ROOT_CONTENTION"
		}
		return "GRANT"
	case phy.RxParentHandshake:
		if tree {
			return "PARENT_HANDSHAKE"
		}
		return "DATA_END"
	}
	return l.RxName()
}

// lineClass colours a driven line state.
func lineClass(name string) string {
	switch name {
	case "BUS_RESET":
		return "busreset"
	case "PARENT_NOTIFY":
		return "notify"
	case "CHILD_NOTIFY", "IDENT_DONE":
		return "child"
	case "DATA_PREFIX", "DATA_END":
		return "data"
	case "GRANT", "REQUEST":
		return "request"
	}
	return ""
}

// txReason says why a PHY drives a line state.
func txReason(name string) string {
	switch name {
	case "BUS_RESET":
		return "the reset spreads to every port"
	case "PARENT_NOTIFY":
		return "all its other connected ports are its children, so it asks this one's node to be its parent"
	case "CHILD_NOTIFY":
		return "it accepts this port's node as its child"
	case "IDENT_DONE":
		return "it has sent its self-ID packets; its parent may grant the next child"
	case "GRANT":
		return "the child on this port may now send its self-ID packets"
	case "DATA_PREFIX":
		return "a packet follows"
	case "DATA_END":
		return "the packet has ended"
	case "REQUEST":
		return "it asks for the bus"
	}
	return "as its state machine says"
}
