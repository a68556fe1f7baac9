package election

import (
	"fmt"
	"strconv"

	"github.com/fwsim/fwsim/treeid"
)

// Mode is how time passes in a run.
type Mode uint8

// Modes.
const (
	// DefaultMode runs the algorithm in the mode it was designed for:
	// synchronous for sync-ring, floodmax and anonymous, timed for 1394,
	// asynchronous for the rest.
	DefaultMode Mode = iota
	// Async: every message takes its own delay, at most one time unit, drawn
	// from the seed (or exactly one unit with UnitDelays); links are FIFO.
	Async
	// Sync: lock-step rounds; a message sent in round r arrives in round r+1.
	Sync
	// Timed: the algorithm runs on a model with its own clock, neither
	// message delays nor rounds: 1394 runs on the PHY model's nanosecond
	// virtual time, with the cable delays and timers of the standard.
	Timed
)

func (m Mode) String() string {
	switch m {
	case Async:
		return "async"
	case Sync:
		return "sync"
	case Timed:
		return "timed"
	}
	return "default"
}

// AllNodes as Options.InitiatorCount makes every node an initiator.
const AllNodes = -1

// Options control one election. The zero value of every field is its
// default; only Algo is required.
type Options struct {
	// Algo names the algorithm: see Algorithms.
	Algo string
	// Mode forces synchronous or asynchronous runs (default: the
	// algorithm's own). Timed is 1394's own mode and no other algorithm's.
	Mode Mode
	// IDOrder lays IDs 1…n out along the ring or the topology (default
	// Ascending). IDs, when not nil, gives every node its ID instead.
	IDOrder IDOrder
	IDs     map[string]int64
	// Initiators names the nodes that start the election. When empty,
	// InitiatorCount picks the first K live nodes along the ID order
	// (AllNodes: all of them; more than there are is ErrBadOptions), and 0
	// leaves the choice to the algorithm: all nodes for the ring
	// algorithms, adoption and floodmax, the first node for ring-list,
	// echo, tree-min and dfs-token, and for bully the first node that has
	// not crashed.
	Initiators     []string
	InitiatorCount int
	// Seed determines the message delays, the random IDs and the random
	// directions of chang-roberts-bidi. The same topology, options and
	// seed give the same Result.
	Seed uint64
	// UnitDelays makes every asynchronous message take exactly one time
	// unit instead of a random delay in (0, 1]: the worst case the
	// textbook time bounds assume.
	UnitDelays bool
	// Suppress is the chang-roberts optimisation: a node woken by a larger
	// ID does not send its own.
	Suppress bool
	// Announce adds the optional leader announcement to chang-roberts,
	// chang-roberts-bidi and adoption. The other algorithms always announce,
	// except anonymous, which elects nobody.
	Announce bool
	// Policy is how 1394's root contention is resolved, as
	// bus.Options.Policy: the standard's coin (the default), or
	// treeid.LargerIDWins, the notes' alternative. The other algorithms
	// ignore it.
	Policy treeid.Policy
	// Crashed lists bully's crashed nodes (default: the node with the
	// largest ID, the coordinator whose failure starts the election).
	Crashed []string
	// Crashes and Recoveries are bully's faults during the run: a node
	// that crashes loses what it knew and every message on its way to it;
	// a node that recovers starts afresh and holds an election. A node
	// crashed from the start (Crashed) may recover; a node may crash and
	// recover several times, in turn.
	Crashes, Recoveries []NodeEvent
	// Trace records every message in Result.Trace.
	Trace bool
	// MaxTrace, when not 0, stops a run whose trace passes it with
	// netsim.ErrTraceFull (the 1394 algorithm, on the bus, ignores it).
	MaxTrace int
	// MaxEvents bounds the run's kernel events (default
	// netsim.DefaultMaxEvents).
	MaxEvents uint64
	// Interrupt, when not nil, stops the run soon after it closes (checked
	// every 4096 events): Run returns ErrInterrupted. A context's Done
	// channel is the usual value.
	Interrupt <-chan struct{}
}

// NodeEvent is something that happens to a node at a time: a crash or a
// recovery.
type NodeEvent struct {
	Node string
	At   int64 // in ticks, netsim.TicksPerDelay to the message delay
}

// ParseInitiatorCount reads Options.InitiatorCount: all (AllNodes), one,
// or a number of nodes from 1.
func ParseInitiatorCount(s string) (int, error) {
	switch s {
	case "all":
		return AllNodes, nil
	case "one":
		return 1, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return 0, fmt.Errorf("initiators %q: want all, one or a number of nodes from 1", s)
	}
	return k, nil
}
