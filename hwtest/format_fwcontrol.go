package hwtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// FreeBSD's fwcontrol -t prints the TOPOLOGY_MAP decoded (show_topology_map
// in usr.sbin/fwcontrol/fwcontrol.c), a table per map:
//
//	crc_len: 9 generation:2 node_count:6 sid_count:7
//	id link gap_cnt speed delay cIRM power port0 port1 port2 ini more
//	00    1      63  S100     0    0W     P                 0    0
//	02 sequel packet
//
// (older versions print a delay column as well, and the gap count with %d
// rather than %2d). The table holds the fields of each packet #0 and
// nothing of an extended packet but its phy_ID: the ports 3–26 are lost,
// read here as absent and reported (check "lost"), and the delay field
// too when no delay column is printed. Every line of the table must be a
// row as fwcontrol prints it; a line that does not start with two digits
// ends the table. "generation" is the map's update counter, not read.
var (
	fwcontrolMap   = regexp.MustCompile(`^crc_len: (\d{1,3}) generation:(\d+) node_count:(\d{1,2}) sid_count:(\d{1,3})\s*$`)
	fwcontrolRow   = regexp.MustCompile(`^(\d\d)   ([ 0-9]\d)      ([ 0-9]\d)  (.{4})     (\d)   (.{3})     (.)     (.)     (.)   (\d)    (\d)\s*$`)
	fwcontrolRowV1 = regexp.MustCompile(`^(\d\d)   ([ 0-9]\d)      (\d{1,2})  (.{4})     (\d)    (\d)   (.{3})     (.)     (.)     (.)   (\d)    (\d)\s*$`)
	fwcontrolSeq   = regexp.MustCompile(`^(\d\d) sequel packet\s*$`)
)

const fwcontrolHeader = "id link gap_cnt speed delay cIRM power port0 port1 port2 ini more"

// What show_topology_map prints for the speed, power class and port
// status codes.
var (
	fwcontrolSpeeds = []string{"S100", "S200", "S400", "S800"}
	fwcontrolPowers = []string{" 0W", "15W", "30W", "45W", "-1W", "-2W", "-5W", "-9W"}
	fwcontrolPorts  = []string{" ", "-", "P", "C"}
)

// fwcontrolKind tells the lines that start a table ("map", "header") from
// any other (""): the rows have no words of their own.
func fwcontrolKind(l string) string {
	switch {
	case strings.HasPrefix(l, "crc_len: "):
		return "map"
	case strings.Contains(l, fwcontrolHeader):
		return "header"
	}
	return ""
}

type fwcontrolParser struct {
	pending
	inTable        bool
	nodes, selfIDs int // the counts the map line states, -1 without one
	mapLine        int
	sequels        int // the current node's sequel packets so far
}

func newFwcontrolParser(emit func(*Generation) error) *fwcontrolParser {
	return &fwcontrolParser{pending: pending{emit: emit}, nodes: -1, selfIDs: -1}
}

func (p *fwcontrolParser) line(n int, l string) error {
	fail := func(field, format string, args ...any) error {
		return &ParseError{Format: FormatFwcontrol, Line: n, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch fwcontrolKind(l) {
	case "map":
		m := fwcontrolMap.FindStringSubmatch(l)
		if m == nil {
			return fail("crc_len", "%s is not fwcontrol's %q", excerpt(l), "crc_len: %d generation:%d node_count:%d sid_count:%d")
		}
		if err := p.close(); err != nil {
			return err
		}
		p.nodes, _ = strconv.Atoi(m[3]) // the pattern admits a few digits only
		p.selfIDs, _ = strconv.Atoi(m[4])
		p.mapLine, p.inTable = n, false
		return nil
	case "header":
		if strings.TrimSpace(l) != fwcontrolHeader {
			return fail("header", "%s is not fwcontrol's %q", excerpt(l), fwcontrolHeader)
		}
		p.inTable = true
		if p.cur != nil { // a table without its map line
			return p.close()
		}
		return nil
	}
	if !p.inTable || len(l) < 2 || !isDecimal(l[:2]) {
		p.inTable = false
		return nil
	}
	if m := fwcontrolSeq.FindStringSubmatch(l); m != nil {
		return p.sequel(n, m[1])
	}
	m := fwcontrolRow.FindStringSubmatch(l)
	delay := "0"
	if m == nil {
		if m = fwcontrolRowV1.FindStringSubmatch(l); m != nil {
			delay = m[5]
			m = append(m[:5], m[6:]...)
		}
	}
	if m == nil {
		return fail("row", "%s is not a row as fwcontrol -t prints it (%q, or %q before the delay column went)", excerpt(l),
			"%02d   %2d      %2d  %4s     %d   %3s     %s     %s     %s   %d    %d", "NN sequel packet")
	}
	q := uint32(2) << 30
	for i, f := range []struct {
		name   string
		values []string // the text of each value, nil for a decimal number
		max    int
		shift  int
	}{
		{"id", nil, 62, 24}, {"link", nil, 1, 22}, {"gap_cnt", nil, 63, 16}, {"speed", fwcontrolSpeeds, 3, 14},
		{"cIRM", nil, 1, 11}, {"power", fwcontrolPowers, 7, 8},
		{"port0", fwcontrolPorts, 3, 6}, {"port1", fwcontrolPorts, 3, 4}, {"port2", fwcontrolPorts, 3, 2},
		{"ini", nil, 1, 1}, {"more", nil, 1, 0},
	} {
		v, ok := fwcontrolValue(m[1+i], f.values, f.max)
		if !ok {
			return fail(f.name, "%q is not a value fwcontrol prints there (%s)", m[1+i], fwcontrolWant(f.values, f.max))
		}
		q |= uint32(v) << f.shift
	}
	d, ok := fwcontrolValue(delay, nil, 3)
	if !ok {
		return fail("delay", "%q is not a value fwcontrol prints there (0 to 3)", delay)
	}
	q |= uint32(d) << 12
	g := p.open(FormatFwcontrol, n)
	p.sequels = 0
	return g.addQuadlet(q, nil, n)
}

// sequel adds an extended packet of which fwcontrol printed only the
// phy_ID: its ports are unknown, and read as absent.
func (p *fwcontrolParser) sequel(n int, id string) error {
	phyID, _ := strconv.Atoi(id) // two digits
	g := p.cur
	if g == nil || phy.SelfID(g.SelfIDs[len(g.SelfIDs)-1]).PhyID() != phyID || p.sequels == 3 {
		return &ParseError{Format: FormatFwcontrol, Line: n, Field: "sequel packet",
			Reason: fmt.Sprintf("phy %d's, but not after that node's packet #0 or its first two sequel packets", phyID)}
	}
	if p.sequels > 0 {
		g.SelfIDs[len(g.SelfIDs)-1] |= 1 // the previous sequel packet has more
	}
	q := uint32(2)<<30 | uint32(phyID)<<24 | 1<<23 | uint32(p.sequels)<<20
	if p.sequels == 0 {
		g.Problems = append(g.Problems, Problem{Check: "lost", Node: phyID, Index: len(g.SelfIDs), Quadlet: q,
			Message: fmt.Sprintf("fwcontrol -t prints nothing of an extended packet but its phy_ID: the ports from 3 on of phy %d are unknown, read as absent", phyID)})
	}
	p.sequels++
	return g.addQuadlet(q, nil, n)
}

// fwcontrolValue reads a field: one of values, or a decimal number up to
// max.
func fwcontrolValue(s string, values []string, max int) (int, bool) {
	if values != nil {
		for i, v := range values {
			if s == v {
				return i, true
			}
		}
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimLeft(s, " "))
	return v, err == nil && v >= 0 && v <= max
}

func fwcontrolWant(values []string, max int) string {
	if values == nil {
		return fmt.Sprintf("0 to %d", max)
	}
	return fmt.Sprintf("%q", values)
}

// close hands on the map being read, with a Problem for each count of the
// map line that the table disagrees with.
func (p *fwcontrolParser) close() error {
	if g := p.cur; g != nil {
		if p.selfIDs >= 0 && p.selfIDs != len(g.SelfIDs) {
			g.Problems = append(g.Problems, Problem{Check: "count", Node: -1, Index: -1,
				Message: fmt.Sprintf("sid_count is %d (line %d), the table has %d packets", p.selfIDs, p.mapLine, len(g.SelfIDs))})
		}
		if nodes := countNodes(g.SelfIDs); p.nodes >= 0 && p.nodes != nodes {
			g.Problems = append(g.Problems, Problem{Check: "count", Node: -1, Index: -1,
				Message: fmt.Sprintf("node_count is %d (line %d), the table has %d nodes", p.nodes, p.mapLine, nodes)})
		}
	}
	p.nodes, p.selfIDs = -1, -1
	return p.pending.close()
}

func (p *fwcontrolParser) end() error { return p.close() }
