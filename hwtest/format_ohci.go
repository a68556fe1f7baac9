package hwtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The firewire_ohci debug log (drivers/firewire/ohci.c, log_selfids) writes
// a header per bus reset, then one line per self-ID quadlet, its fields
// decoded, its ports drawn as '.' absent, '-' not connected, 'p' parent,
// 'c' child:
//
//	firewire_ohci 0000:03:00.0: 3 selfIDs, generation 2, local node ID ffc2
//	firewire_ohci 0000:03:00.0: selfID 0: 807f8c56, phy 0 [p--] S400 gc=63 -3W Lc
//	firewire_ohci 0000:03:00.0: selfID n: 80900000, phy 0 [--......]
//
// The words "selfIDs" and "selfID" mark these lines, and only these: the
// driver's other messages say "selfIDSize" or "self ID", except log_irqs'
// line of an interrupt's events (module parameter debug=4), where selfID
// names the selfIDComplete event and comes first after the event bits:
//
//	firewire_ohci 0000:03:00.0: IRQ 00810000 selfID cycleInconsistent
//
// That line holds no self-ID and is skipped. A header must be exactly
// log_selfids' (trailing blanks aside), or its bus reset could run into
// the one before.
var ohciHeader = regexp.MustCompile(`(?:^|\s)(\d+) selfIDs, generation (\d+), local node ID ([0-9a-fA-F]{4})\s*$`)

// The Linux bus manager (core-card.c, bm_work) logs the PHY configuration
// packet it sends before the bus reset that applies it:
//
//	firewire_ohci 0000:03:00.0: phy config: new root=ffc1, gap_count=5
//
// The words "phy config: new root=" mark the line; the next bus reset
// carries what it says.
const phyConfigWords = "phy config: new root="

var phyConfigLine = regexp.MustCompile(`^phy config: new root=([0-9a-fA-F]{1,4}), gap_count=([0-9]{1,2})\s*$`)

// ohciKind tells the header ("selfIDs") and the quadlet lines ("selfID")
// of log_selfids from the kernel's other messages ("").
func ohciKind(l string) string {
	kind, _ := ohciWord(l)
	return kind
}

// ohciWord finds the word "selfIDs" or "selfID" in l: which, and where;
// not the event name of log_irqs' line. It is no regexp: it runs on every
// line of a kernel log.
func ohciWord(l string) (kind string, at int) {
	for at = wordStart(l, "selfID", 0); at >= 0; at = wordStart(l, "selfID", at+1) {
		switch end := at + len("selfID"); {
		case irqEvents(l, at):
		case end == len(l) || !isWordByte(l[end]):
			return "selfID", at
		case l[end] == 's' && (end+1 == len(l) || !isWordByte(l[end+1])):
			return "selfIDs", at
		}
	}
	return "", -1
}

// irqEvents reports that the word at index at of l follows log_irqs'
// "IRQ %08x ", a word of its own: it is the first of the interrupt's
// event names.
func irqEvents(l string, at int) bool {
	const prefix = len("IRQ 00810000 ")
	start := at - prefix
	return start >= 0 && (start == 0 || !isWordByte(l[start-1])) &&
		l[start:start+4] == "IRQ " && isHex(l[start+4:at-1]) && l[at-1] == ' '
}

type ohciParser struct {
	pending
	announced int        // the self-ID count of cur's header, -1 without one
	text      []byte     // what log_selfids writes for the current quadlet
	config    *PhyConfig // the bus manager's, for the next bus reset
}

func (p *ohciParser) line(n int, l string) error {
	switch kind, at := ohciWord(l); kind {
	case "selfIDs":
		return p.header(n, l, at)
	case "selfID":
		return p.selfID(n, l, at)
	}
	if at := strings.Index(l, phyConfigWords); at >= 0 {
		return p.phyConfig(n, l[at:])
	}
	return nil
}

// phyConfig reads the bus manager's line, message m.
func (p *ohciParser) phyConfig(n int, m string) error {
	match := phyConfigLine.FindStringSubmatch(m)
	if match == nil {
		return &ParseError{Format: FormatOHCI, Line: n, Field: "phy config",
			Reason: fmt.Sprintf("%s is not bm_work's %q", excerpt(m), "phy config: new root=%x, gap_count=%d")}
	}
	root, _ := strconv.ParseUint(match[1], 16, 16) // the pattern admits four hex digits only
	gap, _ := strconv.Atoi(match[2])               // and two decimal ones
	switch {
	case root&0x3f == 0x3f:
		return &ParseError{Format: FormatOHCI, Line: n, Field: "root", Reason: fmt.Sprintf("%x names no node (phy_ID 63)", root)}
	case gap > 63:
		return &ParseError{Format: FormatOHCI, Line: n, Field: "gap_count", Reason: fmt.Sprintf("%d, but a gap count is 0 to 63", gap)}
	}
	p.config = &PhyConfig{Line: n, Root: int(root & 0x3f), GapCount: gap}
	return nil
}

// start makes g the bus reset being read, after the bus manager's line
// that came before it.
func (p *ohciParser) start(g *Generation) {
	g.PhyConfig, p.config = p.config, nil
	p.cur = g
}

// header ends the bus reset being read and starts the next.
func (p *ohciParser) header(n int, l string, at int) error {
	m := ohciHeader.FindStringSubmatch(l)
	if m == nil {
		return &ParseError{Format: FormatOHCI, Line: n, Field: "header",
			Reason: fmt.Sprintf("%s is not log_selfids' %q (decimal N and G, four hex digits X)",
				excerpt(logMessage(l, at)), "N selfIDs, generation G, local node ID XXXX")}
	}
	if err := p.close(); err != nil {
		return err
	}
	announced, err := atoiField(m[1], n, "self-ID count")
	if err != nil {
		return err
	}
	if announced > maxSelfIDs {
		return &ParseError{Format: FormatOHCI, Line: n, Field: "self-ID count",
			Reason: fmt.Sprintf("%d, more than the %d self-ID quadlets that 63 nodes of 27 ports send", announced, maxSelfIDs)}
	}
	g := newGeneration(FormatOHCI, n)
	if g.Number, err = atoiField(m[2], n, "generation"); err != nil {
		return err
	}
	id, _ := strconv.ParseUint(m[3], 16, 16) // the pattern admits four hex digits only
	if id&0x3f != 0x3f {
		g.LocalPhyID = int(id & 0x3f)
	}
	p.start(g)
	p.announced = announced
	return nil
}

// selfID reads a quadlet's line, whose word "selfID" is at index at, and
// checks that its decoded text is what log_selfids writes for the quadlet:
// a difference means the log was damaged or edited. Lines before the first
// header (a log whose start was lost) form a bus reset without a header.
func (p *ohciParser) selfID(n int, l string, at int) error {
	// " 0: 807f0080, phy …" after the word, or " n: ", by hand: a regexp
	// would be most of the time spent on a long log.
	rest := l[at+len("selfID"):]
	if len(rest) < len(" 0: 807f0080, ") || rest[0] != ' ' || (rest[1] != '0' && rest[1] != 'n') ||
		rest[2:4] != ": " || !isHex(rest[4:12]) || rest[12:14] != ", " {
		return &ParseError{Format: FormatOHCI, Line: n, Field: "selfID line",
			Reason: fmt.Sprintf("%s is not log_selfids' %q or %q", excerpt(logMessage(l, at)),
				"selfID 0: QQQQQQQQ, phy …", "selfID n: QQQQQQQQ, phy […]")}
	}
	q, _ := parseQuadlet(rest[4:12]) // eight hex digits
	s := phy.SelfID(q)
	kind, got := rest[1:2], strings.TrimRight(rest[14:], " \t")
	if want := "0"; s.IsExtended() != (kind == "n") {
		if s.IsExtended() {
			want = "n"
		}
		return &ParseError{Format: FormatOHCI, Line: n, Field: "packet",
			Reason: fmt.Sprintf("the line says selfID %s, but quadlet 0x%08x is logged as selfID %s", kind, q, want)}
	}
	p.text = appendOHCIText(p.text[:0], s)
	if want := strings.TrimRight(string(p.text), " "); got != want {
		return &ParseError{Format: FormatOHCI, Line: n, Field: "decoded text",
			Reason: fmt.Sprintf("the line says %s, but log_selfids writes %q for quadlet 0x%08x", excerpt(got), want, q)}
	}
	if p.cur == nil {
		p.start(newGeneration(FormatOHCI, n))
		p.announced = -1
	}
	return p.cur.addQuadlet(q, nil, n)
}

// close hands on the bus reset being read, with a Problem when its header
// announced another number of quadlets.
func (p *ohciParser) close() error {
	if g := p.cur; g != nil && p.announced >= 0 && p.announced != len(g.SelfIDs) {
		g.Problems = append(g.Problems, Problem{Check: "count", Node: -1, Index: -1,
			Message: fmt.Sprintf("the header announces %d self-ID quadlets, the log has %d", p.announced, len(g.SelfIDs))})
	}
	return p.pending.close()
}

func (p *ohciParser) end() error { return p.close() }

// What log_selfids prints for the speed (bits 15–14) and the power class
// (bits 10–8) of a packet #0.
var (
	ohciSpeeds = [4]string{"S100", "S200", "S400", "beta"}
	ohciPowers = [8]string{"+0W", "+15W", "+30W", "+45W", "-3W", " ?W", "-3..-6W", "-3..-10W"}
)

// appendOHCIText appends what log_selfids writes for a quadlet after the
// quadlet and its comma: "phy 0 [p..] S100 gc=63 +0W L" for a packet #0,
// "phy 2 [---.....]" for an extended one.
func appendOHCIText(b []byte, s phy.SelfID) []byte {
	q := uint32(s)
	b = append(b, "phy "...)
	b = strconv.AppendUint(b, uint64(q>>24&63), 10)
	b = append(b, " ["...)
	b = appendOHCIPorts(b, s)
	b = append(b, ']')
	if s.IsExtended() {
		return b
	}
	b = append(b, ' ')
	b = append(b, ohciSpeeds[q>>14&3]...)
	b = append(b, " gc="...)
	b = strconv.AppendUint(b, uint64(q>>16&63), 10)
	b = append(b, ' ')
	b = append(b, ohciPowers[q>>8&7]...)
	b = append(b, ' ')
	for _, f := range [...]struct {
		bit  uint
		name byte
	}{{22, 'L'}, {11, 'c'}, {1, 'i'}} {
		if q>>f.bit&1 != 0 {
			b = append(b, f.name)
		}
	}
	return b
}

// portChars is how log_selfids draws a port status.
const portChars = ".-pc"

// appendOHCIPorts draws the ports a quadlet carries the way log_selfids
// does: packet #0 holds three at shifts 6, 4, 2, an extended packet eight
// from shift 16 down.
func appendOHCIPorts(b []byte, s phy.SelfID) []byte {
	shift, n := 6, 3
	if s.IsExtended() {
		shift, n = 16, 8
	}
	for i := range n {
		b = append(b, portChars[int(s>>(shift-2*i))&3])
	}
	return b
}

// logMessage is the driver's message in a kernel log line: what follows
// the last ": " before index i. The log's prefix ("[ 12.9] firewire_ohci
// 0000:03:00.0: ") would fill an error's excerpt.
func logMessage(l string, i int) string {
	if k := strings.LastIndex(l[:i], ": "); k >= 0 {
		return l[k+2:]
	}
	return l
}

// atoiField reads a decimal field of a header line.
func atoiField(s string, line int, field string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v > 1<<30 {
		return 0, &ParseError{Format: FormatOHCI, Line: line, Field: field, Reason: excerpt(s) + " is out of range"}
	}
	return v, nil
}
