package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/netsim"
)

func TestMulticastReportsMembersAndGuarantees(t *testing.T) {
	code, stdout, stderr := runCLI(t, "multicast", "--algo", "ack", "--gen", "ring:4", "--messages", "3")
	require.Equal(t, exitOK, code, stderr)
	// Three members, each delivering the three messages: on the bus's tree
	// (n1-n0-n3-n2, the ring's cable n1-n2 unused) a DATA multicast each,
	// crossing the 3 cables, and 3·3 ACKs, crossing 1, 1 and 2 cables.
	assert.Contains(t, stdout, "packets sent: 12 (DATA 3, RETRANS 0, ACK 9); a multicast is one packet\n")
	assert.Contains(t, stdout, "crossings: 21 (DATA 9, RETRANS 0, ACK 12);")
	assert.Contains(t, stdout, "receptions: 18 copies reached a live addressee; 0 missed theirs on the way\n")
	assert.Equal(t, 3, strings.Count(stdout, "    3          3         0           -        -\n"), stdout)
	assert.Contains(t, stdout, "in order, once each: held\n")
	assert.Contains(t, stdout, "every live member delivered the whole stream: held\n")
	// On the mesh, 3·3 DATA and 3·3 ACK, each its own packet on its link.
	code, stdout, stderr = runCLI(t, "multicast", "--algo", "ack", "--gen", "ring:4", "--messages", "3", "--medium", "mesh")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "packets sent: 18 (DATA 9, RETRANS 0, ACK 9); a multicast is one packet per addressee\n")
	assert.Contains(t, stdout, "crossings: 18 (DATA 9, RETRANS 0, ACK 9);")
}

// nack without the stop signal misses the tail on this seed: exit 1, and
// the same run with --stop holds.
func TestMulticastTailLossExitsOne(t *testing.T) {
	args := []string{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--seed", "1"}
	code, stdout, stderr := runCLI(t, args...)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "VIOLATED, n1 misses 1 of 5 messages, from 5")
	assert.Equal(t, "fwsim multicast: nack broke a guarantee: every live member delivered the whole stream: n1 misses 1 of 5 messages, from 5\n", stderr)
	code, _, stderr = runCLI(t, append(args, "--stop")...)
	assert.Equal(t, exitOK, code, stderr)
}

func TestMulticastSenderCrashIsNoViolation(t *testing.T) {
	code, stdout, stderr := runCLI(t, "multicast", "--algo", "nack", "--gen", "ring:4", "--messages", "4", "--crash", "n0@1.5", "--json")
	require.Equal(t, exitOK, code, stderr)
	var out multicast.JSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Guarantees, 2)
	assert.False(t, out.Guarantees[1].Promised)
	for _, m := range out.Members {
		assert.Equal(t, 2, m.Delivered, "messages 1 and 2 left before the crash at 1.5: %s", m.Node)
		assert.Equal(t, []int{3, 4}, m.Missing)
	}
}

func TestMulticastSameSeedSameBytes(t *testing.T) {
	args := []string{"multicast", "--algo", "nack", "--gen", "ring:6", "--messages", "20", "--loss", "0.4", "--stop", "--trace-table", "--seed", "7"}
	_, a, _ := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	assert.Equal(t, a, b)
}

func TestMulticastBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gen", "ring:4"}, "fwsim multicast: want --algo NAME or --compare (see 'fwsim help multicast')\n"},
		{[]string{"--compare", "--algo", "ack"}, "fwsim multicast: --compare runs every algorithm: give it no --algo (see 'fwsim help multicast')\n"},
		{[]string{"--compare", "--trace-table"}, "fwsim multicast: --trace, --trace-table and --html follow one run: not with --compare (see 'fwsim help multicast')\n"},
		{[]string{"--compare", "--gen", "ring:4", "--join", "n0@1"}, "fwsim multicast: bad multicast options: the sender n0 starts the group and cannot join it\n"},
		{[]string{"--algo", "gossip", "--gen", "ring:4"}, "fwsim multicast: unknown multicast algorithm \"gossip\" (want ack, nack, srm, vsync)\n"},
		{[]string{"--algo", "ack", "--loss", "0.7"}, "fwsim multicast: invalid value \"0.7\" for flag --loss: want a probability from 0 to 0.5, e.g. 0.2 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--loss", "NaN"}, "fwsim multicast: invalid value \"NaN\" for flag --loss: want a probability from 0 to 0.5, e.g. 0.2 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--messages", "0"}, "fwsim multicast: invalid value \"0\" for flag --messages: want a whole number from 1 to 1000 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--crash", "n1"}, "fwsim multicast: --crash n1: want NODE@TIME, e.g. n3@2.5d (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--stop"}, "fwsim multicast: bad multicast options: the stop signal is for nack and srm\n"},
		{[]string{"--algo", "ack", "--medium", "ether"}, "fwsim multicast: invalid value \"ether\" for flag --medium: want bus or mesh (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--loss-cable", "n0n1=0.2"}, "fwsim multicast: --loss-cable \"n0n1=0.2\": want A-B=P, two nodes and a probability, e.g. n0-n1=0.3 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--loss-cable", "n0-n1=0.9"}, "fwsim multicast: --loss-cable \"n0-n1=0.9\": want a probability from 0 to 0.5 after '=' (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--gen", "ring:4", "--loss-cable", "n0-n2=0.2"}, "fwsim multicast: bad multicast options: no cable n0-n2 on the bus's tree (a loss is for a cable of the tree; --medium mesh has a link between every two nodes)\n"},
		{[]string{"--algo", "ack", "--gen", "ring:4", "--crash", "n9@1"}, "fwsim multicast: bad multicast options: crashed node \"n9\" is not on the bus\n"},
		{[]string{"--algo", "ack", "--join", "n1@1"}, "fwsim multicast: --join is for --algo vsync (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "srm", "--leave", "n1@1"}, "fwsim multicast: --leave is for --algo vsync (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "vsync", "--join", "n1"}, "fwsim multicast: --join n1: want NODE@TIME, e.g. n3@2.5d (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "vsync", "--leave", "n1@x"}, "fwsim multicast: --leave n1@x: time \"x\": want a number of delays from 0, to three decimals, e.g. 2.5 or 2.5d (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "vsync", "--gen", "ring:4", "--join", "n0@1"}, "fwsim multicast: bad multicast options: the sender n0 starts the group and cannot join it\n"},
		{[]string{"--algo", "vsync", "--gen", "ring:4", "--join", "n2@3", "--leave", "n2@1"}, "fwsim multicast: bad multicast options: node \"n2\" leaves at 1.000, not after it joins at 3.000\n"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"multicast"}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Empty(t, stdout)
		assert.Equal(t, c.want, stderr, "%v", c.args)
	}
}

// srm's report says what suppression spared, as its JSON does; the others
// have no such line.
func TestMulticastSRMReportsSuppression(t *testing.T) {
	args := []string{"multicast", "--algo", "srm", "--gen", "ring:8", "--messages", "20", "--loss", "0.2", "--stop"}
	code, text, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code, stderr)
	_, stdout, _ := runCLI(t, append(args, "--json")...)
	var out multicast.JSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	assert.Positive(t, out.RepairsSpared)
	assert.Contains(t, text, fmt.Sprintf("suppression: %d NACKs spared (losses repaired on another's NACK), %d repairs spared\n",
		out.NACKsSpared, out.RepairsSpared))
	_, text, _ = runCLI(t, "multicast", "--algo", "nack", "--gen", "ring:8", "--messages", "20", "--loss", "0.2", "--stop")
	assert.NotContains(t, text, "suppression")
}

// vsync reports the views, each member's, and its four guarantees, in the
// text as in the JSON.
func TestMulticastVsyncReportsViews(t *testing.T) {
	args := []string{"multicast", "--algo", "vsync", "--gen", "ring:5", "--messages", "10", "--loss", "0.2", "--join", "n3@2", "--leave", "n1@5"}
	code, text, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, text, "joins: n3 at 2.000\nleaves: n1 at 5.000\n")
	assert.Contains(t, text, "  view  members         coordinator  messages  installed by\n"+
		"  1     n0,n1,n2,n4     n0           1-3       n0,n1,n2,n4\n"+
		"  2     n0,n1,n2,n4,n3  n0           4-10      n0,n1,n2,n3,n4\n"+
		"  3     n0,n2,n4,n3     n0           -         n0,n2,n3,n4\n")
	for _, g := range []string{"in order, once each", "view agreement", "all or none per view", "same-view delivery"} {
		assert.Contains(t, text, g+": held\n")
	}
	_, stdout, _ := runCLI(t, append(args, "--json")...)
	var out multicast.JSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Views, 3)
	assert.Equal(t, multicast.ViewJSON{Number: 2, Members: []string{"n0", "n1", "n2", "n4", "n3"}, Coordinator: "n0", From: 4, To: 10,
		Installed: []string{"n0", "n1", "n2", "n3", "n4"}}, out.Views[1])
	assert.Equal(t, []multicast.EventJSON{{Node: "n3", At: 2}}, out.Joins)
	assert.Equal(t, []int{2, 3}, out.Members[2].Views)
	assert.Equal(t, 7, out.Members[2].Delivered, "n3 delivers view 2's messages 4 to 10")
	assert.Positive(t, out.Sent.ByType["FLUSH"])
	// The other algorithms have no views.
	_, stdout, _ = runCLI(t, "multicast", "--algo", "ack", "--gen", "ring:4", "--json")
	assert.NotContains(t, stdout, "views")
}

func TestMulticastVsyncSameSeedSameBytes(t *testing.T) {
	args := []string{"multicast", "--algo", "vsync", "--gen", "ring:6", "--messages", "8", "--loss", "0.3", "--crash", "n0@3.5",
		"--join", "n5@1", "--trace-table", "--seed", "4", "--json"}
	_, a, _ := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	assert.Equal(t, a, b)
}

// multicastGoldens are the runs whose output the golden files in
// testdata/multicast pin, text and JSON.
var multicastGoldens = []goldenCase{
	{name: "compare-tail-loss", args: []string{"multicast", "--compare", "--gen", "ring:5", "--messages", "5", "--loss", "0.3"},
		code: exitFailure, stderr: "fwsim multicast: nack, srm failed; run each alone for the details\n"},
	{name: "compare-stop", args: []string{"multicast", "--compare", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--stop"}},
	{name: "compare-faults", args: []string{"multicast", "--compare", "--gen", "ring:6", "--messages", "8", "--loss", "0.1", "--crash", "n2@3",
		"--join", "n5@1", "--leave", "n1@4", "--stop", "--seed", "3"}},
}

func TestMulticastGolden(t *testing.T) {
	testGoldenCases(t, multicastGoldens, func(name, format string) string { return "multicast/" + name + "." + format })
}

// Every row of --compare is the run of its algorithm alone: --stop goes to
// nack and srm, --join and --leave to vsync, the crashes and the seed to all.
func TestMulticastCompareRowsAreTheRunsAlone(t *testing.T) {
	common := []string{"--gen", "ring:6", "--messages", "8", "--loss", "0.2", "--seed", "5", "--crash", "n3@2"}
	cmp := jsonOutput[multicast.CompareJSON](t, exitOK, append([]string{"multicast", "--compare", "--stop", "--join", "n5@1"}, common...)...)
	require.Len(t, cmp.Results, 4)
	assert.True(t, cmp.Stop)
	assert.Equal(t, []multicast.EventJSON{{Node: "n5", At: 1}}, cmp.Joins)
	assert.Equal(t, []netsim.CrashJSON{{Node: "n3", At: 2}}, cmp.Crashes)
	for i, algo := range []string{"ack", "nack", "srm", "vsync"} {
		args := append([]string{"multicast", "--algo", algo}, common...)
		switch algo {
		case "nack", "srm":
			args = append(args, "--stop")
		case "vsync":
			args = append(args, "--join", "n5@1")
		}
		alone := jsonOutput[multicast.JSON](t, exitOK, args...)
		row := cmp.Results[i]
		assert.Equal(t, algo, row.Algo)
		assert.Equal(t, alone.Members, row.Members, algo)
		assert.Equal(t, alone.Guarantees, row.Guarantees, algo)
		assert.Equal(t, alone.Sent, row.Sent, algo)
		assert.Equal(t, alone.Lost, row.Lost, algo)
		assert.Equal(t, alone.Transmissions, row.Transmissions, algo)
		assert.Equal(t, alone.Receptions, row.Receptions, algo)
		assert.Equal(t, alone.LostData, row.LostData, algo)
		// The same first sendings of the DATA are lost in every row.
		assert.Equal(t, cmp.Results[0].LostData, row.LostData, algo)
		assert.Equal(t, alone.Time, row.Time, algo)
		var delivered, expected int
		for _, m := range alone.Members {
			delivered, expected = delivered+m.Delivered, expected+m.Expected
		}
		assert.Equal(t, delivered, row.Delivered, algo)
		assert.Equal(t, expected, row.Expected, algo)
	}
}

// The comparison tables in docs/multicast.md are what their commands print
// now, and a table with a broken guarantee is exit 1.
func TestMulticastDocTables(t *testing.T) {
	cmds, outputs := docCommands(t, "../../docs/multicast.md")
	require.GreaterOrEqual(t, len(cmds), 2, "the doc shows a table without and with --stop")
	for i, args := range cmds {
		code, stdout, stderr := runCLI(t, args...)
		want := exitOK
		if strings.Contains(stdout, "VIOLATED") {
			want = exitFailure
		}
		assert.Equal(t, want, code, "%v: %s", args, stderr)
		assert.Equal(t, outputs[i], stdout, "docs/multicast.md shows other output for %v; paste the new one", args)
	}
}

// multicast stops on SIGINT with exit 130 and one line, alone or comparing.
func TestMulticastStopsOnInterrupt(t *testing.T) {
	for _, args := range [][]string{
		{"multicast", "--algo", "vsync", "--gen", "ring:8", "--messages", "20"},
		{"multicast", "--compare", "--gen", "ring:8", "--messages", "20"},
	} {
		code, stdout, stderr, _ := runInterrupted(t, 0, strings.NewReader(""), args...)
		assert.Equal(t, exitInterrupted, code, "%v: %s", args, stderr)
		assert.Equal(t, "fwsim multicast: interrupted; no output file was written or changed\n", stderr, args)
		assert.Empty(t, stdout, args)
	}
}

// docs/multicast.md: at the largest loss, a long stream to many members
// makes ack's give-up likely; on the mesh this run gives n13 up, and on
// the bus, where a loss per cable compounds along the path, most members.
func TestMulticastAckGivesUpAtTheLargestLoss(t *testing.T) {
	args := []string{"multicast", "--algo", "ack", "--gen", "ring:20", "--messages", "300", "--loss", "0.5", "--seed", "2"}
	out := jsonOutput[multicast.JSON](t, exitFailure, append(args, "--medium", "mesh")...)
	var gaveUp []string
	for _, m := range out.Members {
		if m.GaveUp {
			gaveUp = append(gaveUp, m.Node)
			assert.Equal(t, 166, m.Delivered)
		}
	}
	assert.Equal(t, []string{"n13"}, gaveUp)
	assert.Equal(t, "n13 misses 134 of 300 messages, from 167", out.Guarantees[1].Detail)
	out = jsonOutput[multicast.JSON](t, exitFailure, args...)
	gaveUp = nil
	for _, m := range out.Members {
		if m.GaveUp {
			gaveUp = append(gaveUp, m.Node)
		}
	}
	assert.Greater(t, len(gaveUp), len(out.Members)/2, gaveUp)
}

// Every multicast command in the README runs as written, with the exit
// code its comment announces.
func TestMulticastReadmeCommands(t *testing.T) {
	assert.GreaterOrEqual(t, runReadmeCommands(t, "multicast"), 5, "the README's multicast section shows its commands")
}
