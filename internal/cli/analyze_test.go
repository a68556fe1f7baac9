package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/internal/analysis"
)

const prismPair = "../../examples/prism-pair.yaml"

// prismArgs analyse the literature's two-node model in its worst case.
var prismArgs = []string{"analyze", "--topology", prismPair, "--allow-out-of-spec", "--timing", "max",
	"--clock", "ideal", "--runs", "2000", "--deadline", "2us", "--deadline", "4us"}

func TestAnalyzeGolden(t *testing.T) {
	testGoldenCases(t, []goldenCase{
		// No deadline to miss and no failure.
		{name: "pair", args: []string{"analyze", "--gen", "pair", "--runs", "500", "--seed", "3"}, code: exitOK},
		// Deadlines missed in some runs: exit 1.
		{name: "prism-max", args: prismArgs, code: exitFailure},
		// Every run fails: counted, with the metrics never reached.
		{name: "ring3", args: []string{"analyze", "--gen", "ring:3", "--runs", "3", "--deadline", "1ms"}, code: exitFailure},
	}, func(name, format string) string { return filepath.Join("analyze", name+"."+format) })
}

func TestAnalyzePrismAgreesWithThePublishedWorstCase(t *testing.T) {
	code, stdout, stderr := runCLI(t, append(prismArgs, "--json")...)
	require.Equal(t, exitFailure, code, stderr)
	var sum analysis.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	for _, d := range sum.Deadlines {
		if d.Metric != analysis.Contention {
			continue
		}
		published := map[int64]float64{2000: 0.5, 4000: 0.78125}[d.DeadlineNs]
		assert.True(t, d.CI95[0] <= published && published <= d.CI95[1], "%d ns: %v outside %v", d.DeadlineNs, published, d.CI95)
	}
	m := sum.Metrics[analysis.Contention]
	assert.True(t, m.CI95[0] <= 2990 && 2990 <= m.CI95[1], "E[duration] interval %v", m.CI95)
}

// TestAnalyzeIsTheSameAtAnyWorkerCountAndAcrossShards: the bytes of one
// analysis, whatever the workers, and those of its merged shards.
func TestAnalyzeIsTheSameAtAnyWorkerCountAndAcrossShards(t *testing.T) {
	base := []string{"analyze", "--gen", "tree:12:5", "--runs", "300", "--seed", "9", "--deadline", "200us"}
	_, want, _ := runCLI(t, append(base, "--json", "--workers", "1")...)
	_, wantText, _ := runCLI(t, append(base, "--workers", "1")...)
	_, got, _ := runCLI(t, append(base, "--json", "--workers", "3")...)
	assert.Equal(t, want, got)

	dir := t.TempDir()
	var files []string
	for _, k := range []string{"2/3", "3/3", "1/3"} {
		code, out, stderr := runCLI(t, append(base, "--shard", k)...) // JSON without --json
		require.Equal(t, exitOK, code, stderr)
		name := filepath.Join(dir, "shard-"+k[:1]+".json")
		require.NoError(t, os.WriteFile(name, []byte(out), 0o644))
		files = append(files, name)
	}
	code, merged, stderr := runCLI(t, append([]string{"merge", "--json"}, files...)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, want, merged)
	code, mergedText, _ := runCLI(t, append([]string{"merge"}, files...)...)
	require.Equal(t, exitOK, code)
	assert.Equal(t, wantText, mergedText)

	code, _, stderr = runCLI(t, "merge", files[0], files[1])
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim merge: invalid analysis: shard 1/3 is missing\n", stderr)
	// A shard given twice is named by its file.
	code, _, stderr = runCLI(t, "merge", files[2], files[0], files[1], files[0])
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim merge: invalid analysis: shard 2/3 given twice (again in "+files[0]+")\n", stderr)
	code, _, stderr = runCLI(t, "merge", filepath.Join(dir, "nope.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "nope.json: no such file or directory")
	code, _, stderr = runCLI(t, "merge")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "no files to merge")
}

// TestAnalyzeCSVReplays: one row per run, in run order, whose seed makes
// fwsim run replay the run.
func TestAnalyzeCSVReplays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.csv")
	code, _, stderr := runCLI(t, "analyze", "--gen", "pair", "--runs", "70", "--seed", "4", "--csv", path, "--workers", "2")
	require.Equal(t, exitOK, code, stderr)
	rows := readCSV(t, path)
	require.Len(t, rows, 71)
	assert.Equal(t, []string{"run", "seed", "outcome", "tree_id_ns", "self_id_ns", "contention_ns", "contention_rounds", "root"}, rows[0])
	for i, row := range rows[1:] {
		require.Equal(t, strconv.Itoa(i), row[0])
		require.Equal(t, strconv.FormatUint(analysis.RunSeed(4, i), 10), row[1])
	}
	row := rows[43]
	code, out, stderr := runCLI(t, "run", "--gen", "pair", "--seed", row[1], "--json")
	require.Equal(t, exitOK, code, stderr)
	var res struct {
		Generations []struct {
			Root       string `json:"root"`
			Contention []struct {
				StartNs int64 `json:"start_ns"`
				EndNs   int64 `json:"end_ns"`
				Rounds  int   `json:"rounds"`
			} `json:"contention"`
		} `json:"generations"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	g := res.Generations[0]
	assert.Equal(t, row[7], g.Root)
	assert.Equal(t, row[5], strconv.FormatInt(g.Contention[0].EndNs-g.Contention[0].StartNs, 10))
	assert.Equal(t, row[6], strconv.Itoa(g.Contention[0].Rounds))
}

func TestAnalyzeProgressBarOnlyOnATerminal(t *testing.T) {
	args := []string{"analyze", "--gen", "pair", "--runs", "200"}
	_, _, stderr := runCLI(t, args...)
	assert.Empty(t, stderr, "stderr is no terminal in tests")

	saved := stderrIsTerminal
	t.Cleanup(func() { stderrIsTerminal = saved })
	stderrIsTerminal = func(io.Writer) bool { return true }
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "] 100% 200/200 runs")
	assert.True(t, strings.HasSuffix(stderr, "\r"), "the bar is erased at the end")
	assert.NotContains(t, stdout, "\r")
	_, _, stderr = runCLI(t, append(args, "--quiet")...)
	assert.Empty(t, stderr)
}

func TestAnalyzeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gen", "pair", "--topology", prismPair}, "fwsim analyze: --topology and --gen are mutually exclusive (see 'fwsim help analyze')\n"},
		{[]string{"--runs", "0"}, "fwsim analyze: --runs 0: want at least 1 (see 'fwsim help analyze')\n"},
		{[]string{"--workers", "-1"}, "fwsim analyze: --workers -1: want 0 (every core) or more (see 'fwsim help analyze')\n"},
		{[]string{"--shard", "4/3"}, "fwsim analyze: --shard 4/3: want K/N with 1 ≤ K ≤ N, e.g. 3/8 (see 'fwsim help analyze')\n"},
		{[]string{"--runs", "2", "--shard", "1/3"}, "fwsim analyze: --shard 1/3: 3 shards of 2 runs leave some empty (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "-2us"}, "fwsim analyze: invalid value \"-2us\" for flag --deadline: want a positive duration such as 2us or 1.5ms (see 'fwsim help analyze')\n"},
		{[]string{"--timing", "worst"}, "fwsim analyze: invalid value \"worst\" for flag --timing: want random or min or max (see 'fwsim help analyze')\n"},
		{[]string{"--topology", prismPair}, "fwsim analyze: "},
		{[]string{"--gen", "pair", "--csv", filepath.Join(t.TempDir(), "no", "dir.csv")}, "fwsim analyze: --csv: open "},
		{[]string{"stray"}, "fwsim analyze: unexpected argument \"stray\" (analyze takes flags only) (see 'fwsim help analyze')\n"},
		{[]string{"--runs", "ten"}, "fwsim analyze: invalid value \"ten\" for flag --runs: want an integer (see 'fwsim help analyze')\n"},
		{[]string{"--workers", "99999999999999999999"}, "fwsim analyze: invalid value \"99999999999999999999\" for flag --workers: want an integer that fits in 64 bits (see 'fwsim help analyze')\n"},
		{[]string{"--quiet=maybe"}, "fwsim analyze: invalid boolean value \"maybe\" for --quiet: want true or false (see 'fwsim help analyze')\n"},
		// time.ParseDuration would run 1.5ns as 1ns.
		{[]string{"--deadline", "1.5ns"}, "fwsim analyze: invalid value \"1.5ns\" for flag --deadline: want a whole number of nanoseconds, not 1ns and a fraction (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "2us", "--deadline", "2000ns"}, "fwsim analyze: invalid value \"2000ns\" for flag --deadline: the deadline 2µs is given twice; want each once (see 'fwsim help analyze')\n"},
		{[]string{"--csv", ""}, "fwsim analyze: invalid value \"\" for flag --csv: want a non-empty value (see 'fwsim help analyze')\n"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"analyze"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout, tc.args)
		assert.True(t, strings.HasPrefix(stderr, tc.want), "%v: %q", tc.args, stderr)
	}
	// The out-of-spec cable: the hint run gives.
	_, _, stderr := runCLI(t, "analyze", "--topology", prismPair)
	assert.Contains(t, stderr, "rerun with --allow-out-of-spec")
}

// Runs whose budget ends before the first reset measured nothing: each is a
// budget-exhausted failure, never an ok run that took 0 ns.
func TestAnalyzeBudgetBeforeTheFirstReset(t *testing.T) {
	code, stdout, stderr := runCLI(t, "analyze", "--runs", "20", "--max-events", "1", "--json")
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, "fwsim analyze: 20 of 20 runs did not end ok\n", stderr)
	var sum struct {
		Failures map[string]int
		Metrics  map[string]struct{ N, Missing int }
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	assert.Equal(t, 20, sum.Failures["budget-exhausted"])
	assert.Equal(t, 0, sum.Metrics["self_id_ns"].N)
	assert.Equal(t, 20, sum.Metrics["self_id_ns"].Missing)
}

func TestAnalyzeHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "analyze"}, {"analyze", "-h"}, {"help", "merge"}, {"merge", "-h"}} {
		code, stdout, stderr := runCLI(t, args...)
		assert.Equal(t, exitOK, code, args)
		assert.Empty(t, stderr, args)
		name := args[0]
		if name == "help" {
			name = args[1]
		}
		assert.Contains(t, stdout, "Usage: fwsim "+name, args)
		assert.Contains(t, stdout, "Examples:\n  fwsim "+name+" ", args)
	}
}
