package bus

import (
	"time"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// Options control one run. The zero value runs the topology's profile with
// DefaultSeed, a fair coin, random waits, cycle-accurate clocks and the
// default budgets: what fwsim run runs without flags.
type Options struct {
	// Seed determines every random draw: clock phases, coins and waits. The
	// same topology, options and seed give the same Result. Zero is
	// DefaultSeed, which Result.Seed then names.
	Seed uint64
	// Profile overrides the topology's profile when not empty.
	Profile string
	// Timing overrides the profile's timing constants when not nil.
	Timing *phy.Timing
	// AllowOutOfSpec runs configurations beyond the standard's limits; the
	// Result lists why they are out of spec.
	AllowOutOfSpec bool

	// ForceRoot names a node whose RHB is set before the first reset, as a
	// PHY configuration packet would: every other node's is cleared. ""
	// leaves the topology's force_root settings alone.
	ForceRoot string
	// Initiators name the nodes that start the first reset at time 0, on a
	// bus that is otherwise up (PowerUpOne). Empty leaves the choice to
	// PowerUp.
	Initiators []string
	// PowerUp says how the PHYs come up and who starts the first reset
	// (default: the profile's, PowerUpOne but for prism).
	PowerUp PowerUp
	// PowerUpInterval spaces the arrivals of PowerUpStaggered (default
	// DefaultPowerUpInterval).
	PowerUpInterval time.Duration

	// Policy resolves root contention (default: a coin).
	Policy treeid.Policy
	// CoinBias is the probability that the coin picks FAST; nil means a fair
	// coin (0.5).
	CoinBias *float64
	// Corner places waits inside their windows (default: uniformly random).
	Corner treeid.Corner
	// NominalTimers gives every PHY the profile's nominal RESET_TIME,
	// CONFIG_TIMEOUT and FORCE_ROOT_TIMEOUT. By default each PHY draws its
	// own from the ranges the standard allows (phy.Timing's ...Range
	// fields), seeded, as real PHYs differ.
	NominalTimers bool
	// SetupSeed, when not nil, draws every PHY's clock phase and timer
	// lengths from it instead of from Seed, so that runs with different
	// seeds differ only in their root-contention coins and waits: a Monte
	// Carlo analysis of the very bus that fwsim explore --seed S explores
	// (explore fixes what is not a choice with its seed). Zero is
	// DefaultSeed, as for Seed.
	SetupSeed *uint64
	// IdealClock removes cycle quantisation: every PHY samples every
	// nanosecond, with no phase offset and no frequency error.
	IdealClock bool

	// MaxEvents bounds the kernel events of the run (default
	// DefaultMaxEvents, or DefaultEventsPerNode a node on a bus of more than
	// 10,000 nodes).
	MaxEvents uint64
	// MaxTime bounds virtual time (default: one second after the last
	// scripted event, or TimePerNode a node on a bus of more than 100,000
	// nodes).
	MaxTime time.Duration

	// Until runs the bus that long after its initialisation, with the
	// topology's traffic (Result.Traffic): arbitration, cycle starts and
	// acknowledgements (docs/protocol.md §9.6). Zero is DefaultUntil when the
	// topology has traffic, and no traffic phase when it has none; at most
	// one second.
	Until time.Duration

	// Observer, when not nil, is called for every trace event. Tracing off
	// costs nothing.
	Observer func(TraceEvent)

	// Interrupt, when not nil, stops a run soon after it closes (the run
	// checks it every 4096 events, well under a millisecond): Run returns
	// ErrInterrupted and Simulator.Run reports it with Interrupted. A
	// context's Done channel is the usual value.
	Interrupt <-chan struct{}

	// Replay, when not nil, makes the run take the choices of a recorded
	// path (fwsim explore's counterexamples) instead of drawing them: its
	// coins, waits, and the phases and event times its Space opens. Run
	// fails with ErrInvalidOptions when the run asks for a choice the path
	// does not hold, or ends before using all of it.
	Replay *Path

	// follow is set by NewFollower: past its list, a choice stops the run.
	follow bool
	// checkIdle, for the tests, has every evaluation step the PHY, even
	// one its Enabled says would change nothing, and panics where the step
	// then changes something after all.
	checkIdle bool
	// checkSteps, for the tests, sees every step of every PHY: before it
	// and after it.
	checkSteps stepChecker
}

// stepChecker watches the steps of a run's PHYs (Options.checkSteps): the
// tests hold each against the protocol's predicates.
type stepChecker interface {
	before(w *world, i int, cycle int64)
	after(w *world, i int, cycle int64)
}

// choiceSpace is the space of the choices a replay or an exploration
// opens.
func (o *Options) choiceSpace() ChoiceSpace {
	if o.Replay != nil {
		return o.Replay.Space
	}
	return ChoiceSpace{}
}

// DefaultSeed is the seed of a zero Options.Seed, and fwsim's default
// --seed.
const DefaultSeed = 1

// RunSeed is the seed a run with o uses: Seed, or DefaultSeed for 0.
func (o Options) RunSeed() uint64 { return seedOrDefault(o.Seed) }

// seedOrDefault is seed, or DefaultSeed for 0.
func seedOrDefault(seed uint64) uint64 {
	if seed == 0 {
		return DefaultSeed
	}
	return seed
}

// DefaultMaxEvents is the event budget when Options.MaxEvents is zero.
const DefaultMaxEvents = 2_000_000

// TimePerNode is the default time budget a node beyond 100,000 nodes: self
// identify alone takes about 1.25 µs a node.
const TimePerNode = 10 * time.Microsecond

// EventBudget is the event budget of a run of a bus of nodes: MaxEvents, or
// the default when it is zero.
func (o Options) EventBudget(nodes int) uint64 {
	if o.MaxEvents > 0 {
		return o.MaxEvents
	}
	return max(DefaultMaxEvents, DefaultEventsPerNode*uint64(nodes))
}

// DefaultEventsPerNode is the event budget a node when Options.MaxEvents is
// zero and that is more than DefaultMaxEvents: an initialisation costs about
// 41 events a node, so a large bus has room for a few resets, and a
// livelock still stops.
const DefaultEventsPerNode = 200
