package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
)

// Beyond the correctness conditions (a 300 ns wire, longer than the FAST
// window), explore finds the stall with its exact probability and a
// counterexample that fwsim run --replay runs to the same outcome.
func TestExploreCounterexampleReplays(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "far.yaml")
	require.NoError(t, os.WriteFile(topo, []byte("nodes:\n  - {id: a, ports: 1}\n  - {id: b, ports: 1}\ncables:\n  - {from: a:0, to: b:0, delay_ns: 300}\n"), 0o644))
	cex := filepath.Join(dir, "cex")
	code, stdout, stderr := runCLI(t, "explore", "--topology", topo, "--allow-out-of-spec", "--clock", "ideal",
		"--timing", "max", "--counterexamples", cex, "--json")
	require.Equal(t, exitFailure, code, stderr)
	var out explore.JSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	byOutcome := map[string]explore.OutcomeJSON{}
	for _, o := range out.Outcomes {
		byOutcome[o.Outcome] = o
	}
	require.Contains(t, byOutcome, "stalled")
	assert.Equal(t, "1/2", byOutcome["stalled"].PExact)
	assert.Equal(t, "1/2", byOutcome["ok"].PExact)
	require.NotNil(t, byOutcome["stalled"].Counterexample)
	file := *byOutcome["stalled"].Counterexample

	code, stdout, stderr = runCLI(t, "run", "--replay", file, "--json")
	require.Equal(t, exitFailure, code, stderr)
	var run bus.ResultJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, "stalled", run.Generations[0].Outcome)

	page := filepath.Join(dir, "stalled.html")
	code, _, stderr = runCLI(t, "run", "--replay", file, "--html", page)
	require.Equal(t, exitFailure, code, stderr)
	title, nodes, _ := pageData(t, page)
	assert.Equal(t, "fwsim run: replay "+file, title)
	assert.Equal(t, []string{"a", "b"}, nodes)

	code, _, stderr = runCLI(t, "run", "--replay", file, "--seed", "2")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--replay takes the bus and every option of its run from "+file+": drop --seed")

	// The file records the power-up mode, and the replay keeps it.
	all := filepath.Join(dir, "cex-all")
	code, _, stderr = runCLI(t, "explore", "--topology", topo, "--allow-out-of-spec", "--clock", "ideal",
		"--timing", "max", "--power-up", "all", "--counterexamples", all)
	require.Equal(t, exitFailure, code, stderr)
	var recorded explore.ReplayFile
	data, err := os.ReadFile(filepath.Join(all, "stalled.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &recorded))
	assert.Equal(t, "all", recorded.PowerUp)
	run = bus.ResultJSON{}
	code, stdout, stderr = runCLI(t, "run", "--replay", filepath.Join(all, "stalled.json"), "--json")
	require.Equal(t, exitFailure, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, "all", run.PowerUp)
	assert.Equal(t, "stalled", run.Generations[0].Outcome)

	// A path cut short no longer fits the run.
	var f explore.ReplayFile
	data, err = os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	f.Choices = f.Choices[:len(f.Choices)-1]
	data, err = json.Marshal(f)
	require.NoError(t, err)
	short := filepath.Join(dir, "short.json")
	require.NoError(t, os.WriteFile(short, data, 0o644))
	code, _, stderr = runCLI(t, "run", "--replay", short)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "fwsim run: --replay "+short+": ")
	assert.Contains(t, stderr, "replay: the path's")

	// A file is read up to its bound, not to the end of memory (/dev/zero
	// never ends): a counterexample padded past it is refused.
	padded := filepath.Join(dir, "padded.json")
	require.NoError(t, os.WriteFile(padded, append(data, bytes.Repeat([]byte(" "), explore.MaxReplayFileSize)...), 0o644))
	code, _, stderr = runCLI(t, "run", "--replay", padded)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim run: "+padded+": larger than 16 MiB: not a counterexample file of fwsim explore\n", stderr)
	code, _, stderr = runCLI(t, "run", "--replay", "/dev/zero")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "larger than 16 MiB")
}

func TestExploreBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explore", "--phases", "grid:x"}, "--phases grid:x: want fixed or grid:K"},
		{[]string{"explore", "--event-window", "5us"}, "--event-window 5us: want FROM..TO"},
		{[]string{"explore", "--event-window", "5us..1us"}, "TO is before FROM"},
		{[]string{"explore", "--max-states", "-1"}, "--max-states -1: want 0 (as many as --max-memory holds) or more"},
		{[]string{"explore", "--gen", "pair", "--event-window", "1us..2us"}, "the topology scripts no event to move"},
		{[]string{"explore", "--gen", "pair", "--clock", "ideal", "--phases", "grid:2"}, "the ideal clock has no phase"},
		{[]string{"explore", "--resolution", "0ns"}, "--resolution 0ns: want a positive duration"},
		{[]string{"explore", "--workers", "-1"}, "--workers -1: want 0 (every core) or more"},
		{[]string{"explore", "--resolution", "2.5ns"}, "--resolution 2.5ns: want a whole number of nanoseconds"},
		{[]string{"explore", "--gen", "pair", "--timing", "nondet", "--resolution", "10ns"}, "resolution 10 ns: cycle clocks make their choices at their own edges; a time step needs the ideal clock"},
		{[]string{"explore", "--gen", "pair", "--clock", "ideal", "--resolution", "10ns"}, "resolution 10 ns with random timing"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.msg, tc.args)
	}
}

// On a terminal an exploration shows its states against --max-states,
// their frontier and memory, then that it solves; the bar is erased before
// the report, which stays clean.
func TestExploreProgressBarOnlyOnATerminal(t *testing.T) {
	args := []string{"explore", "--topology", "../../examples/far-pair.yaml", "--allow-out-of-spec", "--clock", "ideal", "--timing", "max"}
	_, _, stderr := runCLI(t, args...)
	assert.Equal(t, "fwsim explore: stalled with probability 1/2\n", stderr, "stderr is no terminal in tests: no bar")

	saved := isTerminal
	t.Cleanup(func() { isTerminal = saved })
	isTerminal = func(io.Writer) bool { return true }
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitFailure, code, "the far pair stalls")
	assert.Regexp(t, `\d+/\d+ states, .*frontier \d+, \d+ MiB`, stderr)
	assert.Contains(t, stderr, "100% 13/13 states")
	assert.Contains(t, stderr, "solving the graph")
	assert.Regexp(t, "\r +\rfwsim explore: stalled with probability 1/2\n$", stderr, "the bar is erased before the verdict")
	assert.NotContains(t, stdout, "\r")
	_, _, stderr = runCLI(t, append(args, "--quiet")...)
	assert.Equal(t, "fwsim explore: stalled with probability 1/2\n", stderr)
}

// The exit status says what is sure, and one line on stderr says why: a
// missed deadline (exit 1, as analyze), an outcome that is not ok, or an
// exploration stopped at --max-states before any failure was sure (exit
// 4), which used to exit 0 with no outcome printed.
func TestExploreExitStatusSaysWhatIsSure(t *testing.T) {
	far := []string{"explore", "--topology", "../../examples/far-pair.yaml", "--allow-out-of-spec", "--clock", "ideal", "--timing", "max"}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"explore", "--gen", "pair", "--deadline", "contention_ns=2us"}, exitFailure,
			"fwsim explore: contention_ns ≤ 2µs only with probability 1861/2048\n"},
		{append(far, "--max-states", "2"), exitIncomplete,
			"fwsim explore: stopped at 3 states with no failure sure, and the unexplored states are reached with probability 1\n"},
		{append(far, "--max-states", "5"), exitFailure, "fwsim explore: stalled with probability in [1/4, 3/4]\n"},
		{far, exitFailure, "fwsim explore: stalled with probability 1/2\n"},
		{[]string{"explore", "--gen", "pair"}, exitOK, ""},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Equal(t, tc.stderr, stderr, tc.args)
		if tc.code == exitIncomplete {
			assert.Contains(t, stdout, "\n  unexplored  1  runs that reach a state left unexplored")
		}
	}
}

// A counterexample found at a time step records it, and replays only with
// it: the same choices at every ns mean other waits.
func TestExploreResolutionReplays(t *testing.T) {
	dir := t.TempDir()
	cex := filepath.Join(dir, "cex")
	args := []string{"explore", "--topology", "../../examples/far-pair.yaml", "--allow-out-of-spec", "--clock", "ideal",
		"--timing", "nondet", "--resolution", "10ns", "--counterexamples", cex}
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitFailure, code, stderr)
	assert.Contains(t, strings.SplitN(stdout, "\n", 2)[0], ", choices every 10 ns")
	file := filepath.Join(cex, "stalled.json")
	var recorded explore.ReplayFile
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &recorded))
	assert.Equal(t, int64(10), recorded.ResolutionNs)

	code, stdout, stderr = runCLI(t, "run", "--replay", file, "--json")
	require.Equal(t, exitFailure, code, stderr)
	var run bus.ResultJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, "stalled", run.Generations[0].Outcome)

	recorded.ResolutionNs = 1
	every := filepath.Join(dir, "every-ns.json")
	data, err = json.Marshal(recorded)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(every, data, 0o644))
	code, _, stderr = runCLI(t, "run", "--replay", every)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "the path is of another bus or options")
}
