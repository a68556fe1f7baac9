package bus

import (
	"fmt"

	"github.com/fwsim/fwsim/phy"
)

// TraceKind is what a trace event records.
type TraceKind uint8

// Trace event kinds.
const (
	TraceState    TraceKind = iota // a PHY changed state
	TraceTransmit                  // a port changed what it drives
	TraceReceive                   // a port's resolved receive state changed
	TracePacket                    // a self-ID packet reached a PHY
	TraceScenario                  // a scripted event happened
	TraceLink                      // a PHY reported something to its link (CONFIG_TIMEOUT)
	TraceBus                       // after initialisation: what a node sees on the bus, or its arbitration
)

func (k TraceKind) String() string {
	switch k {
	case TraceState:
		return "state"
	case TraceTransmit:
		return "tx"
	case TraceReceive:
		return "rx"
	case TracePacket:
		return "packet"
	case TraceScenario:
		return "scenario"
	case TraceLink:
		return "link"
	case TraceBus:
		return "bus"
	}
	return fmt.Sprintf("TraceKind(%d)", uint8(k))
}

// TraceEvent is one observable change during a run.
type TraceEvent struct {
	TimeNs int64
	Kind   TraceKind
	Node   string // "" for scenario events that concern no single node
	Port   int    // -1 when the event concerns the whole node
	// From and To hold the old and new value: the PHY state for TraceState;
	// the line state for TraceTransmit and TraceReceive.
	FromState, ToState phy.State
	FromLine, ToLine   phy.LineState
	Packet             phy.SelfID // TracePacket
	// Detail is, for TraceScenario, what happened; for TraceLink, what the
	// PHY reported; for TraceBus, what the node now sees on the bus
	// ("async n0→n15 S400", "idle"), its arbitration ("request async",
	// "granted", "denied"), or a collision there.
	Detail string
}

// String renders the event on one line.
func (e TraceEvent) String() string {
	at := fmt.Sprintf("%12d ns", e.TimeNs)
	switch e.Kind {
	case TraceState:
		return fmt.Sprintf("%s %-8s state %s → %s", at, e.Node, e.FromState, e.ToState)
	case TraceTransmit:
		return fmt.Sprintf("%s %-8s p%d tx %s → %s", at, e.Node, e.Port, e.FromLine.TxName(), e.ToLine.TxName())
	case TraceReceive:
		return fmt.Sprintf("%s %-8s p%d rx %s → %s", at, e.Node, e.Port, e.FromLine.RxName(), e.ToLine.RxName())
	case TracePacket:
		return fmt.Sprintf("%s %-8s p%d packet %08x", at, e.Node, e.Port, uint32(e.Packet))
	case TraceLink:
		return fmt.Sprintf("%s %-8s link %s", at, e.Node, e.Detail)
	case TraceBus:
		return fmt.Sprintf("%s %-8s bus %s", at, e.Node, e.Detail)
	}
	return fmt.Sprintf("%s scenario %s", at, e.Detail)
}

// Trace collects trace events; pass its Record method as Options.Observer.
type Trace struct {
	Events []TraceEvent
}

// Record appends e.
func (t *Trace) Record(e TraceEvent) { t.Events = append(t.Events, e) }
