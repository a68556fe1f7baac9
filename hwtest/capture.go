package hwtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fwsim/fwsim/phy"
)

// Format names a capture format.
type Format string

// The capture formats Read and Parse read. docs/hardware.md shows how to
// record each. The hex dumps (raw, topology-map) hold nothing else; the
// text formats are read from the lines their words mark (a kernel log's
// other messages are skipped), and a marked line that does not parse is an
// error, never skipped.
const (
	// FormatRaw: hex quadlets separated by blanks or commas, "0x" optional,
	// with or without the inverse quadlets; a blank line starts a new bus
	// reset; '#' starts a comment; a line may start with an "address:"
	// column, as in a topology-map dump.
	FormatRaw Format = "raw"
	// FormatOHCI: Linux firewire_ohci debug log lines (module parameter
	// debug=2): "N selfIDs, generation G, local node ID ffcX" then one
	// "selfID 0: …" or "selfID n: …" line per quadlet.
	FormatOHCI Format = "firewire-ohci"
	// FormatTrace: Linux firewire tracepoint text (tracefs trace or
	// trace-cmd report): bus_reset_handle events with every self-ID of a
	// generation, firewire_ohci's self_id_complete events with every
	// self-ID and its inverse as received, or self_id_sequence events with
	// one node's packets each.
	FormatTrace Format = "tracepoint"
	// FormatIEEE1394: the old Linux ieee1394 stack's debug lines: from
	// ohci1394 "SelfID packet 0x… received" per quadlet, "SelfID is
	// inconsistent [q/inverse]" for a bad inverse, "SelfID complete" at the
	// end; from pcilynx "SelfID process finished (phyid N, root)", then
	// "SelfID packet 0x… rcvd" and "inconsistent selfid q/inverse"; and the
	// 2.4 kernels' "selfid packet 0x… rcvd" forms.
	FormatIEEE1394 Format = "ieee1394"
	// FormatFireBug: Apple FireBug text exports: one "Self-ID q [inverse]"
	// line per packet quadlet, "Bus Reset" lines between generations.
	FormatFireBug Format = "firebug"
	// FormatNosy: nosy-dump -x output (Linux tools/firewire): a
	// "self id: phy_id=…" line per packet quadlet, its quadlet, inverse
	// and ack in brackets, "bus reset" lines between generations.
	FormatNosy Format = "nosy-dump"
	// FormatFwcontrol: FreeBSD fwcontrol -t tables: the TOPOLOGY_MAP
	// decoded, a row per packet #0; extended packets' ports are lost.
	FormatFwcontrol Format = "fwcontrol"
	// FormatFireSpy: a FireSpy (DapTechnology) quadlets data file (.qdl):
	// quadlets as hex digits and 'h' (FFFF008Fh) or decimal numbers, a
	// line without data between blocks, each block a bus reset, with or
	// without the inverse quadlets.
	FormatFireSpy Format = "firespy"
	// FormatDataTransit: a Data Transit bus analyzer's text trace: a
	// "SELFID PKTk" line for each quadlet (01) and its inverse (02),
	// "BUS RESET" lines between generations.
	FormatDataTransit Format = "data-transit"
	// FormatTopologyMap: a dump of the TOPOLOGY_MAP CSR (IEEE 1212, at
	// 0xFFFFF0001000): length and CRC, update counter, node and self-ID
	// counts, then the self-IDs. Lines may start with an "address:" column.
	FormatTopologyMap Format = "topology-map"
)

// Formats lists the formats in the order detection tries them.
func Formats() []Format {
	return []Format{FormatOHCI, FormatTrace, FormatIEEE1394, FormatFireBug, FormatNosy, FormatFwcontrol, FormatFireSpy, FormatDataTransit, FormatTopologyMap, FormatRaw}
}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown capture format %q (want %s)", s, formatNames())
}

func formatNames() string {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// ErrCapture is the category of every error about a capture that cannot be
// read: errors.Is(err, ErrCapture) holds for each *ParseError.
var ErrCapture = errors.New("unreadable capture")

// ParseError locates what made a capture unreadable.
type ParseError struct {
	Format Format
	Line   int    // 1-based; 0 when the problem is the whole input
	Field  string // what was being read, such as "quadlet" or "generation"
	Reason string
}

// plainField reports whether a field name can be printed as it is: a
// capture's own key (a tracepoint's "k=" part, say) can hold any bytes, and
// those are quoted so that the message stays one line of UTF-8.
func plainField(s string) bool {
	if s == "" || len(s) > maxExcerpt {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

func (e *ParseError) Error() string {
	where := string(e.Format)
	if e.Line > 0 {
		where = strings.TrimSpace(fmt.Sprintf("%s line %d", where, e.Line))
	}
	if where != "" {
		where += ": "
	}
	field := e.Field
	if !plainField(field) {
		field = excerpt(field)
	}
	return fmt.Sprintf("%s%s: %s", where, field, e.Reason)
}

// Unwrap puts every ParseError in the ErrCapture category.
func (e *ParseError) Unwrap() error { return ErrCapture }

// Generation is the self-ID phase of one bus reset as a capture shows it.
type Generation struct {
	Format Format
	// Line is where the generation starts in the capture (1-based).
	Line int
	// Number is the bus generation the capture states, -1 when it does not.
	Number int
	// MapCounter is a TOPOLOGY_MAP's update counter, its second quadlet
	// (FormatTopologyMap only). Linux adds 1 at each bus reset it handles,
	// so it is no bus generation; with commit 7d138cb269db (Linux 6.18)
	// the map is cleared before the addition, and the counter is 1 in
	// every map until that is fixed.
	MapCounter uint32
	// LocalPhyID is the phy_ID of the capturing node when the capture
	// names it, -1 otherwise.
	LocalPhyID int
	// PhyConfig is the PHY configuration packet the Linux bus manager
	// logged sending just before this bus reset, nil when the capture
	// shows none: the root it forced is no tree-identify winner.
	PhyConfig *PhyConfig
	// SelfIDs are the self-ID quadlets in bus order, inverses removed.
	SelfIDs []phy.SelfID
	// Problems are what reading found wrong: bad inverses, counts that
	// disagree with a header, a bad CRC. The quadlets are kept, so the
	// checks of Decode still run.
	Problems []Problem
	// CycleStart reports that a cycle start (0xffff008f, without its
	// inverse) came where a self-ID was due: the cycle master's gap count
	// is too small for the bus. As Linux does ("ignoring spurious self
	// IDs"), SelfIDs are those before it, and what came after it is
	// ignored.
	CycleStart bool
}

// cycleStartQuadlet is the first quadlet of a cycle start packet from
// node 63 on bus 1023, as a self-ID buffer receives it when the cycle
// master starts a cycle during self identify (Linux's ohci.c).
const cycleStartQuadlet = 0xffff008f

// PhyConfig is a PHY configuration packet the Linux bus manager sent, as
// the kernel log says: "phy config: new root=ffc1, gap_count=5".
type PhyConfig struct {
	Line     int // where the capture says so
	Root     int // the phy_ID forced to be root
	GapCount int // the gap count set on every node
}

// Problem is one finding about a bus, from reading its capture or from the
// checks consumers make (docs/protocol.md §9.3).
type Problem struct {
	// Check names the check that failed, such as "inverse",
	// "PHY ID mismatch" or "gap count".
	Check string
	// Node is the phy_ID concerned, -1 for the whole bus.
	Node int
	// Index is the position of the offending quadlet in the self-ID
	// stream (inverses not counted), -1 when no quadlet is to blame.
	Index   int
	Quadlet uint32 // the offending quadlet when Index ≥ 0
	Message string
}

func (p Problem) String() string {
	s := p.Check + ": " + p.Message
	if p.Index >= 0 {
		s += fmt.Sprintf(" (quadlet %d: 0x%08x)", p.Index, p.Quadlet)
	}
	return s
}

func newGeneration(f Format, line int) *Generation {
	return &Generation{Format: f, Line: line, Number: -1, LocalPhyID: -1}
}

// addPacket appends a self-ID quadlet and, when the capture carries it, its
// inverse: a wrong inverse is a Problem, and the quadlet is kept, but for a
// cycle start, which ends the self-IDs (CycleStart).
func (g *Generation) addPacket(q uint32, inverse *uint32) {
	if g.CycleStart {
		return
	}
	if inverse != nil && q == cycleStartQuadlet && *inverse != ^q {
		g.CycleStart = true
		return
	}
	index := len(g.SelfIDs)
	g.SelfIDs = append(g.SelfIDs, phy.SelfID(q))
	if inverse == nil {
		return
	}
	if err := phy.CheckInverse(q, *inverse); err != nil {
		g.Problems = append(g.Problems, Problem{
			Check: "inverse", Node: phyIDOf(q), Index: index, Quadlet: q,
			Message: strings.TrimPrefix(err.Error(), phy.ErrBadInverse.Error()+": "),
		})
	}
}

// addQuadlet is addPacket for a quadlet read from line, refusing one more
// than a bus sends.
func (g *Generation) addQuadlet(q uint32, inverse *uint32, line int) error {
	if len(g.SelfIDs) == maxSelfIDs {
		return sizeError(g.Format, line)
	}
	g.addPacket(q, inverse)
	return nil
}

// maxSelfIDs bounds the self-ID quadlets of one bus reset: 63 nodes, each
// sending at most four packets (#0 and three extended ones: 27 ports, as
// 1394-1995 allows). More is no bus, and decoding millions of "nodes" would
// take minutes and gigabytes.
const maxSelfIDs = phy.MaxNodes * 4

// sizeError refuses the quadlet at line that makes a bus reset longer than
// any bus.
func sizeError(f Format, line int) error {
	return &ParseError{Format: f, Line: line, Field: "generation",
		Reason: fmt.Sprintf("more than %d self-ID quadlets in one bus reset (%d with their inverses), the most that 63 nodes of 27 ports send", maxSelfIDs, 2*maxSelfIDs)}
}

// checkSize refuses a generation assembled whole, as from a binary stream,
// that is longer than any bus.
func (g *Generation) checkSize() error {
	if len(g.SelfIDs) > maxSelfIDs {
		return sizeError(g.Format, g.Line)
	}
	return nil
}

// phyIDOf is the phy_ID a self-ID quadlet names, -1 for anything else.
func phyIDOf(q uint32) int {
	if s := phy.SelfID(q); s.IsSelfID() {
		return s.PhyID()
	}
	return -1
}

// addPairs appends quadlets that may come with their inverses. The stream
// carries inverses when most quadlets at odd positions have bits 31–30 = 01,
// which the inverse of a self-ID always has and a self-ID never does.
func (g *Generation) addPairs(qs []uint32) error {
	inverses := 0
	for i := 1; i < len(qs); i += 2 {
		if phy.Kind(qs[i]) == phy.LinkOnPacket {
			inverses++
		}
	}
	if len(qs) < 2 || 2*inverses <= len(qs)/2 {
		for _, q := range qs {
			g.addPacket(q, nil)
		}
		return nil
	}
	if len(qs)%2 != 0 {
		return &ParseError{Format: g.Format, Line: g.Line, Field: "inverse quadlets",
			Reason: fmt.Sprintf("%d quadlets with inverses: the last, 0x%08x, has no inverse", len(qs), qs[len(qs)-1])}
	}
	for i := 0; i < len(qs); i += 2 {
		g.addPacket(qs[i], &qs[i+1])
	}
	return nil
}

// parseQuadlet reads a hex quadlet, "0x" optional.
func parseQuadlet(tok string) (uint32, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(tok, "0x"), "0X")
	v, err := strconv.ParseUint(digits, 16, 32)
	if digits == "" || len(digits) > 8 || err != nil {
		return 0, fmt.Errorf("%s is not a hex quadlet (want 1 to 8 hex digits, 0x optional)", excerpt(tok))
	}
	return uint32(v), nil
}

// maxExcerpt bounds the text an error quotes, so that a binary file or a
// megabyte-long line gives a short one-line message: at most maxExcerpt
// bytes of the input, quoted in at most twice as many characters (a byte
// that is no text takes four, as \xfe).
const maxExcerpt = 80

// excerpt quotes s for an error message, cut at a character boundary to
// keep within maxExcerpt, with its length when it is cut.
func excerpt(s string) string {
	cut := min(len(s), maxExcerpt)
	for cut > 0 && (cut < len(s) && !utf8.RuneStart(s[cut]) || len(strconv.Quote(s[:cut])) > 2*maxExcerpt) {
		cut--
	}
	if cut == len(s) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// maxLineBytes bounds a capture line. The longest line a producer writes, a
// bus_reset_handle event with the 252 self-IDs of the largest bus, is under
// 3 KB; the bound keeps a binary file or a runaway line from taking any
// amount of memory.
const maxLineBytes = 64 << 10

// lineReader reads a capture a line at a time: the current line, and the
// few lines detection gives back, are all the text it holds. It reads a
// capture quoted in mail without its quoting (unquote).
type lineReader struct {
	sc      *bufio.Scanner
	format  Format     // named in errors; "" while detecting
	scanned int        // lines taken from sc
	n       int        // the current line's number, 1-based
	text    string     // the current line, without its line end
	back    []textLine // lines detection read, to be read again first
	// quote is how many levels of mail quoting every line has: -1 until
	// the first line that is not blank says, 0 for none; quotedAt is that
	// line's number.
	quote, quotedAt int
	failed          error // what ended the input, beside the scanner's error
}

type textLine struct {
	n    int
	text string
}

func newLineReader(r io.Reader) *lineReader {
	in := &lineReader{sc: bufio.NewScanner(r), quote: -1}
	// Room for the longest line and a CRLF: split refuses a longer one
	// before the scanner would have to give up on it.
	in.sc.Buffer(make([]byte, 4096), maxLineBytes+2)
	in.sc.Split(in.split)
	return in
}

// split is bufio.ScanLines (which also drops a CR before the LF) that
// refuses a line longer than maxLineBytes and a NUL byte, which no text
// capture holds: a binary file fails at once instead of after megabytes.
func (in *lineReader) split(data []byte, atEOF bool) (int, []byte, error) {
	advance, token, err := bufio.ScanLines(data, atEOF)
	line := token
	if advance == 0 {
		line = data // no whole line yet: what has come of it
	}
	fail := func(field, reason string) (int, []byte, error) {
		return 0, nil, &ParseError{Format: in.format, Line: in.scanned + 1, Field: field, Reason: reason}
	}
	if len(line) > maxLineBytes {
		return fail("line", fmt.Sprintf("longer than %d bytes, the most a capture line may have", maxLineBytes))
	}
	if i := bytes.IndexByte(line, 0); i >= 0 {
		return fail("text", fmt.Sprintf("a NUL byte at byte %d: binary data, not a text capture", i+1))
	}
	return advance, token, err
}

// next moves to the next line; false at the end of the input or at an
// error, which err then returns.
func (in *lineReader) next() bool {
	if len(in.back) > 0 {
		in.n, in.text = in.back[0].n, in.back[0].text
		in.back = in.back[1:]
		return true
	}
	if in.failed != nil || !in.sc.Scan() {
		return false
	}
	in.scanned++
	in.n = in.scanned
	in.text, in.failed = in.unquote(in.sc.Text())
	return in.failed == nil
}

// err is what ended the input early: a *ParseError for a line too long,
// binary or quoted unlike the others, or the reader's own error, as it is.
func (in *lineReader) err() error {
	if in.failed != nil {
		return in.failed
	}
	return in.sc.Err()
}

// unquote strips the mail quoting of line l of a capture that was quoted
// whole: every line after "> " (">> " or "> > " when quoted again, ">"
// with or without a space after each). The first line that is not blank
// decides: when it starts with '>', every line that is not blank must have
// as many levels, which are stripped; otherwise no line is touched. A line
// that is blank but for quote marks is a blank line.
func (in *lineReader) unquote(l string) (string, error) {
	levels, rest := quoteLevels(l, -1)
	if isBlank(rest) {
		return rest, nil
	}
	if in.quote < 0 {
		in.quote, in.quotedAt = levels, in.n
	}
	if in.quote == 0 {
		return l, nil
	}
	if levels < in.quote {
		return "", &ParseError{Format: in.format, Line: in.n, Field: "quoting",
			Reason: fmt.Sprintf("%s is quoted %d times, line %d %d times: a capture quoted in mail is read when every line is quoted alike; quote it whole, or remove the quoting (e.g. sed 's/^> *//')",
				excerpt(l), levels, in.quotedAt, in.quote)}
	}
	_, rest = quoteLevels(l, in.quote)
	return rest, nil
}

// quoteLevels counts the levels of mail quoting at the start of l, each a
// '>' and at most one blank after it, up to limit (none when negative), and
// returns the rest of the line.
func quoteLevels(l string, limit int) (int, string) {
	levels := 0
	for levels != limit && strings.HasPrefix(l, ">") {
		l = l[1:]
		if strings.HasPrefix(l, " ") {
			l = l[1:]
		}
		levels++
	}
	return levels, l
}

// A lineParser reads the lines of one format in order and hands each bus
// reset to its emit function as soon as the line that ends it has been read,
// so that it holds no more than one bus reset at a time.
type lineParser interface {
	line(n int, l string) error
	end() error // the capture ended
}

func newParser(f Format, emit func(*Generation) error) (lineParser, error) {
	switch f {
	case FormatRaw:
		return &rawParser{emit: emit, format: FormatRaw, read: func(qs []uint32, l string, n int) ([]uint32, error) {
			return appendDumpQuadlets(qs, l, FormatRaw, n)
		}}, nil
	case FormatFireSpy:
		return &rawParser{emit: emit, format: FormatFireSpy, read: appendFireSpyQuadlets}, nil
	case FormatDataTransit:
		return &dataTransitParser{pending: pending{emit: emit}}, nil
	case FormatOHCI:
		return &ohciParser{pending: pending{emit: emit}}, nil
	case FormatTrace:
		return &traceParser{emit: emit}, nil
	case FormatIEEE1394:
		return &ieeeParser{pending: pending{emit: emit}, local: -1}, nil
	case FormatFireBug:
		return newFireBugParser(emit), nil
	case FormatNosy:
		return &nosyParser{pending: pending{emit: emit}}, nil
	case FormatFwcontrol:
		return newFwcontrolParser(emit), nil
	case FormatTopologyMap:
		return &mapParser{emit: emit}, nil
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// Read reads a capture in format f from r, "" to detect the format (see
// Detect), and calls each with every bus reset in capture order as soon as
// the line that ends it has been read. A capture quoted in mail, every line
// after "> " (or ">> ", "> > ", ">"), is read without the quoting, which
// must then be the same on every line that is not blank. It holds one line and one bus reset
// at a time, whatever the length of the capture: a line may have at most 64
// KiB, a bus reset at most the 252 self-ID quadlets of the largest bus.
// It returns the format read. Bad input is a *ParseError naming the line
// and the field, as is a capture without a single self-ID quadlet; an error
// of r or of each ends the reading and is returned as it is.
func Read(r io.Reader, f Format, each func(Generation) error) (Format, error) {
	in := newLineReader(r)
	if f == "" {
		var err error
		if f, err = detect(in); err != nil {
			return "", err
		}
	}
	found := false
	p, err := newParser(f, func(g *Generation) error {
		found = true
		return each(*g)
	})
	if err != nil {
		return "", err
	}
	in.format = f
	for in.next() {
		if err := p.line(in.n, in.text); err != nil {
			return f, err
		}
	}
	if err := in.err(); err != nil {
		return f, err
	}
	if err := p.end(); err != nil {
		return f, err
	}
	if !found {
		return f, &ParseError{Format: f, Field: "input", Reason: noSelfIDs}
	}
	return f, nil
}

// Parse reads a capture held in memory, as Read does, and returns its bus
// resets in capture order, or a *ParseError.
func Parse(data []byte, f Format) ([]Generation, error) {
	var gens []Generation
	if _, err := Read(bytes.NewReader(data), f, func(g Generation) error {
		gens = append(gens, g)
		return nil
	}); err != nil {
		return nil, err
	}
	return gens, nil
}

// textFormats are the formats whose lines carry words of their own, in the
// order detection tries them, each with the test that picks its lines out
// of a log: its parser reads every line the test picks, and a picked line
// that does not parse is an error; other lines are other programs' and
// skipped.
var textFormats = []struct {
	format Format
	kind   func(l string) string // the kind of line, "" for another program's
}{
	{FormatOHCI, ohciKind},
	{FormatTrace, traceKind},
	{FormatIEEE1394, ieeeKind},
	{FormatFireBug, fireBugKind},
	{FormatNosy, markedBy(nosyWords)},
	{FormatFwcontrol, fwcontrolKind},
	{FormatFireSpy, fireSpyKind},
	{FormatDataTransit, markedBy(dtWords)},
}

// markedBy is the test of a format whose lines read are those with words
// in them: their kind is the words.
func markedBy(words string) func(l string) string {
	return func(l string) string {
		if strings.Contains(l, words) {
			return words
		}
		return ""
	}
}

// Detect names the format of a capture held in memory, as Read detects it.
func Detect(data []byte) (Format, error) {
	return detect(newLineReader(bytes.NewReader(data)))
}

// detect names the format of the capture in reads, from its first lines,
// and gives back to in the lines that the format's parser must read again.
// A line of a hex dump (raw or topology-map: hex quadlets, or nothing but
// blanks and a '#' comment) never names a text format, even when its
// comment says "self-ID". The first other line that a text format's test
// picks (textFormats) names that format. A hex dump is named by its first
// line of quadlets instead, when no line of other text comes before it; its
// first three quadlets tell a TOPOLOGY_MAP header from raw quadlets. A line
// of other text after the dump's first line is the dump's, and an error of
// its parser. Detection holds at most the dump's first three lines of
// quadlets and the blank lines between them.
func detect(in *lineReader) (Format, error) {
	var dump []textLine // the hex dump's lines so far
	var first []uint32  // its first quadlets, up to a map header's
	var notDump error   // why the first line of other text is no dump line
	sawQuadlets := false
	var scratch []uint32
	decide := func() Format {
		in.back = dump
		if len(first) == mapHeaderLen && looksLikeMapHeader(first) {
			return FormatTopologyMap
		}
		return FormatRaw
	}
	for in.next() {
		line := textLine{in.n, in.text}
		qs, err := appendDumpQuadlets(scratch[:0], line.text, FormatRaw, line.n)
		scratch = qs
		if err != nil && len(dump) == 0 {
			for _, tf := range textFormats {
				if tf.kind(line.text) != "" {
					in.back = []textLine{line}
					return tf.format, nil
				}
			}
		}
		sawQuadlets = sawQuadlets || err == nil && len(qs) > 0
		switch {
		case err == nil && len(qs) == 0:
			// Raw reads a blank line as the end of a bus reset, one of a
			// run is enough; comments mean nothing to either format.
			if blank := isBlank(line.text); blank && len(dump) > 0 && !isBlank(dump[len(dump)-1].text) {
				dump = append(dump, line)
			}
		case err == nil && notDump == nil:
			dump = append(dump, line)
			first = append(first, qs[:min(len(qs), mapHeaderLen-len(first))]...)
			if len(first) == mapHeaderLen {
				return decide(), nil
			}
		case err == nil:
			// Quadlets after other text: the capture is no hex dump, and
			// they are another program's.
		case len(dump) > 0:
			dump = append(dump, line) // for the dump's parser to refuse
			return decide(), nil
		case notDump == nil:
			notDump = err
		}
	}
	if err := in.err(); err != nil {
		return "", err
	}
	switch {
	case len(dump) > 0:
		return decide(), nil
	case notDump != nil && !sawQuadlets:
		// Ordinary text, such as the kernel log of a machine without
		// FireWire: say so, not why its first line is no hex dump.
		return "", &ParseError{Field: "format", Reason: noSelfIDs + ": no line of a capture format fwsim reads (" + formatNames() + ") and no hex quadlets"}
	case notDump != nil:
		return "", &ParseError{Field: "format", Reason: "not a capture fwsim can read (formats: " + formatNames() + "); " + notDump.Error()}
	}
	return "", &ParseError{Field: "format", Reason: noSelfIDs}
}

// noSelfIDs is the one message of an input without a self-ID: empty, only
// comments, or ordinary text such as a kernel log without FireWire.
const noSelfIDs = "no self-IDs in this input"

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// appendDumpQuadlets appends to qs the quadlets of line n of a hex dump in
// format f: hex quadlets separated by blanks or commas, after an optional
// "address:" column and before an optional '#' comment.
func appendDumpQuadlets(qs []uint32, l string, f Format, n int) ([]uint32, error) {
	l = withoutComment(stripAddress(l))
	for l != "" {
		tok := l
		if i := strings.IndexAny(l, ", \t"); i >= 0 {
			tok, l = l[:i], l[i+1:]
		} else {
			l = ""
		}
		if tok == "" {
			continue
		}
		q, err := parseQuadlet(tok)
		if err != nil {
			return qs, &ParseError{Format: f, Line: n, Field: "quadlet", Reason: err.Error()}
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// withoutComment is l up to a '#', which starts a comment in a dump.
func withoutComment(l string) string {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		return l[:i]
	}
	return l
}

// stripAddress drops a leading "address:" column of a hex dump.
func stripAddress(l string) string {
	t := strings.TrimLeft(l, " \t")
	first := t
	if i := strings.IndexAny(t, " \t"); i >= 0 {
		first = t[:i]
	}
	if strings.HasSuffix(first, ":") {
		return t[len(first):]
	}
	return l
}

// pending is the bus reset a parser is reading, for the formats that end
// one with a line of their own or with the capture.
type pending struct {
	emit func(*Generation) error
	cur  *Generation
}

// open is the bus reset being read, started at line when there is none.
func (p *pending) open(f Format, line int) *Generation {
	if p.cur == nil {
		p.cur = newGeneration(f, line)
	}
	return p.cur
}

// close hands on the bus reset being read, if any.
func (p *pending) close() error {
	g := p.cur
	if g == nil {
		return nil
	}
	p.cur = nil
	return p.emit(g)
}

func (p *pending) end() error { return p.close() }

// wordStart is the index, from from on, of the first occurrence of word
// that starts a word of l (no letter, digit or '_' before it), -1 if none.
func wordStart(l, word string, from int) int {
	for from <= len(l) {
		i := strings.Index(l[from:], word)
		if i < 0 {
			return -1
		}
		if i += from; i == 0 || !isWordByte(l[i-1]) {
			return i
		}
		from = i + 1
	}
	return -1
}

// isWordByte reports a byte of a word as regexp's \b sees it.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isHex reports a non-empty run of hex digits.
func isHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}
