package hwtest

import (
	"fmt"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// A TOPOLOGY_MAP (IEEE 1212 CSR at 0xFFFFF0001000, as Linux's
// core-topology.c fills it) is big-endian quadlets:
//
//	q0 = length<<16 | CRC-16 of the next length quadlets
//	q1 = the map's update counter, incremented at each bus reset
//	q2 = node_count<<16 | self_id_count
//	q3 … = the self-ID quadlets, without inverses
//
// with length = self_id_count + 2. A dump may hold several maps in a row;
// zeros after the last one (the unused rest of the CSR) are ignored.

// mapHeaderLen is q0–q2.
const mapHeaderLen = 3

// looksLikeMapHeader reports whether q0–q2 are a plausible map header: q0
// is no self-ID, and length and self_id_count agree.
func looksLikeMapHeader(q []numbered) bool {
	q0, q2 := q[0].v, q[2].v
	return !phy.SelfID(q0).IsSelfID() && q0>>16 >= 2 && q0>>16 == q2&0xffff+2
}

// stripAddress drops a leading "address:" column of a hex dump.
func stripAddress(l string) string {
	fields := strings.Fields(l)
	if len(fields) > 0 && strings.HasSuffix(fields[0], ":") {
		return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), fields[0]))
	}
	return l
}

func parseTopologyMap(ls []string) ([]*Generation, error) {
	qs, err := hexQuadlets(ls, FormatTopologyMap, 0)
	if err != nil {
		return nil, err
	}
	var gens []*Generation
	for len(qs) > 0 && !(len(gens) > 0 && allZero(qs)) {
		g, rest, err := readMap(qs)
		if err != nil {
			return nil, err
		}
		gens = append(gens, g)
		qs = rest
	}
	return gens, nil
}

func allZero(qs []numbered) bool {
	for _, q := range qs {
		if q.v != 0 {
			return false
		}
	}
	return true
}

// readMap reads the map at the start of qs and returns the quadlets after
// it. Counts and CRC that disagree are Problems of the generation.
func readMap(qs []numbered) (*Generation, []numbered, error) {
	line := qs[0].line
	fail := func(field, format string, args ...any) (*Generation, []numbered, error) {
		return nil, nil, &ParseError{Format: FormatTopologyMap, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if len(qs) < mapHeaderLen {
		return fail("header", "%d quadlets, a map header has %d", len(qs), mapHeaderLen)
	}
	length := int(qs[0].v >> 16)
	if length < 2 {
		return fail("length", "q0 0x%08x gives length %d, want at least 2 (counter and counts)", qs[0].v, length)
	}
	if 1+length > len(qs) {
		return fail("length", "q0 0x%08x gives length %d, but only %d quadlets follow", qs[0].v, length, len(qs)-1)
	}
	g := newGeneration(FormatTopologyMap, line)
	g.Number = int(qs[1].v)
	body := make([]uint32, length)
	for i := range body {
		body[i] = qs[1+i].v
	}
	for _, q := range body[2:] {
		g.addPacket(q, nil)
	}
	if crc := crc16(body); crc != qs[0].v&0xffff {
		g.Problems = append(g.Problems, Problem{Check: "CRC", Node: -1, Index: -1,
			Message: fmt.Sprintf("the map's CRC is 0x%04x, its quadlets give 0x%04x", qs[0].v&0xffff, crc)})
	}
	nodeCount, selfIDCount := int(body[1]>>16), int(body[1]&0xffff)
	if selfIDCount != length-2 {
		g.Problems = append(g.Problems, Problem{Check: "count", Node: -1, Index: -1,
			Message: fmt.Sprintf("self_id_count is %d, the map's length gives %d", selfIDCount, length-2)})
	}
	if nodes := countNodes(g.SelfIDs); nodeCount != nodes {
		g.Problems = append(g.Problems, Problem{Check: "count", Node: -1, Index: -1,
			Message: fmt.Sprintf("node_count is %d, the self-IDs hold %d nodes", nodeCount, nodes)})
	}
	return g, qs[1+length:], nil
}

// DecodeTopologyMap reads a TOPOLOGY_MAP as read from the CSR (quadlets in
// host order), ignoring anything after the map's length.
func DecodeTopologyMap(words []uint32) (Generation, error) {
	qs := make([]numbered, len(words))
	for i, w := range words {
		qs[i] = numbered{v: w}
	}
	if len(qs) == 0 {
		return Generation{}, &ParseError{Format: FormatTopologyMap, Field: "header", Reason: "empty map"}
	}
	g, _, err := readMap(qs)
	if err != nil {
		return Generation{}, err
	}
	return *g, nil
}

// countNodes counts packet #0s.
func countNodes(s []phy.SelfID) int {
	n := 0
	for _, q := range s {
		if q.IsSelfID() && !q.IsExtended() {
			n++
		}
	}
	return n
}

// crc16 is the CRC of IEEE 1212 configuration ROM and CSR blocks: CRC-16
// with polynomial 0x1021 and initial value 0 over the quadlets'
// big-endian bytes (Linux: crc_itu_t).
func crc16(qs []uint32) uint32 {
	crc := uint32(0)
	for _, q := range qs {
		for shift := 24; shift >= 0; shift -= 8 {
			crc ^= (q >> shift & 0xff) << 8
			for range 8 {
				if crc&0x8000 != 0 {
					crc = crc<<1&0xffff ^ 0x1021
				} else {
					crc = crc << 1 & 0xffff
				}
			}
		}
	}
	return crc
}

// EncodeTopologyMap renders self-IDs as a TOPOLOGY_MAP with the given update
// counter, as the Linux core builds it.
func EncodeTopologyMap(counter uint32, selfIDs []phy.SelfID) []uint32 {
	body := make([]uint32, 2, 2+len(selfIDs))
	body[0] = counter
	body[1] = uint32(countNodes(selfIDs))<<16 | uint32(len(selfIDs))
	for _, s := range selfIDs {
		body = append(body, uint32(s))
	}
	return append([]uint32{uint32(len(body))<<16 | crc16(body)}, body...)
}
