package treeid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fwsim/fwsim/phy"
)

// Policy decides how a node in root contention (T3) picks its back-off.
type Policy uint8

const (
	// Coin flips a coin on every entry to T3: FAST with probability
	// FastProbability, SLOW otherwise. This is the standard's policy.
	Coin Policy = iota
	// LargerIDWins makes the node with the smaller uid wait FAST and the
	// larger SLOW, so the larger becomes the parent on the contended link:
	// the deterministic alternative of the lecture notes (docs/protocol.md §5). Real
	// PHYs exchange no ids during tree identify; the emulator hands each node
	// its neighbours' uids.
	LargerIDWins
)

func (p Policy) String() string {
	if p == LargerIDWins {
		return "larger-id-wins"
	}
	return "coin"
}

// Corner chooses where inside a back-off window the wait falls.
type Corner uint8

const (
	// CornerRandom draws the wait uniformly from the whole cycle counts
	// inside the window.
	CornerRandom Corner = iota
	// CornerMin pins every wait to the window's lower bound.
	CornerMin
	// CornerMax pins every wait to the window's upper bound.
	CornerMax
)

func (c Corner) String() string {
	switch c {
	case CornerMin:
		return "min"
	case CornerMax:
		return "max"
	}
	return "random"
}

// ElectionConfig configures one node's tree-identify phase.
type ElectionConfig struct {
	// Fast and Slow are ROOT_CONTEND_FAST and ROOT_CONTEND_SLOW.
	Fast, Slow phy.Window
	// ForceRootTimeout is how long a node with RHB holds off in T0;
	// ConfigTimeout how long T0 waits before declaring a loop.
	ForceRootTimeout, ConfigTimeout time.Duration
	// Clock converts the durations into the cycles the PHY's timers count.
	Clock  phy.Clock
	Policy Policy
	// FastProbability is the coin's bias: the probability of FAST (fair:
	// 0.5). Used by the Coin policy.
	FastProbability float64
	Corner          Corner
	// UID is this node's id and PeerUIDs[p] the id of the node on port p;
	// used by LargerIDWins. The bus keeps PeerUIDs current across hot plugs.
	UID      uint64
	PeerUIDs []uint64
	// Rand draws coins and waits; required unless Policy is LargerIDWins and
	// Corner is not CornerRandom, or Chooser is set.
	Rand *rand.Rand
	// Chooser, when not nil, makes the choices Rand would: the coin of the
	// Coin policy and a CornerRandom wait. An explorer that enumerates every
	// choice sets it; LargerIDWins and the min and max corners stay as they
	// are, since they leave nothing to choose.
	Chooser Chooser
}

// Chooser makes the random choices of root contention in place of Rand.
// A wait is decided as it runs, one clock edge at a time, not when it
// begins: that is how a scheduler of a model checker's timed model
// decides when time passes, and it keeps an explorer's states few (what
// the node will do is then its elapsed time, not a wait chosen ahead).
// Ending on each edge with probability 1/(hi − waited + 1) gives the
// uniform wait of Rand.
type Chooser interface {
	// ChooseFast returns whether the node waits FAST.
	ChooseFast() bool
	// EndWait returns whether a wait of the FAST (fast) or SLOW window,
	// whose whole cycle counts are lo to hi, ends now, after waited cycles.
	// It is asked on each edge from waited = lo to hi − 1; at hi the wait
	// ends without asking.
	EndWait(fast bool, waited, lo, hi int64) bool
}

// Round is one entry into root contention (T3).
type Round struct {
	Start int64 // cycle of entry to T3
	Port  int   // the contended port
	Fast  bool  // the back-off chosen
	Wait  int64 // cycles waited
}

// Election is the tree-identify phase of one PHY (docs/protocol.md §4, T0–T3): the
// echo-based election of a root over the cable tree with the randomised
// root-contention back-off. It implements phy.TreeIdentifier; like the PHY
// state machine around it, it is pure: the caller supplies time and the
// random source.
type Election struct {
	cfg   ElectionConfig
	cyc   struct{ fastLo, fastHi, slowLo, slowHi, forceRoot, config int64 }
	state phy.State
	entry int64

	nport     int
	children  int
	forceRoot bool
	// timedOut is the predicates' T0_timeout: CONFIG_TIMEOUT has passed
	// in this T0 and been signalled. It is a flag, not a stop: the exits
	// of T0 stay live.
	timedOut bool
	parent   int
	// wait is the back-off in T3, in cycles; with a Chooser it is
	// undecided (-1) until the Chooser ends it, in the window waitLo to
	// waitHi.
	wait           int64
	waitLo, waitHi int64
	fast           bool
	rounds         []Round
	trail          *phy.Trail // where the step in progress records its states
}

// NewElection checks cfg and returns an election ready for Begin.
func NewElection(cfg ElectionConfig) (*Election, error) {
	if !cfg.Fast.Valid() || !cfg.Slow.Valid() {
		return nil, fmt.Errorf("treeid: back-off windows %v and %v must be positive intervals", cfg.Fast, cfg.Slow)
	}
	if cfg.ForceRootTimeout <= 0 || cfg.ConfigTimeout <= 0 {
		return nil, errors.New("treeid: force-root and config timeouts must be positive")
	}
	if cfg.Clock.Hz() == 0 {
		return nil, errors.New("treeid: ElectionConfig.Clock is required")
	}
	if !(cfg.FastProbability >= 0 && cfg.FastProbability <= 1) {
		return nil, fmt.Errorf("treeid: coin bias %v outside [0, 1]", cfg.FastProbability)
	}
	if cfg.Rand == nil && cfg.Chooser == nil && (cfg.Policy == Coin || cfg.Corner == CornerRandom) {
		return nil, errors.New("treeid: ElectionConfig.Rand or Chooser is required for a coin or random waits")
	}
	e := &Election{cfg: cfg, state: phy.T0TreeIDStart, parent: -1}
	e.cyc.fastLo, e.cyc.fastHi = cfg.Clock.CycleWindow(cfg.Fast)
	e.cyc.slowLo, e.cyc.slowHi = cfg.Clock.CycleWindow(cfg.Slow)
	e.cyc.forceRoot = cfg.Clock.Cycles(cfg.ForceRootTimeout)
	e.cyc.config = cfg.Clock.Cycles(cfg.ConfigTimeout)
	return e, nil
}

// State is the current T state.
func (e *Election) State() phy.State { return e.state }

// SetTimeouts sets this PHY's FORCE_ROOT_TIMEOUT and CONFIG_TIMEOUT, as
// drawn for it from the ranges the standard allows; they take effect at the
// next T0.
func (e *Election) SetTimeouts(forceRoot, config time.Duration) {
	e.cyc.forceRoot = e.cfg.Clock.Cycles(forceRoot)
	e.cyc.config = e.cfg.Clock.Cycles(config)
}

// Rounds lists the root-contention rounds of the current phase.
func (e *Election) Rounds() []Round { return e.rounds }

// Begin enters T0 at cycle now.
func (e *Election) Begin(now int64, p *phy.Ports, forceRoot bool, trail *phy.Trail) phy.TreeVerdict {
	e.nport, e.children, e.forceRoot, e.parent, e.timedOut = p.NumConnected(), 0, forceRoot, -1, false
	e.rounds = e.rounds[:0]
	e.trail = trail
	e.enter(phy.T0TreeIDStart, now)
	p.DriveAll(phy.TxIdle)
	return e.Step(now, p, trail)
}

// Step evaluates T0–T3 at cycle now, taking every transition enabled now.
// Its verdict is TreeConfigTimeout on the step that signals CONFIG_TIMEOUT,
// and the phase goes on in T0.
func (e *Election) Step(now int64, p *phy.Ports, trail *phy.Trail) phy.TreeVerdict {
	e.trail = trail
	signalled := false
	for {
		out, moved := e.advance(now, p)
		if out == phy.TreeConfigTimeout {
			signalled = true
			continue
		}
		if out != phy.TreePending || !moved {
			if signalled { // and still in T0: nothing else could move
				out = phy.TreeConfigTimeout
			}
			return phy.TreeVerdict{Outcome: out, Wake: e.wake(now)}
		}
	}
}

// ConfigTimedOut reports T0_timeout: CONFIG_TIMEOUT passed in the current
// T0 visit and was signalled.
func (e *Election) ConfigTimedOut() bool { return e.timedOut }

func (e *Election) enter(s phy.State, now int64) {
	e.state, e.entry = s, now
	e.trail.Enter(s)
}

// advance takes at most one transition.
func (e *Election) advance(now int64, p *phy.Ports) (phy.TreeOutcome, bool) {
	elapsed := now - e.entry
	switch e.state {
	case phy.T0TreeIDStart:
		// PARENT_NOTIFY on a port makes its node our child.
		for i := range p.Connected {
			if notifiesParent(p, i) {
				p.Status[i] = phy.PortChild
				e.children++
			}
		}
		if e.childrenComplete(elapsed) {
			e.enterT1(now, p)
			return phy.TreePending, true
		}
		if !e.timedOut && elapsed >= e.cyc.config {
			// T0 -> T0: !T0_timeout && arbTimer == CONFIG_TIMEOUT =>
			// T0_timeout = true, reported to the link. The exits above
			// stay live: a late PARENT_NOTIFY still moves this PHY on.
			e.timedOut = true
			return phy.TreeConfigTimeout, true
		}
	case phy.T1ChildHandshake:
		// Children are marked in T0 only (and the contended port in T3): a
		// PARENT_NOTIFY that arrives now on the remaining port meets this
		// node's own PARENT_NOTIFY in T2 as root contention, as in the
		// standard's state machine.
		if !childrenAcknowledge(p) {
			return phy.TreePending, false
		}
		return e.enterT2(now, p), true
	case phy.T2ParentHandshake:
		if e.parent < 0 {
			break
		}
		switch p.Rx[e.parent] {
		case phy.RxParentHandshake:
			return phy.TreeChild, true
		case phy.RxRootContention:
			e.enterT3(now, p)
			return phy.TreePending, true
		}
	case phy.T3RootContention:
		if e.wait < 0 {
			e.decideWait(elapsed)
		}
		if e.wait < 0 || elapsed < e.wait {
			break
		}
		switch p.Rx[e.parent] {
		case phy.RxIdle:
			// The peer is still waiting: try again to be its child.
			return e.enterT2(now, p), true
		case phy.RxParentNotify:
			// The peer asked first: it is our child, and we its parent.
			p.Status[e.parent] = phy.PortChild
			e.children++
			e.parent = -1
			e.enterT1(now, p)
			return phy.TreePending, true
		}
	}
	return phy.TreePending, false
}

// notifiesParent reports that port i's node asks this one to be its
// parent, and is not yet marked a child.
func notifiesParent(p *phy.Ports, i int) bool {
	return p.Connected[i] && p.Status[i] != phy.PortChild && p.Rx[i] == phy.RxParentNotify
}

// childrenComplete is T0's exit: every connected port a child, or all but
// one once the force-root delay (if RHB holds this node back) is over.
func (e *Election) childrenComplete(elapsed int64) bool {
	held := e.forceRoot && elapsed < e.cyc.forceRoot
	return e.children == e.nport || (e.children == e.nport-1 && !held)
}

// childrenAcknowledge is T1's exit: every child answers with
// CHILD_HANDSHAKE.
func childrenAcknowledge(p *phy.Ports) bool {
	for i, s := range p.Status {
		if s == phy.PortChild && p.Rx[i] != phy.RxChildHandshake {
			return false
		}
	}
	return true
}

// Enabled implements phy.TreeIdentifier.
func (e *Election) Enabled(now int64, p *phy.Ports) bool {
	elapsed := now - e.entry
	switch e.state {
	case phy.T0TreeIDStart:
		for i := range p.Connected {
			if notifiesParent(p, i) {
				return true
			}
		}
		return e.childrenComplete(elapsed) || !e.timedOut && elapsed >= e.cyc.config
	case phy.T1ChildHandshake:
		return childrenAcknowledge(p)
	case phy.T2ParentHandshake:
		return e.parent >= 0 && (p.Rx[e.parent] == phy.RxParentHandshake || p.Rx[e.parent] == phy.RxRootContention)
	case phy.T3RootContention:
		// Undecided, the wait asks its chooser on every edge; decided,
		// it moves the timer Step reports once it has passed.
		return e.wait < 0 || elapsed >= e.wait
	}
	return false
}

func (e *Election) enterT1(now int64, p *phy.Ports) {
	e.enter(phy.T1ChildHandshake, now)
	for i, s := range p.Status {
		if s == phy.PortChild {
			p.Tx[i] = phy.TxChildNotify
		} else {
			p.Tx[i] = phy.TxIdle
		}
	}
}

// enterT2 either finds this node the root (every connected port a child) or
// asks the one remaining port's node to be the parent.
func (e *Election) enterT2(now int64, p *phy.Ports) phy.TreeOutcome {
	e.enter(phy.T2ParentHandshake, now)
	if e.children == e.nport {
		return phy.TreeRoot
	}
	e.parent = -1
	for i, c := range p.Connected {
		if c && p.Status[i] != phy.PortChild {
			e.parent = i
		}
	}
	if e.parent < 0 {
		// The remaining port's cable was unplugged during tree identify:
		// wait for the reset the disconnection starts.
		return phy.TreePending
	}
	p.Status[e.parent] = phy.PortParent
	p.Tx[e.parent] = phy.TxParentNotify
	return phy.TreePending
}

func (e *Election) enterT3(now int64, p *phy.Ports) {
	e.enter(phy.T3RootContention, now)
	p.Tx[e.parent] = phy.TxIdle
	fast := e.chooseFast()
	lo, hi := e.cyc.slowLo, e.cyc.slowHi
	if fast {
		lo, hi = e.cyc.fastLo, e.cyc.fastHi
	}
	e.fast, e.waitLo, e.waitHi = fast, lo, hi
	e.wait = e.pickWait(lo, hi)
	e.rounds = append(e.rounds, Round{Start: now, Port: e.parent, Fast: fast, Wait: e.wait})
}

// decideWait asks the Chooser whether the wait ends now, after elapsed
// cycles, once it is inside its window.
func (e *Election) decideWait(elapsed int64) {
	switch {
	case elapsed < e.waitLo:
		return
	case elapsed >= e.waitHi || e.cfg.Chooser.EndWait(e.fast, elapsed, e.waitLo, e.waitHi):
		e.wait = elapsed
		e.rounds[len(e.rounds)-1].Wait = elapsed
	}
}

func (e *Election) chooseFast() bool {
	if e.cfg.Policy == LargerIDWins {
		return e.cfg.UID < e.cfg.PeerUIDs[e.parent]
	}
	if e.cfg.Chooser != nil {
		return e.cfg.Chooser.ChooseFast()
	}
	return e.cfg.Rand.Float64() < e.cfg.FastProbability
}

func (e *Election) pickWait(lo, hi int64) int64 {
	switch {
	case e.cfg.Corner == CornerMin:
		return lo
	case e.cfg.Corner == CornerMax:
		return hi
	case e.cfg.Chooser != nil:
		return -1 // decided as it runs: decideWait
	}
	return lo + e.cfg.Rand.Int64N(hi-lo+1)
}

// wake is the cycle of the next timer expiry the current state waits for:
// only one still ahead of now. Once a back-off has ended, T3 waits for the
// line state to change, not for a timer.
func (e *Election) wake(now int64) int64 {
	switch e.state {
	case phy.T0TreeIDStart:
		if e.forceRoot && e.children == e.nport-1 && now < e.entry+e.cyc.forceRoot {
			return e.entry + e.cyc.forceRoot
		}
		if e.timedOut {
			return phy.NoWake // signalled: T0 waits for PARENT_NOTIFY alone
		}
		return e.entry + e.cyc.config
	case phy.T3RootContention:
		switch {
		case e.wait < 0 && now < e.entry+e.waitLo:
			return e.entry + e.waitLo
		case e.wait < 0:
			return now + 1 // the next edge decides again
		case now < e.entry+e.wait:
			return e.entry + e.wait
		}
	}
	return phy.NoWake
}

// AppendKey appends the key of the election's state at cycle now (see
// phy.AppendCycleKey): what its next steps read. The rounds are history and
// stay out, so that repeated contention rounds reach the same key.
func (e *Election) AppendKey(b []byte, now int64) []byte {
	b = append(b, byte(e.state))
	flags := byte(0)
	if e.forceRoot {
		flags = 1
	}
	if e.timedOut {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(e.nport))
	b = binary.AppendVarint(b, int64(e.children))
	b = binary.AppendVarint(b, int64(e.parent))
	switch e.state {
	case phy.T0TreeIDStart:
		// T0 times out CONFIG_TIMEOUT (or FORCE_ROOT_TIMEOUT) after its
		// entry: beyond the longer, older entries are alike.
		b = phy.AppendCycleKey(b, max(e.entry, now-max(e.cyc.config, e.cyc.forceRoot)), now)
	case phy.T3RootContention:
		if e.wait >= 0 {
			b = phy.AppendCycleKey(b, max(e.entry+e.wait, now), now)
			break
		}
		// Undecided: the window and how far into it the wait is.
		b = append(b, 'U')
		if e.fast {
			b = append(b, 1)
		}
		b = binary.AppendVarint(b, e.waitLo)
		b = binary.AppendVarint(b, e.waitHi)
		b = phy.AppendCycleKey(b, e.entry, now)
	}
	return b
}
