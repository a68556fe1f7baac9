package hwtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The firewire tracepoints (include/trace/events/firewire.h) print, after
// the tracer's own columns, the event's name and its fields as key=value:
//
//	bus_reset_handle: card_index=0 generation=3 node_id=0x00c1 bm_abdicate=false self_ids={0x807f8c56,0x817fcc5e}
//	self_id_sequence: card_index=0 generation=3 phy_id=0x00 link_active=true … self_id_sequence={0x807f8c56}
//
// bus_reset_handle carries every self-ID of a generation; self_id_sequence
// one node's packets. A generation with both is read from bus_reset_handle,
// and the two must agree. Every field of the two events must be key=value;
// generation, node_id, phy_id and the arrays are read, the others ignored.
// The firewire subsystem's other events are skipped.

// traceKind tells the two events read ("bus_reset_handle",
// "self_id_sequence") from every other line ("").
func traceKind(l string) string {
	kind, _ := traceEvent(l)
	return kind
}

// traceEvent is the event a line shows, as the first of the two names
// followed by ':' and starting a word, and the text of its fields. It is
// no regexp: it runs on every line of a long trace.
func traceEvent(l string) (kind, fields string) {
	at := -1
	for _, name := range [...]string{"bus_reset_handle", "self_id_sequence"} {
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
// together: an event with another (8-bit, wrapping) generation number, or
// a second bus_reset_handle, starts the next bus reset.
type traceParser struct {
	emit   func(*Generation) error
	number int
	handle *Generation  // from the bus_reset_handle event, nil before it
	seq    *Generation  // from the self_id_sequence events, nil before one
	fields []traceField // those of the line being read
	qs     []uint32     // its quadlets
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
	if (p.handle == nil && p.seq == nil) || number != p.number || (handle && p.handle != nil) {
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

// close hands on the generation read so far: bus_reset_handle's quadlets,
// or else those of the self_id_sequence events.
func (p *traceParser) close() error {
	g := p.handle
	switch {
	case g == nil:
		g = p.seq
	case p.seq != nil && !slices.Equal(p.seq.SelfIDs, g.SelfIDs):
		g.Problems = append(g.Problems, Problem{Check: "trace", Node: -1, Index: -1,
			Message: fmt.Sprintf("self_id_sequence events (from line %d) and bus_reset_handle disagree; bus_reset_handle's quadlets are used", p.seq.Line)})
	}
	p.handle, p.seq = nil, nil
	if g == nil {
		return nil
	}
	return p.emit(g)
}

func (p *traceParser) end() error { return p.close() }

// traceField is one key=value of an event.
type traceField struct{ key, value string }

// maxTraceFields bounds the fields of an event: bus_reset_handle has 5,
// self_id_sequence 11. A line of thousands would cost a search of the
// others for each.
const maxTraceFields = 16

// appendTraceFields appends to fields those of an event's "k=v k=v"
// (values have no blanks).
func appendTraceFields(fields []traceField, s string, line int) ([]traceField, error) {
	for kv := range strings.FieldsSeq(s) {
		if len(fields) == maxTraceFields {
			return nil, &ParseError{Format: FormatTrace, Line: line, Field: "fields",
				Reason: fmt.Sprintf("more than %d; bus_reset_handle has 5, self_id_sequence 11", maxTraceFields)}
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
