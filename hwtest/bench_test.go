package hwtest

import (
	"io"
	"slices"
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

// chainBus is a chain of n nodes of the given number of ports (from 3;
// those after the first two absent): phy 0 a leaf, each next one its parent.
func chainBus(n, ports int) []phy.SelfID {
	P, N, C, A := phy.PortParent, phy.PortNotConnected, phy.PortChild, phy.PortAbsent
	var out []phy.SelfID
	for id := range n {
		ports := append([]phy.PortStatus{C, P}, slices.Repeat([]phy.PortStatus{A}, ports-2)...)
		switch id {
		case 0:
			ports[0], ports[1] = P, N
		case n - 1:
			ports[1] = N
		}
		packets, err := phy.SelfIDInfo{PhyID: id, LinkActive: true, GapCount: 63, Speed: phy.S400, Contender: id == n-1, Ports: ports}.Encode()
		if err != nil {
			panic(err)
		}
		out = append(out, packets...)
	}
	return out
}

// BenchmarkDecodeCapture64MiB reads 64 MiB of capture from a generator and
// decodes each bus reset, as `fwsim decode` does with a file, without
// keeping the buses: the lab bus in the firewire_ohci log, and a chain of
// 63 nodes in bus_reset_handle events, in raw quadlets with inverses, in
// nosy-dump -x lines, in fwcontrol -t tables, in a FireSpy quadlets file
// and in a Data Transit trace.
// The bytes are the capture's, so MB/s is its reading speed.
func BenchmarkDecodeCapture64MiB(b *testing.B) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"firewire-ohci", renderOHCI([][]phy.SelfID{labBus(63), labBus(10)})},
		{"tracepoint-63-nodes", renderTrace([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)}, false)},
		{"raw-63-nodes", renderRaw([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)}, true) + "\n"},
		{"nosy-dump-63-nodes", renderNosy([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)})},
		{"fwcontrol-63-nodes", renderFwcontrol([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)})},
		{"firespy-63-nodes", renderFireSpy([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)}) + "\r\n"},
		{"data-transit-63-nodes", renderDataTransit([][]phy.SelfID{chainBus(63, 3), chainBus(63, 3)})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			size := (64 << 20) / len(tc.text) * len(tc.text) // whole bus resets
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				_, err := Read(io.LimitReader(&endless{text: []byte(tc.text)}, int64(size)), "", func(g Generation) error {
					Decode(g)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
