package view

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/view/player"
)

// LabRun names a lab's run for its page.
type LabRun struct {
	Command, Algo, Source string
	Seed                  uint64
	// TimeUnit is the unit of the trace's times: delays or rounds.
	TimeUnit string
	// Down lists the nodes crashed before the run began (bully's old
	// coordinator).
	Down []string
}

// WriteLabHTML writes the page that plays a lab's run (elect, mutex and
// multicast --html): the graph, every message in flight, and what each
// node did, on a time axis.
func WriteLabHTML(w io.Writer, run LabRun, g *netsim.Graph, trace []netsim.TraceEntry) error {
	return LabPage(run, g, trace).Write(w)
}

// labScale counts a lab's times in thousandths of its unit, the precision
// its flags take.
const labScale = 1000

// LabPage is the player's page of a lab's run and its trace.
func LabPage(run LabRun, g *netsim.Graph, trace []netsim.TraceEntry) *player.Page {
	p := &player.Page{
		Title: fmt.Sprintf("fwsim %s --algo %s: %s", run.Command, run.Algo, run.Source),
		About: []string{fmt.Sprintf("seed %d, time in %s, %d messages and node events; drag the slider, "+
			"or step with ← and →; a link to an instant ends in #t=T, T in thousandths of a %s",
			run.Seed, run.TimeUnit, len(trace), singular(run.TimeUnit))},
		Unit:   run.TimeUnit,
		Scale:  labScale,
		Legend: labLegend,
	}
	edgeOf := map[[2]int]int{}
	for v, halves := range g.Adj {
		node := player.Node{ID: g.Nodes[v], State: "-", Class: "idle"}
		if slices.Contains(run.Down, node.ID) {
			node.State, node.Class = "crashed", "crashed"
		}
		p.Nodes = append(p.Nodes, node)
		for _, h := range halves {
			if v < h.Peer {
				edgeOf[[2]int{v, h.Peer}] = len(p.Edges)
				p.Edges = append(p.Edges, player.Edge{A: v, B: h.Peer})
			}
		}
	}
	if len(p.Edges) == len(p.Nodes)-1 {
		p.LayoutTree(0)
	} else {
		p.LayoutCircle()
	}
	index := map[string]int{}
	for i, id := range g.Nodes {
		index[id] = i
	}
	delivered := map[string]int{}
	for _, e := range trace {
		at := labTime(e.Sent)
		n, ok := index[e.From]
		if !ok {
			n = -1
		}
		if e.Event != "" {
			p.Events = append(p.Events, labNodeEvent(e, at, n, delivered))
			continue
		}
		p.Events = append(p.Events, labMessage(e, at, index, edgeOf)...)
	}
	slices.SortStableFunc(p.Events, func(x, y player.Event) int { return cmp.Compare(x.At, y.At) })
	p.Phases = unitPhases(p.Events, singular(run.TimeUnit))
	return p
}

var labLegend = []player.LegendEntry{
	{Class: "idle", Text: "no event yet (-), or out of its critical section"},
	{Class: "tree", Text: "started"},
	{Class: "message", Text: "a message on its way"},
	{Class: "leader", Text: "decided: leader"},
	{Class: "ok", Text: "decided otherwise, or a group member"},
	{Class: "critical", Text: "in its critical section"},
	{Class: "crashed", Text: "crashed"},
}

func singular(unit string) string {
	if unit == "rounds" {
		return "round"
	}
	return "delay"
}

// labTime is a lab's time in thousandths of its unit.
func labTime(t float64) int64 { return int64(math.Round(t * labScale)) }

// labMessage is a message sent, and, unless lost, its arrival.
func labMessage(e netsim.TraceEntry, at int64, index map[string]int, edgeOf map[[2]int]int) []player.Event {
	what := e.Type
	if e.Payload != "" {
		what += "(" + e.Payload + ")"
	}
	from, to := index[e.From], index[e.To]
	edge, side := -1, 0
	if i, ok := edgeOf[[2]int{min(from, to), max(from, to)}]; ok {
		edge = i
		if from > to {
			side = 1
		}
	}
	if e.Lost {
		return []player.Event{{At: at, Kind: player.Note, Node: from, Edge: -1,
			Text: fmt.Sprintf("%s sends %s to %s: lost, %s has crashed", e.From, what, e.To, e.To)}}
	}
	arrive := labTime(e.Arrived)
	sent := player.Event{At: at, Kind: player.Message, Node: from, Edge: edge, Side: side, Value: what, Class: "message", Until: arrive,
		Text: fmt.Sprintf("%s sends %s to %s, which it reaches at %s", e.From, what, e.To, formatLabTime(arrive))}
	if edge < 0 {
		sent.Kind = player.Note // no link between them to draw it on
	}
	return []player.Event{sent, {At: arrive, Kind: player.Note, Node: to, Edge: -1,
		Text: fmt.Sprintf("%s receives %s from %s", e.To, what, e.From)}}
}

func formatLabTime(t int64) string { return strconv.FormatFloat(float64(t)/labScale, 'f', -1, 64) }

// labNodeEvent is what a node did: its state, badge or a note.
func labNodeEvent(e netsim.TraceEntry, at int64, n int, delivered map[string]int) player.Event {
	ev := player.Event{At: at, Kind: player.SetState, Node: n, Edge: -1}
	set := func(state, class, text string) player.Event {
		ev.Value, ev.Class, ev.Text = state, class, e.From+" "+text
		if n < 0 {
			ev.Kind = player.Note
		}
		return ev
	}
	switch e.Event {
	case netsim.EventStart:
		return set("started", "tree", "starts")
	case netsim.EventCrash:
		return set("crashed", "crashed", "crashes: it stops, and every message to it is lost")
	case netsim.EventRecover:
		return set("recovered", "tree", "recovers, remembering nothing")
	case netsim.EventDecide:
		class := "ok"
		if e.Type == "LEADER" {
			class = "leader"
		}
		return set(e.Type, class, "decides: "+e.Type)
	case netsim.EventEnter:
		return set("in CS", "critical", "enters its critical section")
	case netsim.EventExit:
		return set("out", "idle", "leaves its critical section")
	case netsim.EventJoin:
		return set("member", "ok", "joins the group")
	case netsim.EventLeave:
		return set("left", "idle", "leaves the group")
	case netsim.EventDeliver:
		delivered[e.From]++
		ev.Kind, ev.Value = player.SetBadge, fmt.Sprintf("delivered %d", delivered[e.From])
		ev.Text = fmt.Sprintf("%s delivers %s %s to its application", e.From, e.Type, e.Payload)
		return ev
	}
	ev.Kind = player.Note
	ev.Text = fmt.Sprintf("%s: %s %s %s", e.From, e.Event, e.Type, e.Payload)
	return ev
}

// unitPhases marks every round of a synchronous run, or every delay of an
// asynchronous one, up to 200 of them.
func unitPhases(events []player.Event, unit string) []player.Phase {
	if len(events) == 0 {
		return nil
	}
	last := events[len(events)-1].At / labScale
	if last > 200 {
		return nil
	}
	var out []player.Phase
	for k := range last + 1 {
		out = append(out, player.Phase{Name: unit + " " + strconv.FormatInt(k, 10), Start: k * labScale, End: (k + 1) * labScale,
			Class: "band" + strconv.FormatInt(k%2, 10)})
	}
	return out
}
