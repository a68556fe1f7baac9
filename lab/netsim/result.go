package netsim

// Messages counts messages in total and by type.
type Messages struct {
	Total int
	// ByType holds one entry per message type of the protocol, in the
	// protocol's order, zero counts included.
	ByType []TypeCount
}

// TypeCount is the number of messages of one type.
type TypeCount struct {
	Type  string
	Count int
}

// NewMessages is the Messages of a run that sent counts[i] messages of
// types[i].
func NewMessages(types []string, counts []int) Messages {
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
// run's time unit), between which nodes, its type and its content; or,
// when Event is set, a step of one node that a student follows besides
// the messages (it started, a timer fired, it crashed, decided, entered
// its critical section), at Sent, by From, with Type naming what happened
// and Payload its detail. A lab that runs on a model of its own fills it
// as it sees fit: the election lab's 1394 names the port a line state
// starts on, or the self-ID packet in hex, Sent and Arrived both that time.
type TraceEntry struct {
	Sent, Arrived float64
	// Lost is set for a message to a crashed node; Arrived is then 0.
	Lost     bool
	From, To string
	Type     string
	Payload  string
	// Event is empty for a message, else what the node did: one of the
	// Event constants, or a lab's own (EventEnter, EventDeliver...).
	Event string
}

// The events of a node that a trace shows besides its messages. The
// runtime records the first four itself; a protocol records the others
// with Sim.Note or Net.Note.
const (
	EventStart   = "start"   // the node initiates, or restarts after a recovery
	EventTimer   = "timer"   // one of its timers fired
	EventCrash   = "crash"   // it stops
	EventRecover = "recover" // it comes back, remembering nothing
	EventDecide  = "decide"  // it decided: Type is what (LEADER, FOLLOWER...)
	EventEnter   = "enter"   // it entered its critical section
	EventExit    = "exit"    // it left its critical section
	EventDeliver = "deliver" // it delivered a multicast to its application
	EventJoin    = "join"    // it joined a group
	EventLeave   = "leave"   // it left a group
)

// Crash is a node and a time in ticks, as the labs read their faults: a
// node that stops then (Net.Crash), or, in the multicast lab, one that
// joins or leaves the group then.
type Crash struct {
	Node string
	At   int64
}

// MessagesOnly is the messages of a trace, without the events of nodes.
func MessagesOnly(trace []TraceEntry) []TraceEntry {
	var out []TraceEntry
	for _, e := range trace {
		if e.Event == "" {
			out = append(out, e)
		}
	}
	return out
}
