package hwtest

import (
	"os"
	"path/filepath"
	"testing"
)

// seedFixtures adds every fixture to the corpus of a fuzz target.
func seedFixtures(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
}

// fuzzFormat checks that no input makes the parser of format panic or
// return a generation that Decode cannot take.
func fuzzFormat(f *testing.F, format Format) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		gens, err := Parse(data, format)
		if err != nil {
			return
		}
		for _, g := range gens {
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
func FuzzParseTopologyMap(f *testing.F) { fuzzFormat(f, FormatTopologyMap) }

// FuzzDetect: detection and parsing in the detected format never panic,
// and a detected format always parses or fails with a ParseError.
func FuzzDetect(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if err != nil {
			return
		}
		if _, err := Parse(data, format); err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("%s: %T %v", format, err, err)
			}
		}
	})
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
