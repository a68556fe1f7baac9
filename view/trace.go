package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
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
	PowerUp    string   `json:"power_up"`
	Initiators []string `json:"initiators"`
}

// WriteTraceJSONL writes a trace as JSON Lines: first one object of kind
// "run" with the seed and settings of res, then one object per event in
// time order, with the fields time_ns, kind, node, port, and from, to,
// from_signals, to_signals, packet or detail as the kind needs. The output
// suits jq (jq -c 'select(.kind == "state")') and diff.
func WriteTraceJSONL(w io.Writer, res *bus.Result, trace []bus.TraceEvent) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	head := traceRunJSON{
		Kind: "run", Seed: res.Seed, Profile: res.Profile, Policy: res.Policy.String(), CoinBias: res.CoinBias,
		Timing: res.Corner.String(), Clock: res.Clock(),
		PowerUp: res.PowerUp.String(), Initiators: append([]string{}, res.Initiators...),
	}
	if res.ForceRoot != "" {
		head.ForceRoot = &res.ForceRoot
	}
	if err := enc.Encode(head); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	// One object per event, appended by hand: encoding/json's reflection
	// cost most of the time of writing a trace. Field names are stable:
	// time_ns, kind, node (null for a scenario event of no one node), port
	// (null for events of the whole node, and for a packet that reached the
	// sender's own link), then as the kind needs: from and to, the old and
	// new PHY state (R0 … A0) or line state name; from_signals and
	// to_signals, the line state as "(TPA,TPB)"; packet, a self-ID quadlet
	// as "0x%08x"; detail, what a scenario event did or a PHY reported to its link.
	var line []byte
	quoted := map[string][]byte{} // node ids, quoted once
	for _, e := range trace {
		line = appendTraceJSON(line[:0], e, quoted)
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	return nil
}

// appendTraceJSON appends e as one line of JSON, as encoding/json would
// write the fields in the order the comment in WriteTraceJSONL gives, with
// empty strings left out.
func appendTraceJSON(b []byte, e bus.TraceEvent, quoted map[string][]byte) []byte {
	b = append(b, `{"time_ns":`...)
	b = strconv.AppendInt(b, e.TimeNs, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, `","node":`...)
	if e.Node == "" {
		b = append(b, "null"...)
	} else {
		q, ok := quoted[e.Node]
		if !ok {
			q = appendJSONString(nil, e.Node)
			quoted[e.Node] = q
		}
		b = append(b, q...)
	}
	b = append(b, `,"port":`...)
	if e.Port >= 0 && e.Kind != bus.TraceState && e.Kind != bus.TraceScenario && e.Kind != bus.TraceLink && e.Kind != bus.TraceBus {
		b = strconv.AppendInt(b, int64(e.Port), 10)
	} else {
		b = append(b, "null"...)
	}
	field := func(name, value string) {
		if value != "" {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":`...)
			b = appendJSONString(b, value)
		}
	}
	switch e.Kind {
	case bus.TraceState:
		field("from", e.FromState.String())
		field("to", e.ToState.String())
	case bus.TraceTransmit:
		field("from", e.FromLine.TxName())
		field("to", e.ToLine.TxName())
		field("from_signals", lineSignals[e.FromLine%9])
		field("to_signals", lineSignals[e.ToLine%9])
	case bus.TraceReceive:
		field("from", e.FromLine.RxName())
		field("to", e.ToLine.RxName())
		field("from_signals", lineSignals[e.FromLine%9])
		field("to_signals", lineSignals[e.ToLine%9])
	case bus.TracePacket:
		b = append(b, `,"packet":"0x`...)
		b = appendHex32(b, uint32(e.Packet))
		b = append(b, '"')
	case bus.TraceScenario, bus.TraceLink, bus.TraceBus:
		field("detail", e.Detail)
	}
	return append(b, "}\n"...)
}

// lineSignals holds each line state's "(TPA,TPB)", built once.
var lineSignals = func() (out [9]string) {
	for l := range phy.LineState(9) {
		out[l] = l.Signals()
	}
	return out
}()

// appendHex32 appends q as eight lower-case hex digits.
func appendHex32(b []byte, q uint32) []byte {
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[q>>shift&0xf])
	}
	return b
}

// appendJSONString appends s as a JSON string the way an Encoder with
// SetEscapeHTML(false) writes it: plain ASCII as it is, anything else
// through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
