package explore

import (
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/mdp"
	"github.com/fwsim/fwsim/treeid"
)

// Timing says how the waits of root contention are chosen.
type Timing uint8

const (
	// Random draws each wait uniformly from the whole cycle counts of its
	// window (whole ns with the ideal clock): probabilistic.
	Random Timing = iota
	// Nondet leaves each wait to an adversary: results are the minimum and
	// maximum over every scheduler, as a model checker's MDP semantics
	// gives.
	Nondet
	// Min and Max pin every wait to its window's bound.
	Min
	Max
)

var timingNames = [...]string{Random: "random", Nondet: "nondet", Min: "min", Max: "max"}

func (t Timing) String() string { return timingNames[t] }

// ParseTiming reads a Timing's name.
func ParseTiming(s string) (Timing, error) {
	for i, name := range timingNames {
		if name == s {
			return Timing(i), nil
		}
	}
	return 0, fmt.Errorf("timing %q: want random, nondet, min or max", s)
}

// Corner is where the waits of a run fall for bus.Run: at a window's
// bound for Min and Max, drawn for Random and Nondet (whose choices the
// explorer makes).
func (t Timing) Corner() treeid.Corner {
	switch t {
	case Min:
		return treeid.CornerMin
	case Max:
		return treeid.CornerMax
	}
	return treeid.CornerRandom
}

// Limits bound the solver's exact work: MaxExactFeedback is the largest
// feedback set of a cycle solved exactly (DefaultMaxExactFeedback when
// 0; a negative value bounds every such cycle instead), Precision the
// relative width at which value iteration stops (DefaultPrecision when 0),
// MaxIterations its cap on sweeps of a cycle (DefaultMaxIterations when
// 0). The solver is internal; this is its configuration, for any caller.
type Limits = mdp.Limits

// The solver's defaults, for Limits' zero fields.
const (
	DefaultMaxExactFeedback = mdp.DefaultMaxExactFeedback
	DefaultPrecision        = mdp.DefaultPrecision
	DefaultMaxIterations    = mdp.DefaultMaxIterations
)

// DefaultMaxMemory is Options.MaxMemory when zero.
const DefaultMaxMemory = 4 << 30

// MaxOvershoot is how far past Options.MaxStates the states explored may
// go: the last state expanded adds one per option, two for a coin or a
// wait. A choice of more options than MaxStates+MaxOvershoot−1 (a wide
// event window) could never be expanded, and is refused.
const MaxOvershoot = 64

// Options configure an exploration.
type Options struct {
	// Bus is how the bus runs, as for bus.Run: profile, clock, policy,
	// force root, initiators, and the Seed that fixes everything that is
	// not a choice (each PHY's timer lengths and, without a phase grid, its
	// clock phase). Corner, CoinBias, Observer and Replay are set by the
	// exploration.
	Bus bus.Options
	// Timing chooses the waits (default Random).
	Timing Timing
	// CoinBias is the exact probability of FAST (nil: 1/2).
	CoinBias *big.Rat
	// Space opens the clock phases and the scripted events' time as
	// nondeterministic choices.
	Space bus.ChoiceSpace
	// Deadlines ask for the probability of meeting each.
	Deadlines []Deadline
	// MissPaths asks, for every deadline some run can miss, for a
	// likeliest run that misses it (DeadlineResult.Miss).
	MissPaths bool
	// Roots asks for the distribution of the first generation's root and
	// self-ID order (Result.Roots).
	Roots bool
	// MaxStates bounds the distinct states explored; past it, answers are
	// intervals. Zero: as many as MaxMemory holds, at the size of the
	// first thousand states (until they are known, MaxMemory over the
	// least a state takes). A deadline's
	// unrolling past 50 times it gives way to step functions of the
	// budget, which are exact too.
	MaxStates int
	// MaxMemory is the budget in bytes of the MaxStates states and of the
	// snapshots of those not yet expanded, which take an eighth of it at
	// most (default DefaultMaxMemory): once the first thousand states are
	// found, an exploration whose bound would take more, at their average
	// size, is refused.
	MaxMemory int64
	// MaxDuration, when not zero, refuses an exploration that would take
	// longer to find MaxStates states: from its first second on, its pace
	// so far says how long they would take (a lower bound: later runs go
	// deeper, and take longer).
	MaxDuration time.Duration
	// Workers is how many partial runs go on at once, each on its own
	// copy of the bus; 0 is one a core (runtime.GOMAXPROCS). The graph,
	// and every answer, are the same at any count.
	Workers int
	// Limits bound the solver's exact work (internal/mdp): a cycle whose
	// exact solution would cost too much is bounded by sound value
	// iteration instead, and its answers become narrow intervals. The
	// zero value is the solver's defaults.
	Limits Limits
	// Interrupt, when not nil, stops the exploration soon after it closes:
	// Explore returns bus.ErrInterrupted.
	Interrupt <-chan struct{}
	// Progress, when not nil, is told how the exploration goes after every
	// state expanded, and once more when the solving begins.
	Progress func(Progress)
}

// Progress is how far an exploration has gone.
type Progress struct {
	// States are the choice points known, of at most MaxStates; Frontier
	// those still to expand.
	States, Frontier, MaxStates int
	// Bytes estimates the memory of the states known and of the snapshots
	// kept.
	Bytes int64
	// Solving is set once every state is known: the graph is being solved.
	Solving bool
}

// Deadline asks for the probability that a time metric is at most D;
// bus.ParseMetricDeadline reads one.
type Deadline = bus.MetricDeadline

// Interval holds an exact value (Min equal to Max) or the bounds of one:
// [minimum, maximum] over every scheduler under nondeterminism, widened to
// what the unexplored states could change when MaxStates was reached, or
// to what the solver could bound (Result.Bounded).
//
// Min is always a lower bound of the minimum and Max an upper bound of the
// maximum. MinUpper, when not nil, is an upper bound of the minimum: the
// minimum is only known to lie in [Min, MinUpper]; nil means Min is the
// minimum. MaxLower likewise bounds the maximum from below. Without an
// adversary the minimum is the maximum, and both say where the one value
// lies.
type Interval struct {
	Min, Max           *big.Rat
	MinUpper, MaxLower *big.Rat
}

// Exact reports whether the interval is one value.
func (i Interval) Exact() bool { return i.Min.Cmp(i.Max) == 0 }

// Settled reports whether the minimum and the maximum are both known
// exactly (they may differ, under an adversary).
func (i Interval) Settled() bool { return i.MinUpper == nil && i.MaxLower == nil }

// MinBounds is the interval the minimum lies in.
func (i Interval) MinBounds() (lower, upper *big.Rat) {
	if i.MinUpper == nil {
		return i.Min, i.Min
	}
	return i.Min, i.MinUpper
}

// MaxBounds is the interval the maximum lies in.
func (i Interval) MaxBounds() (lower, upper *big.Rat) {
	if i.MaxLower == nil {
		return i.Max, i.Max
	}
	return i.MaxLower, i.Max
}

// unsettled is an interval that holds one value, or a minimum and a
// maximum, about which nothing is known but that they lie in [lo, hi].
func unsettled(lo, hi *big.Rat) Interval {
	if lo.Cmp(hi) == 0 {
		return Interval{Min: lo, Max: hi}
	}
	return Interval{Min: lo, Max: hi, MinUpper: hi, MaxLower: lo}
}

// complement is the interval of 1 − x for x in i.
func (i Interval) complement() Interval {
	c := Interval{Min: new(big.Rat).Sub(one, i.Max), Max: new(big.Rat).Sub(one, i.Min)}
	if i.MaxLower != nil {
		c.MinUpper = new(big.Rat).Sub(one, i.MaxLower)
	}
	if i.MinUpper != nil {
		c.MaxLower = new(big.Rat).Sub(one, i.MinUpper)
	}
	return c
}

func (i Interval) String() string {
	if i.Exact() {
		return i.Min.RatString()
	}
	if !i.Settled() {
		minLo, minHi := i.MinBounds()
		maxLo, maxHi := i.MaxBounds()
		if minHi.Cmp(i.Max) == 0 && maxLo.Cmp(i.Min) == 0 {
			return "in [" + i.Min.RatString() + ", " + i.Max.RatString() + "]"
		}
		return "min in [" + minLo.RatString() + ", " + minHi.RatString() + "], max in [" + maxLo.RatString() + ", " + maxHi.RatString() + "]"
	}
	return "[" + i.Min.RatString() + ", " + i.Max.RatString() + "]"
}

// OutcomeResult is the probability that a run ends with an outcome.
type OutcomeResult struct {
	Outcome bus.Outcome
	P       Interval
	// Path is a run that ends so, as choices to replay; nil for ok, and
	// for budget-exhausted when it stands only for runs that never end
	// (cycling forever, as a contention that no coin can settle does),
	// which fwsim run ends when its event budget runs out.
	Path *bus.Path
	// PathP is the probability of that path's random choices, given its
	// nondeterministic ones.
	PathP *big.Rat
}

// DeadlineResult is the probability that a time metric is reached within
// a deadline: over the runs the metric applies to (every run; for
// contention_ns, the contended ones) without nondeterminism, as fwsim
// analyze counts it; under nondeterminism, over all runs (a run the metric
// does not apply to misses), since a scheduler can also choose whether it
// applies.
type DeadlineResult struct {
	Metric     string
	DeadlineNs int64
	P          Interval
	// Miss is a run that misses the deadline, along a most probable way
	// to the miss and then a most probable way to the run's end, with
	// MissP the probability of its random choices and MissOutcome how it
	// ends: with Options.MissPaths, where some run can miss and the search
	// finds one; nil otherwise.
	Miss        *bus.Path
	MissP       *big.Rat
	MissOutcome bus.Outcome
}

// ExpectedResult is a metric's expected value: over the runs that reach
// it, as fwsim analyze averages them. Defined is false when it has none:
// no run reaches the metric, or under nondeterminism a scheduler can avoid
// it, or the exploration stopped at MaxStates; Why says which.
type ExpectedResult struct {
	Metric  string
	Defined bool
	Why     string
	Value   Interval
}

// Result is what an exploration found.
type Result struct {
	// States counts the distinct states (choice points) explored;
	// Terminals the runs' ends; Complete is false when MaxStates stopped
	// the exploration, and then every answer is an interval containing
	// the exact value.
	States, Terminals int
	Complete          bool
	// Nondeterministic reports choices left to an adversary: answers are
	// [minimum, maximum] over every scheduler.
	Nondeterministic bool
	// Bounded reports that the solver bounded some cycle by sound value
	// iteration instead of solving it exactly (Options.Limits): the answers
	// that depend on it are narrow intervals around the exact value.
	Bounded  bool
	Outcomes []OutcomeResult
	// Unexplored, when the exploration stopped at MaxStates, is the
	// probability that a run reaches a state left unexplored: where every
	// answer's bounds come from. Nil when complete.
	Unexplored *Interval
	Deadlines  []DeadlineResult
	Expected   []ExpectedResult
	// Roots is, with Options.Roots, each root the first generation of some
	// run elects, with its probability and the self-ID orders of those
	// runs, likeliest first. Runs that never end elect none of them.
	Roots []RootResult
	// MaxStates is the bound the exploration kept: Options.MaxStates, or
	// the states the memory budget holds (MaxStatesFromMemory).
	MaxStates           int
	MaxStatesFromMemory bool
	// Runs counts the partial runs taken to explore and Events their kernel
	// events; Elapsed is the wall time.
	Runs    int
	Events  uint64
	Elapsed time.Duration
}

// ErrInvalidOptions is the category of errors in Options.
var ErrInvalidOptions = errors.New("invalid exploration")

// Explore enumerates every choice the bus can make and solves the graph of
// the states it reaches. Errors are bad input, or bus.ErrInterrupted.
func Explore(topo *bus.Topology, o Options) (*Result, error) {
	start := time.Now()
	e, err := newExplorer(topo, o)
	if err != nil {
		return nil, err
	}
	if err := e.build(); err != nil {
		return nil, err
	}
	res, err := e.solve()
	if err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// checkOptions validates o and fills in the bus options the exploration
// sets.
func checkOptions(o *Options) error {
	bias := big.NewRat(1, 2)
	if o.CoinBias != nil {
		bias = o.CoinBias
	}
	if bias.Sign() < 0 || bias.Cmp(big.NewRat(1, 1)) > 0 {
		return fmt.Errorf("%w: coin bias %s outside [0, 1]", ErrInvalidOptions, bias.RatString())
	}
	o.CoinBias = bias
	if o.Timing > Max {
		return fmt.Errorf("%w: timing %d", ErrInvalidOptions, o.Timing)
	}
	if o.Space.Resolution > 1 && o.Timing == Random {
		return fmt.Errorf("%w: resolution %d ns with random timing: a wait is uniform over every ns of its window; a coarser step would change its distribution (use nondet, min or max)", ErrInvalidOptions, o.Space.Resolution)
	}
	if o.Bus.Observer != nil || o.Bus.Replay != nil {
		return fmt.Errorf("%w: Bus.Observer and Bus.Replay must be nil", ErrInvalidOptions)
	}
	o.Bus.Corner = o.Timing.Corner()
	// Every partial run watches the interrupt too: one run through a long
	// scenario can take seconds.
	o.Bus.Interrupt = o.Interrupt
	f, _ := bias.Float64()
	o.Bus.CoinBias = &f
	if o.MaxMemory == 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.MaxDuration < 0 {
		return fmt.Errorf("%w: max duration %v: want 0 (no limit) or a positive duration", ErrInvalidOptions, o.MaxDuration)
	}
	if o.Workers < 0 {
		return fmt.Errorf("%w: workers %d: want 0 (one a core) or more", ErrInvalidOptions, o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxStates < 0 {
		return fmt.Errorf("%w: max states %d: want 0 (as many as the memory budget holds) or more", ErrInvalidOptions, o.MaxStates)
	}
	for _, d := range o.Deadlines {
		if d.D <= 0 {
			return fmt.Errorf("%w: deadline %v: want a positive duration", ErrInvalidOptions, d.D)
		}
		if d.Metric != "" && metricIndex(d.Metric) < 0 {
			return fmt.Errorf("%w: deadline %v: metric %q: want one of %s", ErrInvalidOptions, d.D, d.Metric, strings.Join(bus.TimeMetrics, ", "))
		}
	}
	return nil
}

// metricIndex is name's index in bus.TimeMetrics, -1 for none.
func metricIndex(name string) int { return slices.Index(bus.TimeMetrics, name) }
