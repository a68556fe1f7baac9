package hwtest

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Lines of a two-node bus as each producer writes them, to build captures
// around one malformed line.
const (
	ohciHeader1   = "2 selfIDs, generation 1, local node ID ffc1"
	ohciLine0     = "selfID 0: 807f0080, phy 0 [p..] S100 gc=63 +0W L"
	ohciLine1     = "selfID 0: 817f80c2, phy 1 [c..] S400 gc=63 +0W Li"
	traceHandle   = "bus_reset_handle: card_index=0 generation=1 node_id=0x00c1 bm_abdicate=false self_ids={0x807f0080,0x817f80c2}"
	traceComplete = "self_id_complete: card_index=0 is_error=false generation_at_bus_reset=1 generation_at_completion=1 timestamp=0x0a3f packet_data={0x807f0080,0x7f80ff7f,0x817f80c2,0x7e807f3d}"
	traceSeq      = "self_id_sequence: card_index=0 generation=2 phy_id=0x00 link_active=true gap_count=63 scode=0 contender=false power_class=0 initiated_reset=false port_status={0x2,0x0,0x0} self_id_sequence={0x807f0080}"
	ieeePacket0   = "SelfID packet 0x807f0080 received"
	ieeePacket1   = "SelfID packet 0x817f80c2 received"
	fireBugLine   = "0001.000.100  Self-ID  807f0080  7f80ff7f"
	// fwcontrolTable is the start of a fwcontrol -t table of one packet.
	fwcontrolTable = "crc_len: 3 generation:1 node_count:1 sid_count:1\nid link gap_cnt speed delay cIRM power port0 port1 port2 ini more\n"
)

// ohciLog writes messages as the kernel log shows firewire_ohci's.
func ohciLog(messages ...string) string {
	var b strings.Builder
	for _, m := range messages {
		b.WriteString("[   13.262051] firewire_ohci 0000:03:00.0: " + m + "\n")
	}
	return b.String()
}

// ieeeLog writes messages as the kernel log shows ohci1394's.
func ieeeLog(messages ...string) string {
	var b strings.Builder
	for _, m := range messages {
		b.WriteString("ohci1394: fw-host0: " + m + "\n")
	}
	return b.String()
}

// traceLog writes events as tracefs prints them.
func traceLog(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("     kworker/2:1-118     [002] ..... 4512.120611: " + e + "\n")
	}
	return b.String()
}

// malformed are lines that their format's words mark as its own but that
// do not parse, each after good lines, so that skipping the line or
// merging what follows into the bus reset before would go unnoticed. The
// fuzz targets take them as seeds.
var malformed = []struct {
	name   string
	format Format
	input  string
	line   int
	field  string
	want   string // in the message: what was expected
}{
	{"ohci header: garbled count", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "2x selfIDs, generation 2, local node ID ffc1", ohciLine0, ohciLine1),
		4, "header", `"N selfIDs, generation G, local node ID XXXX"`},
	{"ohci header: garbled generation", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "2 selfIDs, generation 2?, local node ID ffc1", ohciLine0, ohciLine1),
		4, "header", `"2 selfIDs, generation 2?, local node ID ffc1" is not`},
	{"ohci header: junk before the count", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "x2 selfIDs, generation 2, local node ID ffc1", ohciLine0, ohciLine1),
		4, "header", "decimal N and G"},
	{"ohci header: node ID of three digits", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "2 selfIDs, generation 2, local node ID ffc", ohciLine0, ohciLine1),
		4, "header", "four hex digits"},
	{"ohci header: first of the log", FormatOHCI, ohciLog("2 selfIDs, generation one, local node ID ffc1", ohciLine0, ohciLine1),
		1, "header", "decimal N and G"},
	{"ohci header: more quadlets than any bus", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "253 selfIDs, generation 2, local node ID ffc1"),
		4, "self-ID count", "more than the 252"},
	{"ohci selfID: garbled quadlet", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, "selfID 0: 817f80cz, phy 1 [c..] S400 gc=63 +0W Li"),
		3, "selfID line", `"selfID 0: QQQQQQQQ, phy …"`},
	{"ohci selfID: garbled gap count", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, "selfID 0: 817f80c2, phy 1 [c..] S400 gc=6x3 +0W Li"),
		3, "decoded text", `writes "phy 1 [c..] S400 gc=63 +0W Li" for quadlet 0x817f80c2`},
	{"ohci selfID: power class differs", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, "selfID 0: 817f80c2, phy 1 [c..] S400 gc=63 +15W Li"),
		3, "decoded text", `"phy 1 [c..] S400 gc=63 +0W Li"`},
	{"ohci selfID: flags differ", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, "selfID 0: 817f80c2, phy 1 [c..] S400 gc=63 +0W L"),
		3, "decoded text", `"phy 1 [c..] S400 gc=63 +0W Li"`},
	{"trace: garbled node_id", FormatTrace, traceLog(traceHandle, strings.Replace(strings.Replace(traceHandle, "generation=1", "generation=2", 1), "0x00c1", "0x00zz", 1)),
		2, "node_id", `"0x00zz" is not 0x and hex digits`},
	{"trace: decimal node_id", FormatTrace, traceLog(traceHandle, strings.Replace(strings.Replace(traceHandle, "generation=1", "generation=2", 1), "0x00c1", "193", 1)),
		2, "node_id", "0x and hex digits"},
	{"trace: node_id missing", FormatTrace, traceLog(traceHandle, strings.Replace(strings.Replace(traceHandle, "generation=1", "generation=2", 1), "node_id=0x00c1 ", "", 1)),
		2, "node_id", "missing"},
	{"trace: garbled phy_id", FormatTrace, traceLog(traceHandle, strings.Replace(traceSeq, "phy_id=0x00", "phy_id=0xq0", 1)),
		2, "phy_id", `"0xq0" is not 0x and hex digits`},
	{"trace: field without a value", FormatTrace, traceLog(traceHandle, strings.Replace(strings.Replace(traceHandle, "generation=1", "generation=2", 1), "bm_abdicate=false", "bm_abdicate false", 1)),
		2, "fields", `"bm_abdicate" is not key=value`},
	{"trace: field given twice", FormatTrace, traceLog(traceHandle, strings.Replace(traceHandle, "generation=1", "generation=2 generation=3", 1)),
		2, "generation", "generation: given twice"},
	// A fuzz finding: a key of bytes that are not UTF-8 went into the
	// message as they were.
	{"trace: a key of non-UTF-8 bytes given twice", FormatTrace, traceLog(traceHandle, strings.Replace(traceHandle, "generation=1", "generation=2 \x96\x96=1 \x96\x96=2", 1)),
		2, "\x96\x96", `"\x96\x96": given twice`},
	{"trace: too many fields", FormatTrace, traceLog(traceHandle, strings.Replace(traceHandle, "generation=1", "generation=2 a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1", 1)),
		2, "fields", "more than 16; bus_reset_handle has 5, self_id_complete 6, self_id_sequence 11"},
	{"trace: generation with an underscore", FormatTrace, traceLog(traceHandle, strings.Replace(traceHandle, "generation=1", "generation=1_0", 1)),
		2, "generation", "not a decimal number"},
	{"trace: self_id_complete with a quadlet and no inverse", FormatTrace, traceLog(traceComplete, strings.Replace(traceComplete, ",0x7e807f3d}", "}", 1)),
		2, "packet_data", "3 quadlets, but the self-ID buffer holds each quadlet followed by its inverse"},
	{"trace: self_id_complete is_error neither true nor false", FormatTrace, traceLog(strings.Replace(traceComplete, "is_error=false", "is_error=0", 1)),
		1, "is_error", `"0" is not true or false`},
	{"trace: self_id_complete generation of 9 bits", FormatTrace, traceLog(strings.Replace(traceComplete, "generation_at_bus_reset=1", "generation_at_bus_reset=256", 1)),
		1, "generation_at_bus_reset", "not a decimal number of at most 8 bits"},
	{"trace: self_id_complete without its completion generation", FormatTrace, traceLog(strings.Replace(traceComplete, "generation_at_completion=1 ", "", 1)),
		1, "generation_at_completion", "missing"},
	{"firewire-ohci: phy config gap count in words", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "phy config: new root=ffc1, gap_count=five"),
		4, "phy config", `"phy config: new root=%x, gap_count=%d"`},
	{"firewire-ohci: phy config root of no node", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "phy config: new root=ffff, gap_count=5"),
		4, "root", "ffff names no node (phy_ID 63)"},
	{"firewire-ohci: phy config gap count over 63", FormatOHCI, ohciLog(ohciHeader1, ohciLine0, ohciLine1, "phy config: new root=ffc1, gap_count=64"),
		4, "gap_count", "64, but a gap count is 0 to 63"},
	{"ieee1394: garbled packet", FormatIEEE1394, ieeeLog(ieeePacket0, "SelfID packet 0x817f80cz received"),
		2, "SelfID packet", `"SelfID packet 0x%x received"`},
	{"ieee1394: inverse of seven digits", FormatIEEE1394, ieeeLog(ieeePacket0, "SelfID is inconsistent [0x817f80c2/0x7e807f3]"),
		2, "SelfID is inconsistent", `"SelfID is inconsistent [0x%08x/0x%08x]"`},
	{"ieee1394: this node is another quadlet", FormatIEEE1394, ieeeLog(ieeePacket0, ieeePacket1, "SelfID for this node is 0x807f0080"),
		3, "SelfID for this node", "0x807f0080 is not the quadlet of the self-ID packet line before it"},
	{"ieee1394: this node after the phase", FormatIEEE1394, ieeeLog(ieeePacket0, ieeePacket1, "SelfID complete", "SelfID for this node is 0x817f80c2"),
		4, "SelfID for this node", "self-ID packet line before it"},
	{"ieee1394: garbled pcilynx packet", FormatIEEE1394, ieeeLog(ieeePacket0, "SelfID packet 0x817f80cz rcvd"),
		2, "SelfID packet", `pcilynx's "SelfID packet 0x%x rcvd"`},
	{"ieee1394: pcilynx phyid of no node", FormatIEEE1394, ieeeLog("SelfID process finished (phyid 63, root)", ieeePacket0),
		1, "phyid", "63, but a phy_ID is 0 to 62"},
	{"ieee1394: pcilynx start without root", FormatIEEE1394, ieeeLog("SelfID process finished (phyid 5)", ieeePacket0),
		1, "SelfID process finished", `"SelfID process finished (phyid %d, root|not root)"`},
	{"ieee1394: pcilynx inconsistent without inverse", FormatIEEE1394, ieeeLog(ieeePacket0, "inconsistent selfid 0x817f80c2"),
		2, "inconsistent selfid", `"inconsistent selfid 0x%x/0x%x"`},
	{"ieee1394: 2.4 packet in upper case", FormatIEEE1394, "-0- selfid packet 0x807f0080 rcvd\n-0- selfid packet 0X817F80C2 rcvd\n",
		2, "selfid packet", `"selfid packet 0x%x rcvd"`},
	{"ieee1394: 2.4 end with more words", FormatIEEE1394, "-0- selfid packet 0x807f0080 rcvd\n calling self-id complete now\n",
		2, "calling self-id complete", `"calling self-id complete"`},
	{"firebug: quadlet of seven digits", FormatFireBug, fireBugLine + "\n0001.000.200  Self-ID  817f80c\n",
		2, "quadlet", `"817f80c" after Self-ID is not eight hex digits`},
	{"firebug: inverse of seven digits", FormatFireBug, fireBugLine + "\n0001.000.200  Self-ID  817f80c2  7e807f3\n",
		2, "inverse", `"7e807f3" after Self-ID is not eight hex digits`},
	{"firebug: nothing after Self-ID", FormatFireBug, fireBugLine + "\n0001.000.200  Self-ID\n",
		2, "quadlet", `"" after Self-ID`},
	{"firebug: quadlet of seven digits in a replay", FormatFireBug, fireBugLine + "\nReplay of most recent self IDs:\n  Self-ID  807f008\n",
		3, "quadlet", `"807f008" after Self-ID is not eight hex digits`},
	{"nosy-dump: recorded without -x", FormatNosy, "  1000  bus reset\n  1001  self id: phy_id=00, link active, gap_count=63 speed=S100\n",
		2, "hex", "which nosy-dump prints only with -x (--hex); without it the line lacks the ports and the power class: record with nosy-dump -x"},
	{"mail: a line not quoted as the others", FormatOHCI, "> " + ohciLog(ohciHeader1) + "> " + ohciLog(ohciLine0) + ohciLog(ohciLine1),
		3, "quoting", "is quoted 0 times, line 1 1 times: a capture quoted in mail is read when every line is quoted alike"},
	{"mail: a line quoted once among lines quoted twice", FormatNosy, "> > self id: phy_id=00, link active, gap_count=63 speed=S100 [807f0080 7f80ff7f 0000000f]\n> bus reset []\n",
		2, "quoting", "is quoted 1 times, line 1 2 times"},
	{"nosy-dump: hex cut short", FormatNosy, "bus reset []\nself id: phy_id=00, link active, gap_count=63 speed=S100 [807f0080 7f80\n",
		2, "hex", `["807f0080 7f80" has no closing ]: the line ends inside the packet's quadlets`},
	{"nosy-dump: decoded text of another quadlet", FormatNosy, "  1001  self id: phy_id=01, link active, gap_count=63 speed=S100  [807f0080 7f80ff7f 0000000f]\n",
		1, "decoded text", `but nosy-dump prints "self id: phy_id=00, link active, gap_count=63 speed=S100" for quadlet 0x807f0080`},
	{"nosy-dump: inverse of seven digits", FormatNosy, "  1001  self id: phy_id=00, link active, gap_count=63 speed=S100  [807f0080 7f80ff7]\n",
		1, "inverse", "does not start with the quadlet and its inverse, eight hex digits each"},
	{"nosy-dump: extended packet of another sequence", FormatNosy, "  1001  extended self id: phy_id=02, seq=1  [82815000 7d7eafff 0000000f]\n",
		1, "decoded text", `"extended self id: phy_id=02, seq=0"`},
	{"fwcontrol: a row of another program", FormatFwcontrol, fwcontrolTable + "00    1      63  S100     0    0W     P     0    0\n",
		3, "row", "is not a row as fwcontrol -t prints it"},
	{"fwcontrol: a speed it does not print", FormatFwcontrol, fwcontrolTable + "00    1      63  S999     0    0W     P               0    0\n",
		3, "speed", `"S999" is not a value fwcontrol prints there`},
	{"fwcontrol: a port status it does not print", FormatFwcontrol, fwcontrolTable + "00    1      63  S100     0    0W     X               0    0\n",
		3, "port0", `"X" is not a value fwcontrol prints there`},
	{"fwcontrol: a sequel packet of another node", FormatFwcontrol, fwcontrolTable + "00    1      63  S100     0    0W     P               0    1\n01 sequel packet\n",
		4, "sequel packet", "phy 1's, but not after that node's packet #0"},
	{"fwcontrol: a map line cut short", FormatFwcontrol, "crc_len: 9 generation:1 node_count:6\n",
		1, "crc_len", `is not fwcontrol's "crc_len: %d generation:%d node_count:%d sid_count:%d"`},
	{"firespy: hex without its h", FormatFireSpy, "807F0080h\n817F80C2\n",
		2, "quadlet", `"817F80C2" is not a quadlet as a FireSpy quadlets file writes it: hex digits and h (FFFF008Fh), or a decimal number up to 4294967295`},
	{"firespy: a floating-point quadlet", FormatFireSpy, "807F0080h\n2.5\n",
		2, "quadlet", `"2.5" is a floating-point number, which no self-ID quadlet is`},
	{"firespy: a decimal number over 32 bits", FormatFireSpy, "807F0080h\n4294967296\n",
		2, "quadlet", `"4294967296" is more than 4294967295, the largest quadlet`},
	{"data-transit: a field the quadlet does not give", FormatDataTransit, "006 SELFID PKT0  807F0882  01 ID=00 L=1 GAP=3E SP=100 C=1 I=1  168.7 US\n",
		1, "GAP", `"3E", but quadlet 0x807f0882 gives 3F`},
	{"data-transit: a quadlet without its inverse line", FormatDataTransit, "006 SELFID PKT0  807F0882  01 ID=00  168.7 US\n007 SELFID PKT0  817F0882  01 ID=01  168.7 US\n",
		2, "02 line", "the quadlet of line 1 waits for its inverse"},
	{"data-transit: an inverse line first", FormatDataTransit, "007 SELFID PKT0  7F80F77D  02 PWR=0  0.330 US\n",
		1, "01 line", "without the quadlet line (01) of that packet before it"},
	{"data-transit: an extended quadlet as PKT0", FormatDataTransit, "006 SELFID PKT0  82815000  01  168.7 US\n",
		1, "PKT", "PKT0, but quadlet 0x82815000 is a packet PKT1"},
	{"data-transit: a quadlet of seven digits", FormatDataTransit, "006 SELFID PKT0  807F088  01 ID=00  168.7 US\n",
		1, "SELFID line", `is not the analyzer's "NNN SELFID PKTk  QQQQQQQQ  01|02 fields…"`},
	{"raw: text after the quadlets", FormatRaw, "807f0080\n817f80c2\nselfID 0: 807f0080, phy 0 [p..] S100 gc=63 +0W L\n",
		3, "quadlet", `"selfID" is not a hex quadlet`},
	{"topology-map: longer than any bus's", FormatTopologyMap, "0009be15 00000001 00060007 807f0080 817f8090 823f80bd 82815000 837f8490 847f84b0 857f89f6\n00ff0000\n",
		2, "length", "gives length 255, want 2 (counter and counts) to 254"},
}

// The rule of every format: a line it marks as its own and cannot read is
// an error naming the line and what was expected, in the format given and
// in the format detected.
func TestMalformedLinesAreErrors(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []Format{tc.format, ""} {
				gens, err := Parse([]byte(tc.input), f)
				var pe *ParseError
				require.ErrorAs(t, err, &pe, "read as %q: %v", f, gens)
				assert.Equal(t, tc.format, pe.Format)
				assert.Equal(t, tc.line, pe.Line)
				assert.Equal(t, tc.field, pe.Field)
				assert.Contains(t, err.Error(), tc.want)
				assert.NotContains(t, err.Error(), "\n")
				assert.True(t, utf8.ValidString(err.Error()), "%q is not UTF-8", err.Error())
			}
		})
	}
}

// The reproduction: a header garbled in the log of two resets of
// the lab bus made one bus of 12 nodes, reported as inconsistent. It is an
// error naming the header's line.
func TestOHCIGarbledHeaderDoesNotMergeTwoResets(t *testing.T) {
	fixture := string(readFixture(t, "ohci-two-resets.log"))
	const header = "7 selfIDs, generation 2, local node ID ffc5"
	require.Contains(t, fixture, header)
	for _, garbled := range []string{
		"7 selfIDs, generation 2x, local node ID ffc5",
		"7? selfIDs, generation 2, local node ID ffc5",
		"7 selfIDs, generation , local node ID ffc5",
		"7 selfIDs, generation 2, local node ID ffc5 ffc5",
	} {
		_, err := Parse([]byte(strings.Replace(fixture, header, garbled, 1)), "")
		var pe *ParseError
		require.ErrorAs(t, err, &pe, garbled)
		assert.Equal(t, 12, pe.Line, garbled)
		assert.Equal(t, "header", pe.Field, garbled)
		assert.Contains(t, err.Error(), "firewire-ohci line 12: header: ", garbled)
		assert.Contains(t, err.Error(), `is not log_selfids' "N selfIDs, generation G, local node ID XXXX"`, garbled)
	}
}

// The second reproduction: a garbled node_id lost the capturing
// node without a word.
func TestTraceGarbledNodeIDIsAnError(t *testing.T) {
	fixture := string(readFixture(t, "trace-bus-reset-handle.txt"))
	require.Contains(t, fixture, "node_id=0x00c5")
	_, err := Parse([]byte(strings.Replace(fixture, "node_id=0x00c5", "node_id=0x0c5g", 1)), "")
	assert.EqualError(t, err, `tracepoint line 6: node_id: "0x0c5g" is not 0x and hex digits of at most 16 bits`)
}

// Lines that none of a format's words mark are another program's: a
// kernel log's other messages, the tracer's other events, a FireBug
// export's other packets. They are skipped, whatever bytes they hold.
func TestOtherProgramsLinesAreSkipped(t *testing.T) {
	for _, tc := range []struct {
		format Format
		input  string
	}{
		{FormatOHCI, "[ 0.1] usb 1-1: new high-speed USB device \xff\xfe\n" +
			"[ 0.2] firewire_ohci 0000:03:00.0: bad selfIDSize (00000000)\n" +
			"[ 0.3] firewire_core 0000:03:00.0: inconsistent extended self IDs\n" +
			ohciLog(ohciHeader1, ohciLine0, ohciLine1)},
		{FormatTrace, "# tracer: nop\n" + traceLog("bus_reset_initiate: card_index=0 generation=1 short_reset=false", traceHandle)},
		{FormatIEEE1394, "ohci1394: fw-host0: Error in reception of SelfID packets [0x00000000/0x00000000] (count: 0)\n" +
			"ieee1394: Initiating bus reset on fw-host0\n" + ieeeLog(ieeePacket0, ieeePacket1, "SelfID for this node is 0x817f80c2", "SelfID complete")},
		{FormatFireBug, "FireBug 1.0d7e10 - packet log\n0001.000.000  Bus Reset\n0001.000.050  PHY Config  00c00000\n" +
			fireBugLine + "\n0001.000.200  Self-ID  817f80c2  7e807f3d\n"},
	} {
		gens, err := Parse([]byte(tc.input), "")
		require.NoError(t, err, tc.format)
		require.Len(t, gens, 1, tc.format)
		assert.Equal(t, tc.format, gens[0].Format)
		assert.Len(t, gens[0].SelfIDs, 2, tc.format)
		assert.Empty(t, gens[0].Problems, tc.format)
	}
}

// A comment of a hex dump that says "self-ID" names no text format: the
// dump stays raw (a fixture of the cross-check has one).
func TestDetectionReadsCommentsAsComments(t *testing.T) {
	f, err := Detect([]byte("# ports 4 and 5 are: a self-ID the emulator cannot produce\n807f0080 817f80c2 # the self-IDs\n"))
	require.NoError(t, err)
	assert.Equal(t, FormatRaw, f)
}

// Every message is one line of valid UTF-8 however the input is broken:
// what it quotes is escaped.
func TestErrorsQuoteBrokenTextEscaped(t *testing.T) {
	_, err := Parse([]byte(ohciLog(ohciHeader1, "selfID 0: \xff\xfe\x1b[2J, phy 0")), "")
	require.Error(t, err)
	assert.True(t, utf8.ValidString(err.Error()), err.Error())
	assert.NotContains(t, err.Error(), "\x1b")
	assert.True(t, errors.Is(err, ErrCapture))
}
