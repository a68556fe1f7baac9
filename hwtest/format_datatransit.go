package hwtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// A Data Transit bus analyzer's text trace numbers its lines and shows a
// self-ID packet as two lines, the quadlet (01) and its inverse (02), the
// packet's fields decoded after them, a time column last:
//
//	005 BUS RESET                                                  298.1 MS
//	006 SELFID PKT0  807F0882  01 ID=00 L=1 GAP=3F SP=100 C=1 I=1  168.7 US
//	007 SELFID PKT0  7F80F77D  02 PWR=0 P0=PRNT P1=N/P  P2=N/P     0.330 US
//
// The layout is read from published excerpts; no specification of it is
// public. The words "SELFID PKT" mark the lines read: PKT0 is a packet #0,
// PKT1–PKT3 the extended packets with n = 0–2; a 01 line must be followed by
// its 02 line. Of the decoded fields, ID, L, GAP, SP, C and I on the 01 line
// and PWR on the 02 line of a PKT0 are checked against the quadlet; the
// others (the port names) are not, their full vocabulary being unknown.
// "BUS RESET" lines separate generations.
var (
	dtLine  = regexp.MustCompile(`^\s*\d+\s+SELFID PKT([0-3])\s+([0-9A-Fa-f]{8})\s+(0[12])(?:\s(.*))?$`)
	dtReset = regexp.MustCompile(`^\s*\d+\s+BUS RESET\b`)
)

const dtWords = "SELFID PKT"

type dataTransitParser struct {
	pending
	quadlet  uint32 // the quadlet of a 01 line waiting for its 02 line
	waiting  int    // that 01 line, 0 when none waits
	waitKind string // its PKT number
}

func (p *dataTransitParser) line(n int, l string) error {
	fail := func(field, format string, args ...any) error {
		return &ParseError{Format: FormatDataTransit, Line: n, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if !strings.Contains(l, dtWords) {
		if dtReset.MatchString(l) {
			if p.waiting > 0 {
				return fail("02 line", "a bus reset, but the quadlet of line %d waits for its inverse", p.waiting)
			}
			return p.close()
		}
		return nil
	}
	m := dtLine.FindStringSubmatch(l)
	if m == nil {
		return fail("SELFID line", "%s is not the analyzer's %q", excerpt(strings.TrimSpace(l)), "NNN SELFID PKTk  QQQQQQQQ  01|02 fields…")
	}
	q, _ := parseQuadlet(m[2]) // eight hex digits
	kind, fields := m[1], strings.Fields(m[4])
	if m[3] == "01" {
		if p.waiting > 0 {
			return fail("02 line", "another 01 line, but the quadlet of line %d waits for its inverse", p.waiting)
		}
		s := phy.SelfID(q)
		if k := dtPacketNumber(s); k != kind {
			return fail("PKT", "PKT%s, but quadlet 0x%08x is a packet PKT%s", kind, q, k)
		}
		if kind == "0" {
			if err := dtCheck(fields, s, q, n, "ID", "L", "GAP", "SP", "C", "I"); err != nil {
				return err
			}
		}
		p.quadlet, p.waiting, p.waitKind = q, n, kind
		return nil
	}
	if p.waiting == 0 || p.waitKind != kind {
		return fail("01 line", "an inverse (02) of PKT%s without the quadlet line (01) of that packet before it", kind)
	}
	if kind == "0" {
		if err := dtCheck(fields, phy.SelfID(p.quadlet), p.quadlet, n, "PWR"); err != nil {
			return err
		}
	}
	g := p.open(FormatDataTransit, p.waiting)
	p.waiting = 0
	return g.addQuadlet(p.quadlet, &q, n)
}

// dtPacketNumber is the PKT number a quadlet is shown with.
func dtPacketNumber(s phy.SelfID) string {
	if !s.IsExtended() {
		return "0"
	}
	return strconv.Itoa(1 + int(uint32(s)>>20&7))
}

// dtCheck compares the fields keys of a line, those it has, with what
// quadlet q says.
func dtCheck(fields []string, s phy.SelfID, q uint32, n int, keys ...string) error {
	want := map[string]string{
		"ID":  fmt.Sprintf("%02X", s.PhyID()),
		"L":   dtBit(q >> 22),
		"GAP": fmt.Sprintf("%02X", q>>16&63),
		"SP":  [4]string{"100", "200", "400", "800"}[q>>14&3],
		"C":   dtBit(q >> 11),
		"I":   dtBit(q >> 1),
		"PWR": strconv.Itoa(int(q >> 8 & 7)),
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		for _, key := range keys {
			if k == key && !strings.EqualFold(v, want[key]) {
				return &ParseError{Format: FormatDataTransit, Line: n, Field: key,
					Reason: fmt.Sprintf("%s, but quadlet 0x%08x gives %s", excerpt(v), q, want[key])}
			}
		}
	}
	return nil
}

func dtBit(v uint32) string { return strconv.Itoa(int(v & 1)) }

func (p *dataTransitParser) end() error {
	if p.waiting > 0 {
		return &ParseError{Format: FormatDataTransit, Line: p.waiting, Field: "02 line",
			Reason: "the capture ends, but this quadlet has no inverse line after it"}
	}
	return p.close()
}
