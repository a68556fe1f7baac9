package netsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// TicksPerDelay is the kernel's resolution: an asynchronous message takes
// 1 to TicksPerDelay ticks, and one time unit (the longest delay) is
// TicksPerDelay ticks.
const TicksPerDelay = 1000

// DefaultMaxEvents is the event budget when Config.MaxEvents is zero.
const DefaultMaxEvents = 10_000_000

// StreamDelays is the PCG stream of the seed that draws the message delays.
// A lab that draws more from the same seed takes streams of its own, so
// that adding draws for one purpose does not shift another.
const StreamDelays = 1

// Message is a message on the wire. Its fields mean what the protocol says:
// Type is an index into Config.Types, Value is usually an ID, and the trace
// shows Value, or List when it is not nil.
type Message struct {
	Type uint8
	// Back marks a message sent straight back over a loop, such as the
	// depth-first token, so that its sender does not take the cable for a
	// tree edge.
	Back  bool
	Value int64
	Aux   int64
	// Clock is the sender's logical clock, for a protocol that keeps one
	// (Lamport's) on every message, whatever its Value says.
	Clock int64
	List  []int64
}

// Process is the nodes of a protocol: the runtime calls it for vertex v,
// and the protocol's state machine of v answers by calling the Sim's Send
// and SetTimer. No node sees the clock, the graph beyond its ports, or
// another node.
type Process interface {
	// Start: the node initiates (an external wake-up).
	Start(s *Sim, v int)
	// Receive: a message arrived on port (an index into Graph.Adj[v]).
	Receive(s *Sim, v, port int, m Message)
	// Timer: a timer of v fired with the tag it was set with.
	Timer(s *Sim, v int, tag Message)
}

// LinkWatcher is a Process that holds connections to its neighbours and
// learns at once when one breaks because the neighbour crashed, as a
// connection-oriented transport reports it. Processes that do not watch
// their links notice a crash only by silence.
type LinkWatcher interface {
	LinkDown(s *Sim, v, port int)
}

// Config sets up one run.
type Config struct {
	// Name names the protocol in errors.
	Name string
	// Types are the message types, in the order Messages reports them.
	Types []string
	Graph *Graph
	// Sync runs in lock-step rounds: a message sent in round r arrives in
	// round r+1, and timers fire after the round's deliveries. Otherwise
	// every message takes its own delay of 1 to TicksPerDelay ticks drawn
	// from Seed (exactly TicksPerDelay with UnitDelays), and links are FIFO.
	Sync       bool
	UnitDelays bool
	Seed       uint64
	// Crashed are the vertices down from the start; nil: none.
	Crashed []bool
	// Restart, when set, is called when vertex v recovers: the protocol
	// gives v a fresh state machine, which remembers nothing, and the
	// runtime starts it.
	Restart func(v int)
	// Trace records every message, and the events of the nodes (Note).
	Trace bool
	// MaxTrace, when not 0, bounds the trace that Trace keeps in memory:
	// a run whose trace passes it stops, and Run returns ErrTraceFull.
	MaxTrace int
	// TimerNames name the tags of the protocol's timers in the trace, by
	// the tag's Type; a tag beyond them is a TIMER.
	TimerNames []string
	// MaxEvents bounds the run's kernel events (default DefaultMaxEvents),
	// those taken and those pending alike, and with them its memory (about
	// a hundred bytes a pending event); beyond it Run returns
	// ErrNoTermination.
	MaxEvents uint64
	// Interrupt, when not nil, stops the run soon after it closes (checked
	// every 4096 events): Run returns ErrInterrupted.
	Interrupt <-chan struct{}
	// Done, when set, is asked after every event; true ends the run.
	Done func() bool
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
	m    Message
}

// Fault is a crash or a recovery of vertex V at kernel time At.
type Fault struct {
	V       int
	At      int64
	Recover bool
}

// Sim is one run: the graph, the processes and the kernel that delivers
// their messages.
type Sim struct {
	g   *Graph
	cfg Config
	// p is the run's nodes, and watcher the same when p implements
	// LinkWatcher: asserted once a run, not once an event.
	p       Process
	watcher LinkWatcher

	k      bus.Kernel[event]
	rng    *rand.Rand
	fifo   [][]int64 // per vertex and port: when the last message sent there arrives
	counts []int
	// toCrashed counts the messages lost because their receiver had
	// crashed: when they were sent, or by the time they arrived.
	toCrashed int
	awake     []bool
	crashed   []bool
	inc       []int32 // per vertex: how often it crashed or recovered during the run
	last      int64   // kernel time of the last delivery or decision

	trace []TraceEntry
	// afterRound, when set, is called at the end of every synchronous round;
	// true stops the run.
	afterRound func(round int64) bool
}

// New prepares the run c; Run starts it.
func New(c Config) *Sim {
	g := c.Graph
	s := &Sim{g: g, cfg: c, rng: rand.New(rand.NewPCG(c.Seed, StreamDelays)),
		counts: make([]int, len(c.Types)), awake: make([]bool, len(g.Nodes)), crashed: c.Crashed,
		inc: make([]int32, len(g.Nodes)), fifo: make([][]int64, len(g.Nodes))}
	if s.crashed == nil {
		s.crashed = make([]bool, len(g.Nodes))
	}
	// Every port's FIFO clock is a slot of one array: one allocation, not
	// one per node.
	clocks := make([]int64, 2*g.Edges)
	for v := range g.Nodes {
		s.fifo[v], clocks = clocks[:len(g.Adj[v]):len(g.Adj[v])], clocks[len(g.Adj[v]):]
	}
	return s
}

// Graph is the run's graph.
func (s *Sim) Graph() *Graph { return s.g }

// Crashed reports whether vertex v is down.
func (s *Sim) Crashed(v int) bool { return s.crashed[v] }

// Awake reports whether v initiated or received a message.
func (s *Sim) Awake(v int) bool { return s.awake[v] }

// Sync reports whether the run is in rounds.
func (s *Sim) Sync() bool { return s.cfg.Sync }

// AfterRound makes f be called at the end of every synchronous round; f
// returning true stops the run.
func (s *Sim) AfterRound(f func(round int64) bool) { s.afterRound = f }

// Send sends m from vertex v on its port. A message to a crashed node is
// counted and lost.
func (s *Sim) Send(v, port int, m Message) {
	s.counts[m.Type]++
	h := s.g.Adj[v][port]
	now := s.k.Now()
	if s.crashed[h.Peer] {
		s.toCrashed++
		s.record(now, 0, v, h.Peer, m, true)
		return
	}
	var at int64
	if s.cfg.Sync {
		at = (now/2 + 1) * 2 // the delivery phase of the next round
	} else {
		d := int64(TicksPerDelay)
		if !s.cfg.UnitDelays {
			d = 1 + s.rng.Int64N(TicksPerDelay)
		}
		at = max(now+d, s.fifo[v][port]) // links are FIFO
		s.fifo[v][port] = at
	}
	s.record(now, at, v, h.Peer, m, false)
	s.k.Schedule(at, event{kind: evDeliver, node: int32(h.Peer), port: int32(h.PeerPort), inc: s.inc[h.Peer], sent: now, m: m})
}

// SendAll sends m on every port of v except skip (-1: none).
func (s *Sim) SendAll(v, skip int, m Message) {
	for p := range s.g.Adj[v] {
		if p != skip {
			s.Send(v, p, m)
		}
	}
}

// Lose counts and traces m from v to u as sent and lost on the way.
func (s *Sim) Lose(v, u int, m Message) {
	s.counts[m.Type]++
	s.record(s.k.Now(), 0, v, u, m, true)
}

// SetTimer fires v's Timer with tag after k message delays: in the timer
// phase of the k-th round from now, or just after k time units, so that a
// reply to a message sent now has surely arrived.
func (s *Sim) SetTimer(v, k int, tag Message) {
	now := s.k.Now()
	at := now + int64(k)*TicksPerDelay + 1
	if s.cfg.Sync {
		at = (now/2+int64(k))*2 + 1
	}
	s.SetTimerAt(v, at, tag)
}

// SetTimerAt fires v's Timer with tag at kernel time at, in ticks (not
// before Now).
func (s *Sim) SetTimerAt(v int, at int64, tag Message) {
	s.k.Schedule(at, event{kind: evTimer, node: int32(v), inc: s.inc[v], m: tag})
}

// Now is the kernel time of the event being handled, in ticks.
func (s *Sim) Now() int64 { return s.k.Now() }

// Decided marks the event being handled as a decision of node v (what:
// LEADER or FOLLOWER, say; detail: of whom): Time counts up to it as it
// counts up to the last delivery, and the trace shows it.
func (s *Sim) Decided(v int, what, detail string) {
	s.last = max(s.last, s.k.Now())
	s.Note(v, EventDecide, what, detail)
}

// Tracing reports whether the run keeps a trace: what a protocol makes
// only for the trace need not be made otherwise.
func (s *Sim) Tracing() bool { return s.cfg.Trace }

// Note traces an event of node v now, when Config.Trace asks for it: what
// the node did (an Event constant), what exactly (a type or a name) and its
// detail.
func (s *Sim) Note(v int, event, what, detail string) {
	if !s.cfg.Trace {
		return
	}
	now := s.units(s.k.Now())
	s.trace = append(s.trace, TraceEntry{Sent: now, Arrived: now, From: s.g.Nodes[v], Type: what, Payload: detail, Event: event})
}

// Crash takes v down: every message to v, already on its way or sent
// from now on, is lost, and its timers never fire.
func (s *Sim) Crash(v int) {
	s.crashed[v] = true
	s.inc[v]++
}

// units converts kernel time to the run's unit: delays, or rounds.
func (s *Sim) units(t int64) float64 {
	if s.cfg.Sync {
		return float64(t / 2)
	}
	return float64(t) / TicksPerDelay
}

// record traces m when Config.Trace asks for it; a lost message arrives
// at 0.
func (s *Sim) record(sent, arrived int64, from, to int, m Message, lost bool) {
	if !s.cfg.Trace {
		return
	}
	s.trace = append(s.trace, TraceEntry{Sent: s.units(sent), Arrived: s.units(arrived), Lost: lost,
		From: s.g.Nodes[from], To: s.g.Nodes[to], Type: s.cfg.Types[m.Type], Payload: payload(m)})
}

// timerName is what the trace calls a timer with tag.
func (s *Sim) timerName(tag Message) string {
	if int(tag.Type) < len(s.cfg.TimerNames) {
		return s.cfg.TimerNames[tag.Type]
	}
	return "TIMER"
}

func payload(m Message) string {
	if m.List == nil {
		return strconv.FormatInt(m.Value, 10)
	}
	parts := make([]string, len(m.List))
	for i, id := range m.List {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// OffBus counts and traces a message between v and a party off the bus
// (a registry): sent by v when out, received by v otherwise.
func (s *Sim) OffBus(v int, typ uint8, party string, out bool) {
	s.counts[typ]++
	if !s.cfg.Trace {
		return
	}
	now := s.units(s.k.Now())
	e := TraceEntry{Sent: now, Arrived: now, From: s.g.Nodes[v], To: party, Type: s.cfg.Types[typ]}
	if !out {
		e.From, e.To = party, s.g.Nodes[v]
	}
	s.trace = append(s.trace, e)
}

// lostOnArrival marks as lost the trace entry of a message that arrives
// at a node that crashed after it was sent.
func (s *Sim) lostOnArrival(ev event, at int64) {
	s.toCrashed++
	if !s.cfg.Trace {
		return
	}
	to := s.g.Nodes[ev.node]
	from := s.g.Nodes[s.g.Adj[ev.node][ev.port].Peer]
	sent, arrived := s.units(ev.sent), s.units(at)
	for i := len(s.trace) - 1; i >= 0; i-- {
		if e := &s.trace[i]; e.Event == "" && !e.Lost && e.To == to && e.From == from && e.Sent == sent && e.Arrived == arrived {
			e.Lost, e.Arrived = true, 0
			return
		}
	}
}

// ToCrashed is the number of messages lost because their receiver had
// crashed, when they were sent or by the time they arrived: those a trace
// marks lost besides the ones Lose lost.
func (s *Sim) ToCrashed() int { return s.toCrashed }

// Messages counts every message sent so far, lost ones included.
func (s *Sim) Messages() Messages { return NewMessages(s.cfg.Types, s.counts) }

// Time is the time of the last delivery or decision, in delays, or in
// rounds for a synchronous run.
func (s *Sim) Time() float64 { return s.units(s.last) }

// Rounds is the number of rounds up to the last delivery or decision of a
// synchronous run.
func (s *Sim) Rounds() int { return int(s.last / 2) }

// Trace is every message in the order sent, when Config.Trace is set.
func (s *Sim) Trace() []TraceEntry { return slices.Clip(s.trace) }

// interruptEvery is how many events a run processes between looks at
// Config.Interrupt: a fraction of a millisecond apart, and free.
const interruptEvery = 4096

// Run runs the nodes p: the initiators start, in order, and faults (in
// time order) crash and recover vertices. It delivers events until none is
// left, or Config.Done or the AfterRound function ends the run.
func (s *Sim) Run(p Process, initiators []int, faults []Fault) error {
	if err := s.run(p, initiators, faults); err != nil {
		return err
	}
	return s.traceFull() // the last events may have passed it
}

// traceFull is ErrTraceFull once the trace has passed Config.MaxTrace.
func (s *Sim) traceFull() error {
	if s.cfg.MaxTrace > 0 && len(s.trace) > s.cfg.MaxTrace {
		return fmt.Errorf("%w: %s traced more than %d entries", ErrTraceFull, s.cfg.Name, s.cfg.MaxTrace)
	}
	return nil
}

func (s *Sim) run(p Process, initiators []int, faults []Fault) error {
	s.p = p
	s.watcher, _ = p.(LinkWatcher)
	startAt := int64(0)
	if s.cfg.Sync {
		startAt = 3 // the timer phase of round 1
	}
	for _, v := range initiators {
		s.k.Schedule(startAt, event{kind: evStart, node: int32(v)})
	}
	for _, f := range faults {
		kind := evCrash
		if f.Recover {
			kind = evRecover
		}
		s.k.Schedule(f.At, event{kind: kind, node: int32(f.V)})
	}
	budget := s.cfg.MaxEvents
	if budget == 0 {
		budget = DefaultMaxEvents
	}
	round := startAt / 2
	// Only a run with an AfterRound function looks at the next event
	// before taking it; the others save that look at every event.
	rounds := s.cfg.Sync && s.afterRound != nil
	for {
		if rounds {
			at, ok := s.k.PeekTime()
			if ok && at/2 > round {
				if s.afterRound(round) {
					return nil
				}
				round = at / 2
			}
		}
		at, ev, ok := s.k.Next()
		if !ok {
			return nil
		}
		// Counted before this event: the checks an event comes too late
		// for.
		done := s.k.Processed() - 1
		if s.cfg.Interrupt != nil && done%interruptEvery == 0 {
			select {
			case <-s.cfg.Interrupt:
				return ErrInterrupted
			default:
			}
		}
		if done >= budget {
			return fmt.Errorf("%w: %s used up its budget of %d events", ErrNoTermination, s.cfg.Name, budget)
		}
		if err := s.traceFull(); err != nil {
			return err
		}
		// Pending events are memory: a protocol that sends faster than it
		// delivers would fill the machine long before it used up the
		// budget, so the events waiting share it.
		if pending := uint64(s.k.Len()); pending > budget {
			return fmt.Errorf("%w: %s has %d messages and timers pending, more than its budget of %d events", ErrNoTermination, s.cfg.Name, pending, budget)
		}
		v := int(ev.node)
		switch {
		case ev.kind == evCrash:
			s.crashed[v] = true
			s.inc[v]++
			s.Note(v, EventCrash, "CRASH", "")
			for _, h := range s.g.Adj[v] {
				if s.watcher != nil && !s.crashed[h.Peer] {
					s.watcher.LinkDown(s, h.Peer, h.PeerPort)
				}
			}
			continue
		case ev.kind == evRecover:
			// A recovered node remembers nothing and starts afresh, as an
			// initiator.
			s.crashed[v] = false
			s.inc[v]++
			s.Note(v, EventRecover, "RECOVER", "")
			if s.cfg.Restart != nil {
				s.cfg.Restart(v)
			}
			ev.kind = evStart
		case ev.inc != s.inc[v]:
			if ev.kind == evDeliver {
				s.lostOnArrival(ev, at)
			}
			continue
		}
		switch ev.kind {
		case evStart:
			s.awake[v] = true
			s.Note(v, EventStart, "START", "")
			s.p.Start(s, v)
		case evDeliver:
			s.awake[v] = true
			s.last = at
			s.p.Receive(s, v, int(ev.port), ev.m)
		case evTimer:
			if s.cfg.Trace { // the name and payload are made for the trace only
				s.Note(v, EventTimer, s.timerName(ev.m), payload(ev.m))
			}
			s.p.Timer(s, v, ev.m)
		}
		if s.cfg.Done != nil && s.cfg.Done() {
			return nil
		}
	}
}
