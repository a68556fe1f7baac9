package bus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/phy"
)

// Follower runs one bus again and again from power-up along given choices
// and reports where each run stops: at the first choice point past them,
// with the key of the state there, or at the end. An explorer builds the
// bus's state graph with it (package explore): the same PHY, tree-identify
// and bus code as every other run, with the coins, waits, and the phases
// and event times its ChoiceSpace opens left to the caller. A Follower is
// not safe for concurrent use.
type Follower struct {
	w *world
	// checkpointAt is the number of the event to take a checkpoint
	// before, 0 for none: the key and marks of the state then, and the
	// choices made before it. A run that stops at a new choice point is
	// run a second time to take it, since its key is that of the state
	// before the event that made the choice, and keying the state before
	// every event of the first run would cost several times the run. The
	// second run stops there, where Snapshot saves the bus.
	checkpointAt    uint64
	checkpoint      []byte
	checkpointMarks Marks
	checkpointMade  int
	key             []byte
	// The first run's choices, those after the first madeBefore (see
	// chooser.made).
	made       []Choice
	madeBefore int
	queue      []kernelEntry[simEvent] // appendKey's scratch
	// The first generation's root and self-ID order, once it has closed
	// in the present run.
	firstRoot  string
	firstOrder []string
	// atCheckpoint says the bus is where the last run's stop was keyed.
	atCheckpoint bool
}

// FollowStop is where a Follower's run stopped.
type FollowStop struct {
	// Done reports that the run ended; Metrics are then its metrics, as
	// Simulator.Run gives them.
	Done    bool
	Metrics Metrics
	// Choice is the choice point the run reached when not Done, and Key
	// the state there: two stops with equal keys behave alike from then on,
	// whatever came before. Key is valid until the next Follow.
	Choice Choice
	Key    []byte
	// Marks are the run's marks at the stop: at the state the key
	// describes, or at the end.
	Marks Marks
	// Events counts the kernel events the run processed.
	Events uint64
	// FirstRoot and FirstOrder are, once the first generation has closed
	// (Marks.First.Closed), the root it elected ("" for none or several,
	// as Metrics.Root) and its nodes that took a phy_ID, in phy_ID order:
	// the order of their self-IDs, as Generation.Nodes lists them. They
	// are empty before. FirstOrder is valid until the next Follow.
	FirstRoot  string
	FirstOrder []string
}

// Marks say how far a run has got, for an explorer's metrics.
type Marks struct {
	// NowNs is the instant of the state, in ns since power-up.
	NowNs int64
	// Outcome is the outcome of the first generation that did not end
	// ok, "" while every ended one did. A generation that a scripted event
	// interrupted (a connect, disconnect or reset of the topology's
	// scenario began the next bus reset) counts as ok: the scenario asked
	// for it.
	Outcome Outcome
	// First are the first generation's marks.
	First FirstMarks
}

// ErrCannotExplore says a topology or its options cannot be explored.
var ErrCannotExplore = errors.New("cannot explore")

// NewFollower checks t, o and space as Run does and returns a Follower.
// o.Seed fixes everything that is not a choice: the timer lengths each PHY
// draws and, without a phase grid, the clock phases. Tracing, a bus
// manager and clocks with a frequency error are refused: a manager's turns
// and a clock off its nominal frequency make the future depend on what
// keys leave out.
func NewFollower(t *Topology, o Options, space ChoiceSpace) (*Follower, error) {
	if o.Observer != nil {
		return nil, fmt.Errorf("%w: a Follower does not trace: Options.Observer must be nil", ErrInvalidOptions)
	}
	if o.Replay != nil {
		return nil, fmt.Errorf("%w: a Follower makes its own choices: Options.Replay must be nil", ErrInvalidOptions)
	}
	o.Replay, o.follow = &Path{Space: space}, true
	w, err := build(t, o)
	if err != nil {
		return nil, err
	}
	if m := w.topo.manager.node; m >= 0 {
		return nil, fmt.Errorf("%w: bus_manager: %s's turns add events of the run's own, which a state's key leaves out: explore the bus without one, or run it", ErrCannotExplore, w.topo.nodes[m].id)
	}
	for _, n := range w.topo.nodes {
		if n.clockPPM != 0 && !o.IdealClock {
			return nil, fmt.Errorf("%w: node %q: clock_ppm %g: exploration needs clocks at their nominal frequency", ErrCannotExplore, n.id, n.clockPPM)
		}
	}
	w.lean = true
	f := &Follower{w: w}
	w.follower = f
	return f, nil
}

// Follow runs from power-up taking option choices[i] at the i-th choice
// point, and stops at the next one or at the end of the run. It fails when
// an option is out of range.
func (f *Follower) Follow(choices []int) (FollowStop, error) {
	return f.follow(nil, choices)
}

// follow runs along choices from power-up, or from snapshot from when not
// nil.
func (f *Follower) follow(from *Snapshot, choices []int) (FollowStop, error) {
	w := f.w
	ch := w.choices
	f.checkpointAt, f.atCheckpoint = 0, false
	ch.path = ch.path[:0]
	for _, k := range choices {
		ch.path = append(ch.path, PathChoice{Option: k})
	}
	if err := f.begin(from); err != nil {
		return FollowStop{}, err
	}
	if from != nil && ch.next > len(choices) {
		return FollowStop{}, fmt.Errorf("%w: a snapshot after %d choices, a path of %d", ErrInvalidOptions, ch.next, len(choices))
	}
	began := w.k.Processed()
	if ch.pending != nil {
		// A choice while the run is set up (a phase, the event shift):
		// the choices so far say everything about the state.
		f.key = append(f.key[:0], 'S')
		for _, k := range choices {
			f.key = binary.AppendUvarint(f.key, uint64(k))
		}
		return FollowStop{Choice: *ch.pending, Key: f.appendChoice(f.key, *ch.pending), Marks: w.marks()}, nil
	}
	w.run()
	switch {
	case w.interrupted:
		return FollowStop{}, ErrInterrupted
	case ch.err != nil:
		return FollowStop{}, ch.err
	}
	if ch.pending != nil {
		pending, at := *ch.pending, w.k.Processed()
		events := at - began
		f.made, f.madeBefore = append(f.made[:0], ch.made...), ch.madeBefore
		// Again up to the event that made the choice, for its checkpoint.
		f.checkpointAt = at
		if err := f.begin(from); err != nil {
			return FollowStop{}, err
		}
		w.run()
		if w.interrupted {
			return FollowStop{}, ErrInterrupted
		}
		if f.checkpointAt != 0 {
			panic(fmt.Sprintf("bus: the second run of a path did not reach its event %d", at))
		}
		events += w.k.Processed() - began
		f.atCheckpoint = true
		key := append(f.key[:0], f.checkpoint...)
		// The choices made in this event before the pending one.
		for i := f.checkpointMade; i < f.madeBefore+len(f.made); i++ {
			key = f.appendChoice(key, f.made[i-f.madeBefore])
			key = binary.AppendUvarint(key, uint64(choices[i]))
		}
		f.key = f.appendChoice(key, pending)
		return FollowStop{Choice: pending, Key: f.key, Marks: f.checkpointMarks, Events: events,
			FirstRoot: f.firstRoot, FirstOrder: f.firstOrder}, nil
	}
	if ch.next < len(choices) {
		return FollowStop{}, fmt.Errorf("%w: the run ended after %d of the %d choices given", ErrInvalidOptions, ch.next, len(choices))
	}
	m := w.metrics
	m.Outcome = OutcomeOK
	if len(w.gens) == 0 {
		m.Outcome, m.TreeIDNs, m.SelfIDNs = OutcomeBudgetExhausted, -1, -1
	}
	if o := w.marks().Outcome; o != "" {
		m.Outcome = o
	}
	m.Events = w.k.Processed()
	return FollowStop{Done: true, Metrics: m, Marks: w.marks(), Events: m.Events - began,
		FirstRoot: f.firstRoot, FirstOrder: f.firstOrder}, nil
}

// begin sets the bus up for a run: from power-up, or from snapshot from.
func (f *Follower) begin(from *Snapshot) error {
	if from == nil {
		return f.start()
	}
	return f.restore(from)
}

// start sets the world up for a run from power-up.
func (f *Follower) start() error {
	w := f.w
	w.rebuild = w.rebuild || !w.reusable()
	w.metrics, w.first = Metrics{}, FirstMarks{}
	f.firstRoot, f.firstOrder = "", f.firstOrder[:0]
	if err := w.start(w.opts.Seed); err != nil {
		return err
	}
	return w.choices.err
}

// firstClosed records the root and the self-ID order of the first
// generation g as it closes, after its metrics.
func (f *Follower) firstClosed(g *generation) {
	f.firstRoot = f.w.metrics.Root
	f.firstOrder = f.w.appendPhyOrder(f.firstOrder[:0], g)
}

// appendChoice appends what identifies choice point c in a key.
func (f *Follower) appendChoice(b []byte, c Choice) []byte {
	b = append(b, 'C', byte(c.Kind))
	b = binary.AppendUvarint(b, uint64(f.w.topo.nodeIndex(c.Node)+1))
	return binary.AppendUvarint(b, uint64(c.Options))
}

// beforeEvent takes the checkpoint asked for, if the next event is the
// one, and then reports that the run stops there.
func (f *Follower) beforeEvent() (stop bool) {
	if f.checkpointAt != f.w.k.Processed()+1 {
		return false
	}
	f.takeCheckpoint()
	f.checkpointAt = 0
	return true
}

// takeCheckpoint keys the state before the next event.
func (f *Follower) takeCheckpoint() {
	f.checkpoint = f.w.appendKey(f.checkpoint[:0], &f.queue)
	f.checkpointMarks = f.w.marks()
	f.checkpointMade = f.w.choices.madeBefore + len(f.w.choices.made)
}

// marks reads how far the run has got.
func (w *world) marks() Marks {
	m := Marks{NowNs: w.k.Now(), First: FirstMarks{StartNs: -1, TreeIDNs: -1, SelfIDNs: -1, ContentionStartNs: -1, ContentionEndNs: -1}}
	for _, g := range w.gens {
		if g.done && g.outcome != OutcomeOK && !g.scripted {
			m.Outcome = g.outcome
			break
		}
	}
	switch {
	case len(w.gens) == 0:
	case w.gens[0].done:
		m.First = w.first
	default:
		m.First = w.readFirstMarks(w.gens[0])
	}
	return m
}

// appendKey appends the key of the world's state between two events: what
// its future depends on, with every time relative to now and histories
// left out (see phy.AppendCycleKey). queue is scratch.
func (w *world) appendKey(b []byte, queue *[]kernelEntry[simEvent]) []byte {
	now := w.k.Now()
	cycles := make([]int64, len(w.nodes)) // each node's present cycle
	for i := range w.nodes {
		w.catchUp(i)
		n := &w.nodes[i]
		c0 := n.clock.EdgeAtOrAfter(now)
		cycles[i] = c0
		// Edges repeat their spacing every KeyRepeat cycles: where in that
		// pattern the present edge is decides every later one.
		b = binary.AppendVarint(b, c0%n.clock.KeyRepeat())
		b = binary.AppendVarint(b, n.clock.Edge(c0)-now)
		b = append(b, byte(n.state))
		b = binary.AppendVarint(b, int64(genIndex(n.gen)))
		flags := byte(0)
		if n.reachedT0 {
			flags |= 1
		}
		if n.gen != nil && n.s0At >= n.gen.startNs {
			flags |= 2
		}
		if n.rxChanged {
			flags |= 4
		}
		if n.reachedS0 {
			flags |= 8
		}
		b = append(b, flags)
		for p := range n.cable {
			b = binary.AppendVarint(b, int64(n.cable[p]))
			b = append(b, byte(n.remote[p]), byte(n.sent[p]))
			b = binary.AppendVarint(b, max(w.busyUntil(i, p)-now, 0))
		}
		// The line states on their way, but those over a cable unplugged
		// since; one that has arrived waits for the next edge, whenever
		// it came.
		b = append(b, 'I')
		for _, a := range n.inbox {
			if c := n.cable[a.port]; c >= 0 && w.cables[c].epoch == a.epoch {
				b = binary.AppendVarint(b, max(a.at-now, 0))
				b = binary.AppendVarint(b, int64(a.port))
				b = append(b, byte(a.line))
				if a.quiet {
					b = append(b, 'q')
				}
			}
		}
		b = binary.AppendUvarint(b, uint64(len(n.owed)))
		for _, c := range n.owed {
			b = phy.AppendCycleKey(b, c, c0)
		}
		b = phy.AppendCycleKey(b, n.sample.cycle, c0)
		b = binary.AppendVarint(b, max(n.sample.origin-now, 0))
		b = phy.AppendCycleKey(b, n.pendingTimer, c0)
		// Every edge before the present one is alike: events come at or
		// after it.
		b = binary.AppendVarint(b, max(n.evaluated-c0, -1))
		b = n.m.AppendKey(b, c0)
		b = n.election.AppendKey(b, c0)
	}
	for _, c := range w.cables {
		connected := byte(0)
		if c.connected {
			connected = 1
		}
		b = append(b, connected)
		b = binary.AppendVarint(b, int64(c.epoch))
	}
	// Generations still open, and the ended ones a node still belongs to:
	// an ended one decides, by whether it had left its reset, whether its
	// members join the next.
	for _, g := range w.gens {
		referenced := !g.done
		for i := range w.nodes {
			referenced = referenced || w.nodes[i].gen == g
		}
		if !referenced {
			continue
		}
		b = binary.AppendVarint(b, int64(g.index))
		b = binary.AppendVarint(b, int64(g.comp))
		b = append(b, byte(len(g.outcome)))
		b = append(b, g.outcome...)
		b = binary.AppendVarint(b, int64(g.reachedT0))
		b = binary.AppendVarint(b, int64(g.reachedS0))
		if g.done {
			continue
		}
		b = binary.AppendVarint(b, int64(g.inflight))
		b = binary.AppendUvarint(b, uint64(len(g.members)))
		for _, m := range g.members {
			b = binary.AppendVarint(b, int64(m))
		}
		b = binary.AppendUvarint(b, uint64(len(g.cables)))
		for _, c := range g.cables {
			b = binary.AppendVarint(b, int64(c))
		}
		b = binary.AppendUvarint(b, uint64(len(g.selfIDs)))
		for _, q := range g.selfIDs {
			b = binary.LittleEndian.AppendUint32(b, uint32(q))
		}
		set := byte(0)
		for i, t := range []int64{g.resetEnd, g.treeDone, g.selfIDEnd, g.lastPacketNs, g.resetEndNs(), g.treeIDDoneNs()} {
			if t >= 0 {
				set |= 1 << i
			}
		}
		b = append(b, set)
	}
	for comp := range w.nodes {
		if g := w.openGen[comp]; g != nil {
			b = binary.AppendVarint(b, int64(comp))
			b = binary.AppendVarint(b, int64(g.index))
		}
	}
	b = append(b, 'W')
	for _, idx := range w.waiting {
		b = binary.AppendVarint(b, int64(idx))
	}
	// The queue in the order it will pop, but the events that will do
	// nothing when they pop.
	q := slices.DeleteFunc(w.k.appendPending((*queue)[:0]), func(e kernelEntry[simEvent]) bool { return w.stale(e.ev) })
	slices.SortFunc(q, popOrder)
	*queue = q
	b = append(b, 'Q')
	for _, e := range q {
		ev := e.ev
		b = binary.AppendVarint(b, e.at-now)
		// When it was queued matters against what is queued for its
		// instant from now on: all before now alike.
		b = binary.AppendVarint(b, max(e.origin, now)-now)
		b = append(b, byte(ev.kind))
		b = binary.AppendVarint(b, int64(ev.node))
		b = binary.AppendVarint(b, int64(ev.port))
		switch ev.kind {
		case evStep, evInitiate, evInitiateShort:
			b = phy.AppendCycleKey(b, ev.arg, cycles[ev.node])
		case evTimer: // live: its cycle is the node's
			b = phy.AppendCycleKey(b, w.nodes[ev.node].pendingTimer, cycles[ev.node])
		case evDelivered, evTracePacket:
			b = binary.AppendVarint(b, int64(genIndex(w.txGen[ev.arg])))
		default: // the cable epoch, the scripted event
			b = binary.AppendVarint(b, ev.arg)
		}
	}
	return b
}

// stale reports an event that can no longer do anything: a timer armed
// again since, the last copy of a transmission of an ended generation.
func (w *world) stale(ev simEvent) bool {
	switch ev.kind {
	case evTimer:
		return !w.nodes[ev.node].live(ev)
	case evDelivered:
		g := w.txGen[ev.arg]
		return g == nil || g.done
	}
	return false
}

// genIndex is g's index, -1 for none.
func genIndex(g *generation) int {
	if g == nil {
		return -1
	}
	return g.index
}
