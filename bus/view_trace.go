package bus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// traceRunJSON is the first line of a JSONL trace: how the run was set, so
// that the file reproduces it.
type traceRunJSON struct {
	TimeNs     int64    `json:"time_ns"` // always 0
	Kind       string   `json:"kind"`    // "run"
	Seed       uint64   `json:"seed"`
	Profile    string   `json:"profile"`
	Policy     string   `json:"policy"`
	CoinBias   float64  `json:"coin_bias"`
	Timing     string   `json:"timing"`
	Clock      string   `json:"clock"`
	ForceRoot  *string  `json:"force_root"`
	Initiators []string `json:"initiators"`
}

// traceEventJSON is one trace event on one line. Field names are stable.
type traceEventJSON struct {
	TimeNs int64   `json:"time_ns"`
	Kind   string  `json:"kind"` // state, tx, rx, packet or scenario
	Node   *string `json:"node"` // null for a scenario event of no one node
	// Port is null for events of the whole node, and for a packet that
	// reached the sender's own link.
	Port *int `json:"port"`
	// From and To are the old and new PHY state (R0 … A0) or line state
	// name (PARENT_NOTIFY, …); FromSignals and ToSignals the line state as
	// "(TPA,TPB)" with 0, 1 or z.
	From        string `json:"from,omitempty"`
	To          string `json:"to,omitempty"`
	FromSignals string `json:"from_signals,omitempty"`
	ToSignals   string `json:"to_signals,omitempty"`
	Packet      string `json:"packet,omitempty"` // a self-ID quadlet, "0x%08x"
	Detail      string `json:"detail,omitempty"` // what a scenario event did
}

// WriteTraceJSONL writes a trace as JSON Lines: first one object of kind
// "run" with the seed and settings of res, then one object per event in
// time order, with the fields time_ns, kind, node, port, and from, to,
// from_signals, to_signals, packet or detail as the kind needs. The output
// suits jq (jq -c 'select(.kind == "state")') and diff.
func WriteTraceJSONL(w io.Writer, res *Result, trace []TraceEvent) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	head := traceRunJSON{
		Kind: "run", Seed: res.Seed, Profile: res.Profile, Policy: res.Policy.String(), CoinBias: res.CoinBias,
		Timing: res.Corner.String(), Clock: clockName(res.IdealClock),
		Initiators: append([]string{}, res.Initiators...),
	}
	if res.ForceRoot != "" {
		head.ForceRoot = &res.ForceRoot
	}
	if err := enc.Encode(head); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	for _, e := range trace {
		if err := enc.Encode(traceJSON(e)); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	return nil
}

func traceJSON(e TraceEvent) traceEventJSON {
	out := traceEventJSON{TimeNs: e.TimeNs, Kind: e.Kind.String()}
	if e.Node != "" {
		out.Node = &e.Node
	}
	if e.Port >= 0 && e.Kind != TraceState && e.Kind != TraceScenario {
		out.Port = &e.Port
	}
	switch e.Kind {
	case TraceState:
		out.From, out.To = e.FromState.String(), e.ToState.String()
	case TraceTransmit:
		out.From, out.To = e.FromLine.TxName(), e.ToLine.TxName()
		out.FromSignals, out.ToSignals = e.FromLine.String(), e.ToLine.String()
	case TraceReceive:
		out.From, out.To = e.FromLine.RxName(), e.ToLine.RxName()
		out.FromSignals, out.ToSignals = e.FromLine.String(), e.ToLine.String()
	case TracePacket:
		out.Packet = fmt.Sprintf("0x%08x", uint32(e.Packet))
	case TraceScenario:
		out.Detail = e.Detail
	}
	return out
}
