package hwtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// labBus is the bus most fixtures capture, written out by hand from its
// description in hwtest/testdata/raw-two-resets.txt: pc (phy 5, 3 ports,
// c, pwr 1, initiated the reset) with the hub (phy 2, 6 ports, link off:
// two packets) on p0 and disk1 (phy 4) on p1; camera (phy 0, S100) and
// audio (phy 1) on the hub's p1 and p2; disk2 (phy 3) on disk1's p1.
func labBus(gap int) []phy.SelfID {
	P, N, C, A := phy.PortParent, phy.PortNotConnected, phy.PortChild, phy.PortAbsent
	nodes := []phy.SelfIDInfo{
		{PhyID: 0, LinkActive: true, Speed: phy.S100, Ports: []phy.PortStatus{P, A, A}},
		{PhyID: 1, LinkActive: true, Speed: phy.S400, Ports: []phy.PortStatus{P, N, A}},
		{PhyID: 2, Speed: phy.S400, Ports: []phy.PortStatus{P, C, C, N, N, N}},
		{PhyID: 3, LinkActive: true, Speed: phy.S400, PowerClass: 4, Ports: []phy.PortStatus{P, N, A}},
		{PhyID: 4, LinkActive: true, Speed: phy.S400, PowerClass: 4, Ports: []phy.PortStatus{P, C, A}},
		{PhyID: 5, LinkActive: true, Speed: phy.S400, Contender: true, PowerClass: 1, InitiatedReset: true, Ports: []phy.PortStatus{C, C, N}},
	}
	var out []phy.SelfID
	for _, n := range nodes {
		n.GapCount = gap
		packets, err := n.Encode()
		if err != nil {
			panic(err)
		}
		out = append(out, packets...)
	}
	return out
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// Every format's fixture holds the lab bus twice: at power-up (gap 63) and
// after the bus manager set gap count 10 for its 4 hops.
func TestFixturesOfTheLabBus(t *testing.T) {
	for _, tc := range []struct {
		file     string
		format   Format
		numbers  []int // the stated bus generations
		local    int
		problems [2][]string
	}{
		{"raw-two-resets.txt", FormatRaw, []int{-1, -1}, -1, [2][]string{}},
		{"ohci-two-resets.log", FormatOHCI, []int{1, 2}, 5, [2][]string{}},
		{"trace-bus-reset-handle.txt", FormatTrace, []int{1, 2}, 5, [2][]string{}},
		{"trace-self-id-sequence.txt", FormatTrace, []int{1, 2}, -1, [2][]string{}},
		{"trace-self-id-complete.txt", FormatTrace, []int{1, 2}, 5, [2][]string{nil, {"inverse"}}},
		{"nosy-dump.txt", FormatNosy, []int{-1, -1}, -1, [2][]string{}},
		{"firespy.qdl", FormatFireSpy, []int{-1, -1}, -1, [2][]string{nil, {"inverse"}}},
		{"data-transit.txt", FormatDataTransit, []int{-1, -1}, -1, [2][]string{nil, {"inverse"}}},
		{"ieee1394.log", FormatIEEE1394, []int{-1, -1}, 5, [2][]string{nil, {"inverse"}}},
		{"pcilynx.log", FormatIEEE1394, []int{-1, -1}, 5, [2][]string{nil, {"inverse"}}},
		{"ieee1394-2.4.log", FormatIEEE1394, []int{-1, -1}, 5, [2][]string{nil, {"inverse"}}},
		{"firebug.txt", FormatFireBug, []int{-1, -1}, -1, [2][]string{}},
		{"topology-map.txt", FormatTopologyMap, []int{-1, -1}, -1, [2][]string{nil, {"CRC"}}},
		// Real text is messier than tools print it: the IRQ lines of a log
		// with debug IRQs on, captures quoted in mail, a nosy-dump whose
		// spacing a mail client collapsed.
		{"ohci-irq.log", FormatOHCI, []int{1, 2}, 5, [2][]string{}},
		{"mail-raw-two-resets.txt", FormatRaw, []int{-1, -1}, -1, [2][]string{}},
		{"mail-nosy-dump.txt", FormatNosy, []int{-1, -1}, -1, [2][]string{}},
		{"mail-topology-map.txt", FormatTopologyMap, []int{-1, -1}, -1, [2][]string{nil, {"CRC"}}},
		{"mail-ohci-two-resets.log", FormatOHCI, []int{1, 2}, 5, [2][]string{}},
		{"nosy-dump-collapsed.txt", FormatNosy, []int{-1, -1}, -1, [2][]string{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := readFixture(t, tc.file)
			f, err := Detect(data)
			require.NoError(t, err)
			assert.Equal(t, tc.format, f)
			gens, err := Parse(data, "")
			require.NoError(t, err)
			require.Len(t, gens, 2)
			for i, gap := range []int{63, 10} {
				g := gens[i]
				assert.Equal(t, labBus(gap), g.SelfIDs, "generation %d", i)
				assert.Equal(t, tc.numbers[i], g.Number, "generation %d", i)
				assert.Equal(t, tc.local, g.LocalPhyID, "generation %d", i)
				b := Decode(g)
				var checks []string
				for _, p := range b.Problems {
					checks = append(checks, p.Check)
				}
				assert.Equal(t, tc.problems[i], checks, "generation %d", i)
				require.NotNil(t, b.Tree)
				assert.Equal(t, 5, b.Root)
				assert.Equal(t, 4, b.Hops, "camera-hub-pc-disk1-disk2")
				assert.Equal(t, 5, b.IRM, "the only contender")
				assert.Equal(t, 10, b.GapForHops, "docs/protocol.md §9.2: 4 hops → 10")
				assert.Equal(t, gap, b.GapCount)
				assert.True(t, b.GapConsistent)
			}
		})
	}
}

func TestFixtureWrongInverse(t *testing.T) {
	gens, err := Parse(readFixture(t, "raw-inverses.txt"), "")
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, labBus(63), gens[0].SelfIDs, "the quadlet with the bad inverse is kept")
	require.Len(t, gens[0].Problems, 1)
	p := gens[0].Problems[0]
	assert.Equal(t, Problem{Check: "inverse", Node: 3, Index: 4, Quadlet: 0x837f8490,
		Message: "0x837f8490 followed by 0x7c807b7f, want 0x7c807b6f"}, p)
}

// A cycle start where a self-ID was due ends the self-IDs, as Linux's
// ohci.c reads them ("ignoring spurious self IDs"): the two of the report
// are kept, and they build the bus the report printed.
func TestFixtureCycleStart(t *testing.T) {
	gens, err := Parse(readFixture(t, "raw-cycle-start.txt"), "")
	require.NoError(t, err)
	require.Len(t, gens, 1)
	g := gens[0]
	assert.True(t, g.CycleStart)
	assert.Equal(t, []phy.SelfID{0x807fcc58, 0x816c08c2}, g.SelfIDs)
	assert.Empty(t, g.Problems, "the cycle start is no bad inverse")
	b := Decode(g)
	require.NotNil(t, b.Tree)
	assert.Equal(t, 1, b.Root, "the camcorder, as the report says")
	assert.False(t, b.GapConsistent, "gap counts 63 and 44")

	// With its own inverse the quadlet is a quadlet, not the ohci case;
	// and only a stream with inverses can show it.
	gens, err = Parse([]byte("807fcc58 7f8033a7\n816c08c2 7e93f73d\nffff008f 0000ff70\n"), FormatRaw)
	require.NoError(t, err)
	assert.False(t, gens[0].CycleStart)
	assert.Len(t, gens[0].SelfIDs, 3)
	gens, err = Parse([]byte("807fcc58\nffff008f\n"), FormatRaw)
	require.NoError(t, err)
	assert.False(t, gens[0].CycleStart)
	assert.Len(t, gens[0].SelfIDs, 2)
}

// One generation per Linux check (docs/protocol.md §9.3), from the vectors of docs/protocol.md §9.1.
func TestFixtureLinuxChecks(t *testing.T) {
	gens, err := Parse(readFixture(t, "raw-linux-checks.txt"), FormatRaw)
	require.NoError(t, err)
	want := []struct {
		check string
		node  int
		index int
	}{
		{},
		{"inconsistent extended self IDs", 3, 3},
		{"PHY ID mismatch", 3, 3},
		{"topology stack underflow", 3, 3},
		{"parent port inconsistency", 3, 3},
		{"gap count", 1, 1},
		{"subtrees left without a parent", 2, 2},
	}
	require.Len(t, gens, len(want))
	for i, w := range want {
		b := Decode(gens[i])
		if w.check == "" {
			assert.Empty(t, b.Problems, "generation %d", i)
			continue
		}
		require.Len(t, b.Problems, 1, "generation %d", i)
		p := b.Problems[0]
		assert.Equal(t, w.check, p.Check, "generation %d", i)
		assert.Equal(t, w.node, p.Node, "generation %d", i)
		assert.Equal(t, w.index, p.Index, "generation %d", i)
		assert.Equal(t, uint32(gens[i].SelfIDs[w.index]), p.Quadlet, "generation %d: the offending quadlet", i)
	}
}

func TestFixtureTooManyHops(t *testing.T) {
	gens, err := Parse(readFixture(t, "raw-chain18.txt"), "")
	require.NoError(t, err)
	b := Decode(gens[0])
	assert.Equal(t, 17, b.Hops)
	require.Len(t, b.Problems, 1)
	assert.Equal(t, "hops", b.Problems[0].Check)
	assert.Equal(t, 63, b.GapForHops, "no table entry beyond 15 hops")
}

// The tree vectors of docs/protocol.md §9.1, decoded: the root, and whom each node hangs on.
func TestDecodeSpecTreeVectors(t *testing.T) {
	for _, tc := range []struct {
		quadlets string
		root     int
		parents  []int // by phy_ID, -1 for the root
		hops     int
	}{
		{"80000080 8100005e", 1, []int{1, -1}, 1},
		{"80000060 81000058 820000dc", 2, []int{2, 2, -1}, 2},
		{"80000080 8100006c 82000070", 2, []int{1, 2, -1}, 2},
		{"80000094 81000080 820000bc 830000d0", 3, []int{2, 2, 3, -1}, 2},
		{"80000090 81000058 82000060 830000fc", 3, []int{3, 3, 3, -1}, 2},
	} {
		gens, err := Parse([]byte(tc.quadlets), FormatRaw)
		require.NoError(t, err)
		b := Decode(gens[0])
		require.Empty(t, b.Problems, tc.quadlets)
		assert.Equal(t, tc.root, b.Root, tc.quadlets)
		assert.Equal(t, tc.hops, b.Hops, tc.quadlets)
		for id, n := range b.Nodes {
			assert.Equal(t, tc.parents[id], n.Parent, "%s phy %d", tc.quadlets, id)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format
		input  string
		line   int
		field  string
	}{
		{"raw bad token", FormatRaw, "807f0080\n817f8090 zz\n", 2, "quadlet"},
		{"raw too long", FormatRaw, "1807f00800\n", 1, "quadlet"},
		{"raw inverse missing", FormatRaw, "807f0080 7f80ff7f 817f8090\n", 1, "inverse quadlets"},
		{"raw empty", FormatRaw, "# nothing\n\n", 0, "input"},
		{"ohci phy disagrees", FormatOHCI, "1 selfIDs, generation 1, local node ID ffc0\nselfID 0: 807f0080, phy 1 [p..] S100 gc=63 +0W L\n", 2, "decoded text"},
		{"ohci ports disagree", FormatOHCI, "selfID 0: 807f0080, phy 0 [c..] S100 gc=63 +0W L\n", 1, "decoded text"},
		{"ohci gap disagrees", FormatOHCI, "selfID 0: 807f0080, phy 0 [p..] S100 gc=5 +0W L\n", 1, "decoded text"},
		{"ohci kind disagrees", FormatOHCI, "selfID n: 807f0080, phy 0 [p.......]\n", 1, "packet"},
		{"trace no generation", FormatTrace, "bus_reset_handle: card_index=0 node_id=0x00c0 self_ids={0x807f0080}\n", 1, "generation"},
		{"trace bad array", FormatTrace, "bus_reset_handle: card_index=0 generation=1 self_ids=0x807f0080\n", 1, "self_ids"},
		{"trace bad element", FormatTrace, "bus_reset_handle: card_index=0 generation=1 self_ids={0x807f0080,0xq}\n", 1, "self_ids"},
		{"trace phy_id disagrees", FormatTrace, "self_id_sequence: generation=1 phy_id=0x01 self_id_sequence={0x807f0080}\n", 1, "phy_id"},
		{"map truncated", FormatTopologyMap, "00090000 00000001 00010001 807f0080\n", 1, "length"},
		{"map short header", FormatTopologyMap, "00090000\n", 1, "header"},
		{"map zero length", FormatTopologyMap, "00000000 00000001 00010001\n", 1, "length"},
		{"nothing", FormatFireBug, "Bus Reset\n", 0, "input"},
		// 63 nodes send at most 252 quadlets; more would decode as a bus of
		// millions of nodes.
		{"raw too many", FormatRaw, "# reset\n" + strings.Repeat("807f8ac2 ", 253) + "\n", 2, "generation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input), tc.format)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.True(t, errors.Is(err, ErrCapture))
			assert.Equal(t, tc.line, pe.Line)
			assert.Equal(t, tc.field, pe.Field)
			assert.Equal(t, tc.format, pe.Format)
		})
	}
}

// A garbage line is quoted in part: the error stays one short line whatever
// the line's length (up to the limit of a line, maxLineBytes).
func TestParseErrorQuotesAnExcerpt(t *testing.T) {
	long := strings.Repeat("é", 20_000)
	for _, tc := range []struct {
		format Format
		input  string
	}{
		{FormatRaw, long + "\n"},
		{FormatTrace, "bus_reset_handle: card_index=0 generation=1 self_ids=" + long + "\n"},
		{FormatTrace, "bus_reset_handle: card_index=0 generation=" + long + " self_ids={}\n"},
	} {
		_, err := Parse([]byte(tc.input), tc.format)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 200, err.Error())
		assert.Contains(t, err.Error(), `"éééé`)
		assert.Contains(t, err.Error(), "… (40000 bytes)")
		assert.True(t, utf8.ValidString(err.Error()), "the cut splits no character")
	}
	// Bytes that are no text are quoted as \xfe, four characters each: the
	// cut is shorter.
	_, err := Parse([]byte(strings.Repeat("\xfe", 1000)), FormatRaw)
	assert.EqualError(t, err, `raw line 1: quadlet: "`+strings.Repeat(`\xfe`, 39)+`"… (1000 bytes) is not a hex quadlet (want 1 to 8 hex digits, 0x optional)`)
}

func TestOHCIHeaderCountMismatchIsAProblem(t *testing.T) {
	gens, err := Parse([]byte("3 selfIDs, generation 4, local node ID ffc1\n"+
		"selfID 0: 807f0080, phy 0 [p..] S100 gc=63 +0W L\n"+
		"selfID 0: 817f80c2, phy 1 [c..] S400 gc=63 +0W Li\n"), "")
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, 4, gens[0].Number)
	assert.Equal(t, 1, gens[0].LocalPhyID)
	require.Len(t, gens[0].Problems, 1)
	assert.Equal(t, "count", gens[0].Problems[0].Check)
	assert.Contains(t, gens[0].Problems[0].Message, "announces 3 self-ID quadlets, the log has 2")
}

func TestTraceSequencesDisagreeingWithHandle(t *testing.T) {
	gens, err := Parse([]byte(
		"self_id_sequence: card_index=0 generation=7 phy_id=0x00 self_id_sequence={0x807f0080}\n"+
			"self_id_sequence: card_index=0 generation=7 phy_id=0x01 self_id_sequence={0x817f80c0}\n"+
			"bus_reset_handle: card_index=0 generation=7 node_id=0x00c1 bm_abdicate=false self_ids={0x807f0080,0x817f80c2}\n"), "")
	require.NoError(t, err)
	require.Len(t, gens, 1, "one generation, told twice")
	assert.Equal(t, []phy.SelfID{0x807f0080, 0x817f80c2}, gens[0].SelfIDs, "bus_reset_handle wins")
	require.Len(t, gens[0].Problems, 1)
	assert.Equal(t, "trace", gens[0].Problems[0].Check)
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  Format
	}{
		{"807f0080 817f80c2", FormatRaw},
		{"0x807f0080,0x7f80ff7f", FormatRaw},
		{"00030b1e 00000001 00010001 807f80c2", FormatTopologyMap},
		{"fffff0001000: 00030b1e 00000001 00010001 807f80c2", FormatTopologyMap},
		{"kernel: ohci1394: fw-host0: SelfID packet 0x807f80c2 received", FormatIEEE1394},
		{"0001.000.200  Self-ID  807f80c2", FormatFireBug},
		{"[ 1.0] firewire_ohci 0000:03:00.0: selfID 0: 807f80c2, phy 0 [c..] S400 gc=63 +0W Li", FormatOHCI},
		{"x-1 [000] 1.0: self_id_sequence: generation=1 phy_id=0x00 self_id_sequence={0x807f80c2}", FormatTrace},
	} {
		f, err := Detect([]byte(tc.input))
		require.NoError(t, err, tc.input)
		assert.Equal(t, tc.want, f, tc.input)
	}
	for _, bad := range []string{"", "hello world", "\n\n# only comments\n"} {
		_, err := Detect([]byte(bad))
		assert.ErrorIs(t, err, ErrCapture, "%q", bad)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		got, err := ParseFormat(string(f))
		require.NoError(t, err)
		assert.Equal(t, f, got)
	}
	_, err := ParseFormat("pcap")
	assert.EqualError(t, err, `unknown capture format "pcap" (want firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw)`)
	_, err = Parse([]byte("807f0080"), "pcap")
	assert.Error(t, err)
}

// The CRC of CSR blocks, against values computed independently (Python's
// binascii.crc_hqx, the same CRC-16/XMODEM as Linux's crc_itu_t).
func TestCRC16(t *testing.T) {
	assert.Equal(t, uint32(0x9015), crc16([]uint32{0x31323334, 0x35363738}), `"12345678"`)
	assert.Equal(t, uint32(0), crc16(nil))
}

func TestDecodeTopologyMap(t *testing.T) {
	m := EncodeTopologyMap(9, labBus(63))
	require.Len(t, m, 3+7)
	assert.Equal(t, uint32(9), m[0]>>16, "length: counter, counts and 7 self-IDs")
	assert.Equal(t, uint32(6<<16|7), m[2], "6 nodes, 7 self-ID quadlets")
	// The CSR read returns the whole 256-quadlet region: zeros follow.
	g, err := DecodeTopologyMap(append(m, make([]uint32, 246)...))
	require.NoError(t, err)
	assert.Equal(t, labBus(63), g.SelfIDs)
	assert.Empty(t, g.Problems)
	assert.Equal(t, -1, g.Number, "the map does not state the bus generation")
	assert.Equal(t, uint32(9), g.MapCounter, "its update counter")
	_, err = DecodeTopologyMap(nil)
	assert.ErrorIs(t, err, ErrCapture)
}

// The largest bus, 63 nodes of 27 ports, sends 252 self-ID quadlets: a
// capture of it must parse.
func TestParseTheLargestBus(t *testing.T) {
	gens, err := Parse([]byte("# reset\n"+strings.Repeat("807f8ac2 ", 252)+"\n"), FormatRaw)
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Len(t, gens[0].SelfIDs, 252)
}

// A FireBug 2.3 export (testdata/README): four bus resets, then the
// replay of the last one that FireBug writes at each save, here two.
func TestFireBugExportReplay(t *testing.T) {
	data := readFixture(t, "firebug-2.3-saved-twice.txt")
	lines := strings.SplitAfter(string(data), "\n")
	// The line numbers (1-based) of each bus reset's header and of the
	// first replay's header, as the file has them.
	var resets []int
	replay := 0
	for i, l := range lines {
		switch {
		case strings.Contains(l, "BUS RESET"):
			resets = append(resets, i+1)
		case replay == 0 && strings.HasPrefix(l, "Replay of most recent self IDs:"):
			replay = i + 1
		}
	}
	require.Len(t, resets, 4)
	require.NotZero(t, replay)

	gens, err := Parse(data, "")
	require.NoError(t, err)
	require.Len(t, gens, 4, "the replays repeat the last bus reset")
	last := []phy.SelfID{0x807f8062, 0x817f80e2, 0x827f80d2}
	assert.Equal(t, []phy.SelfID{0x807f8082, 0x817f80c2}, gens[0].SelfIDs)
	assert.Equal(t, last, gens[3].SelfIDs)
	for i, header := range resets {
		assert.Equal(t, FormatFireBug, gens[i].Format)
		assert.Equal(t, header+1, gens[i].Line, "generation %d starts at its first Self-ID line", i)
		assert.True(t, Decode(gens[i]).Consistent(), "generation %d", i)
	}

	// Without the lines of the last two resets (the same self-IDs), the
	// replay is the only record of them: a bus reset, read from the
	// replay.
	var cut strings.Builder
	for i, l := range lines {
		if i+1 < resets[2] || i+1 >= replay-1 {
			cut.WriteString(l)
		}
	}
	gens, err = Parse([]byte(cut.String()), FormatFireBug)
	require.NoError(t, err)
	require.Len(t, gens, 3)
	assert.Equal(t, last, gens[2].SelfIDs)
	assert.Equal(t, resets[2]+2, gens[2].Line, "the first Self-ID line of the first replay, once the resets are cut")
}

// The 2.4 kernels' pcilynx wrote no line between bus resets: phy 0's
// packet #0, the first of every reset, starts the next.
func TestPcilynx24ResetsSplitAtPhy0(t *testing.T) {
	gens, err := Parse([]byte("-0- selfid packet 0x807f0080 rcvd\n-0- selfid packet 0x817f80c2 rcvd\n"+
		"-0- selfid packet 0x804a0080 rcvd\n-0- selfid packet 0x814a80c2 rcvd\n"), "")
	require.NoError(t, err)
	require.Len(t, gens, 2)
	assert.Equal(t, FormatIEEE1394, gens[0].Format)
	assert.Equal(t, []phy.SelfID{0x807f0080, 0x817f80c2}, gens[0].SelfIDs)
	assert.Equal(t, []phy.SelfID{0x804a0080, 0x814a80c2}, gens[1].SelfIDs)
	assert.Equal(t, 3, gens[1].Line)
}

// firewire_ohci's self_id_complete carries the controller's self-ID buffer,
// inverses included, before the kernel decides what to do with it.
func TestTraceSelfIDComplete(t *testing.T) {
	const lab = "0x807f0080,0x7f80ff7f,0x817f8090,0x7e807f6f,0x857f89f6,0x7a807609"
	complete := func(fields string) string {
		return "self_id_complete: card_index=0 " + fields + " timestamp=0x1b2c packet_data={" + lab + "}\n"
	}
	handle := func(ids string) string {
		return "bus_reset_handle: card_index=0 generation=1 node_id=0x00c5 bm_abdicate=false self_ids={" + ids + "}\n"
	}
	for _, tc := range []struct {
		name, input string
		selfIDs     []phy.SelfID
		checks      []string
	}{
		{"alone", complete("is_error=false generation_at_bus_reset=1 generation_at_completion=1"),
			[]phy.SelfID{0x807f0080, 0x817f8090, 0x857f89f6}, nil},
		{"a receive error", complete("is_error=true generation_at_bus_reset=1 generation_at_completion=1"),
			[]phy.SelfID{0x807f0080, 0x817f8090, 0x857f89f6}, []string{"self-ID receive"}},
		{"a reset during self-ID", complete("is_error=false generation_at_bus_reset=1 generation_at_completion=2"),
			[]phy.SelfID{0x807f0080, 0x817f8090, 0x857f89f6}, []string{"self-ID receive"}},
		{"bus_reset_handle disagrees", complete("is_error=false generation_at_bus_reset=1 generation_at_completion=1") +
			handle("0x807f0080,0x817f8090,0x857f89f2"),
			[]phy.SelfID{0x807f0080, 0x817f8090, 0x857f89f2}, []string{"trace"}},
		// TI's erratum SLLZ059: the local node's self-ID never reaches the
		// buffer, and the kernel inserts one of its own making.
		{"the local node's quadlet inserted", strings.Replace(complete("is_error=false generation_at_bus_reset=1 generation_at_completion=1"), ",0x857f89f6,0x7a807609", "", 1) +
			handle("0x807f0080,0x817f8090,0x857f89f6"),
			[]phy.SelfID{0x807f0080, 0x817f8090, 0x857f89f6}, nil},
	} {
		gens, err := Parse([]byte(tc.input), "")
		require.NoError(t, err, tc.name)
		require.Len(t, gens, 1, tc.name)
		assert.Equal(t, FormatTrace, gens[0].Format, tc.name)
		assert.Equal(t, 1, gens[0].Number, tc.name)
		assert.Equal(t, tc.selfIDs, gens[0].SelfIDs, tc.name)
		var checks []string
		for _, p := range gens[0].Problems {
			checks = append(checks, p.Check)
		}
		assert.Equal(t, tc.checks, checks, tc.name)
	}

	// Where the kernel inserts phy 1's quadlet, the wrong inverse of the
	// one after it keeps pointing at its own quadlet.
	gens, err := Parse([]byte("self_id_complete: card_index=0 is_error=false generation_at_bus_reset=1 generation_at_completion=1 timestamp=0x1b2c packet_data={0x807f0080,0x7f80ff7f,0x857f89f6,0x7a807608}\n"+
		"bus_reset_handle: card_index=0 generation=1 node_id=0x00c1 bm_abdicate=false self_ids={0x807f0080,0x817f8090,0x857f89f6}\n"), "")
	require.NoError(t, err)
	require.Len(t, gens[0].Problems, 1)
	assert.Equal(t, "inverse", gens[0].Problems[0].Check)
	assert.Equal(t, 2, gens[0].Problems[0].Index)
	assert.Equal(t, uint32(0x857f89f6), gens[0].Problems[0].Quadlet)
}

// The bus manager's "phy config" line in a kernel log says which root and
// gap count it forced with the bus reset that follows.
func TestOHCIPhyConfig(t *testing.T) {
	gens, err := Parse(readFixture(t, "ohci-two-resets.log"), "")
	require.NoError(t, err)
	require.Len(t, gens, 2)
	assert.Nil(t, gens[0].PhyConfig)
	assert.Equal(t, &PhyConfig{Line: 11, Root: 5, GapCount: 10}, gens[1].PhyConfig)

	// Before quadlet lines without a header (a log whose start was lost).
	gens, err = Parse([]byte(ohciLog("phy config: new root=ffc1, gap_count=5", ohciLine0, ohciLine1)), FormatOHCI)
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, &PhyConfig{Line: 1, Root: 1, GapCount: 5}, gens[0].PhyConfig)
}

// fwcontrol -t prints a row per packet #0 and only the phy_ID of an
// extended packet: phy 2's ports 3–5 come back absent, and say so.
func TestFwcontrolTables(t *testing.T) {
	gens, err := Parse(readFixture(t, "fwcontrol.txt"), "")
	require.NoError(t, err)
	require.Len(t, gens, 2)
	for i, gap := range []int{63, 10} {
		g := gens[i]
		want := labBus(gap)
		require.True(t, want[3].IsExtended())
		want[3] = 0x82800000 // phy 2's packet #1, its ports unknown
		assert.Equal(t, FormatFwcontrol, g.Format)
		assert.Equal(t, want, g.SelfIDs, "generation %d", i)
		require.Len(t, g.Problems, 1, "generation %d", i)
		assert.Equal(t, Problem{Check: "lost", Node: 2, Index: 3, Quadlet: 0x82800000,
			Message: "fwcontrol -t prints nothing of an extended packet but its phy_ID: the ports from 3 on of phy 2 are unknown, read as absent"}, g.Problems[0])
		b := Decode(g)
		require.NotNil(t, b.Tree)
		assert.Equal(t, 5, b.Root)
	}
	// The counts of the map line are checked.
	gens, err = Parse([]byte(strings.Replace(renderFwcontrol([][]phy.SelfID{labBus(63)}), "sid_count:7", "sid_count:8", 1)), FormatFwcontrol)
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, "count", gens[0].Problems[len(gens[0].Problems)-1].Check)
}
