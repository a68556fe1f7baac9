package hwtest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fwsim/fwsim/phy"
)

// Format names a capture format.
type Format string

// The capture formats Parse reads. docs/hardware.md shows how to record each.
const (
	// FormatRaw: hex quadlets separated by blanks or commas, "0x" optional,
	// with or without the inverse quadlets; a blank line starts a new bus
	// reset; '#' starts a comment.
	FormatRaw Format = "raw"
	// FormatOHCI: Linux firewire_ohci debug log lines (module parameter
	// debug=2): "N selfIDs, generation G, local node ID ffcX" then one
	// "selfID 0: …" or "selfID n: …" line per quadlet.
	FormatOHCI Format = "firewire-ohci"
	// FormatTrace: Linux firewire tracepoint text (tracefs trace or
	// trace-cmd report): bus_reset_handle events with every self-ID of a
	// generation, or self_id_sequence events with one node's packets each.
	FormatTrace Format = "tracepoint"
	// FormatIEEE1394: the old Linux ieee1394 stack's ohci1394 debug lines:
	// "SelfID packet 0x… received" per quadlet, "SelfID is inconsistent
	// [q/inverse]" for a bad inverse, "SelfID complete" at the end.
	FormatIEEE1394 Format = "ieee1394"
	// FormatFireBug: Apple FireBug text exports: one "Self-ID q [inverse]"
	// line per packet quadlet, "Bus Reset" lines between generations.
	FormatFireBug Format = "firebug"
	// FormatTopologyMap: a dump of the TOPOLOGY_MAP CSR (IEEE 1212, at
	// 0xFFFFF0001000): length and CRC, update counter, node and self-ID
	// counts, then the self-IDs. Lines may start with an "address:" column.
	FormatTopologyMap Format = "topology-map"
)

// Formats lists the formats in the order detection tries them.
func Formats() []Format {
	return []Format{FormatOHCI, FormatTrace, FormatIEEE1394, FormatFireBug, FormatTopologyMap, FormatRaw}
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

func (e *ParseError) Error() string {
	where := string(e.Format)
	if e.Line > 0 {
		where = strings.TrimSpace(fmt.Sprintf("%s line %d", where, e.Line))
	}
	if where != "" {
		where += ": "
	}
	return fmt.Sprintf("%s%s: %s", where, e.Field, e.Reason)
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
	// LocalPhyID is the phy_ID of the capturing node when the capture
	// names it, -1 otherwise.
	LocalPhyID int
	// SelfIDs are the self-ID quadlets in bus order, inverses removed.
	SelfIDs []phy.SelfID
	// Problems are what reading found wrong: bad inverses, counts that
	// disagree with a header, a bad CRC. The quadlets are kept, so the
	// checks of Decode still run.
	Problems []Problem
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
// inverse: a wrong inverse is a Problem, and the quadlet is kept.
func (g *Generation) addPacket(q uint32, inverse *uint32) {
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
// megabyte-long line gives a one-line message.
const maxExcerpt = 40

// excerpt quotes s for an error message, cut to its first maxExcerpt bytes
// (at a character boundary) with its length when it is longer.
func excerpt(s string) string {
	if len(s) <= maxExcerpt {
		return strconv.Quote(s)
	}
	cut := maxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// maxCaptureLines bounds what Parse reads, so that a runaway input fails
// with a message instead of exhausting memory.
const maxCaptureLines = 1 << 20

// lines splits a capture into lines, without their line ends.
func lines(data []byte, f Format) ([]string, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	ls := strings.Split(text, "\n")
	if len(ls) > maxCaptureLines {
		return nil, &ParseError{Format: f, Field: "input", Reason: fmt.Sprintf("more than %d lines", maxCaptureLines)}
	}
	return ls, nil
}

// Parse reads a capture in format f; an empty f detects it (Detect). It
// returns one Generation per bus reset, in capture order, or a *ParseError.
func Parse(data []byte, f Format) ([]Generation, error) {
	if f == "" {
		var err error
		if f, err = Detect(data); err != nil {
			return nil, err
		}
	}
	ls, err := lines(data, f)
	if err != nil {
		return nil, err
	}
	var gens []*Generation
	switch f {
	case FormatRaw:
		gens, err = parseRaw(ls)
	case FormatOHCI:
		gens, err = parseOHCI(ls)
	case FormatTrace:
		gens, err = parseTrace(ls)
	case FormatIEEE1394:
		gens, err = parseIEEE1394(ls)
	case FormatFireBug:
		gens, err = parseFireBug(ls)
	case FormatTopologyMap:
		gens, err = parseTopologyMap(ls)
	default:
		_, err = ParseFormat(string(f))
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(gens) == 0 {
		return nil, &ParseError{Format: f, Field: "input", Reason: "no self-ID quadlets found"}
	}
	out := make([]Generation, len(gens))
	for i, g := range gens {
		if err := g.checkSize(); err != nil {
			return nil, err
		}
		out[i] = *g
	}
	return out, nil
}

// maxSelfIDs bounds the self-ID quadlets of one bus reset: 63 nodes, each
// sending at most four packets (#0 and three extended ones: 27 ports). More
// is no bus, and decoding millions of "nodes" would take minutes and
// gigabytes.
const maxSelfIDs = phy.MaxNodes * 4

func (g *Generation) checkSize() error {
	if len(g.SelfIDs) > maxSelfIDs {
		return &ParseError{Format: g.Format, Line: g.Line, Field: "generation",
			Reason: fmt.Sprintf("%d self-ID quadlets in one bus reset, more than the %d that 63 nodes of 27 ports send", len(g.SelfIDs), maxSelfIDs)}
	}
	return nil
}

// Detect names the format of a capture from the first line that only one
// format would write. Text with nothing but hex quadlets is a TOPOLOGY_MAP
// dump when its first quadlets are a consistent map header, raw otherwise.
func Detect(data []byte) (Format, error) {
	ls, err := lines(data, "")
	if err != nil {
		return "", err
	}
	for _, l := range ls {
		switch {
		case ohciHeader.MatchString(l) || ohciSelfID.MatchString(l):
			return FormatOHCI, nil
		case strings.Contains(l, "bus_reset_handle:") || strings.Contains(l, "self_id_sequence:"):
			return FormatTrace, nil
		case strings.Contains(l, "SelfID packet 0x") || strings.Contains(l, "SelfID is inconsistent"):
			return FormatIEEE1394, nil
		case fireBugSelfID.MatchString(l):
			return FormatFireBug, nil
		}
	}
	qs, err := hexQuadlets(ls, FormatRaw, mapHeaderLen)
	if err != nil {
		return "", &ParseError{Field: "format", Reason: "not a capture fwsim can read (formats: " + formatNames() + "); " + err.Error()}
	}
	if len(qs) == 0 {
		return "", &ParseError{Field: "format", Reason: "no self-ID quadlets found"}
	}
	if len(qs) == mapHeaderLen && looksLikeMapHeader(qs) {
		return FormatTopologyMap, nil
	}
	return FormatRaw, nil
}

// numbered is a quadlet and the line it came from (0 when not from text).
type numbered struct {
	v    uint32
	line int
}

// hexQuadlets reads the quadlets of a hex dump in format f, an "address:"
// column and '#' comments dropped; limit > 0 stops after that many, which
// is all detection needs.
func hexQuadlets(ls []string, f Format, limit int) ([]numbered, error) {
	var qs []numbered
	for n, l := range ls {
		for _, tok := range hexTokens(stripAddress(l)) {
			q, err := parseQuadlet(tok)
			if err != nil {
				return nil, &ParseError{Format: f, Line: n + 1, Field: "quadlet", Reason: err.Error()}
			}
			if qs = append(qs, numbered{q, n + 1}); len(qs) == limit {
				return qs, nil
			}
		}
	}
	return qs, nil
}

// hexTokens splits a raw line into tokens, dropping a '#' comment.
func hexTokens(l string) []string {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	return strings.FieldsFunc(l, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
