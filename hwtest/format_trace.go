package hwtest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The firewire tracepoints (include/trace/events/firewire.h) print, after
// the tracer's own columns:
//
//	bus_reset_handle: card_index=0 generation=3 node_id=0x00c1 bm_abdicate=false self_ids={0x807f8c56,0x817fcc5e}
//	self_id_sequence: card_index=0 generation=3 phy_id=0x00 link_active=true … self_id_sequence={0x807f8c56}
//
// bus_reset_handle carries every self-ID of a generation; self_id_sequence
// one node's packets. A generation with both is read from bus_reset_handle,
// and the two must agree.
var traceEvent = regexp.MustCompile(`\b(bus_reset_handle|self_id_sequence): (.*)$`)

// traceGen is a generation being assembled from trace events.
type traceGen struct {
	*Generation
	fromHandle bool     // the quadlets came from bus_reset_handle
	sequences  []uint32 // quadlets of its self_id_sequence events
	seqLine    int
}

func parseTrace(ls []string) ([]*Generation, error) {
	var order []*traceGen
	byNumber := map[int]*traceGen{}
	var last *traceGen // the generation of the previous event
	for n, l := range ls {
		m := traceEvent.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line := n + 1
		fields := traceFields(m[2])
		number, err := traceInt(fields, "generation", line)
		if err != nil {
			return nil, err
		}
		key := "self_ids"
		if m[1] == "self_id_sequence" {
			key = "self_id_sequence"
		}
		qs, err := traceArray(fields, key, line)
		if err != nil {
			return nil, err
		}
		g := byNumber[number]
		// Events of one generation come together; the same (8-bit,
		// wrapping) number after other events is a new bus reset.
		handle := m[1] == "bus_reset_handle"
		if g == nil || g != last || (handle && g.fromHandle) {
			g = &traceGen{Generation: newGeneration(FormatTrace, line)}
			g.Number = number
			byNumber[number] = g
			order = append(order, g)
		}
		last = g
		if handle {
			g.fromHandle = true
			g.Line = line
			if id, err := traceInt(fields, "node_id", line); err == nil && id&0x3f != 0x3f {
				g.LocalPhyID = id & 0x3f
			}
			for _, q := range qs {
				g.addPacket(q, nil)
			}
			continue
		}
		if len(qs) > 0 {
			if want, err := traceInt(fields, "phy_id", line); err == nil && phyIDOf(qs[0]) != want {
				return nil, &ParseError{Format: FormatTrace, Line: line, Field: "phy_id",
					Reason: fmt.Sprintf("phy_id=0x%02x but the first quadlet, 0x%08x, is from phy %d", want, qs[0], phyIDOf(qs[0]))}
			}
		}
		if g.seqLine == 0 {
			g.seqLine = line
		}
		g.sequences = append(g.sequences, qs...)
	}
	gens := make([]*Generation, 0, len(order))
	for _, g := range order {
		switch {
		case !g.fromHandle:
			g.Line = g.seqLine
			for _, q := range g.sequences {
				g.addPacket(q, nil)
			}
		case g.sequences != nil && !slices.Equal(g.sequences, selfIDWords(g.Generation)):
			g.Problems = append(g.Problems, Problem{Check: "trace", Node: -1, Index: -1,
				Message: fmt.Sprintf("self_id_sequence events (from line %d) and bus_reset_handle disagree; bus_reset_handle's quadlets are used", g.seqLine)})
		}
		gens = append(gens, g.Generation)
	}
	return gens, nil
}

func selfIDWords(g *Generation) []uint32 {
	out := make([]uint32, len(g.SelfIDs))
	for i, s := range g.SelfIDs {
		out[i] = uint32(s)
	}
	return out
}

// traceFields splits "k=v k=v" (values have no blanks) into a map.
func traceFields(s string) map[string]string {
	fields := map[string]string{}
	for _, kv := range strings.Fields(s) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			fields[k] = v
		}
	}
	return fields
}

// traceInt reads a decimal or 0x-hex field.
func traceInt(fields map[string]string, key string, line int) (int, error) {
	v, ok := fields[key]
	if !ok {
		return 0, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: "missing"}
	}
	n, err := strconv.ParseInt(v, 0, 32)
	if err != nil || n < 0 {
		return 0, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: excerpt(v) + " is not a non-negative number"}
	}
	return int(n), nil
}

// traceArray reads a __print_array field: "{0x1,0x2}" or "{}".
func traceArray(fields map[string]string, key string, line int) ([]uint32, error) {
	v, ok := fields[key]
	if !ok {
		return nil, &ParseError{Format: FormatTrace, Line: line, Field: key, Reason: "missing"}
	}
	inner, ok := strings.CutPrefix(v, "{")
	if inner, ok2 := strings.CutSuffix(inner, "}"); ok && ok2 {
		var qs []uint32
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
