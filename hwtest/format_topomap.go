package hwtest

import (
	"fmt"

	"github.com/fwsim/fwsim/phy"
)

// A TOPOLOGY_MAP (IEEE 1212 CSR at 0xFFFFF0001000, as Linux's
// core-topology.c fills it) is big-endian quadlets:
//
//	q0 = length<<16 | CRC-16 of the next length quadlets
//	q1 = the map's update counter (Generation.MapCounter): not the bus
//	     generation, which the map does not state
//	q2 = node_count<<16 | self_id_count
//	q3 … = the self-ID quadlets, without inverses
//
// with length = self_id_count + 2. A dump may hold several maps in a row;
// zeros after the last one (the unused rest of the CSR) are ignored.

// mapHeaderLen is q0–q2.
const mapHeaderLen = 3

// looksLikeMapHeader reports whether q0–q2 are a plausible map header: q0
// is no self-ID, and length and self_id_count agree.
func looksLikeMapHeader(q []uint32) bool {
	q0, q2 := q[0], q[2]
	return !phy.SelfID(q0).IsSelfID() && q0>>16 >= 2 && q0>>16 == q2&0xffff+2
}

// mapParser reads a dump of maps one quadlet at a time.
type mapParser struct {
	emit     func(*Generation) error
	buf      []numbered // the map being read: q0 and what has come of the rest
	quadlets []uint32   // those of the line being read
	maps     int        // maps read
	// zero is the line of a zero quadlet where a map would start after the
	// last: the unused rest of the CSR, if nothing but zeros follows.
	zero int
}

func (p *mapParser) line(n int, l string) error {
	var err error
	if p.quadlets, err = appendDumpQuadlets(p.quadlets[:0], l, FormatTopologyMap, n); err != nil {
		return err
	}
	for _, q := range p.quadlets {
		if err := p.quadlet(numbered{q, n}); err != nil {
			return err
		}
	}
	return nil
}

func (p *mapParser) quadlet(q numbered) error {
	switch {
	case p.zero > 0 && q.v != 0:
		_, err := mapLength(numbered{0, p.zero}) // not the CSR's rest after all, but a map of length 0
		return err
	case p.zero > 0:
		return nil
	case len(p.buf) == 0 && q.v == 0 && p.maps > 0:
		p.zero = q.line
		return nil
	case len(p.buf) == 0:
		// Refused here, before its quadlets are held: a map longer than
		// any bus's.
		if _, err := mapLength(q); err != nil {
			return err
		}
	}
	p.buf = append(p.buf, q)
	if length := int(p.buf[0].v >> 16); len(p.buf) < 1+length {
		return nil
	}
	g, err := readMap(p.buf)
	if err != nil {
		return err
	}
	p.buf = p.buf[:0]
	p.maps++
	return p.emit(g)
}

// end refuses a map cut short.
func (p *mapParser) end() error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := readMap(p.buf)
	return err
}

// numbered is a quadlet and the line it came from (0 when not from text).
type numbered struct {
	v    uint32
	line int
}

// mapLength is the length a map's q0 gives: the quadlets after q0, at
// least the counter and the counts, at most those and the self-IDs of the
// largest bus.
func mapLength(q0 numbered) (int, error) {
	length := int(q0.v >> 16)
	if length < 2 || length > 2+maxSelfIDs {
		return 0, &ParseError{Format: FormatTopologyMap, Line: q0.line, Field: "length",
			Reason: fmt.Sprintf("q0 0x%08x gives length %d, want 2 (counter and counts) to %d (and the %d self-IDs of 63 nodes of 27 ports)", q0.v, length, 2+maxSelfIDs, maxSelfIDs)}
	}
	return length, nil
}

// readMap reads the map at the start of qs. Counts and CRC that disagree
// are Problems of the generation.
func readMap(qs []numbered) (*Generation, error) {
	line := qs[0].line
	fail := func(field, format string, args ...any) (*Generation, error) {
		return nil, &ParseError{Format: FormatTopologyMap, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if len(qs) < mapHeaderLen {
		return fail("header", "%d quadlets, a map header has %d", len(qs), mapHeaderLen)
	}
	length, err := mapLength(qs[0])
	if err != nil {
		return nil, err
	}
	if 1+length > len(qs) {
		return fail("length", "q0 0x%08x gives length %d, but only %d quadlets follow", qs[0].v, length, len(qs)-1)
	}
	g := newGeneration(FormatTopologyMap, line)
	g.MapCounter = qs[1].v
	body := make([]uint32, length)
	for i := range body {
		body[i] = qs[1+i].v
	}
	for _, q := range body[2:] {
		g.addPacket(q, nil) // mapLength bounds their number
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
	return g, nil
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
	g, err := readMap(qs)
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
