package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/mutex"
)

// mutexGoldens are the runs whose output the golden files in
// testdata/mutex pin, text and JSON.
var mutexGoldens = []goldenCase{
	{name: "ricart-agrawala-ring5", args: []string{"mutex", "--algo", "ricart-agrawala", "--gen", "ring:5", "--requests", "2"}},
	{name: "central-tree6-coordinator-crash", args: []string{"mutex", "--algo", "central", "--gen", "tree:6:2", "--crash", "n0@2"}, code: exitFailure},
	{name: "ricart-agrawala-crash", args: []string{"mutex", "--algo", "ricart-agrawala", "--gen", "ring:5", "--crash", "n2@0.2"}, code: exitFailure},
	{name: "ricart-agrawala-request-reply", args: []string{"mutex", "--algo", "ricart-agrawala", "--gen", "ring:5", "--requests", "2", "--crash", "n2@0.2", "--request-reply"}},
	{name: "token-ring-lost", args: []string{"mutex", "--algo", "token-ring", "--gen", "ring:5", "--lose-token-at", "3", "--trace-table"}, code: exitFailure},
	{name: "compare-ring8", args: []string{"mutex", "--compare", "--gen", "ring:8", "--requests", "3"}},
	{name: "central-notify", args: []string{"mutex", "--algo", "central", "--gen", "ring:5", "--requests", "2", "--think", "4", "--notify"}},
	{name: "compare-notify", args: []string{"mutex", "--compare", "--gen", "ring:5", "--requests", "2", "--think", "4", "--notify"}},
	{name: "central-loss", args: []string{"mutex", "--algo", "central", "--gen", "ring:5", "--requests", "2", "--loss", "0.1", "--seed", "3"}, code: exitFailure},
	{name: "token-ring-regenerate", args: []string{"mutex", "--algo", "token-ring", "--gen", "ring:5", "--requests", "3", "--lose-token-at", "3", "--regenerate", "--trace-table"}},
	{name: "majority-ring9", args: []string{"mutex", "--algo", "majority", "--gen", "ring:9", "--requests", "2"}},
	{name: "compare-chain6", args: []string{"mutex", "--compare", "--gen", "chain:6", "--requests", "2"}},
	{name: "compare-loss", args: []string{"mutex", "--compare", "--gen", "ring:8", "--requests", "3", "--loss", "0.05", "--regenerate"}, code: exitFailure},
}

func TestMutexGolden(t *testing.T) {
	testGoldenCases(t, mutexGoldens, func(name, format string) string { return "mutex/" + name + "." + format })
}

func TestMutexJSON(t *testing.T) {
	// A crashed coordinator: every client waits for ever; reported, exit 1.
	out := jsonOutput[mutex.JSON](t, exitFailure, "mutex", "--algo", "central", "--gen", "ring:4", "--crash", "n3@0")
	require.NotNil(t, out.Coordinator)
	assert.Equal(t, "n3", *out.Coordinator)
	assert.True(t, out.Safe)
	assert.False(t, out.Live)
	assert.Len(t, out.Unserved, 3)
	assert.Equal(t, map[string]int{"REQUEST": 3, "OK": 0, "RELEASE": 0}, out.Messages.ByType)
	require.NotNil(t, out.Nodes[3].CrashedAt)
	assert.Equal(t, 0.0, *out.Nodes[3].CrashedAt)

	// Ricart–Agrawala: 2(n−1) per entry, and every entry has its timestamp.
	out = jsonOutput[mutex.JSON](t, exitOK, "mutex", "--algo", "ricart-agrawala", "--gen", "ring:6", "--requests", "2")
	assert.Equal(t, 10.0, out.PerEntry)
	assert.Len(t, out.Entries, 12)
	for _, e := range out.Entries {
		assert.NotNil(t, e.Timestamp)
		require.NotNil(t, e.Left)
	}
	assert.Zero(t, out.Order.CausalInversions)
}

// A deadlock after a message loss is a failure: exit 1, one line on stderr
// naming the algorithm and who waits for what, and the JSON says so.
func TestMutexLossDeadlockFails(t *testing.T) {
	args := []string{"mutex", "--algo", "central", "--gen", "ring:5", "--requests", "2", "--loss", "0.1", "--seed", "3"}
	code, stdout, stderr := runCLI(t, args...)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "\ndeadlock: n2 waits for ever: the coordinator n4's OK to it was lost at 7.174")
	assert.Equal(t, "fwsim mutex: central deadlocked after 1 lost message: n2 waits for ever: the coordinator n4's OK to it was lost at 7.174: "+
		"n4 counts it inside and grants no one else (and 4 more nodes)\n", stderr)
	out := jsonOutput[mutex.JSON](t, exitFailure, args[:len(args):len(args)]...)
	assert.True(t, out.LossDeadlock)
	require.NotNil(t, out.Deadlock)
	assert.Contains(t, *out.Deadlock, "OK to it was lost at 7.174")
	assert.Equal(t, []mutex.LostJSON{{Type: "OK", From: "n4", To: "n2", At: 7.174}}, out.Lost)
	assert.Equal(t, 0.1, out.Loss)

	// A crash leaves requests waiting too: exit 1, the stderr line names the
	// crash, and the JSON names the deadlock, not as a loss's.
	code, _, stderr = runCLI(t, "mutex", "--algo", "central", "--gen", "ring:4", "--crash", "n3@0")
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, "fwsim mutex: central deadlocked after the crash of n3 at 0.000: n0 waits for ever: the coordinator n3 crashed at 0.000; "+
		"a client cannot tell that from a long queue (and 2 more nodes)\n", stderr)
	out = jsonOutput[mutex.JSON](t, exitFailure, "mutex", "--algo", "central", "--gen", "ring:4", "--crash", "n3@0")
	assert.False(t, out.LossDeadlock)
	require.NotNil(t, out.Deadlock)
	assert.Contains(t, *out.Deadlock, "the coordinator n3 crashed at 0.000")

	// The regenerated token serves everyone: exit 0.
	code, stdout, stderr = runCLI(t, "mutex", "--algo", "token-ring", "--gen", "ring:5", "--requests", "3", "--lose-token-at", "3", "--regenerate")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "\ntoken regenerated by n4: 1 time (at 9.001)\n")
}

// The hops a message takes on the topology: on chain:6 more than the
// messages, on complete:6 as many.
func TestMutexHops(t *testing.T) {
	chain := jsonOutput[mutex.CompareJSON](t, exitOK, "mutex", "--compare", "--gen", "chain:6", "--requests", "2")
	complete := jsonOutput[mutex.CompareJSON](t, exitOK, "mutex", "--compare", "--gen", "complete:6", "--requests", "2")
	for i, r := range chain.Results {
		assert.Greater(t, r.Hops, int64(r.Messages), r.Algo)
		assert.Equal(t, int64(complete.Results[i].Messages), complete.Results[i].Hops, r.Algo)
	}
}

func TestMutexBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mutex"}, "fwsim mutex: want --algo NAME or --compare (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "bakery"}, "fwsim mutex: unknown mutual-exclusion algorithm \"bakery\" (want central, ricart-agrawala, majority, token-ring)\n"},
		{[]string{"mutex", "--algo", "central", "--crash", "n1"}, "fwsim mutex: --crash n1: want NODE@TIME, e.g. n3@2.5d (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "central", "--crash", "n1@x"}, "fwsim mutex: --crash n1@x: time \"x\": want a number of delays from 0, to three decimals, e.g. 2.5 or 2.5d (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "central", "--crash", "n9@1"}, "fwsim mutex: bad mutual-exclusion options: crashed node \"n9\" is not on the bus\n"},
		{[]string{"mutex", "--algo", "central", "--lose-token-at", "1"}, "fwsim mutex: bad mutual-exclusion options: central has no token to lose\n"},
		{[]string{"mutex", "--algo", "central", "--requests", "0"}, "fwsim mutex: invalid value \"0\" for flag --requests: want a whole number from 1 to 100 (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "central", "--cs-time", "-1"}, "fwsim mutex: invalid value \"-1\" for flag --cs-time: want a number of delays from 0, to three decimals, e.g. 2.5 or 2.5d (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "central", "--loss", "2"}, "fwsim mutex: invalid value \"2\" for flag --loss: want a probability from 0 to 1, e.g. 0.1 (see 'fwsim help mutex')\n"},
		{[]string{"mutex", "--algo", "central", "--regenerate"}, "fwsim mutex: bad mutual-exclusion options: central has no token to regenerate\n"},
		{[]string{"mutex", "--compare", "--trace-table"}, "fwsim mutex: --trace, --trace-table and --html follow one run: not with --compare (see 'fwsim help mutex')\n"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
		assert.Equal(t, tc.want, stderr, "%v", tc.args)
	}
}

// The comparison tables in docs/mutex.md are what their commands print now.
func TestMutexDocTables(t *testing.T) {
	cmds, outputs := docCommands(t, "../../docs/mutex.md")
	require.GreaterOrEqual(t, len(cmds), 2, "the doc shows a plain and a --notify table")
	for i, args := range cmds {
		code, stdout, stderr := runCLI(t, args...)
		want := exitOK
		if slices.Contains(args, "--loss") {
			want = exitFailure // the doc's lossy table shows the deadlocks, which fail
		}
		require.Equal(t, want, code, stderr)
		assert.Equal(t, outputs[i], stdout, "docs/mutex.md shows other output for %v; paste the new one", args)
	}
}

// Every mutex command in the README's mutual-exclusion section runs as
// written.
func TestMutexReadmeCommands(t *testing.T) {
	assert.GreaterOrEqual(t, runReadmeCommands(t, "mutex"), 3, "the README's mutual-exclusion section shows its commands")
}

// mutex stops on SIGINT with exit 130 and one line, alone or comparing.
func TestMutexStopsOnInterrupt(t *testing.T) {
	for _, args := range [][]string{
		{"mutex", "--algo", "central", "--gen", "tree:6:2"}, // stops in the 1394 election of its coordinator
		{"mutex", "--algo", "token-ring", "--gen", "ring:8"},
		{"mutex", "--compare", "--gen", "ring:8"},
	} {
		code, stdout, stderr, _ := runInterrupted(t, 0, strings.NewReader(""), args...)
		assert.Equal(t, exitInterrupted, code, "%v: %s", args, stderr)
		assert.Equal(t, "fwsim mutex: interrupted; no output file was written or changed\n", stderr, args)
		assert.Empty(t, stdout, args)
	}
}

// --compare names the crashes every run had, as one run does.
func TestMutexCompareNamesCrashes(t *testing.T) {
	code, stdout, stderr := runCLI(t, "mutex", "--compare", "--gen", "ring:5", "--crash", "n0@2", "--crash", "n3@1.5")
	require.Equal(t, exitFailure, code, "every algorithm deadlocks: %s", stderr)
	assert.Contains(t, stdout, "\ncrashes: n0 at 2.000, n3 at 1.500\ntopology: gen ring:5\n")
}

// Central's coordinator is the leader the election lab elects on the same
// bus: 1394's root on a tree, floodmax's (IDs ascending) on any other
// graph. The mutex lab finds it without the election lab, as no lab imports
// another; this holds the two to the same answer, over shapes and seeds
// that move a tree's root.
func TestMutexCentralCoordinatorIsElectedLeader(t *testing.T) {
	for _, spec := range []string{"pair", "chain:5", "star:6", "tree:9:3", "tree:20:4", "ring:3", "ring:7", "complete:5"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		for seed := range uint64(6) {
			m, err := mutex.Run(topo, mutex.Options{Algo: "central", Seed: seed})
			require.NoError(t, err, spec)
			algo := "floodmax"
			if len(topo.Cables) == len(topo.Nodes)-1 {
				algo = "1394"
			}
			e, err := election.Run(topo, election.Options{Algo: algo, Seed: seed})
			require.NoError(t, err, spec)
			require.NotEmpty(t, e.Leader, "%s seed %d", spec, seed)
			assert.Equal(t, e.Leader, m.Coordinator, "%s seed %d: %s", spec, seed, m.CoordinatorBy)
		}
	}
}

// A lab run that uses up its event budget ran and failed: exit 1, as run's
// and analyze's budget does, naming the lab and the algorithm, never exit
// 2 as if the input were bad.
func TestLabRunOutOfBudgetIsAFailure(t *testing.T) {
	topo, err := bus.Generate("ring:5")
	require.NoError(t, err)
	_, mutexErr := mutex.Run(topo, mutex.Options{Algo: "token-ring", MaxEvents: 5})
	_, multicastErr := multicast.Run(topo, multicast.Options{Algo: "ack", MaxEvents: 5})
	_, electErr := election.Run(topo, election.Options{Algo: "lelann", MaxEvents: 5})
	for _, tc := range []struct {
		lab, algo string
		err       error
	}{{"mutex", "token-ring", mutexErr}, {"multicast", "ack", multicastErr}, {"elect", "lelann", electErr}} {
		require.Error(t, tc.err, tc.lab)
		var stderr bytes.Buffer
		e := &env{stdout: &checkedWriter{w: io.Discard}, stderr: &messageWriter{w: &stderr}}
		assert.Equal(t, exitFailure, labError(e, newFlags(tc.lab, ""), tc.err), tc.lab)
		assert.Regexp(t, "^fwsim "+tc.lab+": .*"+tc.algo+" .*budget.*\n$", stderr.String(), tc.lab)
	}
}

// A run in which no node enters has no messages per entry to report:
// 0.000 would read as messages for free.
func TestMutexWithoutEntriesSaysSo(t *testing.T) {
	code, stdout, stderr := runCLI(t, "mutex", "--algo", "ricart-agrawala", "--gen", "ring:5", "--crash", "n2@0.2")
	require.Equal(t, exitFailure, code, stderr)
	assert.Contains(t, stdout, "entries: none\n")
	assert.Regexp(t, `\nmessages: 22 \(REQUEST 16, REPLY 6, DEFER 0\), hops \d+, no entry\n`, stdout)
	_, stdout, _ = runCLI(t, "mutex", "--compare", "--gen", "ring:5", "--crash", "n2@0.2")
	assert.Regexp(t, `\nricart-agrawala +0 +22 +\d+ +no entry +`, stdout)
}

// The notes' Ricart–Agrawala example from the command line: n1 asks with
// timestamp 8 and n0 with 12 at once, n2 does not ask; n1 enters first and
// n0 on n1's REPLY, in 8 messages.
func TestMutexTextbookExampleFromTheCommandLine(t *testing.T) {
	code, stdout, stderr := runCLI(t, "mutex", "--algo", "ricart-agrawala", "--gen", "chain:3", "--requester", "n0", "--requester", "n1",
		"--clock", "n0=11", "--clock", "n1=7", "--think", "0")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `\n  n1 +0\.000 +[\d.]+ +[\d.]+ +[\d.]+ +8\n  n0 +0\.000 +[\d.]+ +[\d.]+ +[\d.]+ +12\n`, stdout)
	assert.Contains(t, stdout, "\nmessages: 8 (REQUEST 4, REPLY 4, DEFER 0)")
	for _, tc := range []struct{ args, want string }{
		{"--clock n1", `invalid value "n1" for flag --clock: want NODE=N, e.g. n1=7`},
		{"--clock n1=-3", `invalid value "n1=-3" for flag --clock: n1: want a clock from 0, e.g. n1=7`},
		{"--clock n1=0 --clock n1=3", `n1's clock is given twice; want it once`},
		{"--clock zz=4", `clock of "zz" is not on the bus`},
		{"--requester zz", `requester "zz" is not on the bus`},
		{"--requester n0 --requester n0", `"n0" is given twice; want each once`},
	} {
		args := append([]string{"mutex", "--algo", "ricart-agrawala", "--gen", "chain:3"}, strings.Fields(tc.args)...)
		code, _, stderr := runCLI(t, args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
}

// A request never served shows how long it had waited when the run ended,
// in the liveness list, the waiting line, the node table and the JSON: a
// wait that never ended is not a wait of 0.
func TestMutexUnservedRequestShowsItsWaitSoFar(t *testing.T) {
	args := []string{"mutex", "--algo", "central", "--gen", "tree:6:2", "--crash", "n0@2"}
	_, stdout, _ := runCLI(t, args...)
	out := jsonOutput[mutex.JSON](t, exitFailure, args...)
	require.NotEmpty(t, out.Unserved)
	for _, u := range out.Unserved {
		assert.InDelta(t, out.Time-u.Requested, u.Waited, 1e-9, u.Node)
		assert.Positive(t, u.Waited, u.Node)
		assert.Contains(t, stdout, fmt.Sprintf("%s (asked at %.3f, waiting %.3f at the end)", u.Node, u.Requested, u.Waited))
		assert.Regexp(t, fmt.Sprintf(`\n  %s +client +1 +0 +1 +\d+ +- +>%.3f +`, u.Node, u.Waited), stdout)
	}
	assert.Regexp(t, `\nwaiting: mean [\d.]+, max [\d.]+ delays, from request to entry; 4 never served, waiting up to [\d.]+ at the end`, stdout)
}
