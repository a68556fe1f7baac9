package netsim

// CountJSON counts a run's messages.
type CountJSON struct {
	Total  int            `json:"total"`   // every message
	ByType map[string]int `json:"by_type"` // by type, every type of the algorithm, zero counts included
}

// TraceJSON is one message of --trace.
type TraceJSON struct {
	Sent    float64  `json:"sent"`    // when it was sent, in time_unit
	Arrived *float64 `json:"arrived"` // when it arrived, in time_unit; null when lost
	From    string   `json:"from"`    // the sender
	To      string   `json:"to"`      // the receiver
	Type    string   `json:"type"`    // the message type, e.g. ELECTION
	Payload string   `json:"payload"` // its content; for 1394 the port that drives it, or the self-ID packet in hex
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

// NewTraceJSON is one message of --trace.
func NewTraceJSON(m TraceEntry) TraceJSON {
	tj := TraceJSON{Sent: m.Sent, From: m.From, To: m.To, Type: m.Type, Payload: m.Payload}
	if !m.Lost {
		tj.Arrived = &m.Arrived
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
