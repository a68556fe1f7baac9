package hwtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The firewire tracepoints (include/trace/events/firewire.h) print, after
// the tracer's own columns, the event's name and its fields as key=value:
//
//	bus_reset_handle: card_index=0 generation=3 node_id=0x00c1 bm_abdicate=false self_ids={0x807f8c56,0x817fcc5e}
//	self_id_sequence: card_index=0 generation=3 phy_id=0x00 link_active=true … self_id_sequence={0x807f8c56}
//
// bus_reset_handle carries every self-ID of a generation; self_id_sequence
// one node's packets. firewire_ohci's self_id_complete (Linux 6.11 on,
// include/trace/events/firewire_ohci.h) comes first: the controller's
// self-ID buffer after its header quadlet, each quadlet followed by its
// inverse, whatever the kernel then makes of it:
//
//	self_id_complete: card_index=0 is_error=false generation_at_bus_reset=3 generation_at_completion=3 timestamp=0x1f2e packet_data={0x807f8c56,0x7f8073a9}
//
// A generation is read from bus_reset_handle when it has one, else from
// self_id_complete, else from self_id_sequence, and the others must agree
// with it; self_id_complete's inverses are checked. Every field of the
// three events must be key=value; the generations, is_error, node_id,
// phy_id and the arrays are read, the others ignored. The other events are
// skipped.

// traceKind tells the three events read ("bus_reset_handle",
// "self_id_complete", "self_id_sequence") from every other line ("").
func traceKind(l string) string {
	kind, _ := traceEvent(l)
	return kind
}

// traceEvent is the event a line shows, as the first of the two names
// followed by ':' and starting a word, and the text of its fields. It is
// no regexp: it runs on every line of a long trace.
func traceEvent(l string) (kind, fields string) {
	at := -1
	for _, name := range [...]string{"bus_reset_handle", "self_id_complete", "self_id_sequence"} {
		if i := wordStart(l, name+":", 0); i >= 0 && (at < 0 || i < at) {
			kind, at = name, i
		}
	}
	if at < 0 {
		return "", ""
	}
	return kind, l[at+len(kind)+1:]
}

// traceParser assembles a generation from the events about it, which come
// together: an event with another (8-bit, wrapping) generation number, a
// second bus_reset_handle, or a self_id_complete after any event, starts
// the next bus reset.
type traceParser struct {
	emit     func(*Generation) error
	number   int
	handle   *Generation  // from the bus_reset_handle event, nil before it
	complete *Generation  // from the self_id_complete event, nil before it
	seq      *Generation  // from the self_id_sequence events, nil before one
	fields   []traceField // those of the line being read
	qs       []uint32     // its quadlets
}

func (p *traceParser) line(n int, l string) error {
	kind, text := traceEvent(l)
	if kind == "" {
		return nil
	}
	var err error
	if p.fields, err = appendTraceFields(p.fields[:0], text, n); err != nil {
		return err
	}
	if kind == "self_id_complete" {
		return p.selfIDComplete(n)
	}
	fields := p.fields
	number, err := traceNumber(fields, "generation", n, 10, 32)
	if err != nil {
		return err
	}
	handle := kind == "bus_reset_handle"
	key, idKey, idBits := "self_id_sequence", "phy_id", 8
	if handle {
		key, idKey, idBits = "self_ids", "node_id", 16
	}
	if p.qs, err = appendTraceArray(p.qs[:0], fields, key, n); err != nil {
		return err
	}
	qs := p.qs
	id, err := traceNumber(fields, idKey, n, 16, idBits)
	if err != nil {
		return err
	}
	if p.empty() || number != p.number || (handle && p.handle != nil) {
		if err := p.close(); err != nil {
			return err
		}
		p.number = number
	}
	g := p.seq
	switch {
	case handle:
		g = newGeneration(FormatTrace, n)
		if id&0x3f != 0x3f {
			g.LocalPhyID = id & 0x3f
		}
		p.handle = g
	case len(qs) > 0 && phyIDOf(qs[0]) != id:
		return &ParseError{Format: FormatTrace, Line: n, Field: "phy_id",
			Reason: fmt.Sprintf("phy_id=0x%02x but the first quadlet, 0x%08x, is from phy %d", id, qs[0], phyIDOf(qs[0]))}
	case g == nil:
		g = newGeneration(FormatTrace, n)
		p.seq = g
	}
	g.Number = number
	for _, q := range qs {
		if err := g.addQuadlet(q, nil, n); err != nil {
			return err
		}
	}
	return nil
}

func (p *traceParser) empty() bool { return p.handle == nil && p.complete == nil && p.seq == nil }

// selfIDComplete reads a self_id_complete event, whose fields are read:
// the first event of a bus reset.
func (p *traceParser) selfIDComplete(n int) error {
	fields := p.fields
	number, err := traceNumber(fields, "generation_at_bus_reset", n, 10, 8)
	if err != nil {
		return err
	}
	atCompletion, err := traceNumber(fields, "generation_at_completion", n, 10, 8)
	if err != nil {
		return err
	}
	isError, _ := traceValue(fields, "is_error")
	if isError != "true" && isError != "false" {
		return &ParseError{Format: FormatTrace, Line: n, Field: "is_error", Reason: excerpt(isError) + " is not true or false"}
	}
	if p.qs, err = appendTraceArray(p.qs[:0], fields, "packet_data", n); err != nil {
		return err
	}
	if len(p.qs)%2 != 0 {
		return &ParseError{Format: FormatTrace, Line: n, Field: "packet_data",
			Reason: fmt.Sprintf("%d quadlets, but the self-ID buffer holds each quadlet followed by its inverse", len(p.qs))}
	}
	if err := p.close(); err != nil {
		return err
	}
	g := newGeneration(FormatTrace, n)
	g.Number, p.number, p.complete = number, number, g
	for i := 0; i < len(p.qs); i += 2 {
		if err := g.addQuadlet(p.qs[i], &p.qs[i+1], n); err != nil {
			return err
		}
	}
	discarded := func(why string) {
		g.Problems = append(g.Problems, Problem{Check: "self-ID receive", Node: -1, Index: -1, Message: why + ": Linux discards these self-IDs"})
	}
	if isError == "true" {
		discarded("the controller reports a self-ID receive error (is_error=true)")
	}
	if atCompletion != number {
		discarded(fmt.Sprintf("generation %d at the bus reset, %d when self-ID completed: another bus reset came", number, atCompletion))
	}
	return nil
}

// close hands on the generation read so far: bus_reset_handle's quadlets,
// or else self_id_complete's, or else those of the self_id_sequence events.
// self_id_complete's findings (inverses, a receive error) go with them
// when its quadlets are theirs, or theirs but for the local node's, which
// the kernel inserts on a controller with TI's erratum SLLZ059.
func (p *traceParser) close() error {
	g := p.handle
	if g == nil {
		g = p.complete
	}
	if g == nil {
		g = p.seq
	}
	used := "bus_reset_handle"
	if g == p.complete {
		used = "self_id_complete"
	}
	disagree := func(other *Generation, name string) {
		if other != nil && other != g && !slices.Equal(other.SelfIDs, g.SelfIDs) {
			g.Problems = append(g.Problems, Problem{Check: "trace", Node: -1, Index: -1,
				Message: fmt.Sprintf("%s (from line %d) and %s disagree; %s's quadlets are used", name, other.Line, used, used)})
		}
	}
	if c := p.complete; g != nil && c != nil && c != g {
		if at, ok := insertedAt(g.SelfIDs, c.SelfIDs, g.LocalPhyID); ok {
			for _, pr := range c.Problems {
				if pr.Index >= at {
					pr.Index++
				}
				g.Problems = append(g.Problems, pr)
			}
		} else {
			disagree(c, "self_id_complete")
		}
	}
	if g != nil {
		disagree(p.seq, "self_id_sequence events")
	}
	p.handle, p.complete, p.seq = nil, nil, nil
	if g == nil {
		return nil
	}
	return p.emit(g)
}

func (p *traceParser) end() error { return p.close() }

// insertedAt reports whether all is received, or received with one
// quadlet inserted at index at, the packet #0 of the local node's phy_ID
// (at is len(all) when nothing was inserted).
func insertedAt(all, received []phy.SelfID, local int) (at int, ok bool) {
	if slices.Equal(all, received) {
		return len(all), true
	}
	at = slices.IndexFunc(all, func(q phy.SelfID) bool { return !q.IsExtended() && q.PhyID() == local })
	ok = local >= 0 && at >= 0 && len(all) == len(received)+1 && slices.Equal(slices.Delete(slices.Clone(all), at, at+1), received)
	return at, ok
}

// traceField is one key=value of an event.
type traceField struct{ key, value string }

// maxTraceFields bounds the fields of an event: bus_reset_handle has 5,
// self_id_complete 6, self_id_sequence 11. A line of thousands would cost a search of the
// others for each.
const maxTraceFields = 16

// appendTraceFields appends to fields those of an event's "k=v k=v"
// (values have no blanks).
func appendTraceFields(fields []traceField, s string, line int) ([]traceField, error) {
	for kv := range strings.FieldsSeq(s) {
		if len(fields) == maxTraceFields {
			return nil, &ParseError{Format: FormatTrace, Line: line, Field: "fields",
				Reason: fmt.Sprintf("more than %d; bus_reset_handle has 5, self_id_complete 6, self_id_sequence 11", maxTraceFields)}
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, &ParseError{Format: FormatTrace, Line: line, Field: "fields",
				Reason: excerpt(kv) + " is not key=value, as the tracepoint prints every field"}
		}
		if _, dup := traceValue(fields, k); dup {
			return nil, &ParseError{Format: FormatTrace, Line: line, Field: k, Reason: "given twice"}
		}
		fields = append(fields, traceField{k, v})
	}
	return fields, nil
}

// traceValue is the value of the field key. An event has a dozen fields:
// a map would cost more than it saves.
func traceValue(fields []traceField, key string) (string, bool) {
	for _, f := range fields {
		if f.key == key {
			return f.value, true
		}
	}
	return "", false
}

// traceNumber reads a field the tracepoint prints as %u (base 10) or as
// 0x%0Nx (base 16, "0x" required), of at most bits bits.
func traceNumber(fields []traceField, key string, line, base, bits int) (int, error) {
	v, ok := traceValue(fields, key)
	if !ok {
		return 0, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: "missing"}
	}
	digits, want := v, "a decimal number"
	if base == 16 {
		digits, ok = strings.CutPrefix(v, "0x")
		want = "0x and hex digits"
	}
	n, err := strconv.ParseUint(digits, base, bits)
	if !ok || err != nil {
		return 0, &ParseError{Format: FormatTrace, Line: line, Field: key,
			Reason: fmt.Sprintf("%s is not %s of at most %d bits", excerpt(v), want, bits)}
	}
	return int(n), nil
}

// appendTraceArray appends to qs the quadlets of a __print_array field:
// "{0x1,0x2}" or "{}".
func appendTraceArray(qs []uint32, fields []traceField, key string, line int) ([]uint32, error) {
	v, ok := traceValue(fields, key)
	if !ok {
		return nil, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: "missing"}
	}
	inner, ok := strings.CutPrefix(v, "{")
	if inner, ok2 := strings.CutSuffix(inner, "}"); ok && ok2 {
		for tok := range strings.SplitSeq(inner, ",") {
			if tok == "" && inner == "" {
				break
			}
			q, err := parseQuadlet(tok)
			if err != nil {
				return nil, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: err.Error()}
			}
			qs = append(qs, q)
		}
		return qs, nil
	}
	return nil, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: excerpt(v) + " is not an array such as {0x807f8c56,0x817fcc5e}"}
}
