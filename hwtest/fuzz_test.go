package hwtest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/fwsim/fwsim/phy"
)

// seedFixtures adds to the corpus of a fuzz target every fixture, every
// format's rendering of buses with one, two and four packets a node, and
// every malformed line of malformed_test.go: each feature of each format,
// read well and read wrong.
func seedFixtures(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	fourPackets, err := phy.SelfIDInfo{PhyID: 0, Speed: phy.S400, GapCount: 63, Ports: make([]phy.PortStatus, 27)}.Encode()
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range renderings([][]phy.SelfID{labBus(63), chainBus(3, 3), fourPackets}) {
		f.Add([]byte(r.text))
	}
	for _, m := range malformed {
		f.Add([]byte(m.input))
	}
	f.Add([]byte(renderFwcontrol([][]phy.SelfID{labBus(63), fourPackets})))
}

// checkReadError checks what every error of reading a capture must be: a
// *ParseError of one line of valid UTF-8, short whatever the input, naming
// a line the input has.
func checkReadError(t *testing.T, data []byte, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%T %v, want a *ParseError", err, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !utf8.ValidString(msg) || len(msg) > 512 {
		t.Fatalf("not one short line of UTF-8: %q", msg)
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; pe.Line < 0 || pe.Line > lines {
		t.Fatalf("line %d of an input of %d lines: %v", pe.Line, lines, err)
	}
}

// fuzzFormat checks that no input makes the parser of format panic, fail
// with anything but a ParseError, or return a generation longer than a bus
// or one that Decode cannot take.
func fuzzFormat(f *testing.F, format Format) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		gens, err := Parse(data, format)
		if err != nil {
			checkReadError(t, data, err)
			return
		}
		for _, g := range gens {
			if len(g.SelfIDs) > maxSelfIDs {
				t.Fatalf("a bus reset of %d self-IDs", len(g.SelfIDs))
			}
			b := Decode(g)
			if b.Consistent() && b.Tree == nil {
				t.Fatalf("a consistent bus without a tree: %v", g.SelfIDs)
			}
		}
	})
}

func FuzzParseRaw(f *testing.F)         { fuzzFormat(f, FormatRaw) }
func FuzzParseOHCI(f *testing.F)        { fuzzFormat(f, FormatOHCI) }
func FuzzParseTrace(f *testing.F)       { fuzzFormat(f, FormatTrace) }
func FuzzParseIEEE1394(f *testing.F)    { fuzzFormat(f, FormatIEEE1394) }
func FuzzParseFireBug(f *testing.F)     { fuzzFormat(f, FormatFireBug) }
func FuzzParseNosy(f *testing.F)        { fuzzFormat(f, FormatNosy) }
func FuzzParseFwcontrol(f *testing.F)   { fuzzFormat(f, FormatFwcontrol) }
func FuzzParseFireSpy(f *testing.F)     { fuzzFormat(f, FormatFireSpy) }
func FuzzParseDataTransit(f *testing.F) { fuzzFormat(f, FormatDataTransit) }
func FuzzParseTopologyMap(f *testing.F) { fuzzFormat(f, FormatTopologyMap) }

// FuzzDetect: detection and parsing in the detected format never panic,
// and a detected format always parses or fails with a ParseError.
func FuzzDetect(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if err != nil {
			checkReadError(t, data, err)
			return
		}
		if _, err := Parse(data, format); err != nil {
			checkReadError(t, data, err)
		}
	})
}

// FuzzReadChunking: reading a byte at a time gives what reading the whole
// gives, generations or error: nothing depends on where reads end.
func FuzzReadChunking(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []Generation
		_, err := Read(iotest.OneByteReader(bytes.NewReader(data)), "", func(g Generation) error {
			got = append(got, g)
			return nil
		})
		want, wantErr := Parse(data, "")
		switch {
		case (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error():
			t.Fatalf("a byte at a time: %v; whole: %v", err, wantErr)
		case err == nil && !equalGenerations(got, want):
			t.Fatalf("a byte at a time: %v; whole: %v", got, want)
		}
	})
}

func equalGenerations(a, b []Generation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Format != y.Format || x.Line != y.Line || x.Number != y.Number || x.LocalPhyID != y.LocalPhyID ||
			!slices.Equal(x.SelfIDs, y.SelfIDs) || !slices.Equal(x.Problems, y.Problems) {
			return false
		}
	}
	return true
}

func FuzzParseUSBStream(f *testing.F) {
	f.Add(usbStream(labBus(63), labBus(10)))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		gens, err := ParseUSBStream(data)
		if err == nil {
			for _, g := range gens {
				Decode(g)
			}
		}
	})
}

// FuzzParseEvent: whatever read(2) returns, parsing by offset stays in
// bounds.
func FuzzParseEvent(f *testing.F) {
	f.Add(labDevice().busResetEvent(3))
	f.Add(response(1, rcodeComplete, make([]byte, 16)))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parseEvent(data)
		if err == nil && e.typ == eventResponse && len(e.data) > len(data) {
			t.Fatalf("payload of %d bytes from an event of %d", len(e.data), len(data))
		}
	})
}
