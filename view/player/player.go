package player

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
)

// Page is one run to play: what the graph is, and every change to it in
// time order.
type Page struct {
	Title string
	// Lines under the title: the source, the seed, the profile …
	About []string
	// Unit names the time unit of At and of the #t= link ("ns", "delays").
	// Scale divides At for display (1000 shows ns as µs with three
	// decimals); 0 is 1.
	Unit  string
	Scale float64
	Nodes []Node
	Edges []Edge
	// Phases are the named intervals of the time axis (a generation's
	// reset, tree identify, self identify; a lab's rounds).
	Phases []Phase
	// Events, in time order: what the slider and the steps visit.
	Events []Event
	// End is the last instant of the axis: at least the last event's.
	End int64
	// Legend explains the colours: class name and its meaning, in order.
	Legend []LegendEntry
}

// Node is a vertex, placed at X, Y in layout units (one a node's spacing;
// the page scales them to fit).
type Node struct {
	ID    string  `json:"id"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	State string  `json:"state"` // before the first event
	Class string  `json:"class"` // the colour of State
}

// Edge is a cable or a link between nodes A and B (indexes in Page.Nodes),
// with the port names shown at each end ("" for none).
type Edge struct {
	A     int    `json:"a"`
	B     int    `json:"b"`
	PortA string `json:"pa"`
	PortB string `json:"pb"`
}

// Phase is a named interval [Start, End) of the time axis; Group (a
// generation) is shown with the name.
type Phase struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Class string `json:"class"`
}

// Kind says what an event changes.
type Kind string

// Event kinds.
const (
	// SetState sets Node's state label to Value, coloured by Class.
	SetState Kind = "state"
	// SetBadge sets Node's second label (root, phy_ID) to Value.
	SetBadge Kind = "badge"
	// Drive sets what Edge's end Side (0: A, 1: B) drives toward the
	// other end: Value, coloured by Class; "" drives nothing.
	Drive Kind = "drive"
	// Receive sets what Edge's end Side receives: Value ("" nothing).
	Receive Kind = "receive"
	// Message is a message on Edge from end Side, sent at At and arriving
	// at Until, labelled Value.
	Message Kind = "message"
	// Note changes nothing drawn: a scripted event, a packet, a decision.
	Note Kind = "note"
)

// Event is one change, explained in Text.
type Event struct {
	At    int64  `json:"t"`
	Kind  Kind   `json:"k"`
	Node  int    `json:"n"` // -1 for none
	Edge  int    `json:"e"` // -1 for none
	Side  int    `json:"s"`
	Value string `json:"v"`
	Class string `json:"c,omitempty"`
	Until int64  `json:"u,omitempty"`
	Text  string `json:"x"`
	// Detail is shown under Text: a packet's decoded fields.
	Detail string `json:"d,omitempty"`
}

// LegendEntry is one colour of the legend.
type LegendEntry struct {
	Class string `json:"class"`
	Text  string `json:"text"`
}

// Classes are the colour classes the page defines, for Node.Class,
// Event.Class and Phase.Class.
var Classes = []string{"reset", "tree", "contention", "self", "idle", "ok", "fail",
	"notify", "child", "data", "request", "busreset", "message", "leader", "crashed", "critical", "band0", "band1"}

// MaxEvents is the most events a page plays: 200,000 make about 25 MB of
// HTML, which a browser loads in a few seconds. A variable so that tests
// can lower it.
var MaxEvents = 200_000

// ErrTooManyEvents is the error of a page of more than MaxEvents events.
var ErrTooManyEvents = errors.New("too many events for one page")

//go:embed page.html
var pageTemplate string

//go:embed player.js
var script string

//go:embed player.css
var style string

var page = template.Must(template.New("page").Parse(pageTemplate))

// Write writes p as one self-contained HTML page: the data as JSON, the
// script and the style inline, nothing fetched.
func (p *Page) Write(w io.Writer) error {
	if err := p.check(); err != nil {
		return err
	}
	data, err := json.Marshal(struct {
		Unit   string        `json:"unit"`
		Scale  float64       `json:"scale"`
		Nodes  []Node        `json:"nodes"`
		Edges  []Edge        `json:"edges"`
		Phases []Phase       `json:"phases"`
		Events []Event       `json:"events"`
		End    int64         `json:"end"`
		Legend []LegendEntry `json:"legend"`
	}{p.Unit, p.scale(), p.Nodes, nonNil(p.Edges), nonNil(p.Phases), nonNil(p.Events), p.end(), nonNil(p.Legend)})
	if err != nil {
		return err
	}
	return page.Execute(w, struct {
		Title  string
		About  []string
		Data   template.JS
		Script template.JS
		Style  template.CSS
	}{p.Title, p.About, template.JS(data), template.JS(script), template.CSS(style)})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (p *Page) scale() float64 {
	if p.Scale == 0 {
		return 1
	}
	return p.Scale
}

// end is the axis's last instant: End, or the last event or phase.
func (p *Page) end() int64 {
	end := p.End
	for _, e := range p.Events {
		end = max(end, e.At, e.Until)
	}
	for _, ph := range p.Phases {
		end = max(end, ph.End)
	}
	return end
}

// check refuses a page the script could not draw: an index out of range,
// events out of order, a coordinate that is not a number.
func (p *Page) check() error {
	if len(p.Events) > MaxEvents {
		return fmt.Errorf("%w: %d, more than the %d a browser plays smoothly; play a smaller bus or a shorter run (a --trace file holds any number)",
			ErrTooManyEvents, len(p.Events), MaxEvents)
	}
	for i, n := range p.Nodes {
		if math.IsNaN(n.X) || math.IsInf(n.X, 0) || math.IsNaN(n.Y) || math.IsInf(n.Y, 0) {
			return fmt.Errorf("player: node %d (%s) has no position", i, n.ID)
		}
	}
	for i, e := range p.Edges {
		if e.A < 0 || e.A >= len(p.Nodes) || e.B < 0 || e.B >= len(p.Nodes) {
			return fmt.Errorf("player: edge %d joins node %d and %d of %d", i, e.A, e.B, len(p.Nodes))
		}
	}
	for i, e := range p.Events {
		switch {
		case i > 0 && e.At < p.Events[i-1].At:
			return fmt.Errorf("player: event %d at %d comes before event %d at %d", i, e.At, i-1, p.Events[i-1].At)
		case (e.Kind == SetState || e.Kind == SetBadge) && (e.Node < 0 || e.Node >= len(p.Nodes)):
			return fmt.Errorf("player: event %d (%s) names node %d of %d", i, e.Kind, e.Node, len(p.Nodes))
		case (e.Kind == Drive || e.Kind == Receive || e.Kind == Message) && (e.Edge < 0 || e.Edge >= len(p.Edges) || e.Side < 0 || e.Side > 1):
			return fmt.Errorf("player: event %d (%s) names end %d of edge %d of %d", i, e.Kind, e.Side, e.Edge, len(p.Edges))
		case e.Kind == Message && e.Until < e.At:
			return fmt.Errorf("player: message %d arrives at %d, before it is sent at %d", i, e.Until, e.At)
		}
	}
	return nil
}
