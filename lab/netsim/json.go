package netsim

// CountJSON counts a run's messages.
type CountJSON struct {
	Total  int            `json:"total"`   // every message
	ByType map[string]int `json:"by_type"` // by type, every type of the algorithm, zero counts included
}

// TraceJSON is one entry of a lab's trace (--trace, --trace-table): a
// message, or an event of one node.
type TraceJSON struct {
	Event   string   `json:"event"`   // "message", or what the node did: start, timer, crash, recover, decide, enter, exit, deliver, join, leave
	Sent    float64  `json:"sent"`    // when the message was sent, or the event happened, in time_unit
	Arrived *float64 `json:"arrived"` // when the message arrived, in time_unit; null when lost, and for an event
	From    string   `json:"from"`    // the sender, or the node of the event
	To      *string  `json:"to"`      // the receiver; null for an event
	Type    string   `json:"type"`    // the message type, e.g. ELECTION; for an event what happened, e.g. LEADER for a decision, the tag of a timer
	Payload string   `json:"payload"` // the message's content (for 1394 the port that drives it, or the self-ID packet in hex), or the event's detail
}

// CrashJSON is one crash.
type CrashJSON struct {
	Node string  `json:"node"` // the node that crashes
	At   float64 `json:"at"`   // when
}

// NewCountJSON is the messages object of a run, every type included.
func NewCountJSON(total int, byType []TypeCount) CountJSON {
	out := CountJSON{Total: total, ByType: map[string]int{}}
	for _, c := range byType {
		out.ByType[c.Type] = c.Count
	}
	return out
}

// NewTraceJSON is one entry of a lab's trace.
func NewTraceJSON(m TraceEntry) TraceJSON {
	tj := TraceJSON{Event: m.Event, Sent: m.Sent, From: m.From, Type: m.Type, Payload: m.Payload}
	if m.Event == "" {
		tj.Event, tj.To = "message", &m.To
		if !m.Lost {
			tj.Arrived = &m.Arrived
		}
	}
	return tj
}

// CrashesJSON lists crashes in delays; [] when there are none.
func CrashesJSON(crashes []Crash) []CrashJSON {
	out := []CrashJSON{}
	for _, c := range crashes {
		out = append(out, CrashJSON{Node: c.Node, At: float64(c.At) / TicksPerDelay})
	}
	return out
}
