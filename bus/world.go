package bus

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// ErrInvalidOptions is the category of errors in Options.
var ErrInvalidOptions = errors.New("invalid options")

// Random streams: each node draws from its own PCG stream per purpose, so a
// change in one node's draws never shifts another's.
const (
	streamClock = iota + 1
	streamContention
	streamTimers
	streamPowerUp // the bus's: who powers up last, or in what order
)

// streamID names node's PCG stream for purpose.
func streamID(node, purpose int) uint64 { return uint64(node)<<8 | uint64(purpose) }

type simKind uint8

const (
	evStep          simKind = iota // a PHY evaluates on a clock edge if its inputs changed: a line state arrived, or a port's state changed
	evTimer                        // a PHY evaluates on a clock edge: a timer expired
	evDelivered                    // the last copy of a self-ID transmission arrived
	evTracePacket                  // tracing only: self-ID packets reach a port (-1: the sender's link)
	evTraceArrive                  // tracing only: a line state reaches a port, and is traced when it does
	evInitiate                     // a PHY initiates a reset on a clock edge
	evInitiateShort                // a PHY initiates an arbitrated short reset on a clock edge
	evScenario                     // a scripted event
	evConnected                    // a scripted connect's debounce ended
	evArbTimeout                   // a PHY with a short reset waiting has been idle in A0 for MAX_ARB_STATE_TIME
	evPowerUp                      // a PHY of a staggered power-up arrives
	evManager                      // the bus manager's turn after a generation
)

// simEvent is the kernel's payload. It is 16 bytes, because the kernel
// moves it on every step of a heap sift: one argument holds what each kind
// needs.
type simEvent struct {
	node int32
	port int16 // evTracePacket
	kind simKind
	_    uint8
	// arg is, for evStep and evInitiate, the clock cycle; for evTimer, the
	// arming; for evDelivered and evTracePacket, the transmission; for
	// evScenario, evConnected and evArbTimeout, the scripted event; for
	// evPowerUp, the arrival's rank; for evManager, the generation.
	arg int64
}

// arrival is a line state on its way to a port, over the cable of the
// given epoch: it reaches the port at at. quiet says it leaves the port's
// resolved state as it is, as far as the receiver's drive so far says, so
// no evaluation is queued for it (see send).
type arrival struct {
	at    int64
	edge  int64 // the first clock edge at or after at, once queueArrival found it; -1 before
	epoch int32
	port  int16
	line  phy.LineState
	quiet bool
}

// node is one PHY in the world.
type node struct {
	cfg resolvedNode
	// phy is the PHY's generation, with the timing it runs: an element of
	// world.phys.
	phy      *phy.Profile
	m        *phy.Machine
	election *treeid.Election
	clock    phy.Clock
	coins    *rand.PCG // the election's random source, reseeded every run
	peerUIDs []uint64  // shared with the election
	// forceRootTimeout and configTimeout are the PHY's FORCE_ROOT_TIMEOUT
	// and CONFIG_TIMEOUT in this run (drawTimers).
	forceRootTimeout, configTimeout time.Duration

	cable  []int           // per port: the cable plugged in, -1 if none
	remote []phy.LineState // per port: the peer's transmission as it arrives
	sent   []phy.LineState // per port: what this PHY last put on the cable
	// busyUntil is, per port, when the last packet this PHY repeats there
	// ends: a line state driven later follows the data on the wire, never
	// overtakes it.
	busyUntil []int64
	// inbox holds the line states on their way to the ports, by arrival
	// time (then sending order). The PHY samples its ports on its clock
	// edges only, so an arrival matters from the first edge at or after
	// it: the evaluation queued for that edge when the line state was
	// sent takes it, or an earlier one at or after the arrival does. A
	// line state's arrival and its sampling are one event.
	inbox []arrival
	// rxChanged says a port's resolved receive state changed since the
	// PHY last stepped; owed are the cycles those changes asked an
	// evaluation for (the first edge the PHY had not evaluated when each
	// came), until that cycle's evaluation event pops.
	rxChanged bool
	owed      []int64

	// sample is the last input evaluation queued (evStep), until it pops:
	// a request for the same cycle as of no earlier adds nothing.
	sample       queuedSample
	pendingTimer int64 // cycle of the armed timer's evaluation, -1 if none
	// timerArm counts the arming of the timer: only the event of the last
	// arming fires it, so a timer armed again for a cycle it once had does
	// not fire twice, and a stale timer event never matters again.
	timerArm int64
	// evaluated is the last clock cycle the PHY evaluated: it samples its
	// inputs and decides once per edge, so anything that arrives after
	// that evaluation waits for the next edge.
	evaluated int64
	state     phy.State
	gen       *generation
	reachedT0 bool // entered T0 in gen
	reachedS0 bool // entered S0 in gen
	// timeoutSeen says the bus has taken note of the CONFIG_TIMEOUT the
	// PHY signalled in its current reset (configTimedOut).
	timeoutSeen bool
	s0At        int64 // when this node last entered S0
	a0At        int64 // when this node last entered A0
	// notifyFrom is, per port, when the PHY last began to drive
	// PARENT_NOTIFY there; notified the PARENT_NOTIFYs it stopped on
	// entering root contention since its last reset, which tell why the
	// other end of a contention did not wait (contentions). A Simulator
	// keeps neither.
	notifyFrom []int64
	notified   []notifyPulse
	cause      Cause // why this node's next initiated reset happens; Kind "" if unknown
	// shortPending says an arbitrated short reset won by this PHY waits
	// for its clock edge: a long reset on its bus before then overtakes it.
	shortPending bool
	// The link's self-ID buffer is its generation's stream: rxGen is the
	// generation whose packets the PHY is counting (from its S0 entry to
	// its next R0), nil when none, and rxQuadlets and rxPacket0s how much
	// of that stream catchUp has delivered.
	rxGen                  *generation
	rxQuadlets, rxPacket0s int
}

type cableState struct {
	resolvedCable
	connected bool
	epoch     int32 // bumped on every plug and unplug: stale arrivals are dropped
}

// world is the runtime built from a resolved topology: nodes, cables and the
// kernel. It is private; Run is the way in.
type world struct {
	topo *resolvedTopology
	opts Options
	// phys are the PHY generations on the bus (resolvedTopology.phys),
	// with Options.Timing in place of each one's timing when set.
	phys    []phy.Profile
	k       Kernel[simEvent]
	nodes   []node
	cables  []cableState
	comp    []int // connected component of each node
	stack   []int // recomputeComponents' scratch
	openGen map[int]*generation
	gens    []*generation
	tx      []txSpan      // every self-ID transmission, by index
	txData  []phy.SelfID  // the packets of every transmission; a PHY reuses its own buffer
	txGen   []*generation // the generation each transmission belongs to
	hops    []struct {
		node, from int
		outEnd     int64
	} // scratch for walk
	// staleTimers counts the queued timer events that a re-arming or
	// disarming left to do nothing.
	staleTimers int
	discardedAt int64 // the time of the last stale timer discarded
	forest      cableForest
	// startCables says comp and forest are those of the cables plugged at
	// power-up: no cable has changed since start computed them, so the
	// next run's start need not again.
	startCables bool
	inFlight    []lazyTransmission // transmissions measured on the forest, not walked
	traceOnly   uint64             // events for tracing alone processed: not counted in Result.Events, nor against the budget
	// evaluations counts the run's input evaluations (sample), and idle
	// those where the PHY found nothing to do: the benchmarks report both.
	evaluations, idle uint64
	lastActive        int64 // time of the last event that was not a stale timer
	maxTime           int64
	maxEv             uint64
	// interrupted says the last run stopped because Options.Interrupt
	// closed.
	interrupted bool
	bias        float64 // the coin's probability of FAST
	// initiating is the node whose InitiateReset is being processed, -1
	// otherwise: its R0 entry carries the cause of the reset.
	initiating int

	// waiting are scripted PHY configuration packets and short resets, by
	// event, waiting for their sender's bus to become idle: each needs the
	// bus, which a PHY wins by arbitration in normal arbitration only.
	waiting []int
	// runEvents are the run's events: the scripted ones, and after them
	// those its bus manager sends (a copy of the scripted ones once it
	// does).
	runEvents []resolvedEvent
	// manager is the bus manager's record of the run.
	manager    managerState
	initiators []int // the nodes that start the first reset
	// powerUp is the power-up mode, resolved; arrivals the order of a
	// staggered one, powerUpEvery ns apart.
	powerUp      PowerUp
	arrivals     []int
	powerUpEvery int64
	cabled       []int   // the nodes with a cable at power-up: not awaiting
	lastCauses   []Cause // the cause of PowerUpOne's first reset, by index in cabled
	// awaiting are the nodes a scripted connect plugs in later that have no
	// cable at power-up: they stay out of every generation until then.
	awaiting []int
	cause    Cause // why they do
	forced   int   // the node Options.ForceRoot names, -1 if none
	// rebuild says the PHYs must be built afresh before the next run: they
	// are new, or the last run may have left registers or states that a
	// reset does not clear (see reusable).
	rebuild bool
	draws   *rand.PCG // scratch stream for one-off draws (clock phases)
	draw    *rand.Rand
	// choices, when not nil, makes the choices a replay or an explorer
	// drives; shiftNs is how far it moved the scripted events.
	choices  *chooser
	shiftNs  int64
	follower *Follower

	// lean is set by a Simulator: generations are not snapshotted into a
	// Result, only the first one's Metrics are kept, and the scratch below
	// is reused from run to run.
	lean    bool
	metrics Metrics
	first   FirstMarks // the first generation's, once it has closed
	genPool []*generation
	roots   []string    // rootClaims' scratch
	owner   []int32     // verify's scratch: 1 + the node that took each phy_ID
	trees   []builtTree // the self-ID streams checked lately, with the verdict
	treeAt  int         // the next entry of trees to replace
}

func newWorld(rt *resolvedTopology, o Options) (*world, error) {
	w := &world{topo: rt, opts: o, phys: slices.Clone(rt.phys), openGen: map[int]*generation{}, initiating: -1, forced: -1}
	w.k.Discard = w.staleTimer
	connectTimeout := time.Duration(0)
	for k := range w.phys {
		if o.Timing != nil {
			w.phys[k].Timing = *o.Timing
		}
		if err := w.phys[k].Timing.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		connectTimeout = max(connectTimeout, w.phys[k].Timing.ConnectTimeout)
	}
	bias := 0.5
	if o.CoinBias != nil {
		bias = *o.CoinBias
	}
	if !(bias >= 0 && bias <= 1) {
		return nil, fmt.Errorf("%w: coin bias %v outside [0, 1]", ErrInvalidOptions, bias)
	}
	w.bias = bias
	if o.ForceRoot != "" {
		if w.forced = rt.nodeIndex(o.ForceRoot); w.forced < 0 {
			return nil, fmt.Errorf("%w: force root: unknown node %q", ErrInvalidOptions, o.ForceRoot)
		}
	}
	if err := w.powerUpMode(); err != nil {
		return nil, err
	}
	if len(o.Initiators) == 0 {
		w.awaiting = rt.awaitingConnect()
	}
	for _, id := range o.Initiators {
		if rt.nodeIndex(id) < 0 {
			return nil, fmt.Errorf("%w: initiator: unknown node %q", ErrInvalidOptions, id)
		}
	}
	w.maxEv = o.EventBudget(len(rt.nodes))
	if o.MaxTime < 0 {
		return nil, fmt.Errorf("%w: time budget %v is negative", ErrInvalidOptions, o.MaxTime)
	}
	if o.Until < 0 || o.Until > maxUntil {
		return nil, fmt.Errorf("%w: until %v: want 0 to %v after initialisation", ErrInvalidOptions, o.Until, maxUntil)
	}
	w.maxTime = int64(o.MaxTime)
	if w.maxTime == 0 {
		last := int64(0)
		for _, ev := range rt.events {
			last = max(last, ev.at)
		}
		if win := o.choiceSpace().EventWindow; win != nil && len(rt.events) > 0 {
			last += max(0, win.To-rt.firstEventAt())
		}
		w.maxTime = last + max(int64(time.Second), int64(len(rt.nodes))*int64(TimePerNode)) + int64(connectTimeout)
	}
	if o.Replay != nil {
		if err := w.checkSpace(o.Replay.Space); err != nil {
			return nil, err
		}
		w.choices = &chooser{w: w, space: o.Replay.Space, path: o.Replay.Choices, follow: o.follow}
	}
	w.draws = rand.NewPCG(0, 0)
	w.draw = rand.New(w.draws)
	w.nodes = make([]node, len(rt.nodes))
	w.cables = make([]cableState, len(rt.cables))
	w.rebuild = true
	if err := w.start(o.Seed); err != nil {
		return nil, err
	}
	return w, nil
}

// start prepares the run with seed: the PHYs at power-up (built afresh, or
// returned to it), their clocks and random streams, the cables, and the
// first reset and scripted events in the queue. The same seed gives the
// same run whether the PHYs are new or reused; seed 0 is DefaultSeed.
func (w *world) start(seed uint64) error {
	seed = seedOrDefault(seed)
	w.opts.Seed = seed
	w.k.Reset()
	w.gens, w.tx, w.txData, w.txGen = w.gens[:0], w.tx[:0], w.txData[:0], w.txGen[:0]
	w.inFlight, w.staleTimers, w.discardedAt = w.inFlight[:0], 0, 0
	w.traceOnly, w.lastActive, w.initiating = 0, 0, -1
	w.evaluations, w.idle = 0, 0
	w.waiting = w.waiting[:0]
	if w.choices != nil {
		w.choices.restart()
	}
	setup := seed
	if w.opts.SetupSeed != nil {
		setup = seedOrDefault(*w.opts.SetupSeed)
	}
	for i, rn := range w.topo.nodes {
		clock := phy.IdealClock()
		if !w.opts.IdealClock {
			hz := w.phys[rn.phy].Timing.ClockHz
			period := (1e9 + hz - 1) / hz
			w.draws.Seed(setup, streamID(i, streamClock))
			phase := w.draw.Int64N(period)
			if w.choices != nil && w.choices.space.PhaseGrid > 0 {
				phase = w.choices.phase(i, period)
			}
			c, err := phy.NewClock(hz, phase, int64(rn.clockPPM*1000))
			if err != nil {
				return fmt.Errorf("node %q: %w", rn.id, err)
			}
			clock = c
		}
		if w.rebuild {
			if err := w.buildNode(i, rn, clock); err != nil {
				return err
			}
		} else {
			w.resetNode(i, rn, clock)
		}
		w.nodes[i].coins.Seed(seed, streamID(i, streamContention))
		w.drawTimers(i, setup)
	}
	w.rebuild = false
	w.firstResets(setup)
	for i, c := range w.topo.cables {
		w.cables[i] = cableState{resolvedCable: c}
		if c.connectedAtStart && w.poweredAtStart(c.a.node) && w.poweredAtStart(c.b.node) {
			w.plug(i)
		}
	}
	if w.startCables {
		clear(w.openGen)
	} else {
		w.recomputeComponents()
		w.startCables = true
	}
	for _, i := range w.initiators {
		w.scheduleInitiate(i, 0, false)
	}
	for k := 1; k < len(w.arrivals); k++ {
		w.k.Schedule(int64(k)*w.powerUpEvery, simEvent{kind: evPowerUp, arg: int64(k)})
	}
	w.shiftNs = 0
	if w.choices != nil {
		w.shiftNs = w.choices.shift()
	}
	for i, ev := range w.topo.events {
		w.k.Schedule(ev.at+w.shiftNs, simEvent{kind: evScenario, arg: int64(i)})
	}
	w.runEvents = w.topo.events[:len(w.topo.events):len(w.topo.events)]
	w.manager = managerState{seen: -1, managed: -1, members: w.manager.members[:0]}
	return nil
}

// drawTimers gives node i's PHY its RESET_TIME, CONFIG_TIMEOUT and
// FORCE_ROOT_TIMEOUT for the run with seed: drawn uniformly, in whole ns,
// from the ranges the standard allows, so that no two PHYs time out
// together by construction, or the nominal values with
// Options.NominalTimers.
func (w *world) drawTimers(i int, seed uint64) {
	n := &w.nodes[i]
	t := &n.phy.Timing
	w.draws.Seed(seed, streamID(i, streamTimers))
	draw := func(r phy.Window) time.Duration {
		return r.Min + time.Duration(w.draw.Int64N(int64(r.Max-r.Min)+1))
	}
	pick := func(r phy.Window, nominal time.Duration) time.Duration {
		if w.opts.NominalTimers {
			return nominal
		}
		return r.Draw(nominal, draw)
	}
	n.m.SetResetTime(pick(t.ResetTimeRange, t.ResetTime))
	n.forceRootTimeout = pick(t.ForceRootTimeoutRange, t.ForceRootTimeout)
	n.configTimeout = pick(t.ConfigTimeoutRange, t.ConfigTimeout)
	n.election.SetTimeouts(n.forceRootTimeout, n.configTimeout)
}

// reusable reports whether the PHYs can start the next run as they are:
// every one idle in A0 after a complete self identify, and no scripted event
// (a PHY configuration packet, a cable change) that altered registers or
// ports. A reset then clears everything else a run leaves behind.
func (w *world) reusable() bool {
	if len(w.topo.events) > 0 || w.topo.manager.node >= 0 || w.powerUp == PowerUpStaggered {
		return false
	}
	for i := range w.nodes {
		if w.nodes[i].m.State() != phy.A0Idle {
			return false
		}
	}
	return true
}

// resetNode returns node i's PHY, idle in A0 after a run, to its power-up
// state: nothing on the wires, and a gap count from the file counted as
// written before power-up, as buildNode sets it.
func (w *world) resetNode(i int, rn resolvedNode, clock phy.Clock) {
	n := &w.nodes[i]
	n.clock = clock
	ports := n.m.Ports()
	clear(ports.Connected)
	clear(ports.Rx)
	clear(ports.Tx)
	for p := range ports.Status {
		ports.Status[p] = phy.PortNotConnected
	}
	if rn.gapCount != 63 {
		// In range: resolve checked it.
		pc, _ := phy.NewPhyConfig(0, false, true, rn.gapCount)
		n.m.ApplyPhyConfig(pc)
	}
	n.resetWires()
}

// resetWires puts the bus's view of node n's ports in the power-up state.
func (n *node) resetWires() {
	for p := range n.cable {
		n.cable[p] = -1
	}
	clear(n.remote)
	clear(n.sent)
	clear(n.busyUntil)
	n.inbox, n.rxChanged, n.owed = n.inbox[:0], false, n.owed[:0]
	n.sample, n.pendingTimer, n.evaluated = noSample, phy.NoWake, -1
	n.state = phy.A0Idle
	n.gen, n.reachedT0, n.reachedS0, n.s0At, n.a0At, n.cause, n.timeoutSeen = nil, false, false, -1, 0, Cause{}, false
	n.notified = n.notified[:0]
	n.countFrom(nil) // the link buffers nothing yet
}

func (w *world) buildNode(i int, rn resolvedNode, clock phy.Clock) error {
	n := &w.nodes[i]
	n.cfg, n.clock, n.phy = rn, clock, &w.phys[rn.phy]
	timing := n.phy.Timing
	n.peerUIDs = make([]uint64, rn.ports)
	n.coins = rand.NewPCG(0, 0) // seeded by start
	election, err := treeid.NewElection(treeid.ElectionConfig{
		Fast:             timing.RootContendFast,
		Slow:             timing.RootContendSlow,
		ForceRootTimeout: timing.ForceRootTimeout,
		ConfigTimeout:    timing.ConfigTimeout,
		// Timers count cycles of the nominal frequency: the phase and the
		// frequency error of this run's clock do not enter.
		Clock:           n.clock,
		Policy:          w.opts.Policy,
		FastProbability: w.bias,
		Corner:          w.opts.Corner,
		UID:             rn.uid,
		PeerUIDs:        n.peerUIDs,
		Rand:            rand.New(n.coins),
		Chooser:         w.electionChooser(i),
	})
	if err != nil {
		return fmt.Errorf("%w: node %q: %w", ErrInvalidOptions, rn.id, err)
	}
	m, err := phy.NewMachine(phy.Config{
		Ports:      rn.ports,
		Speed:      rn.speed,
		LinkActive: rn.link,
		Contender:  rn.contender,
		PowerClass: rn.powerClass,
		ForceRoot:  i == w.forced || w.forced < 0 && rn.forceRoot,
		GapCount:   rn.gapCount,
		// A gap count in the file counts as written before power-up; 63 is
		// what the first reset would set anyway.
		GapCountWritten:   rn.gapCount != 63,
		LoadsOwnPhyConfig: n.phy.LoadsOwnPhyConfig,
		Timing:            timing,
		Clock:             n.clock,
		TreeID:            election,
	})
	if err != nil {
		return fmt.Errorf("node %q: %w", rn.id, err)
	}
	n.m, n.election = m, election
	n.cable = make([]int, rn.ports)
	n.remote = make([]phy.LineState, rn.ports)
	n.sent = make([]phy.LineState, rn.ports)
	n.busyUntil = make([]int64, rn.ports)
	n.notifyFrom = make([]int64, rn.ports)
	n.resetWires() // a new PHY is idle in A0 too
	return nil
}

func (rt *resolvedTopology) nodeIndex(id string) int {
	for i, n := range rt.nodes {
		if n.id == id {
			return i
		}
	}
	return -1
}

// peer is the other end of cable c seen from end e.
func (c *cableState) peer(e portRef) portRef {
	if c.a == e {
		return c.b
	}
	return c.a
}

// plug connects cable c: each end starts receiving what the other drives,
// one cable delay later.
func (w *world) plug(c int) {
	w.settleInFlight()
	cs := &w.cables[c]
	w.takeArrivals(cs.a.node)
	w.takeArrivals(cs.b.node)
	cs.connected = true
	cs.epoch++
	for _, end := range []portRef{cs.a, cs.b} {
		n := &w.nodes[end.node]
		n.cable[end.port] = c
		n.m.Ports().Connected[end.port] = true
		far := cs.peer(end)
		n.peerUIDs[end.port] = w.nodes[far.node].cfg.uid
		w.send(far, n.sent[end.port], cs.epoch, w.k.Now()+cs.delayNs)
	}
}

// unplug disconnects cable c: both ends see an idle, unconnected port at once.
func (w *world) unplug(c int) {
	w.settleInFlight()
	cs := &w.cables[c]
	w.takeArrivals(cs.a.node)
	w.takeArrivals(cs.b.node)
	cs.connected = false
	cs.epoch++
	for _, end := range []portRef{cs.a, cs.b} {
		n := &w.nodes[end.node]
		n.cable[end.port] = -1
		n.remote[end.port] = phy.TxIdle
		n.m.Ports().Connected[end.port] = false
		w.setRx(end.node, end.port, phy.RxIdle, -1)
	}
}

func (w *world) recomputeComponents() {
	if len(w.comp) != len(w.nodes) {
		w.comp = make([]int, len(w.nodes))
	}
	for i := range w.comp {
		w.comp[i] = -1
	}
	stack := w.stack[:0]
	for start := range w.nodes {
		if w.comp[start] >= 0 {
			continue
		}
		stack = append(stack, start)
		w.comp[start] = start
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range w.nodes[i].cable {
				if c < 0 {
					continue
				}
				j := w.cables[c].peer(portRef{i, indexOfCable(w.nodes[i].cable, c)}).node
				if w.comp[j] < 0 {
					w.comp[j] = start
					stack = append(stack, j)
				}
			}
		}
	}
	w.stack = stack
	w.forest.build(w)
	clear(w.openGen)
}

func indexOfCable(ports []int, c int) int {
	for p, x := range ports {
		if x == c {
			return p
		}
	}
	return -1
}

func (w *world) scheduleInitiate(i int, at int64, short bool) {
	n := &w.nodes[i]
	cycle, edge := n.clock.FirstEdge(at)
	kind := evInitiate
	if short {
		kind = evInitiateShort
		n.shortPending = true
	}
	w.k.Schedule(edge, simEvent{kind: kind, node: int32(i), arg: cycle})
}

// interruptEvery is how many events a run processes between looks at
// Options.Interrupt: often enough to stop within a millisecond, rarely enough
// to cost nothing measurable.
const interruptEvery = 4096

// run processes events until none is left, a budget runs out or
// Options.Interrupt closes.
func (w *world) run() {
	w.interrupted = false
	for {
		if w.opts.Interrupt != nil && w.k.Processed()%interruptEvery == 0 {
			select {
			case <-w.opts.Interrupt:
				w.interrupted = true
				return
			default:
			}
		}
		at, ok := w.k.PeekTime()
		if !ok {
			w.settleArrivals()
			w.closeAll(OutcomeStalled, "nothing left to happen")
			return
		}
		if at > w.maxTime {
			w.cutAt(w.maxTime)
			w.closeAll(OutcomeBudgetExhausted, fmt.Sprintf("time budget of %v ran out", time.Duration(w.maxTime)))
			return
		}
		if w.events() >= w.maxEv {
			w.closeAll(OutcomeBudgetExhausted, fmt.Sprintf("event budget of %d events ran out", w.maxEv))
			return
		}
		if w.follower != nil && w.follower.beforeEvent() {
			return
		}
		_, ev, _ := w.k.Next()
		w.dispatch(ev)
		if w.choices != nil && w.choices.stopped() {
			return
		}
	}
}

func (w *world) dispatch(ev simEvent) {
	n := &w.nodes[ev.node]
	if ev.kind != evStep && ev.kind != evArbTimeout { // a fallback that finds nothing to do did nothing
		w.lastActive = w.k.Now()
	}
	switch ev.kind {
	case evStep:
		if n.sample.cycle == ev.arg {
			n.sample = noSample
		}
		w.takeArrivals(int(ev.node))
		owed := n.pay(ev.arg)
		switch {
		case !n.rxChanged && !owed: // nothing asked for this edge
		case ev.arg > n.evaluated:
			w.lastActive = w.k.Now()
			w.sample(int(ev.node), ev.arg)
		default:
			// Another evaluation took this edge after a change asked for
			// it: a reset initiated there, which samples no input, or a
			// timer's step. The next edge samples the change, even if
			// that step saw it: the edge asked for was one the PHY had
			// decided on.
			w.lastActive = w.k.Now()
			next := n.evaluated + 1
			w.owe(int(ev.node), next)
			w.sampleAt(int(ev.node), next, n.clock.Edge(next), w.k.Now())
		}
	case evTraceArrive:
		w.traceOnly++
		w.takeArrivals(int(ev.node))
	case evTimer: // live: the kernel discards the others (staleTimer)
		cycle := n.pendingTimer
		n.pendingTimer = phy.NoWake
		if cycle > n.evaluated { // else that edge's evaluation saw the time
			w.takeArrivals(int(ev.node))
			w.step(int(ev.node), cycle)
		}
	case evInitiate, evInitiateShort:
		if ev.kind == evInitiateShort && !n.shortPending {
			return // a long reset overtook it (overtakeShortResets)
		}
		if ev.arg <= n.evaluated {
			// The PHY already decided on this edge: the reset starts on the
			// next one.
			ev.arg = n.evaluated + 1
			w.k.Schedule(n.clock.Edge(ev.arg), ev)
			return
		}
		w.takeArrivals(int(ev.node))
		n.evaluated = ev.arg // the inputs stay unsampled (rxChanged) until a step
		if ev.kind == evInitiateShort {
			n.shortPending = false
		} else {
			w.overtakeShortResets(int(ev.node))
		}
		w.initiating = int(ev.node)
		w.catchUp(int(ev.node))
		n.m.InitiateReset(ev.arg, ev.kind == evInitiateShort)
		w.afterStep(int(ev.node), ev.arg)
		w.initiating = -1
	case evDelivered:
		w.delivered(int32(ev.arg))
	case evTracePacket:
		w.traceOnly++
		for _, q := range w.packets(int32(ev.arg)) {
			w.observe(TraceEvent{Kind: TracePacket, Node: n.cfg.id, Port: int(ev.port), Packet: q})
		}
	case evScenario:
		w.scenario(int(ev.arg))
	case evConnected:
		w.connected(int(ev.arg))
	case evArbTimeout:
		w.arbTimeout(int(ev.arg))
	case evPowerUp:
		w.arrive(int(ev.arg))
	case evManager:
		w.manage(int(ev.arg))
	}
}

// staleTimer reports a timer event armed again, or disarmed, since it was
// queued, which the kernel then discards: it would do nothing, and is no
// event of the run. Its time still counts for where the run ends
// (discardedAt), as it did when it was an event; one past the time budget
// is left for the run loop to find there.
func (w *world) staleTimer(at int64, ev simEvent) bool {
	if ev.kind != evTimer || w.nodes[ev.node].live(ev) || at > w.maxTime {
		return false
	}
	w.staleTimers--
	w.discardedAt = max(w.discardedAt, at)
	return true
}

// staleTimersKept is how many stale timer events may wait in the queue
// before dropStaleTimers removes them. A bus of a few dozen nodes never
// gets there (about 100 go stale in a 63-node initialisation), so its
// events are as they were; a bus of a million re-arms millions of timers
// whose events would otherwise hold most of the queue. (A variable for
// the tests.)
var staleTimersKept = 1 << 14

// dropStaleTimers removes the stale timer events from the queue once they
// are many and most of it.
func (w *world) dropStaleTimers() {
	if w.staleTimers > staleTimersKept && 2*w.staleTimers > w.k.Len() {
		w.staleTimers -= w.k.Drop(func(ev simEvent) bool { return ev.kind == evTimer && !w.nodes[ev.node].live(ev) })
	}
}

// events counts the events processed but those for tracing alone: a traced
// run counts, and stops, as an untraced one.
func (w *world) events() uint64 { return w.k.Processed() - w.traceOnly }

// live reports whether timer event ev is the one of the timer's last
// arming (disarming counts as one).
func (n *node) live(ev simEvent) bool { return n.timerArm == ev.arg }

// step evaluates node i's PHY on clock edge cycle, which it has not
// evaluated yet, with every line state that has arrived by now (the caller
// has taken them: takeArrivals).
func (w *world) step(i int, cycle int64) {
	n := &w.nodes[i]
	n.evaluated, n.rxChanged = cycle, false
	w.catchUp(i)
	check := w.opts.checkSteps
	if check != nil {
		check.before(w, i, cycle)
	}
	n.m.Step(cycle)
	w.afterStep(i, cycle)
	if check != nil {
		check.after(w, i, cycle)
	}
}

// sample is step for an evaluation of the inputs, which half the time
// finds nothing to do: a PHY's own change of drive asks for the next
// edge's, and the line states of a reset or a self-ID grant reach PHYs
// that do not wait for them. Where the PHY says the step would change
// nothing (phy.Machine.Enabled), there is none: the PHY and its ports are
// as the step would leave them, and nothing is left to propagate. (A
// timer's evaluation always has something to do: it is due.)
func (w *world) sample(i int, cycle int64) {
	n := &w.nodes[i]
	w.evaluations++
	switch {
	case w.opts.checkIdle:
		w.checkedStep(i, cycle)
	case n.m.Enabled(cycle):
		w.step(i, cycle)
	default:
		w.idle++
		n.evaluated, n.rxChanged = cycle, false
	}
}

// checkedStep is step, checking that a step the PHY's Enabled says would
// change nothing does not: the tests' guard that sample leaves out no step
// that mattered.
func (w *world) checkedStep(i int, cycle int64) {
	n := &w.nodes[i]
	w.catchUp(i) // first: the packets it delivers are in the key, and no step's doing
	enabled, wake := n.m.Enabled(cycle), n.m.Wake()
	before := n.election.AppendKey(n.m.AppendKey(nil, cycle), cycle)
	w.step(i, cycle)
	after := n.election.AppendKey(n.m.AppendKey(nil, cycle), cycle)
	if !enabled && (len(n.m.Trail()) > 0 || n.m.Wake() != wake || !bytes.Equal(before, after)) {
		panic(fmt.Sprintf("bus: node %s in %v: Enabled(%d) reported false, but the step changed its state (trail %v, wake %d → %d)",
			n.cfg.id, n.state, cycle, n.m.Trail(), wake, n.m.Wake()))
	}
}

// sampleAt has node i's PHY evaluate its inputs on edge cycle, at time
// edge, as something at virtual time origin asks: in the order an event
// queued then would take among the others of that edge.
func (w *world) sampleAt(i int, cycle, edge, origin int64) {
	n := &w.nodes[i]
	if n.sample.cycle == cycle && n.sample.origin <= origin {
		return
	}
	n.sample = queuedSample{cycle, origin}
	w.k.ScheduleAsOf(edge, origin, simEvent{kind: evStep, node: int32(i), arg: cycle})
}

// queuedSample is an input evaluation in the queue: its cycle, and the
// virtual time it was asked for at.
type queuedSample struct{ cycle, origin int64 }

var noSample = queuedSample{phy.NoWake, 0}

// setRx records a new resolved receive state and has the PHY sample it on
// its next clock edge. decided is the edge the PHY has just decided on,
// now, when it is its own new drive that changed the state (else -1): the
// first edge at or after now is then known, where finding it takes two
// 128-bit divisions.
func (w *world) setRx(i, port int, rx phy.LineState, decided int64) {
	n := &w.nodes[i]
	now := w.k.Now()
	var cycle, edge int64
	if decided >= 0 {
		cycle = decided // and the PHY has evaluated it: the next edge samples
	} else {
		cycle, edge = n.clock.FirstEdge(now)
	}
	if w.updateRx(i, port, rx, now, cycle) {
		if cycle <= n.evaluated { // it decided on that edge already
			cycle, edge = n.evaluated+1, n.clock.Edge(n.evaluated+1)
		}
		w.sampleAt(i, cycle, edge, now)
	}
}

// updateRx records a resolved receive state that came at time at, and
// reports whether it changed. A change asks for the evaluation of the
// first edge at or after at that the PHY has not evaluated (owed): the
// event of that edge was queued when the line state was sent, or by
// setRx. first is the first edge at or after at where the caller knows it
// (else -1): finding it takes a 128-bit division.
func (w *world) updateRx(i, port int, rx phy.LineState, at, first int64) bool {
	n := &w.nodes[i]
	ports := n.m.Ports()
	if ports.Rx[port] == rx {
		return false
	}
	if w.opts.Observer != nil { // building the event costs, traced or not
		w.observe(TraceEvent{Kind: TraceReceive, Node: n.cfg.id, Port: port, FromLine: ports.Rx[port], ToLine: rx})
	}
	ports.Rx[port] = rx
	n.rxChanged = true
	if first < 0 {
		first = n.clock.EdgeAtOrAfter(at)
	}
	w.owe(i, max(first, n.evaluated+1))
	return true
}

// owe records that a change asked node i's evaluation of cycle (owed).
func (w *world) owe(i int, cycle int64) {
	n := &w.nodes[i]
	for _, c := range n.owed {
		if c == cycle {
			return
		}
	}
	n.owed = append(n.owed, cycle)
}

// pay removes cycle from the evaluations the node owes, and reports
// whether it owed it. (There are rarely more than two: a loop beats the
// generic slices functions here, on every evaluation.)
func (n *node) pay(cycle int64) bool {
	for k, c := range n.owed {
		if c == cycle {
			if len(n.owed) == 1 { // the common case: no copy
				n.owed = n.owed[:0]
			} else {
				n.owed = append(n.owed[:k], n.owed[k+1:]...)
			}
			return true
		}
	}
	return false
}

// send puts line state line on its way to port `to`, over the cable of
// the given epoch, to arrive at at: into the port's inbox, with the
// evaluation of the first edge at or after at queued as the arrival would
// queue it. (An edge's evaluation comes after every arrival at its
// instant, as a receiver's synchronizer samples what is there when the
// edge comes.)
//
// A line state that resolves, against what the receiver drives now, to
// what the one before it on the port resolves to changes nothing when it
// arrives, unless the receiver drives something else by then: it is
// quiet, with no evaluation queued, and the receiver's next change of
// drive on the port judges it again (requeue). (A PHY in reset drives
// BUS_RESET, which resolves to BUS_RESET whatever arrives: most line
// states of a reset are quiet.)
func (w *world) send(to portRef, line phy.LineState, epoch int32, at int64) {
	n := &w.nodes[to.node]
	a := arrival{at: at, edge: -1, epoch: epoch, port: int16(to.port), line: line}
	k := len(n.inbox)
	n.inbox = append(n.inbox, a)
	for ; k > 0 && n.inbox[k-1].at > at; k-- {
		n.inbox[k] = n.inbox[k-1]
	}
	// What the port receives until it arrives: what the line state before
	// it resolves to, or, with none on its way, what it receives now (after
	// a plug that may not be what the drives resolve to yet).
	sent := n.sent[to.port]
	rx := n.m.Ports().Rx[to.port]
	for j := k - 1; j >= 0; j-- {
		if b := n.inbox[j]; b.port == a.port && b.epoch == epoch { // not over a cable unplugged since
			rx = phy.Receive(sent, b.line)
			break
		}
	}
	a.quiet = phy.Receive(sent, line) == rx
	if !a.quiet {
		a.edge = w.queueArrival(to.node, at)
	}
	n.inbox[k] = a
	if w.opts.Observer != nil {
		w.k.ScheduleFirst(at, simEvent{kind: evTraceArrive, node: int32(to.node)})
	}
}

// queueArrival queues the evaluation a line state arriving at node i at
// time at calls for: on the first edge at or after it, as the arrival
// would have queued it. It returns that edge.
func (w *world) queueArrival(i int, at int64) int64 {
	cycle, edge := w.nodes[i].clock.FirstEdge(at)
	w.sampleAt(i, cycle, edge, at)
	return cycle
}

// requeue judges again the quiet line states on their way to node i's
// port p, whose drive has just changed: one that now resolves otherwise
// than the one before it calls for its evaluation after all. (The port
// receives what the new drive and the remote one resolve to from now on:
// afterStep sets it. One over a cable unplugged since is left as it is:
// it will be dropped.)
func (w *world) requeue(i, p int) {
	n := &w.nodes[i]
	c := n.cable[p]
	if c < 0 {
		return
	}
	epoch := w.cables[c].epoch
	before := n.remote[p]
	sent := n.sent[p]
	for k := range n.inbox {
		a := &n.inbox[k]
		if int(a.port) != p || a.epoch != epoch {
			continue
		}
		if a.quiet && phy.Receive(sent, a.line) != phy.Receive(sent, before) {
			a.quiet = false
			a.edge = w.queueArrival(i, a.at)
		}
		before = a.line
	}
}

// settleArrivals lets the quiet line states still on their way arrive,
// when nothing else is left to happen: none calls for an evaluation, but
// the run lasts until the last has arrived, or the last stale timer
// discarded, as it did when every arrival and timer was an event.
func (w *world) settleArrivals() {
	last := max(w.k.Now(), w.discardedAt)
	for i := range w.nodes {
		if in := w.nodes[i].inbox; len(in) > 0 {
			last = max(last, in[len(in)-1].at)
		}
	}
	w.k.AdvanceTo(last)
	for i := range w.nodes {
		w.takeArrivals(i)
	}
}

// cutAt stops the run at its time budget t where it stopped when every
// line state's arrival and every stale timer was an event: the line states
// that arrive by t, with no evaluation to take them before, arrive, and
// the run lasts until the last of them or the last stale timer discarded.
func (w *world) cutAt(t int64) {
	last := max(w.k.Now(), w.discardedAt)
	for i := range w.nodes {
		for _, a := range w.nodes[i].inbox {
			if a.at <= t {
				w.lastActive = max(w.lastActive, a.at)
				last = max(last, a.at)
			}
		}
	}
	w.k.AdvanceTo(last)
}

// takeArrivals takes from node i's inbox every line state that has arrived
// by now: each sets the port's remote state and resolves its receive
// state, unless the cable it came over was unplugged since. The evaluation
// that samples them is queued already, or under way.
func (w *world) takeArrivals(i int) {
	n := &w.nodes[i]
	now := w.k.Now()
	k := 0
	for ; k < len(n.inbox) && n.inbox[k].at <= now; k++ {
		a := n.inbox[k]
		w.lastActive = max(w.lastActive, a.at)
		if c := n.cable[a.port]; c < 0 || w.cables[c].epoch != a.epoch {
			continue // sent over a cable since unplugged
		}
		n.remote[a.port] = a.line
		w.updateRx(i, int(a.port), phy.Receive(n.sent[a.port], a.line), a.at, a.edge)
	}
	switch {
	case k == len(n.inbox): // the common case: all of them
		n.inbox = n.inbox[:0]
	case k > 0:
		n.inbox = n.inbox[:copy(n.inbox, n.inbox[k:])]
	}
}

// afterStep propagates what a PHY did on a clock edge: state changes,
// new drives (to the far end of each cable and to its own receivers), packets
// to send, and the timer it armed.
func (w *world) afterStep(i int, cycle int64) {
	n := &w.nodes[i]
	now := w.k.Now()
	// Packets first: the generation is not complete before they arrive,
	// and the line states this step drives follow them on the wire.
	if packets, _, end := n.m.TakeTransmit(); len(packets) > 0 {
		w.transmit(i, packets, n.clock.Edge(end))
	}
	for _, s := range n.m.Trail() {
		if w.opts.Observer != nil {
			w.observe(TraceEvent{Kind: TraceState, Node: n.cfg.id, Port: -1, FromState: n.state, ToState: s})
		}
		n.state = s
		w.onState(i, s, now)
	}
	ports := n.m.Ports()
	for p, tx := range ports.Tx {
		if tx == n.sent[p] {
			continue
		}
		if w.opts.Observer != nil {
			w.observe(TraceEvent{Kind: TraceTransmit, Node: n.cfg.id, Port: p, FromLine: n.sent[p], ToLine: tx})
		}
		n.sent[p] = tx
		if tx == phy.TxParentNotify && !w.lean {
			n.notifyFrom[p] = now
		}
		w.requeue(i, p)
		if c := n.cable[p]; c >= 0 {
			cs := &w.cables[c]
			far := cs.peer(portRef{i, p})
			w.send(far, tx, cs.epoch, max(now, w.busyUntil(i, p))+cs.delayNs)
			w.setRx(i, p, phy.Receive(tx, n.remote[p]), cycle)
		}
	}
	wake := n.m.Wake()
	if wake != phy.NoWake {
		wake = max(wake, cycle+1)
	}
	if wake != n.pendingTimer {
		if n.pendingTimer != phy.NoWake {
			w.staleTimers++ // its event stays queued, to do nothing
		}
		n.pendingTimer = wake
		n.timerArm++
		if wake != phy.NoWake {
			w.k.ScheduleMayDiscard(n.clock.Edge(wake), simEvent{kind: evTimer, node: int32(i), arg: n.timerArm})
		}
		w.dropStaleTimers()
	}
	if !n.timeoutSeen && n.m.ConfigTimedOut() {
		n.timeoutSeen = true
		w.configTimedOut(i)
	}
}

// transmit sends a node's self-ID packets, whose transmission has just
// ended, to every link of its generation: the sender's own link at once,
// every other one a cable delay plus a repeat delay per PHY later. The
// packets reach each link at once rather than hop by hop, to keep the flood
// (N² deliveries) out of the event queue: this is exact because a PHY's
// later line states on a port wait for the data it repeats there
// (busyUntil), so no grant can reach a node ahead of a packet it should
// count, and a PHY that resets before a copy reaches it clears its buffer on
// entering R0 anyway. One event marks when the last copy arrives. Without
// tracing, and on a part of the bus without a loop, the copies are not even
// walked: the cable forest gives when each one ends, if a PHY asks
// (busyUntil), from the tree's distances.
func (w *world) transmit(i int, packets []phy.SelfID, endNs int64) {
	g := w.nodes[i].gen
	idx := int32(len(w.tx))
	w.tx = append(w.tx, txSpan{int32(len(w.txData)), int32(len(w.txData) + len(packets))})
	w.txData = append(w.txData, packets...)
	w.txGen = append(w.txGen, g)
	if g != nil {
		g.selfIDs = append(g.selfIDs, packets...)
		for _, q := range packets {
			if !q.IsExtended() {
				g.packet0s++
			}
		}
		g.inflight++
	}
	var last int64
	if w.opts.Observer == nil && w.forest.measures(w.comp[i]) {
		t := lazyTransmission{sender: int32(i), end: endNs, last: endNs + w.forest.reach[i]}
		w.inFlight = append(w.inFlight, t)
		last = t.last
	} else {
		last = w.walk(i, idx, endNs)
	}
	w.k.Schedule(last, simEvent{kind: evDelivered, arg: int64(idx)})
}

// walk follows the data of node i's transmission idx, which ended at endNs,
// through every cable of its part of the bus: it records, per port, when
// the data repeated there ends, traces each arrival (idx −1: none), and
// returns when the last copy arrives.
func (w *world) walk(i int, idx int32, endNs int64) int64 {
	if idx >= 0 {
		w.receive(i, -1, idx, endNs)
	}
	last := endNs
	type hop struct {
		node, from int
		outEnd     int64 // when this PHY's copy of the data ends on its ports
	}
	stack := append(w.hops[:0], hop{i, -1, endNs})
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &w.nodes[h.node]
		for p, c := range n.cable {
			if c < 0 || p == h.from {
				continue
			}
			n.busyUntil[p] = max(n.busyUntil[p], h.outEnd)
			cs := &w.cables[c]
			far := cs.peer(portRef{h.node, p})
			arrival := h.outEnd + cs.delayNs
			if idx >= 0 {
				w.receive(far.node, far.port, idx, arrival)
			}
			last = max(last, arrival)
			stack = append(stack, hop{far.node, far.port, arrival + int64(w.nodes[far.node].phy.Timing.RepeatDelay)})
		}
	}
	w.hops = stack
	return last
}

// txSpan locates one transmission's packets in world.txData.
type txSpan struct{ from, to int32 }

// packets returns the packets of transmission idx.
func (w *world) packets(idx int32) []phy.SelfID {
	s := w.tx[idx]
	return w.txData[s.from:s.to]
}

// receive traces the arrival of transmission idx at node i, with tracing
// on. The PHY learns of the packets from its generation's stream
// (catchUp), not from each copy: that would cost a bus of n nodes n².
func (w *world) receive(i, port int, idx int32, at int64) {
	if w.opts.Observer != nil {
		w.k.Schedule(at, simEvent{kind: evTracePacket, node: int32(i), port: int16(port), arg: int64(idx)})
	}
}

// catchUp hands node i's PHY the packets of its generation transmitted
// since it last did. Every one has reached the link by now, as transmit
// explains, and those of other generations, or sent before the PHY entered
// S0, are not its own. It runs before anything reads the PHY's count: a
// step, a key, a verdict.
func (w *world) catchUp(i int) {
	n := &w.nodes[i]
	g := n.rxGen
	if g == nil || len(g.selfIDs) == n.rxQuadlets {
		return
	}
	n.m.Receive(len(g.selfIDs)-n.rxQuadlets, g.packet0s-n.rxPacket0s)
	n.rxQuadlets, n.rxPacket0s = len(g.selfIDs), g.packet0s
}

// countFrom makes node i's link count g's packets from now on.
func (n *node) countFrom(g *generation) {
	n.rxGen = g
	if g != nil {
		n.rxQuadlets, n.rxPacket0s = len(g.selfIDs), g.packet0s
	}
}

// delivered is called when the last copy of transmission idx has arrived.
func (w *world) delivered(idx int32) {
	g := w.txGen[idx]
	if g == nil {
		return
	}
	g.inflight--
	g.lastPacketNs = max(g.lastPacketNs, w.k.Now())
	w.checkComplete(g)
}

func (w *world) observe(e TraceEvent) {
	if w.opts.Observer != nil {
		e.TimeNs = w.k.Now()
		w.opts.Observer(e)
	}
}
