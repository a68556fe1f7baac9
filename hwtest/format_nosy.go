package hwtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// nosy-dump (Linux tools/firewire, reading the nosy PCILynx snooper) prints
// a line per packet after a time column; with -x (--hex) the packet's
// bytes follow in brackets, for a PHY packet the quadlet, its inverse and
// the snoop ack, for a bus reset nothing (print_packet):
//
//	34417  bus reset  []
//	34532  self id: phy_id=00, link active, gap_count=63, speed=S400, irm contender, initiator  [807f8c56 7f8073a9 0000000f]
//	34580  extended self id: phy_id=02, seq=0  [82815000 7d7eafff 0000000f]
//
// (nosy-dump before 2020 prints "gap_count=63, speed=", later ones
// "gap_count=63 speed="). The words "self id: phy_id=" mark the lines read,
// whose decoded text must be what nosy-dump prints for the bracket's first
// quadlet; "bus reset" ends a bus reset. The spacing is not read: a mail
// client that collapsed the runs of blanks, or a copy without the time
// column, reads alike. Without -x the lines lack the ports, and are
// refused.
const nosyWords = "self id: phy_id="

type nosyParser struct {
	pending
	text []byte // what nosy-dump prints for the current quadlet
}

func (p *nosyParser) line(n int, l string) error {
	at := strings.Index(l, nosyWords)
	if at < 0 {
		if nosyBusReset(l) {
			return p.close()
		}
		return nil
	}
	if strings.HasSuffix(l[:at], "extended ") {
		at -= len("extended ")
	}
	// The decoded text holds no '[': the bracket is the last one.
	msg, hex := l[at:], ""
	open := strings.LastIndexByte(msg, '[')
	if open < 0 {
		return &ParseError{Format: FormatNosy, Line: n, Field: "hex",
			Reason: "no [quadlet inverse ack] after the packet, which nosy-dump prints only with -x (--hex); without it the line lacks the ports and the power class: record with nosy-dump -x"}
	}
	msg, hex = strings.TrimRight(msg[:open], " \t"), strings.TrimRight(msg[open+1:], " \t")
	hex, closed := strings.CutSuffix(hex, "]")
	if !closed {
		return &ParseError{Format: FormatNosy, Line: n, Field: "hex",
			Reason: fmt.Sprintf("[%s has no closing ]: the line ends inside the packet's quadlets (cut or wrapped?)", excerpt(hex))}
	}
	words := strings.Fields(hex)
	for i, field := range []string{"quadlet", "inverse"} {
		if i >= len(words) || len(words[i]) != 8 || !isHex(words[i]) {
			return &ParseError{Format: FormatNosy, Line: n, Field: field,
				Reason: fmt.Sprintf("[%s] does not start with the quadlet and its inverse, eight hex digits each", excerpt(hex))}
		}
	}
	q, _ := parseQuadlet(words[0]) // eight hex digits
	inv, _ := parseQuadlet(words[1])
	s := phy.SelfID(q)
	p.text = appendNosyText(p.text[:0], s, true)
	if msg != string(p.text) && (s.IsExtended() || msg != string(appendNosyText(p.text[:0], s, false))) {
		return &ParseError{Format: FormatNosy, Line: n, Field: "decoded text",
			Reason: fmt.Sprintf("the line says %s, but nosy-dump prints %q for quadlet 0x%08x", excerpt(msg), appendNosyText(nil, s, false), q)}
	}
	return p.open(FormatNosy, n).addQuadlet(q, &inv, n)
}

// nosyBusReset reports nosy-dump's line of a bus reset: "bus reset" after
// the time column, if any, and before the empty bracket of -x, if any.
func nosyBusReset(l string) bool {
	f := strings.Fields(l)
	if len(f) > 0 && isDecimal(f[0]) {
		f = f[1:]
	}
	if len(f) > 0 && f[len(f)-1] == "[]" {
		f = f[:len(f)-1]
	}
	return len(f) == 2 && f[0] == "bus" && f[1] == "reset"
}

// appendNosyText appends what nosy-dump prints for a self-ID quadlet;
// comma is the comma older versions print after the gap count.
func appendNosyText(b []byte, s phy.SelfID, comma bool) []byte {
	q := uint32(s)
	if s.IsExtended() {
		return fmt.Appendf(b, "extended self id: phy_id=%02x, seq=%d", q>>24&63, q>>20&7)
	}
	b = fmt.Appendf(b, "self id: phy_id=%02x, link ", q>>24&63)
	if q>>22&1 != 0 {
		b = append(b, "active"...)
	} else {
		b = append(b, "not active"...)
	}
	b = append(b, ", gap_count="...)
	b = strconv.AppendUint(b, uint64(q>>16&63), 10)
	if comma {
		b = append(b, ',')
	}
	b = append(b, " speed="...)
	b = append(b, [4]string{"S100", "S200", "S400", "BETA"}[q>>14&3]...)
	if q>>11&1 != 0 {
		b = append(b, ", irm contender"...)
	}
	if q>>1&1 != 0 {
		b = append(b, ", initiator"...)
	}
	return b
}

func isDecimal(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
