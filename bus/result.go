package bus

import (
	"fmt"
	"time"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// Outcome says how one bus initialisation ended.
type Outcome string

// Outcomes. Anything but OutcomeOK is a failure the emulator reports rather
// than hides.
const (
	// OutcomeOK: one root, a consistent tree, every node holds every self-ID.
	OutcomeOK Outcome = "ok"
	// OutcomeConfigTimeout: the bus never configured, and a PHY signalled
	// CONFIG_TIMEOUT in T0: a loop, or a PHY left waiting in T0 with
	// nothing left to happen; no self-IDs. A bus that configures after a
	// CONFIG_TIMEOUT is ok (Generation.ConfigTimeouts records it).
	OutcomeConfigTimeout Outcome = "config-timeout"
	// OutcomeInconsistent: self identify finished but the result breaks the
	// protocol's guarantees (two roots, a cable both ends call parent, …);
	// Generation.Problems says how.
	OutcomeInconsistent Outcome = "inconsistent"
	// OutcomeInterrupted: another bus reset began before this one finished.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeStalled: nothing was left to happen and the bus had not
	// finished: the PHYs wait for each other forever.
	OutcomeStalled Outcome = "stalled"
	// OutcomeBudgetExhausted: the event or time budget ran out first, as it
	// does when root contention never resolves.
	OutcomeBudgetExhausted Outcome = "budget-exhausted"
)

// Outcomes lists every Outcome.
var Outcomes = []Outcome{OutcomeOK, OutcomeConfigTimeout, OutcomeInconsistent, OutcomeInterrupted, OutcomeStalled, OutcomeBudgetExhausted}

// Result is everything one run produced.
type Result struct {
	Seed    uint64
	Profile string
	// Policy, CoinBias (the probability of FAST) and Corner record how root
	// contention was resolved.
	Policy   treeid.Policy
	CoinBias float64
	Corner   treeid.Corner
	// ForceRoot is the node given RHB by Options.ForceRoot, "" if none.
	ForceRoot string
	// PowerUp is how the PHYs came up (never PowerUpDefault), and
	// Initiators the nodes that started the first reset: Options.Initiators,
	// the one drawn, every cabled node, or the first of a staggered
	// power-up.
	PowerUp    PowerUp
	Initiators []string
	// PowerUpInterval spaces the arrivals of a staggered power-up.
	PowerUpInterval time.Duration
	// AwaitingConnect lists the nodes that had no cable at power-up and
	// that a scripted connect plugs in later: they did not power up as a
	// bus of their own, and join a generation when plugged in.
	AwaitingConnect []string
	// IdealClock is set when cycle quantisation was off.
	IdealClock bool
	// OutOfSpec lists why the configuration is outside the standard's
	// limits; empty when it is within them.
	OutOfSpec []string
	// Generations lists every bus initialisation in the order they began;
	// there is always at least the first.
	// A scenario that splits the bus yields one generation per part.
	Generations []Generation
	// Events counts the kernel events processed (not the timers armed
	// again since, which the kernel discards, nor those for tracing
	// alone); EndNs is the virtual time of the last thing that happened:
	// an event that changed something, or a line state's arrival.
	Events uint64
	EndNs  int64
	// Traffic is what the bus carried after initialisation; nil when the
	// run had no traffic phase (Options.Until).
	Traffic *TrafficResult
}

// CauseKind says what kind of thing began a generation.
type CauseKind string

// Cause kinds.
const (
	// CausePowerUp: a PHY's power-up: every PHY's at once (Node is ""),
	// or one PHY's, the last of the bus or one of a staggered power-up.
	CausePowerUp CauseKind = "power-up"
	// CauseInitiators: the nodes of Options.Initiators reset the bus.
	CauseInitiators CauseKind = "initiators"
	// CauseEvent: a scripted event (Topology.Events[Cause.Event]): a
	// connect, a disconnect or a reset.
	CauseEvent CauseKind = "event"
	// CauseWatchdog: Cause.Node's MAX_ARB_STATE_TIME ran out.
	CauseWatchdog CauseKind = "watchdog"
	// CauseSeen: a reset whose origin the bus does not know, first seen by
	// Cause.Node.
	CauseSeen CauseKind = "seen"
	// CauseManager: the bus manager (Topology.BusManager, Cause.Node) reset
	// the bus to set the root or the gap count (Generation.Manager of the
	// generation before says why).
	CauseManager CauseKind = "bus-manager"
)

// Cause is what began a generation.
type Cause struct {
	Kind CauseKind
	// Node is the node whose reset began the generation; "" when every PHY
	// did (power-up) or several did (initiators).
	Node string
	// Event is the index of the scripted event in Topology.Events for
	// CauseEvent, -1 otherwise.
	Event int
	// Text says it in words, e.g. "disconnect hub:1–camera:0 (event 1)".
	Text string
}

func (c Cause) String() string { return c.Text }

// Generation is one bus initialisation (one bus reset) of one connected bus.
type Generation struct {
	// Index is the position in Result.Generations.
	Index int
	// StartNs is the virtual time of the first R0 entry; Cause says what
	// reset the bus.
	StartNs int64
	Cause   Cause
	Outcome Outcome
	// Scripted reports an Outcome of OutcomeInterrupted that the scenario
	// asked for: a scripted connect, disconnect or reset began the next bus
	// reset. fwsim explore counts such a generation as ok.
	Scripted bool
	// EndNs is the virtual time the outcome was decided: the last self-ID's
	// arrival (ok, inconsistent), a PHY's CONFIG_TIMEOUT on a loop, the
	// reset that interrupted it, or the end of the run.
	EndNs int64
	// Problems explains a failed outcome, one finding per entry.
	Problems []string
	// Warnings are findings that do not fail an initialisation but that a
	// bus manager or an engineer acts on: gap counts that disagree, or one
	// below what the gap-count table gives for the bus.
	Warnings []string
	// Root is the id of the root node, "" when none was elected.
	Root string
	// Nodes lists the bus's nodes in phy_ID order; nodes that never took a
	// phy_ID follow in topology order with PhyID -1.
	Nodes []NodeResult
	// SelfIDs are the self-ID packets in bus order, without inverse quadlets.
	SelfIDs []phy.SelfID
	// Tree is the bus as the self-IDs describe it; nil unless they pass the
	// checks consumers make (docs/protocol.md §9.3).
	Tree   *treeid.Tree
	Timing PhaseTiming
	// Contention lists every root contention, one entry per contended link.
	Contention []Contention
	// Links are the cables that joined the generation's nodes when it
	// began, in topology order: the bus as wired, which the self-IDs
	// describe only when tree identify succeeds.
	Links []Link
	// ConfigTimeouts lists, in time order, every CONFIG_TIMEOUT a PHY
	// signalled to its link in this generation's tree identify. On a tree
	// the bus can still configure late; on a loop the generation ends
	// config-timeout at the first.
	ConfigTimeouts []ConfigTimeout
	// Manager is what the bus manager did after this generation; nil
	// without one, or when the bus reset again before its turn.
	Manager *ManagerDecision
}

// ConfigTimeout is a PHY's CONFIG_TIMEOUT in T0, the flag it reports to its
// link (docs/protocol.md §4).
type ConfigTimeout struct {
	Node string
	AtNs int64 // relative to the generation's start
}

// PhaseTiming gives the end of each phase in ns after Generation.StartNs; a
// phase that was not reached is -1.
type PhaseTiming struct {
	// ResetEnd: the last node left R1 for T0.
	ResetEnd int64
	// TreeIDDone: the last node left tree identify for S0.
	TreeIDDone int64
	// SelfIDDone: the last node received the last self-ID packet.
	SelfIDDone int64
}

// Node is the result of the node with id in g, and whether g holds it.
func (g *Generation) Node(id string) (NodeResult, bool) {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return NodeResult{}, false
}

// CausedBy lists the generations that scripted event Topology.Events[event]
// began, in order: none for a PHY configuration packet, which resets
// nothing, or an event absorbed by a reset already under way; two when a
// disconnect splits the bus, one per part.
func (r *Result) CausedBy(event int) []Generation {
	var out []Generation
	for _, g := range r.Generations {
		if g.Cause.Kind == CauseEvent && g.Cause.Event == event {
			out = append(out, g)
		}
	}
	return out
}

// NodeResult is one node at the end of a generation.
type NodeResult struct {
	ID    string
	PhyID int // -1 when the node took none
	Root  bool
	// ParentPort is the port toward the parent, -1 for the root (or when
	// tree identify did not finish).
	ParentPort int
	// Ports holds the role of every physical port.
	Ports []phy.PortStatus
	// ContentionRounds counts this node's entries into root contention.
	ContentionRounds int
	// Initiated is the self-ID i bit: this node initiated the reset.
	Initiated bool
	// State is the PHY state at the end of the generation.
	State phy.State
}

// Link is one cable, named by the node and port at either end, in the
// order the topology gives them.
type Link struct {
	Nodes [2]string
	Ports [2]int
}

// Contention is the root contention on one link: the two nodes that sent
// each other PARENT_NOTIFY, and every round each of them waited.
type Contention struct {
	Nodes [2]string
	Ports [2]int
	// Parent is the node that became the parent on this link, "" if the
	// contention never resolved.
	Parent string
	// Rounds is the number of rounds: the most either node entered T3.
	Rounds int
	// StartNs is when the first ROOT_CONTENTION was seen on the link; EndNs
	// when the child saw the parent's handshake (-1 if never); both
	// relative to the generation's start.
	StartNs, EndNs int64
	// Backoffs lists every wait, both nodes', in time order.
	Backoffs []Backoff
	// OneSided says, when only one node waited, why the other did not;
	// "" when both did.
	OneSided string
}

// Backoff is one node's wait in one root-contention round.
type Backoff struct {
	Node    string
	StartNs int64 // relative to the generation's start
	Fast    bool
	WaitNs  int64
}

// FailedGenerations counts the generations that did not end ok.
func (r *Result) FailedGenerations() int {
	n := 0
	for _, g := range r.Generations {
		if g.Outcome != OutcomeOK {
			n++
		}
	}
	return n
}

// Clock names the PHY clocks of the run as --clock does: "ideal" or
// "cycle".
func (r *Result) Clock() string { return ClockName(r.IdealClock) }

// ClockName names PHY clocks as --clock does: "ideal" or "cycle".
func ClockName(ideal bool) string {
	if ideal {
		return "ideal"
	}
	return "cycle"
}

// Settings names how the run was made, as every view heads it: "seed 7,
// profile 1394-1995, policy coin, coin bias 0.5, timing random, clock
// cycle".
func (r *Result) Settings() string {
	return fmt.Sprintf("seed %d, profile %s, policy %s, coin bias %g, timing %s, clock %s",
		r.Seed, r.Profile, r.Policy, r.CoinBias, r.Corner, r.Clock())
}

// Summary is one line that reproduces the run: its seed and settings, the
// forced root and the first reset.
func (r *Result) Summary() string {
	s := "fwsim run: " + r.Settings()
	if r.ForceRoot != "" {
		s += ", force root " + r.ForceRoot
	}
	return s + ", first reset " + r.FirstReset()
}
