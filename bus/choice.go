package bus

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/treeid"
)

// ChoiceKind says what a run decides at a choice point.
type ChoiceKind uint8

const (
	// ChoiceCoin is a root-contention coin: option 0 is FAST, 1 SLOW.
	ChoiceCoin ChoiceKind = iota + 1
	// ChoiceWait is whether a root-contention wait ends now: option 0
	// ends it after Choice.Waited cycles of the node's clock (ns with the
	// ideal clock), option 1 waits another cycle. The window's whole cycle
	// counts are Choice.Lo to Choice.Hi; at Hi the wait ends unasked.
	ChoiceWait
	// ChoicePhase is a node's clock phase: option k puts edge 0 at
	// Choice.Instants[k] ns.
	ChoicePhase
	// ChoiceShift moves the scripted events together, keeping their
	// spacing, so that the first happens at Choice.Instants[k] ns.
	ChoiceShift
)

var choiceKindNames = [...]string{ChoiceCoin: "coin", ChoiceWait: "wait", ChoicePhase: "phase", ChoiceShift: "shift"}

func (k ChoiceKind) String() string {
	if int(k) < len(choiceKindNames) && choiceKindNames[k] != "" {
		return choiceKindNames[k]
	}
	return "choice(" + strconv.Itoa(int(k)) + ")"
}

// ParseChoiceKind reads a ChoiceKind's name.
func ParseChoiceKind(s string) (ChoiceKind, error) {
	if i := slices.Index(choiceKindNames[:], s); i > 0 {
		return ChoiceKind(i), nil
	}
	return 0, fmt.Errorf("choice kind %q: want coin, wait, phase or shift", s)
}

// Choice is one decision a run makes that its Options leave open: a point
// where an explorer branches, or a replay follows a recorded path.
type Choice struct {
	Kind ChoiceKind
	// Node is the node that decides; "" for ChoiceShift.
	Node string
	// Options is how many there are, numbered from 0.
	Options int
	// Fast, Waited, Lo and Hi describe a ChoiceWait: the FAST or SLOW
	// window, the cycles waited so far, and the window's whole cycle counts.
	Fast           bool
	Waited, Lo, Hi int64
	// Instants are the ns of each option of a ChoicePhase or ChoiceShift.
	Instants []int64
}

// Describe says in words what option k of c means, e.g. "FAST" or "wait
// 41 cycles".
func (c Choice) Describe(k int) string {
	switch c.Kind {
	case ChoiceCoin:
		if k == 0 {
			return "FAST"
		}
		return "SLOW"
	case ChoiceWait:
		if k == 0 {
			return fmt.Sprintf("the wait ends after %d cycles", c.Waited)
		}
		return fmt.Sprintf("the wait goes on after %d cycles", c.Waited)
	case ChoicePhase:
		return fmt.Sprintf("edge 0 at %d ns", c.Instants[k])
	case ChoiceShift:
		return fmt.Sprintf("first event at %d ns", c.Instants[k])
	}
	return strconv.Itoa(k)
}

// ChoiceSpace opens choices beyond the coins and waits, for exploration:
// the zero value opens none.
type ChoiceSpace struct {
	// PhaseGrid K > 0 makes each node's clock phase a choice among K evenly
	// spaced values over one period (cycle clocks only); 0 keeps the phases
	// the seed draws.
	PhaseGrid int
	// EventWindow, when not nil, makes the time of the scripted events a
	// choice: they move together, keeping their spacing, so that the first
	// falls on each clock edge of any node in [From, To] ns (every ns with
	// the ideal clock).
	EventWindow *Window
	// Resolution R > 1, with the ideal clock only, is the time step of the
	// choices: a wait may end only after a multiple of R ns, or at its
	// window's bounds, and the event window's instants are its multiples
	// of R and its ends. 0 and 1 keep every ns. Where every time the run
	// compares with is a multiple of R, this loses no behaviour that
	// matters (digital clocks; docs/timing.md says when and why).
	Resolution int64
}

// onGrid reports whether a choice at ns t, inside [lo, hi], is one the
// Resolution keeps.
func (s ChoiceSpace) onGrid(t, lo, hi int64) bool {
	return s.Resolution <= 1 || t == lo || t == hi || t%s.Resolution == 0
}

// Window is an interval of instants in ns, both ends included.
type Window struct{ From, To int64 }

// Path is a run's choices in the order it made them, as an explorer
// records a counterexample: Options.Replay makes a run follow one.
type Path struct {
	Space   ChoiceSpace
	Choices []PathChoice
}

// PathChoice is one choice of a Path: the option taken at a choice point
// of that kind and node.
type PathChoice struct {
	Kind   ChoiceKind
	Node   string // "" for ChoiceShift
	Option int
	// Meaning says what the option means (Choice.Describe), for readers;
	// a replay checks it when it is not empty.
	Meaning string
}

// chooser makes a run's open choices: from a list (a replay), or for a
// Follower, which stops at the first choice past its list.
type chooser struct {
	w     *world
	space ChoiceSpace
	path  []PathChoice // the options to take, in order; Kind 0 is not checked
	next  int          // the next one
	// follow is set for a Follower: past the list, a choice is recorded in
	// pending and answered with option 0, and the run stops after the
	// event (its state from then on is discarded).
	follow  bool
	pending *Choice
	// made lists the choices made since the run began, or went on from a
	// snapshot, for a Follower's keys; madeBefore counts those before it,
	// which a snapshot keeps only the number of: no key reads them again.
	made       []Choice
	madeBefore int
	err        error
	// instants caches the clock edges of the event window.
	instants []int64
}

// choose makes choice c and returns the option taken.
func (ch *chooser) choose(c Choice) int {
	if ch.pending != nil || ch.err != nil {
		return 0
	}
	if ch.next >= len(ch.path) {
		if ch.follow {
			ch.pending = &c
		} else {
			ch.err = fmt.Errorf("%w: replay: the path's %d choices ran out: the run asks for a %s of %s", ErrInvalidOptions, len(ch.path), c.Kind, orBus(c.Node))
		}
		return 0
	}
	p := ch.path[ch.next]
	if p.Kind != 0 && (p.Kind != c.Kind || p.Node != c.Node) {
		ch.err = fmt.Errorf("%w: replay: choice %d of the path is a %s of %s, but the run asks for a %s of %s here: the path is of another bus or options",
			ErrInvalidOptions, ch.next+1, p.Kind, orBus(p.Node), c.Kind, orBus(c.Node))
		return 0
	}
	k := p.Option
	if k < 0 || k >= c.Options {
		ch.err = fmt.Errorf("%w: replay: choice %d of the path (%s of %s) takes option %d, but there are %d (0 to %d)", ErrInvalidOptions, ch.next+1, c.Kind, orBus(c.Node), k, c.Options, c.Options-1)
		return 0
	}
	if p.Meaning != "" && p.Meaning != c.Describe(k) {
		ch.err = fmt.Errorf("%w: replay: choice %d of the path (%s of %s) says option %d means %q, but here it means %q: the path is of another bus or options",
			ErrInvalidOptions, ch.next+1, c.Kind, orBus(c.Node), k, p.Meaning, c.Describe(k))
		return 0
	}
	ch.next++
	ch.made = append(ch.made, c)
	return k
}

// restart prepares the chooser for a run from power-up.
func (ch *chooser) restart() {
	ch.next, ch.made, ch.madeBefore, ch.pending, ch.err = 0, ch.made[:0], 0, nil, nil
}

// stopped reports that the run must stop after the current event: a
// replay went wrong, or a Follower reached a choice past its list.
func (ch *chooser) stopped() bool { return ch.pending != nil || ch.err != nil }

// electionChooser is node i's election's chooser: nil outside a replay or
// an exploration, where Rand draws.
func (w *world) electionChooser(i int) treeid.Chooser {
	if w.choices == nil {
		return nil
	}
	return nodeChooser{w.choices, i}
}

// checkSpace refuses a ChoiceSpace the run cannot open.
func (w *world) checkSpace(s ChoiceSpace) error {
	if s.PhaseGrid < 0 {
		return fmt.Errorf("%w: phase grid %d: want a positive number of phases, or 0 for the seed's", ErrInvalidOptions, s.PhaseGrid)
	}
	if s.PhaseGrid > 0 {
		if w.opts.IdealClock {
			return fmt.Errorf("%w: phase grid: the ideal clock has no phase (an edge every ns from 0): use cycle clocks", ErrInvalidOptions)
		}
		for k := range w.phys {
			hz := w.phys[k].Timing.ClockHz
			if period := (1e9 + hz - 1) / hz; int64(s.PhaseGrid) > period {
				return fmt.Errorf("%w: phase grid %d: at most %d, one phase per ns of the %d ns clock period", ErrInvalidOptions, s.PhaseGrid, period, period)
			}
		}
	}
	if s.Resolution < 0 {
		return fmt.Errorf("%w: resolution %d ns: want a positive number of ns, or 0 for every ns", ErrInvalidOptions, s.Resolution)
	}
	if s.Resolution > 1 && !w.opts.IdealClock {
		return fmt.Errorf("%w: resolution %d ns: cycle clocks make their choices at their own edges; a time step needs the ideal clock", ErrInvalidOptions, s.Resolution)
	}
	if win := s.EventWindow; win != nil {
		if len(w.topo.events) == 0 {
			return fmt.Errorf("%w: event window: the topology scripts no event to move", ErrInvalidOptions)
		}
		if win.From < 0 || win.To < win.From {
			return fmt.Errorf("%w: event window %d..%d ns: want 0 ≤ from ≤ to", ErrInvalidOptions, win.From, win.To)
		}
	}
	return nil
}

func orBus(node string) string {
	if node == "" {
		return "the bus"
	}
	return node
}

// nodeChooser answers node i's election's choices through the chooser.
type nodeChooser struct {
	ch   *chooser
	node int
}

func (c nodeChooser) ChooseFast() bool {
	return c.ch.choose(Choice{Kind: ChoiceCoin, Node: c.ch.w.nodes[c.node].cfg.id, Options: 2}) == 0
}

func (c nodeChooser) EndWait(fast bool, waited, lo, hi int64) bool {
	if !c.ch.space.onGrid(waited, lo, hi) {
		return false // between the instants the resolution keeps
	}
	return c.ch.choose(Choice{Kind: ChoiceWait, Node: c.ch.w.nodes[c.node].cfg.id, Options: 2, Fast: fast, Waited: waited, Lo: lo, Hi: hi}) == 0
}

// phaseChoice is the choice of node i's clock phase among K values over a
// period of period ns.
func (ch *chooser) phase(i int, period int64) int64 {
	k := ch.space.PhaseGrid
	c := Choice{Kind: ChoicePhase, Node: ch.w.topo.nodes[i].id, Options: k}
	for j := range k {
		c.Instants = append(c.Instants, int64(j)*period/int64(k))
	}
	return c.Instants[ch.choose(c)]
}

// shift is how far the scripted events move: the choice of the instant of
// the first, among the clock edges of every node in the window.
func (ch *chooser) shift() int64 {
	w, win := ch.w, ch.space.EventWindow
	if win == nil || len(w.topo.events) == 0 {
		return 0
	}
	// The clocks are the seed's from run to run unless their phases are
	// chosen too: then the edges are found again for every run.
	instants := ch.instants
	if instants == nil || ch.space.PhaseGrid > 0 {
		if n := w.windowEdges(*win); n > MaxWindowEdges {
			ch.err = fmt.Errorf("%w: the event window %d..%d ns holds %d clock edges, each an instant for the first event: more than %d; narrow the window",
				ErrInvalidOptions, win.From, win.To, n, MaxWindowEdges)
			return 0
		}
		// A new slice: the choices made before keep theirs.
		instants = nil
		for i := range w.nodes {
			clock := w.nodes[i].clock
			for k := clock.EdgeAtOrAfter(win.From); clock.Edge(k) <= win.To; k++ {
				if at := clock.Edge(k); ch.space.onGrid(at, win.From, win.To) {
					instants = append(instants, at)
				}
			}
		}
		slices.Sort(instants)
		instants = slices.Compact(instants)
		ch.instants = instants
	}
	if len(instants) == 0 {
		ch.err = fmt.Errorf("%w: the event window %d..%d ns holds no clock edge", ErrInvalidOptions, win.From, win.To)
		return 0
	}
	at := instants[ch.choose(Choice{Kind: ChoiceShift, Options: len(instants), Instants: instants})]
	return at - w.topo.firstEventAt()
}

// MaxWindowEdges bounds the clock edges of an event window, which a run
// lists (8 bytes each) to choose the first event's instant among them.
const MaxWindowEdges = 1 << 20

// windowEdges counts the clock edges of every node in win, without
// listing them: the options of the shift, or more where the edges of
// several nodes coincide.
func (w *world) windowEdges(win Window) int64 {
	var n int64
	for i := range w.nodes {
		clock := w.nodes[i].clock
		from := clock.EdgeAtOrAfter(win.From)
		to, at := clock.FirstEdge(win.To) // win.To+1 could overflow
		n += to - from
		if at == win.To {
			n++
		}
		if w.opts.IdealClock {
			break // every node has an edge every ns
		}
	}
	return n
}

// firstEventAt is the time of the earliest scripted event.
func (rt *resolvedTopology) firstEventAt() int64 {
	first := rt.events[0].at
	for _, ev := range rt.events {
		first = min(first, ev.at)
	}
	return first
}
