package hwtest

import (
	"strings"
	"testing"

	"github.com/fwsim/fwsim/phy"
)

// benchCapture is a long capture: the lab bus over 1000 bus resets, in the
// firewire_ohci log format with its decoded text to check.
func benchCapture() []byte {
	gens := make([][]phy.SelfID, 1000)
	for i := range gens {
		gens[i] = labBus(63)
	}
	return []byte(renderOHCI(gens))
}

// BenchmarkParseOHCI measures reading a capture: detection, the regular
// expressions and the consistency check of every line.
func BenchmarkParseOHCI(b *testing.B) {
	data := benchCapture()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRaw is the same capture as bare quadlets.
func BenchmarkParseRaw(b *testing.B) {
	gens := make([][]phy.SelfID, 1000)
	for i := range gens {
		gens[i] = labBus(63)
	}
	data := []byte(renderRaw(gens, true))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, FormatRaw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode measures the checks on one generation.
func BenchmarkDecode(b *testing.B) {
	g := Generation{SelfIDs: labBus(63), Number: -1, LocalPhyID: -1}
	for b.Loop() {
		if bus := Decode(g); !bus.Consistent() {
			b.Fatal(bus.Problems)
		}
	}
}

// BenchmarkCross measures a cross-check: one emulation and the comparison.
func BenchmarkCross(b *testing.B) {
	bus := Decode(Generation{SelfIDs: labBus(63), Number: -1, LocalPhyID: -1})
	for b.Loop() {
		c, err := Cross(bus, CrossOptions{Seed: 1})
		if err != nil || !c.Match() {
			b.Fatal(err, strings.Join(c.Notes, "; "))
		}
	}
}
