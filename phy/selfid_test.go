package phy

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// selfIDVectors are the self-ID test vectors of docs/protocol.md §9.1 (from the Linux KUnit
// tests), with the one-line decode of each packet.
var selfIDVectors = []struct {
	name    string
	packets []SelfID
	info    SelfIDInfo
	strings []string
}{
	{
		name:    "0x80458c80",
		packets: []SelfID{0x80458c80},
		info: SelfIDInfo{PhyID: 0, LinkActive: true, GapCount: 5, Speed: S400, Contender: true, PowerClass: 4,
			Ports: []PortStatus{PortParent, PortAbsent, PortAbsent}},
		strings: []string{"phy 0 #0 L gap 5 S400 c pwr 4 p0:parent p1:absent p2:absent"},
	},
	{
		name:    "0x817fcc5e",
		packets: []SelfID{0x817fcc5e},
		info: SelfIDInfo{PhyID: 1, LinkActive: true, GapCount: 63, Speed: S800, Contender: true, PowerClass: 4,
			InitiatedReset: true, Ports: []PortStatus{PortNotConnected, PortNotConnected, PortChild}},
		strings: []string{"phy 1 #0 L gap 63 S800 c pwr 4 p0:ncon p1:ncon p2:child i"},
	},
	{
		name:    "0x803f8459 0x80815000",
		packets: []SelfID{0x803f8459, 0x80815000},
		info: SelfIDInfo{PhyID: 0, GapCount: 63, Speed: S400, PowerClass: 4, Ports: []PortStatus{
			PortNotConnected, PortNotConnected, PortParent, PortNotConnected, PortNotConnected, PortNotConnected,
			PortAbsent, PortAbsent, PortAbsent, PortAbsent, PortAbsent}},
		strings: []string{
			"phy 0 #0 gap 63 S400 pwr 4 p0:ncon p1:ncon p2:parent m",
			"phy 0 #1 p3:ncon p4:ncon p5:ncon p6:absent p7:absent p8:absent p9:absent p10:absent",
		},
	},
}

func TestSelfIDVectorsDecode(t *testing.T) {
	for _, v := range selfIDVectors {
		t.Run(v.name, func(t *testing.T) {
			got, err := DecodeSelfIDInfo(v.packets)
			require.NoError(t, err)
			assert.Equal(t, v.info, got, "docs/protocol.md §9.1")
		})
	}
}

func TestSelfIDVectorsEncode(t *testing.T) {
	for _, v := range selfIDVectors {
		t.Run(v.name, func(t *testing.T) {
			got, err := v.info.Encode()
			require.NoError(t, err)
			assert.Equal(t, v.packets, got, "docs/protocol.md §9.1")
		})
	}
}

// TestSelfIDAppendEncode checks that appending keeps what dst held and
// overwrites stale quadlets in reused capacity, whatever they held.
func TestSelfIDAppendEncode(t *testing.T) {
	buf := []SelfID{}
	for _, v := range selfIDVectors {
		prefix := []SelfID{0xdeadbeef}
		got, err := v.info.AppendEncode(prefix)
		require.NoError(t, err)
		assert.Equal(t, append([]SelfID{0xdeadbeef}, v.packets...), got, "docs/protocol.md §9.1")

		buf = slices.Grow(buf[:0], 4)[:4]
		for k := range buf {
			buf[k] = 0xffffffff
		}
		got, err = v.info.AppendEncode(buf[:0])
		require.NoError(t, err)
		assert.Equal(t, v.packets, got, "docs/protocol.md §9.1, stale buffer")
	}
	bad := SelfIDInfo{GapCount: 64, Ports: []PortStatus{PortAbsent}}
	got, err := bad.AppendEncode([]SelfID{1})
	require.ErrorIs(t, err, ErrInvalidField)
	assert.Equal(t, []SelfID{1}, got, "dst comes back unchanged with the error")
}

func TestSelfIDVectorsString(t *testing.T) {
	for _, v := range selfIDVectors {
		for i, s := range v.packets {
			assert.Equal(t, v.strings[i], s.String(), "%s packet %d", v.name, i)
		}
	}
}

// TestSelfIDAccessors pins each field's bits (docs/protocol.md §9.1) on quadlets with only
// that field set.
func TestSelfIDAccessors(t *testing.T) {
	assert.True(t, SelfID(0x80000000).IsSelfID())
	assert.False(t, SelfID(0x02800000).IsSelfID(), "PHY config")
	assert.False(t, SelfID(0xc0000000).IsSelfID(), "VersaPHY")
	assert.Equal(t, 63, SelfID(0xbf000000).PhyID())
	assert.True(t, SelfID(0x80800000).IsExtended())
	assert.Equal(t, 5, SelfID(0x80d00000).ExtendedSeq())
	assert.True(t, SelfID(0x80400000).LinkActive())
	assert.Equal(t, 42, SelfID(0x802a0000).GapCount())
	assert.Equal(t, S200, SelfID(0x80004000).Speed())
	assert.Equal(t, 3, SelfID(0x80003000).Delay())
	assert.True(t, SelfID(0x80000800).Contender())
	assert.Equal(t, 7, SelfID(0x80000700).PowerClass())
	assert.True(t, SelfID(0x80000002).InitiatedReset())
	assert.True(t, SelfID(0x80000001).More())
}

func TestSelfIDPort(t *testing.T) {
	p0 := SelfID(0x800000e4) // p0 child, p1 parent, p2 ncon
	assert.Equal(t, []PortStatus{PortChild, PortParent, PortNotConnected},
		[]PortStatus{p0.Port(0), p0.Port(1), p0.Port(2)})
	assert.Equal(t, PortAbsent, p0.Port(-1))
	assert.Equal(t, PortAbsent, p0.Port(3), "packet #0 carries ports 0–2 only")

	ext := SelfID(0x80a30004) // n=2: p19 child at shift 16, p26 ncon at shift 2
	assert.Equal(t, PortChild, ext.Port(19))
	assert.Equal(t, PortNotConnected, ext.Port(26))
	assert.Equal(t, PortAbsent, ext.Port(11), "port 11 is in packet #2, not #3")
}

func TestSelfIDStringEdgeCases(t *testing.T) {
	assert.Equal(t, "not a self-ID (0x02800000)", SelfID(0x02800000).String())
	assert.Equal(t, "phy 2 #0 gap 0 S100 del 3 pwr 0 p0:absent p1:absent p2:absent", SelfID(0x82003000).String())
	assert.Equal(t, "phy 0 #3 p19:child p20:absent p21:absent p22:absent p23:absent p24:absent p25:absent p26:ncon m",
		SelfID(0x80a30005).String())
}

// randomInfo is a random valid SelfIDInfo with n ports.
func randomInfo(r *rand.Rand, n int) SelfIDInfo {
	f := SelfIDInfo{
		PhyID:          r.IntN(64),
		LinkActive:     r.IntN(2) == 1,
		GapCount:       r.IntN(64),
		Speed:          Speed(r.IntN(4)),
		Delay:          r.IntN(4),
		Contender:      r.IntN(2) == 1,
		PowerClass:     r.IntN(8),
		InitiatedReset: r.IntN(2) == 1,
		Ports:          make([]PortStatus, n),
	}
	for p := range f.Ports {
		f.Ports[p] = PortStatus(r.IntN(4))
	}
	return f
}

// TestSelfIDInfoRoundTrip is the encode/decode property over random values,
// for every port count 1–27 (docs/protocol.md §9.1 packet counts).
func TestSelfIDInfoRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1394, 1995))
	for n := 1; n <= 27; n++ {
		wantPackets := 1 + (n+4)/8
		for range 50 {
			f := randomInfo(r, n)
			packets, err := f.Encode()
			require.NoError(t, err)
			require.Len(t, packets, wantPackets, "%d ports", n)
			for k, s := range packets {
				assert.Equal(t, k < len(packets)-1, s.More(), "m on packet %d of %d", k, len(packets))
				assert.Equal(t, k > 0, s.IsExtended())
			}

			got, err := DecodeSelfIDInfo(packets)
			require.NoError(t, err)
			want := f
			want.Ports = append(slices.Clone(f.Ports), make([]PortStatus, 8*wantPackets-5-n)...)
			assert.Equal(t, want, got)

			again, err := got.Encode()
			require.NoError(t, err)
			assert.Equal(t, packets, again)
		}
	}
}

func TestSelfIDInfoEncodeErrors(t *testing.T) {
	valid := func() SelfIDInfo { return SelfIDInfo{Ports: []PortStatus{PortParent}} }
	for _, tc := range []struct {
		name string
		edit func(*SelfIDInfo)
		msg  string
	}{
		{"phy_ID", func(f *SelfIDInfo) { f.PhyID = 64 }, "phy_ID 64, want 0–63"},
		{"negative phy_ID", func(f *SelfIDInfo) { f.PhyID = -1 }, "phy_ID -1, want 0–63"},
		{"gap count", func(f *SelfIDInfo) { f.GapCount = 64 }, "gap count 64, want 0–63"},
		{"speed", func(f *SelfIDInfo) { f.Speed = 4 }, "speed 4, want 0–3"},
		{"delay", func(f *SelfIDInfo) { f.Delay = 4 }, "delay 4, want 0–3"},
		{"power class", func(f *SelfIDInfo) { f.PowerClass = 8 }, "power class 8, want 0–7"},
		{"no ports", func(f *SelfIDInfo) { f.Ports = nil }, "0 ports, want 1–27"},
		{"28 ports", func(f *SelfIDInfo) { f.Ports = make([]PortStatus, 28) }, "28 ports, want 1–27"},
		{"port status", func(f *SelfIDInfo) { f.Ports = []PortStatus{PortChild, 4} }, "port 1 status 4, want 0–3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(&f)
			packets, err := f.Encode()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidField)
			assert.EqualError(t, err, "invalid field: "+tc.msg)
			assert.Nil(t, packets)
		})
	}
}

// malformedCases are packet sequences docs/protocol.md §9.3 item 1 rejects, each with the
// index of the quadlet to blame and the detail given.
var malformedCases = []struct {
	name    string
	packets []SelfID
	index   int
	detail  string
}{
	{"not a self-ID", []SelfID{0x02800000}, 0, "not a self-ID packet"},
	{"extended first", []SelfID{0x80815000}, 0, "extended packet with no packet #0 before it"},
	{"m set, nothing follows", []SelfID{0x803f8459}, 0, "m set, but no packet follows"},
	{"packet #0 after m", []SelfID{0x803f8459, 0x817fcc5e}, 1, "packet #0 where extended packet n=0 should be"},
	{"non-self-ID after m", []SelfID{0x803f8459, 0x00815000}, 1, "not a self-ID packet"},
	{"n out of order", []SelfID{0x803f8459, 0x80915000}, 1, "extended packet n=1, want n=0"},
	{"phy_ID differs", []SelfID{0x803f8459, 0x81815000}, 1, "phy_ID 1 among the packets of phy 0"},
	{"m on packet #3", []SelfID{0x80000001, 0x80800001, 0x80900001, 0x80a00001}, 3,
		"m set on packet #3, but a node has at most 4 packets"},
}

func TestDecodeSelfIDInfoErrors(t *testing.T) {
	cases := append(slices.Clone(malformedCases), []struct {
		name    string
		packets []SelfID
		index   int
		detail  string
	}{
		// Only a caller handing over packets can get these wrong: SplitSelfIDs
		// ends a group at the first m=0 and after four packets.
		{"m clear, more follow", []SelfID{0x80458c80, 0x80815000}, 0, "m clear, but more packets follow"},
		{"five packets", []SelfID{0x80000001, 0x80800001, 0x80900001, 0x80a00001, 0x80b00000}, 4, "more than 4 packets"},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeSelfIDInfo(tc.packets)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInconsistentExtended)
			assert.ErrorIs(t, err, ErrMalformedSelfID)
			var se *SelfIDError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.index, se.Index)
			assert.Equal(t, tc.packets[tc.index], se.Quadlet)
			assert.Equal(t, tc.detail, se.Detail)
		})
	}

	_, err := DecodeSelfIDInfo(nil)
	assert.ErrorIs(t, err, ErrInconsistentExtended)
}

func TestSplitSelfIDs(t *testing.T) {
	stream := []SelfID{0x803f8459, 0x80815000, 0x817fcc5e}
	groups, err := SplitSelfIDs(stream)
	require.NoError(t, err)
	assert.Equal(t, [][]SelfID{{0x803f8459, 0x80815000}, {0x817fcc5e}}, groups)

	groups, err = SplitSelfIDs(nil)
	require.NoError(t, err)
	assert.Empty(t, groups)
}

// TestSplitSelfIDsErrors checks that a malformed sequence anywhere in a
// stream is named by its index and value (docs/protocol.md §9.3 item 1).
func TestSplitSelfIDsErrors(t *testing.T) {
	lead := []SelfID{0x80458c80, 0x817fcc5e} // two well-formed nodes first
	for _, tc := range malformedCases {
		t.Run(tc.name, func(t *testing.T) {
			stream := append(slices.Clone(lead), tc.packets...)
			groups, err := SplitSelfIDs(stream)
			require.Error(t, err)
			assert.Nil(t, groups)
			assert.ErrorIs(t, err, ErrInconsistentExtended)
			assert.ErrorIs(t, err, ErrMalformedSelfID)
			var se *SelfIDError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, len(lead)+tc.index, se.Index)
			assert.Equal(t, stream[se.Index], se.Quadlet)
			assert.Equal(t, tc.detail, se.Detail)
		})
	}
}

func TestSelfIDErrorMessage(t *testing.T) {
	_, err := SplitSelfIDs([]SelfID{0x80458c80, 0x803f8459})
	assert.EqualError(t, err, "node 0, self-ID quadlet 1 (0x803f8459): inconsistent extended self IDs: m set, but no packet follows")
	_, err = SplitSelfIDs([]SelfID{0x80458c80, 0x02800000})
	assert.EqualError(t, err, "self-ID quadlet 1 (0x02800000): inconsistent extended self IDs: not a self-ID packet")
}

// canonical clears the reserved bits of an extended packet (19–18 and 1),
// which decoding ignores.
func canonical(s SelfID) SelfID {
	if s.IsExtended() {
		return s &^ 0x000c0002
	}
	return s
}

func FuzzDecodeSelfIDInfo(f *testing.F) {
	for _, v := range selfIDVectors {
		q := append(slices.Clone(v.packets), 0, 0, 0, 0)
		f.Add(uint32(q[0]), uint32(q[1]), uint32(q[2]), uint32(q[3]), uint32(q[4]), uint8(len(v.packets)))
	}
	f.Fuzz(func(t *testing.T, a, b, c, d, e uint32, n uint8) {
		packets := []SelfID{SelfID(a), SelfID(b), SelfID(c), SelfID(d), SelfID(e)}[:n%6]
		info, err := DecodeSelfIDInfo(packets)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformedSelfID)
			return
		}
		again, err := info.Encode()
		require.NoError(t, err)
		want := make([]SelfID, len(packets))
		for i, s := range packets {
			want[i] = canonical(s)
		}
		require.Equal(t, want, again)
	})
}

func FuzzSplitSelfIDs(f *testing.F) {
	f.Add([]byte{})
	for _, v := range selfIDVectors {
		var b []byte
		for _, s := range v.packets {
			b = binary.BigEndian.AppendUint32(b, uint32(s))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q := make([]SelfID, len(data)/4)
		for i := range q {
			q[i] = SelfID(binary.BigEndian.Uint32(data[4*i:]))
		}
		groups, err := SplitSelfIDs(q)
		if err != nil {
			require.ErrorIs(t, err, ErrInconsistentExtended)
			var se *SelfIDError
			require.ErrorAs(t, err, &se)
			require.Equal(t, q[se.Index], se.Quadlet)
			return
		}
		require.True(t, slices.Equal(q, slices.Concat(groups...)), "groups %v do not make up the stream", groups)
		for _, g := range groups {
			info, err := DecodeSelfIDInfo(g)
			require.NoError(t, err)
			again, err := info.Encode()
			require.NoError(t, err)
			for i, s := range g {
				require.Equal(t, canonical(s), again[i])
			}
		}
	})
}

func BenchmarkSelfIDEncode(b *testing.B) {
	for _, n := range []int{3, 27} {
		f := randomInfo(rand.New(rand.NewPCG(1, 2)), n)
		b.Run(fmt.Sprintf("%dports", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := f.Encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// What a PHY does on every reset: encode into the buffer it keeps.
		b.Run(fmt.Sprintf("%dports/append", n), func(b *testing.B) {
			var buf []SelfID
			for b.Loop() {
				var err error
				if buf, err = f.AppendEncode(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSplitSelfIDs splits a full bus: 63 nodes of 1–27 ports.
func BenchmarkSplitSelfIDs(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var stream []SelfID
	for id := range 63 {
		f := randomInfo(r, 1+r.IntN(27))
		f.PhyID = id
		packets, err := f.Encode()
		require.NoError(b, err)
		stream = append(stream, packets...)
	}
	for b.Loop() {
		if _, err := SplitSelfIDs(stream); err != nil {
			b.Fatal(err)
		}
	}
}
