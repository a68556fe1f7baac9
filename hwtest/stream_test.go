package hwtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// endless is a capture without end: text, again and again.
type endless struct {
	text []byte
	off  int
	read int // bytes handed out so far
}

func (r *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.text[r.off:])
		n += c
		r.off = (r.off + c) % len(r.text)
	}
	r.read += n
	return n, nil
}

var errEnough = errors.New("enough")

// Read hands on each bus reset as soon as its lines are read, never more
// than a read buffer ahead, and holds nothing of the bus resets it handed
// on: a capture of any length is read in the memory of one bus reset.
func TestReadStreamsEveryFormat(t *testing.T) {
	gens := 5000
	if testing.Short() {
		gens = 1000
	}
	// Two bus resets, so that the generation numbers of two in a row
	// differ, and a blank line, so that raw's do not run together.
	for _, r := range renderings([][]phy.SelfID{labBus(63), labBus(63)}) {
		t.Run(r.name, func(t *testing.T) {
			src := &endless{text: []byte(r.text + "\n")}
			var early, late uint64 // the heap in use after bus reset 100 and the last
			n := 0
			f, err := Read(src, "", func(g Generation) error {
				n++
				// The lines of bus reset n end within n/2 copies of the
				// text (one more for the formats that end one at the
				// next's first line), and the reader is at most a buffer
				// ahead.
				if ahead := src.read - (n/2+1)*len(src.text); ahead > maxLineBytes+2 || len(g.SelfIDs) != len(labBus(63)) {
					return fmt.Errorf("bus reset %d: %d self-IDs, read %d bytes ahead", n, len(g.SelfIDs), ahead)
				}
				switch n {
				case 100:
					early = heapInUse()
				case gens:
					late = heapInUse()
					return errEnough
				}
				return nil
			})
			require.ErrorIs(t, err, errEnough)
			assert.Equal(t, r.format, f)
			grown := int64(late) - int64(early)
			assert.Less(t, grown, int64(256<<10), "the heap grew by %d bytes over %d bus resets", grown, gens-100)
		})
	}
}

// heapInUse is the heap that live objects take, after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A line may have up to maxLineBytes bytes, its line end not counted; a
// longer one is an error naming it and the limit, and an endless one ends
// there.
func TestLineLengthIsBounded(t *testing.T) {
	const quadlets = "807f0080 817f80c2 #"
	longest := quadlets + strings.Repeat("x", maxLineBytes-len(quadlets))
	for _, input := range []string{longest, longest + "\n", longest + "\r\n", "# reset\n" + longest + "\n\n"} {
		gens, err := Parse([]byte(input), "")
		require.NoError(t, err)
		assert.Equal(t, []phy.SelfID{0x807f0080, 0x817f80c2}, gens[0].SelfIDs)
	}
	for _, tc := range []struct {
		input string
		line  int
	}{
		{longest + "x", 1},
		{longest + "x\n", 1},
		{"807f0080\n817f80c2\n" + longest + "xx\r\n", 3},
	} {
		_, err := Parse([]byte(tc.input), FormatRaw)
		assert.EqualError(t, err, fmt.Sprintf("raw line %d: line: longer than 65536 bytes, the most a capture line may have", tc.line))
	}
	src := &endless{text: []byte("a")}
	_, err := Read(src, "", func(Generation) error { return nil })
	assert.EqualError(t, err, "line 1: line: longer than 65536 bytes, the most a capture line may have")
	assert.LessOrEqual(t, src.read, 2*maxLineBytes)
}

// No bus reset has more than 252 self-ID quadlets (63 nodes of 27 ports):
// every format reads that many and refuses the next at its line, before
// holding it.
func TestBusResetSizeIsBounded(t *testing.T) {
	largest := slices.Repeat([]phy.SelfID{0x807f8ac2}, maxSelfIDs)
	tooLarge := append(slices.Clone(largest), 0x807f8ac2)
	refused := map[string]struct {
		line  int
		field string
	}{
		"raw":               {253, "generation"},
		"raw with inverses": {253, "generation"},
		"firewire-ohci":     {1, "self-ID count"},
		"bus_reset_handle":  {1, "generation"},
		"self_id_sequence":  {253, "generation"},
		"ieee1394":          {254, "generation"}, // after "Initiating bus reset"
		"firebug":           {254, "generation"}, // after "Bus Reset"
		"nosy-dump":         {254, "generation"}, // after "bus reset"
		"firespy":           {253, "generation"},
		"data-transit":      {507, "generation"}, // the inverse line of the 253rd
		"self_id_complete":  {1, "generation"},
		"topology-map":      {1, "length"},
	}
	for _, r := range renderings([][]phy.SelfID{largest}) {
		gens, err := Parse([]byte(r.text), r.format)
		require.NoError(t, err, r.name)
		assert.Len(t, gens[0].SelfIDs, maxSelfIDs, r.name)
	}
	for _, r := range renderings([][]phy.SelfID{tooLarge}) {
		_, err := Parse([]byte(r.text), r.format)
		var pe *ParseError
		require.ErrorAs(t, err, &pe, r.name)
		assert.Equal(t, refused[r.name].line, pe.Line, "%s: %v", r.name, err)
		assert.Equal(t, refused[r.name].field, pe.Field, "%s: %v", r.name, err)
		assert.Contains(t, err.Error(), "252", r.name)
	}
	// Without a header, the log's quadlet lines are refused one by one.
	ohci := renderOHCI([][]phy.SelfID{tooLarge})
	_, err := Parse([]byte(ohci[strings.IndexByte(ohci, '\n')+1:]), FormatOHCI)
	assert.EqualError(t, err, "firewire-ohci line 253: generation: more than 252 self-ID quadlets in one bus reset (504 with their inverses), the most that 63 nodes of 27 ports send")
}

// Hostile input ends in an error naming what is wrong, or in the one
// documented empty result, never in a panic or a read without end.
func TestHostileInput(t *testing.T) {
	for _, f := range append(Formats(), "") {
		for _, input := range []string{"", "\n\n", "# nothing\n"} {
			_, err := Parse([]byte(input), f)
			var pe *ParseError
			require.ErrorAs(t, err, &pe, "%q as %q", input, f)
			assert.Contains(t, err.Error(), "no self-IDs in this input", "%q as %q", input, f)
		}
	}
	for _, tc := range []struct {
		name  string
		input string
		want  string
	}{
		{"a NUL byte", "807f0080\n817f\x0080c2\n", `line 2: text: a NUL byte at byte 5: binary data, not a text capture`},
		{"a NUL byte in a kernel log", ohciLog(ohciHeader1, ohciLine0) + "[ 2.0] usb 1-1: \x00\n", `firewire-ohci line 3: text: a NUL byte at byte 17: binary data, not a text capture`},
		{"a NUL byte first", "\x00\x01\x02\x03", `line 1: text: a NUL byte at byte 1: binary data, not a text capture`},
		{"invalid UTF-8", "\xff\xfe\xfd\n", `format: no self-IDs in this input: no line of a capture format fwsim reads (firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw) and no hex quadlets`},
		{"a kernel log without FireWire", "[    0.000000] Linux version 6.12.0 (gcc 12.2.0)\n[    1.234567] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n[    2.345678] e1000e 0000:00:19.0 eth0: NIC Link is Up 1000 Mbps Full Duplex\n",
			`format: no self-IDs in this input: no line of a capture format fwsim reads (firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw) and no hex quadlets`},
		{"text only", "hello\n807f0080\n", `format: not a capture fwsim can read (formats: firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw); raw line 1: quadlet: "hello" is not a hex quadlet (want 1 to 8 hex digits, 0x optional)`},
	} {
		_, err := Parse([]byte(tc.input), "")
		assert.EqualError(t, err, tc.want, tc.name)
		assert.True(t, utf8.ValidString(err.Error()), tc.name)
	}
	// Zeros without end, as from a device file, fail at once.
	zeros := &endless{text: []byte{0}}
	_, err := Read(zeros, "", func(Generation) error { return nil })
	assert.EqualError(t, err, "line 1: text: a NUL byte at byte 1: binary data, not a text capture")
	assert.LessOrEqual(t, zeros.read, maxLineBytes)
}

// An error of the reader, at once or after some lines, ends the reading
// and is returned as it is; so is an error of the caller's function.
func TestReadPassesErrorsOn(t *testing.T) {
	errBroken := errors.New("broken")
	for _, r := range []io.Reader{
		iotest.ErrReader(errBroken),
		io.MultiReader(strings.NewReader(ohciLog(ohciHeader1, ohciLine0)), iotest.ErrReader(errBroken)),
		io.MultiReader(strings.NewReader("807f0080\n"), iotest.ErrReader(errBroken)),
	} {
		_, err := Read(r, "", func(Generation) error { return nil })
		assert.ErrorIs(t, err, errBroken)
		assert.NotErrorIs(t, err, ErrCapture)
	}
	_, err := Read(bytes.NewReader(readFixture(t, "raw-two-resets.txt")), "", func(Generation) error { return errEnough })
	assert.ErrorIs(t, err, errEnough)
}

// Reading a byte at a time gives what reading the whole gives: nothing
// depends on where reads end.
func TestReadDoesNotDependOnReadSizes(t *testing.T) {
	for _, r := range renderings([][]phy.SelfID{labBus(63), labBus(10)}) {
		var got []Generation
		f, err := Read(iotest.OneByteReader(strings.NewReader(r.text)), "", func(g Generation) error {
			got = append(got, g)
			return nil
		})
		require.NoError(t, err, r.name)
		assert.Equal(t, r.format, f, r.name)
		want, err := Parse([]byte(r.text), "")
		require.NoError(t, err, r.name)
		assert.Equal(t, want, got, r.name)
	}
}

// Detection holds a few lines of a hex dump, whatever comes between them:
// the first three quadlets decide, and one blank line of a run is enough
// for raw's bus reset boundary.
func TestDetectionHoldsFewLines(t *testing.T) {
	input := "807f0080\n" + strings.Repeat("\n# a comment\n\n", 100_000) + "817f8090\n817f80c2\n"
	in := newLineReader(strings.NewReader(input))
	f, err := detect(in)
	require.NoError(t, err)
	assert.Equal(t, FormatRaw, f)
	assert.Len(t, in.back, 4, "three lines of quadlets and a blank one")
	gens, err := Parse([]byte(input), "")
	require.NoError(t, err)
	require.Len(t, gens, 2)
	assert.Equal(t, 300_002, gens[1].Line)
}

// Text before a hex dump's first quadlet line makes the capture text: its
// quadlet lines are another program's, and the first line of a text
// format names the format.
func TestDetectionAfterOtherText(t *testing.T) {
	gens, err := Parse([]byte("hello\n807f0080\n"+ohciLog(ohciHeader1, ohciLine0, ohciLine1)), "")
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, FormatOHCI, gens[0].Format)
	assert.Equal(t, 3, gens[0].Line)
}
