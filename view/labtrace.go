package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// writeTraceTable lists a lab run's trace, in unit: every message, and
// every event of a node (its start, timers, crash, decision...), which has
// no arrival and no receiver.
func writeTraceTable(w io.Writer, unit string, trace []netsim.TraceEntry) {
	fmt.Fprintf(w, "\ntrace (%s):\n", unit)
	var tr table
	tr.add("sent", "arrived", "from", "to", "type", "payload")
	for _, m := range trace {
		sent := strconv.FormatFloat(m.Sent, 'f', -1, 64)
		if m.Event != "" {
			tr.add(sent, "-", m.From, "-", eventType(m), m.Payload)
			continue
		}
		arrived := strconv.FormatFloat(m.Arrived, 'f', -1, 64)
		if m.Lost {
			arrived = "lost"
		}
		tr.add(sent, arrived, m.From, m.To, m.Type, m.Payload)
	}
	tr.write(w, "  ")
}

// eventType names an event of a node: "crash", or "decide LEADER" when its
// type says more than the event.
func eventType(m netsim.TraceEntry) string {
	if m.Type == "" || strings.EqualFold(m.Type, m.Event) {
		return m.Event
	}
	return m.Event + " " + m.Type
}
