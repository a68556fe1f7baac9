package election

import (
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// NodeState is a node's role at the end of a run.
type NodeState string

// Node states.
const (
	Leader    NodeState = "leader"
	Follower  NodeState = "follower"  // knows it is not the leader
	Undecided NodeState = "undecided" // took part but never learnt the outcome
	Asleep    NodeState = "asleep"    // never received a message nor initiated
	Crashed   NodeState = "crashed"
)

// Result is everything one election produced.
type Result struct {
	// Algo, Mode, Seed and the options below record how the run was set, so
	// that an output reproduces its run.
	Algo       string
	Mode       Mode
	Seed       uint64
	IDOrder    string // ascending, descending, random or explicit
	UnitDelays bool
	Suppress   bool
	Announce   bool
	Policy     string   // 1394's root-contention policy when not the coin; "" otherwise
	Initiators []string // nil for 1394 from power-up: every node
	Crashed    []string
	// Crashes and Recoveries are the faults during the run, in time order.
	Crashes, Recoveries []NodeEvent

	// Leader is the elected node's id, "" when none was elected; LeaderID
	// is its ID (0 when there is none).
	Leader   string
	LeaderID int64
	// NoLeader says why there is no leader; empty when there is one.
	NoLeader string
	// Announced is set when the algorithm tells every node the outcome:
	// then every live node's NodeResult.Leader names the leader.
	Announced bool
	// Nodes lists every node in topology order.
	Nodes []NodeResult
	// Messages counts every message sent, lost ones included.
	Messages netsim.Messages
	// Time is the time of the last message delivery or decision: message
	// delays for asynchronous and timed runs, rounds for synchronous runs.
	// TimeUnit names the unit: "delays" or "rounds".
	Time     float64
	TimeUnit string
	// TimeNs is a timed run's (1394's) Time in ns on the PHY model's
	// clock, and NsPerDelay its delay in ns (the longest cable's
	// propagation plus a PHY's repeat delay); both 0 for the other modes.
	TimeNs     int64
	NsPerDelay float64
	// Rounds is the number of rounds of a synchronous run, 0 otherwise.
	Rounds int
	// Trace lists every message in the order sent, when Options.Trace is
	// set.
	Trace []netsim.TraceEntry
	// Tree is tree-min's height and delay bound; nil for the other
	// algorithms, and for a synchronous run or one with no leader.
	Tree *TreeBound
}

// NodeResult is one node at the end of the run.
type NodeResult struct {
	Node  string
	ID    int64
	State NodeState
	// Leader is whom the node knows as leader, "" when it does not know.
	Leader string
}

// DelayName names the delays of a run: "unit" or "random".
func DelayName(unit bool) string {
	if unit {
		return "unit"
	}
	return "random"
}

// Unaware names the live nodes that never learnt the leader of an
// announced election, which is then incomplete: "" when every node that
// is up knows it, when no leader was elected, or when the algorithm does
// not announce.
func (r *Result) Unaware() string {
	if r.Leader == "" || !r.Announced {
		return ""
	}
	var unaware []string
	for _, n := range r.Nodes {
		if n.State == Undecided {
			unaware = append(unaware, n.Node)
		}
	}
	return strings.Join(unaware, ", ")
}
