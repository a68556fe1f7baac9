package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCrosscheckGolden(t *testing.T) {
	testGoldenCases(t, []goldenCase{
		// The 6-node lab bus: its root contention explores in 4,609 states,
		// several seconds; Monte Carlo here.
		{name: "ohci-two-resets", args: []string{"crosscheck", "--capture", captures + "ohci-two-resets.log", "--max-states", "0"}, code: exitOK},
		// A hub port the emulator cannot leave absent.
		{name: "raw-port-absent", args: []string{"crosscheck", "--capture", captures + "raw-port-absent.txt", "--max-states", "0"}, code: exitFailure,
			stderr: "fwsim crosscheck: 1 of 1 generations do not match the emulation\n"},
		{name: "raw-linux-checks", args: []string{"crosscheck", "--capture", captures + "raw-linux-checks.txt", "--max-states", "0"}, code: exitFailure,
			stderr: "fwsim crosscheck: 5 of 7 generations do not match the emulation\n"},
		// Exact odds, a few states: the captured root is the less likely
		// of two.
		{name: "chain3-exact", args: []string{"crosscheck", "--capture", "testdata/crosscheck/chain3.txt", "--seed", "1"}, code: exitOK},
		// The root a contention decides: one finding, the nodes compared
		// with the captured root; the exploration stops at 100 states and
		// Monte Carlo gives the odds.
		{name: "pair-contention", args: []string{"crosscheck", "--capture", "testdata/crosscheck/pair.txt",
			"--topology", "testdata/crosscheck/pair.yaml", "--seed", "1", "--max-states", "100"}, code: exitOK},
		// A root forced elsewhere never gives the captured one.
		{name: "pair-forced-elsewhere", args: []string{"crosscheck", "--capture", "testdata/crosscheck/pair.txt",
			"--topology", "testdata/crosscheck/pair.yaml", "--force-root", "node-a", "--max-states", "0"}, code: exitFailure,
			stderr: "fwsim crosscheck: 1 of 1 generations do not match the emulation\n"},
	}, func(name, format string) string { return "crosscheck/" + name + "." + format })
}

func TestCrosscheckUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crosscheck"}, "give exactly one of --capture FILE and --probe"},
		{[]string{"crosscheck", "--capture", "x", "--probe"}, "give exactly one of --capture FILE and --probe"},
		{[]string{"crosscheck", "--capture", "x", "--force-root", "pc"}, "--force-root and --initiator need --topology: without it they come from the capture"},
		{[]string{"crosscheck", "--capture", "x", "--device", "/dev/fw0"}, "--device needs --probe"},
		{[]string{"crosscheck", "--capture", "x", "--topology", ""}, `invalid value "" for flag --topology: want a non-empty value`},
		{[]string{"crosscheck", "--capture", "x", "--max-states", "-1"}, "--max-states -1: want 0 or more"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout)
		assert.Equal(t, "fwsim crosscheck: "+tc.want+" (see 'fwsim help crosscheck')\n", stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crosscheck", "--capture", "testdata"}, "capture testdata: is a directory"},
		{[]string{"crosscheck", "--capture", captures + "raw-two-resets.txt", "--topology", "testdata"}, "topology file testdata: is a directory"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout)
		assert.Equal(t, "fwsim crosscheck: "+tc.want+"\n", stderr)
	}
	code, _, stderr := runCLI(t, "crosscheck", "--capture", captures+"raw-two-resets.txt",
		"--topology", "../../examples/default.yaml", "--force-root", "nobody")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown node "nobody"`)
}
