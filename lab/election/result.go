package election

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
	Messages Messages
	// Time is the time of the last message delivery or decision: message
	// delays for asynchronous runs, rounds for synchronous runs, ns for
	// timed runs (1394). TimeUnit names the unit: "delays", "rounds" or
	// "ns".
	Time     float64
	TimeUnit string
	// Rounds is the number of rounds of a synchronous run, 0 otherwise.
	Rounds int
	// Trace lists every message in the order sent, when Options.Trace is
	// set.
	Trace []TraceEntry
}

// NodeResult is one node at the end of the run.
type NodeResult struct {
	Node  string
	ID    int64
	State NodeState
	// Leader is whom the node knows as leader, "" when it does not know.
	Leader string
}

// Messages counts messages in total and by type.
type Messages struct {
	Total int
	// ByType holds one entry per message type of the algorithm, in the
	// algorithm's order, zero counts included.
	ByType []TypeCount
}

// TypeCount is the number of messages of one type.
type TypeCount struct {
	Type  string
	Count int
}

// countMessages is the Messages of a run that sent counts[i] messages of
// types[i].
func countMessages(types []string, counts []int) Messages {
	var m Messages
	for i, c := range counts {
		m.ByType = append(m.ByType, TypeCount{Type: types[i], Count: c})
		m.Total += c
	}
	return m
}

// Count is the number of messages of type typ.
func (m Messages) Count(typ string) int {
	for _, c := range m.ByType {
		if c.Type == typ {
			return c.Count
		}
	}
	return 0
}

// TraceEntry is one message: when it was sent and when it arrived (in the
// Result's time unit), between which nodes, its type and its content. For
// 1394 a message is a line state a port starts to drive, Payload naming the
// port, or the root's self-ID packet reaching a node, Payload the packet in
// hex; Sent and Arrived are both that time.
type TraceEntry struct {
	Sent, Arrived float64
	// Lost is set for a message to a crashed node; Arrived is then 0.
	Lost     bool
	From, To string
	Type     string
	Payload  string
}

// DelayName names the delays of a run: "unit" or "random".
func DelayName(unit bool) string {
	if unit {
		return "unit"
	}
	return "random"
}
