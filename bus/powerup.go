package bus

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PowerUp says how the PHYs of a bus come up, which decides who starts the
// first reset (docs/protocol.md §4).
type PowerUp uint8

const (
	// PowerUpDefault is the profile's: PowerUpAll for prism, whose formal
	// models start every PHY together, PowerUpOne otherwise.
	PowerUpDefault PowerUp = iota
	// PowerUpOne: the bus is up but for one PHY, which powers up, or is
	// plugged in, last and starts the first reset: only its self-ID
	// carries i = 1, as in every generation of the real captures we know.
	// Options.Initiators names it; by default it is drawn from the setup
	// seed among the cabled nodes.
	PowerUpOne
	// PowerUpAll: every PHY powers up at the same instant and resets itself
	// on its first clock edge: every self-ID carries i = 1 and the leaves
	// finish their resets together (the setting of the formal models).
	PowerUpAll
	// PowerUpStaggered: the PHYs power up one by one, Options.PowerUpInterval
	// apart, in an order drawn from the setup seed that keeps the powered
	// ones one bus where the cables allow: each arrival resets the bus it
	// joins, so each is a generation.
	PowerUpStaggered
)

var powerUpNames = [...]string{"default", "one", "all", "staggered"}

func (p PowerUp) String() string {
	if int(p) < len(powerUpNames) {
		return powerUpNames[p]
	}
	return fmt.Sprintf("PowerUp(%d)", uint8(p))
}

// ParsePowerUp reads a power-up mode by name: one, all or staggered.
func ParsePowerUp(s string) (PowerUp, error) {
	if k := slices.Index(powerUpNames[1:], s); k >= 0 {
		return PowerUp(k + 1), nil
	}
	return 0, fmt.Errorf("power-up %q: want one, all or staggered", s)
}

// FirstReset says in words how the first reset of r began: "power-up of
// n3, the last PHY of the bus", "power-up, every PHY", "staggered power-up
// from n3, a PHY every 1ms" or "from pc, hub" (named initiators).
func (r *Result) FirstReset() string {
	switch {
	case r.PowerUp == PowerUpAll:
		return "power-up, every PHY"
	case r.PowerUp == PowerUpStaggered && len(r.Initiators) > 0:
		return fmt.Sprintf("staggered power-up from %s, a PHY every %v", r.Initiators[0], r.PowerUpInterval)
	case len(r.Generations) > 0 && r.Generations[0].Cause.Kind == CausePowerUp:
		return r.Generations[0].Cause.Text
	}
	return "from " + strings.Join(r.Initiators, ", ")
}

// DefaultPowerUpInterval is Options.PowerUpInterval when zero: longer than
// a 63-node bus takes to initialise, so each arrival's generation ends
// before the next.
const DefaultPowerUpInterval = time.Millisecond

// powerUpMode resolves PowerUpDefault for the bus's profile and checks the
// options that go with the mode.
func (w *world) powerUpMode() error {
	o := &w.opts
	mode := o.PowerUp
	if mode == PowerUpDefault {
		mode = PowerUpOne
		if w.topo.profile.SimultaneousPowerUp {
			mode = PowerUpAll
		}
	}
	switch {
	case mode > PowerUpStaggered:
		return fmt.Errorf("%w: power-up mode %d", ErrInvalidOptions, mode)
	case len(o.Initiators) > 0 && o.PowerUp != PowerUpDefault && mode != PowerUpOne:
		return fmt.Errorf("%w: initiators with power-up %s: named initiators start the reset of a bus that is up (power-up one)", ErrInvalidOptions, mode)
	case o.PowerUpInterval < 0:
		return fmt.Errorf("%w: power-up interval %v is negative", ErrInvalidOptions, o.PowerUpInterval)
	}
	if len(o.Initiators) > 0 {
		mode = PowerUpOne
	}
	w.powerUp = mode
	w.powerUpEvery = int64(cmp.Or(o.PowerUpInterval, DefaultPowerUpInterval))
	return nil
}

// firstResets decides, for the run with setup seed setup, which PHYs start
// the first reset and why: Options.Initiators, every cabled PHY, the one
// drawn, or the first to power up (the others then arrive one by one:
// w.arrivals). It leaves their causes set.
func (w *world) firstResets(setup uint64) {
	w.initiators, w.arrivals = w.initiators[:0], w.arrivals[:0]
	if w.cabled == nil {
		for i := range w.nodes {
			if !slices.Contains(w.awaiting, i) {
				w.cabled = append(w.cabled, i)
			}
		}
	}
	cabled := w.cabled
	id := func(i int) string { return w.nodes[i].cfg.id }
	switch {
	case len(w.opts.Initiators) > 0:
		for _, name := range w.opts.Initiators {
			w.initiators = append(w.initiators, w.topo.nodeIndex(name))
		}
		w.cause = Cause{Kind: CauseInitiators, Event: -1, Text: "reset from " + strings.Join(w.opts.Initiators, ", ")}
		if len(w.initiators) == 1 {
			w.cause.Node = w.opts.Initiators[0]
		}
	case w.powerUp == PowerUpAll:
		w.initiators = append(w.initiators, cabled...)
		w.cause = Cause{Kind: CausePowerUp, Event: -1, Text: "power-up: every PHY resets"}
	case w.powerUp == PowerUpOne:
		w.draws.Seed(setup, streamID(0, streamPowerUp))
		k := w.draw.IntN(len(cabled))
		w.initiators = append(w.initiators, cabled[k])
		if w.lastCauses == nil { // spelled once: a Simulator's runs allocate nothing
			for _, i := range cabled {
				w.lastCauses = append(w.lastCauses, Cause{Kind: CausePowerUp, Node: id(i), Event: -1, Text: "power-up of " + id(i) + ", the last PHY of the bus"})
			}
		}
		w.cause = w.lastCauses[k]
	default:
		w.arrivals = w.arrivalOrder(cabled, setup)
		i := w.arrivals[0]
		w.initiators = append(w.initiators, i)
		w.cause = w.arrivalCause(0)
	}
	for _, i := range w.initiators {
		w.nodes[i].cause = w.cause
	}
}

// arrivalOrder draws the order in which the cabled nodes power up in
// staggered mode: the first uniformly, then each next one uniformly among
// those cabled to a powered one (any, where none is).
func (w *world) arrivalOrder(cabled []int, setup uint64) []int {
	w.draws.Seed(setup, streamID(0, streamPowerUp))
	order := make([]int, 0, len(cabled))
	powered := make([]bool, len(w.nodes))
	var next []int
	for len(order) < len(cabled) {
		next = next[:0]
		for _, i := range cabled {
			if !powered[i] && (len(order) == 0 || w.cabledToPowered(i, powered)) {
				next = append(next, i)
			}
		}
		if len(next) == 0 {
			for _, i := range cabled {
				if !powered[i] {
					next = append(next, i)
				}
			}
		}
		i := next[w.draw.IntN(len(next))]
		powered[i] = true
		order = append(order, i)
	}
	return order
}

// cabledToPowered reports whether a cable plugged at power-up joins node i
// to a powered node.
func (w *world) cabledToPowered(i int, powered []bool) bool {
	for _, c := range w.topo.cables {
		if c.connectedAtStart && (c.a.node == i && powered[c.b.node] || c.b.node == i && powered[c.a.node]) {
			return true
		}
	}
	return false
}

func (w *world) arrivalCause(k int) Cause {
	id := w.nodes[w.arrivals[k]].cfg.id
	return Cause{Kind: CausePowerUp, Node: id, Event: -1,
		Text: fmt.Sprintf("power-up of %s (%d of %d)", id, k+1, len(w.arrivals))}
}

// poweredAtStart reports whether node i is powered at time 0: in
// staggered mode only the first to arrive is.
func (w *world) poweredAtStart(i int) bool {
	return w.powerUp != PowerUpStaggered || w.arrivals[0] == i
}

// arrive powers up the k-th node of a staggered power-up: its cables to
// powered PHYs come alive, which ends the generation running at their far
// ends, and it resets the bus it joins.
func (w *world) arrive(k int) {
	i := w.arrivals[k]
	powered := make([]bool, len(w.nodes))
	for _, j := range w.arrivals[:k] {
		powered[j] = true
	}
	cause := w.arrivalCause(k)
	w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[i].cfg.id, Port: -1, Detail: cause.Text})
	var ends []int
	for c, rc := range w.topo.cables {
		if !rc.connectedAtStart || w.cables[c].connected {
			continue
		}
		if rc.a.node == i && powered[rc.b.node] || rc.b.node == i && powered[rc.a.node] {
			w.plug(c)
			ends = append(ends, rc.a.node, rc.b.node)
		}
	}
	w.recomputeComponents()
	w.interruptAt(ends, cause.Text, false)
	w.nodes[i].cause = cause
	w.scheduleInitiate(i, w.k.Now(), false)
}
