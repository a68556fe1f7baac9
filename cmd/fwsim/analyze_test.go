package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
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
		if d.Metric != bus.MetricContention {
			continue
		}
		published := map[int64]float64{2000: 0.5, 4000: 0.78125}[d.DeadlineNs]
		assert.True(t, d.CI95[0] <= published && published <= d.CI95[1], "%d ns: %v outside %v", d.DeadlineNs, published, d.CI95)
	}
	m := sum.Metrics[bus.MetricContention]
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
	files := writeShards(t, dir, base, "2/3", "3/3", "1/3")
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

// writeShards runs the analysis args as each of the shards, K/N, and writes
// the outputs to dir as shard-K.json, whose paths it returns.
func writeShards(t *testing.T, dir string, args []string, shards ...string) []string {
	t.Helper()
	var files []string
	for _, k := range shards {
		code, out, stderr := runCLI(t, append(args, "--shard", k)...) // JSON without --json
		require.Equal(t, exitOK, code, stderr)
		name := filepath.Join(dir, "shard-"+strings.Split(k, "/")[0]+".json")
		require.NoError(t, os.WriteFile(name, []byte(out), 0o644))
		files = append(files, name)
	}
	return files
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

	saved := isTerminal
	t.Cleanup(func() { isTerminal = saved })
	isTerminal = func(io.Writer) bool { return true }
	code, stdout, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "] 100% 200/200 runs")
	assert.True(t, strings.HasSuffix(stderr, "\r"), "the bar is erased at the end")
	assert.NotContains(t, stdout, "\r")
	_, _, stderr = runCLI(t, append(args, "--quiet")...)
	assert.Empty(t, stderr)

	// Rows streaming to the terminal are the progress; the bar would
	// break their lines. To a file, they leave the bar as it was.
	code, stdout, stderr = runCLI(t, append(args, "--csv", "-")...)
	require.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "\n199,")
	_, _, stderr = runCLI(t, append(args, "--csv", filepath.Join(t.TempDir(), "runs.csv"))...)
	assert.Contains(t, stderr, "] 100% 200/200 runs")
}

func TestAnalyzeBadInput(t *testing.T) {
	noDir := filepath.Join(t.TempDir(), "no", "dir.csv")
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
		{[]string{"--gen", "pair", "--csv", noDir}, "fwsim analyze: --csv " + noDir + ": the directory " + filepath.Dir(noDir) + " does not exist\n"},
		{[]string{"stray"}, "fwsim analyze: unexpected argument \"stray\" (analyze takes flags only) (see 'fwsim help analyze')\n"},
		{[]string{"--runs", "ten"}, "fwsim analyze: invalid value \"ten\" for flag --runs: want an integer (see 'fwsim help analyze')\n"},
		{[]string{"--workers", "99999999999999999999"}, "fwsim analyze: invalid value \"99999999999999999999\" for flag --workers: want an integer that fits in 64 bits (see 'fwsim help analyze')\n"},
		{[]string{"--quiet=maybe"}, "fwsim analyze: invalid boolean value \"maybe\" for --quiet: want true or false (see 'fwsim help analyze')\n"},
		// time.ParseDuration would run 1.5ns as 1ns.
		{[]string{"--deadline", "1.5ns"}, "fwsim analyze: invalid value \"1.5ns\" for flag --deadline: want a whole number of nanoseconds, not 1ns and a fraction (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "2us", "--deadline", "2000ns"}, "fwsim analyze: invalid value \"2000ns\" for flag --deadline: the deadline 2µs is given twice; want each once (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "rounds=2us"}, "fwsim analyze: invalid value \"rounds=2us\" for flag --deadline: metric \"rounds\": want tree_id_ns, self_id_ns, contention_ns, or no METRIC= for every one (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "contention_ns=2", "--gen", "pair"}, "fwsim analyze: invalid value \"contention_ns=2\" for flag --deadline: want a positive duration such as 2us or 1.5ms (see 'fwsim help analyze')\n"},
		{[]string{"--deadline", "2us", "--deadline", "self_id_ns=2000ns"}, "fwsim analyze: invalid value \"self_id_ns=2000ns\" for flag --deadline: the deadline self_id_ns=2µs is given twice, as 2µs too (a DUR with no METRIC= is one of every metric); want each once (see 'fwsim help analyze')\n"},
		{[]string{"--csv", ""}, "fwsim analyze: invalid value \"\" for flag --csv: want a non-empty value (see 'fwsim help analyze')\n"},
		// Once the runs' chunks overflowed and the analysis claimed these
		// runs with n=0 everywhere, or a shard's slice went negative.
		{[]string{"--runs", "9223372036854775807"}, "fwsim analyze: --runs 9223372036854775807: at most 9007199254740992, because the statistics count runs exactly only up to 2^53 (see 'fwsim help analyze')\n"},
		{[]string{"--runs", "9000000000000000000", "--shard", "2/3"}, "fwsim analyze: --runs 9000000000000000000: at most 9007199254740992, because "},
		{[]string{"--max-duration", "-1h"}, "fwsim analyze: --max-duration -1h: want 0 (no limit) or a positive duration (see 'fwsim help analyze')\n"},
		{[]string{"--setup-seed", "-1"}, "fwsim analyze: invalid value \"-1\" for flag --setup-seed: want a positive integer (see 'fwsim help analyze')\n"},
		{[]string{"--setup-seed", "0"}, "fwsim analyze: invalid value \"0\" for flag --setup-seed: want a positive integer (see 'fwsim help analyze')\n"},
		{[]string{"--seed", "0"}, "fwsim analyze: invalid value \"0\" for flag --seed: want a positive integer (see 'fwsim help analyze')\n"},
		{[]string{"--max-duration", "soon"}, "fwsim analyze: invalid value \"soon\" for flag --max-duration: want a duration such as 500ms or 10s (see 'fwsim help analyze')\n"},
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

// Work that would outlast --max-duration is refused before it starts, in
// one line giving the estimate: 10^12 runs of a pair take weeks on one
// core (days on a core ten times as fast). Each command runs under a context that ends after seconds, so that
// only a refusal ends it with exit 2.
func TestLongWorkIsRefusedBeforeItStarts(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--gen", "pair", "--workers", "1", "--runs", "1000000000000"},
			`^fwsim analyze: 1000000000000 runs would take about [\d.]+ days here \(timed from the first runs\), more than --max-duration 24h; give a longer --max-duration, or 0 for no limit \(see 'fwsim help analyze'\)\n$`},
		{[]string{"analyze", "--gen", "pair", "--workers", "1", "--runs", "4000000000000", "--shard", "2/4", "--max-duration", "1h30m"},
			`^fwsim analyze: shard 2/4 of 4000000000000 runs would take about [\d.]+ days here \(timed from the first runs\), more than --max-duration 1h30m; `},
		{[]string{"analyze", "--gen", "pair", "--workers", "1", "--runs", "100000", "--max-duration", "1ms"},
			`^fwsim analyze: 100000 runs would take about [\d.]+ (milliseconds|seconds) here`},
		// The first point alone is past the limit: the second goes untimed.
		{[]string{"sweep", "--gen", "pair", "--workers", "1", "--param", "delay=10..20:10", "--runs", "1000000000000"},
			`^fwsim sweep: 2 points × 1000000000000 runs would take at least [\d.]+ days here \(timed from the first runs\), more than --max-duration 24h; `},
		{[]string{"report", "--out", report, "--gen", "pair", "--workers", "1", "--runs", "1000000000000"},
			`^fwsim report: 1000000000000 runs would take about [\d.]+ days here`},
		// 10^9 runs of random rings of 10 to 100 nodes take days; without
		// random IDs there is no --runs to lower, only the sizes. The limit
		// is 2m, as a lower bound just past it is then written in minutes
		// (view.Roughly writes less than two minutes in seconds).
		{[]string{"elect", "--sweep", "n=10..100", "--runs", "1000000000"},
			`^fwsim elect: --sweep n=10\.\.100 with --runs 1000000000 would take (about|at least) [\d.]+ (hours|days) here \(timed from the first runs of each case\), more than --max-duration 24h; lower --runs or TO, or give a longer --max-duration, or 0 for no limit \(see 'fwsim help elect'\)\n$`},
		{[]string{"elect", "--sweep", "n=10..100000", "--ids", "worst", "--max-messages", "1000000000000", "--max-duration", "2m"},
			`^fwsim elect: --sweep n=10\.\.100000 would take (about|at least) [\d.]+ (minutes|hours|days) here \(timed from the first runs of each case\), more than --max-duration 2m; lower TO, or give `},
		{[]string{"elect", "--sweep", "n=10..1000", "--max-duration", "1ms"},
			`^fwsim elect: --sweep n=10\.\.1000 with --runs 10 would take (about|at least) [\d.]+ (milliseconds|seconds) here`},
	} {
		code, stdout, stderr, _ := runInterrupted(t, 5*time.Second, strings.NewReader(""), tc.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		assert.Empty(t, stdout, tc.args)
		assert.Regexp(t, tc.want, stderr, tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	assert.NoDirExists(t, report, "refused before any output")

	// 0 is no limit: the runs start, until the interrupt.
	code, _, stderr, _ := runInterrupted(t, 300*time.Millisecond, strings.NewReader(""),
		"analyze", "--gen", "pair", "--runs", "1000000000000", "--max-duration", "0")
	assert.Equal(t, exitInterrupted, code, stderr)
}

// The estimate changes no output: the same flags give the same bytes with
// it and without.
func TestTheEstimateChangesNoOutput(t *testing.T) {
	args := []string{"analyze", "--gen", "tree:12:5", "--runs", "300", "--seed", "9", "--deadline", "200us", "--json"}
	code, with, _ := runCLI(t, args...)
	codeWithout, without, stderr := runCLI(t, append(args, "--max-duration", "0")...)
	assert.Equal(t, code, codeWithout, stderr)
	assert.Equal(t, with, without)
}

// A shard file whose counts no analysis can give is refused, naming the
// file and the field: a count of 2^62 once merged into absurd statistics
// with exit 0.
func TestMergeRefusesInconsistentShards(t *testing.T) {
	files := writeShards(t, t.TempDir(), []string{"analyze", "--gen", "pair", "--runs", "40"}, "1/2", "2/2")
	b, err := os.ReadFile(files[1])
	require.NoError(t, err)
	var s analysis.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	s.Metrics[bus.MetricContention].Hist[0].Count = 1 << 62
	b, err = json.Marshal(&s)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(files[1], b, 0o644))
	code, stdout, stderr := runCLI(t, append([]string{"merge"}, files...)...)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim merge: "+files[1]+": invalid analysis: metrics.contention_ns.histogram[0]: count 4611686018427387904: want 1 to 20, the 20 runs less the 0 in the bins before\n", stderr)
}

// Shards carry schema_version and fwsim_version; merge takes shards of
// another fwsim with the same schema version, and refuses another schema
// version, or none, by name.
func TestMergeChecksTheSchemaVersion(t *testing.T) {
	files := writeShards(t, t.TempDir(), []string{"analyze", "--gen", "pair", "--runs", "40"}, "1/2", "2/2")
	b, err := os.ReadFile(files[1])
	require.NoError(t, err)
	var s analysis.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, bus.SchemaVersion, s.SchemaVersion)
	require.Equal(t, bus.FwsimVersion(), s.FwsimVersion)
	rewrite := func(edit func(*analysis.Summary)) {
		c := s
		edit(&c)
		b, err := json.Marshal(&c)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(files[1], b, 0o644))
	}
	rewrite(func(c *analysis.Summary) { c.FwsimVersion = "v0.9.0 go1.26.0" })
	code, _, stderr := runCLI(t, append([]string{"merge"}, files...)...)
	assert.Equal(t, exitOK, code, stderr)

	rewrite(func(c *analysis.Summary) { c.SchemaVersion, c.FwsimVersion = bus.SchemaVersion+1, "v9.0.0" })
	code, stdout, stderr := runCLI(t, append([]string{"merge"}, files...)...)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, fmt.Sprintf("fwsim merge: %s: invalid analysis: schema_version %d (fwsim v9.0.0), but this fwsim reads %d; run it again with the same fwsim\n",
		files[1], bus.SchemaVersion+1, bus.SchemaVersion), stderr)

	rewrite(func(c *analysis.Summary) { c.SchemaVersion = 0 })
	code, _, stderr = runCLI(t, append([]string{"merge"}, files...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, files[1]+": invalid analysis: no schema_version: written by an fwsim older than schema version 1; run it again with this one\n")
}

// FuzzAnalyzeRunsAndShard gives --runs and --shard any values together, as
// FuzzFlagValues gives each alone. The context is cancelled before the
// command starts, so it stops once its flags are checked: it refuses the
// values in one line, or accepts exactly what the analysis can run.
func FuzzAnalyzeRunsAndShard(f *testing.F) {
	for _, tc := range [][2]string{{"9223372036854775807", "1/1"}, {"9000000000000000000", "2/3"}, {"9007199254740992", "3/9007199254740992"},
		{"9007199254740993", "1/2"}, {"2", "1/3"}, {"100", "3/8"}, {"-1", ""}, {"0x10", "+1/16"}, {"1_000", "1/1"}} {
		f.Add(tc[0], tc[1])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.Fuzz(func(t *testing.T, runs, shard string) {
		var out, errOut bytes.Buffer
		code := Run(ctx, []string{"analyze", "--quiet", "--gen", "pair", "--runs=" + runs, "--shard=" + shard}, strings.NewReader(""), &out, &errOut)
		// As the flag package reads an int flag.
		n, errRuns := strconv.ParseInt(runs, 0, strconv.IntSize)
		sh, errShard := analysis.ParseShard(shard)
		valid := errRuns == nil && errShard == nil && 1 <= n && n <= analysis.MaxRuns && int64(sh.N) <= n
		msg := errOut.String()
		switch code {
		case exitInterrupted:
			assert.True(t, valid, "--runs %q --shard %q accepted", runs, shard)
		case exitUsage:
			assert.False(t, valid, "--runs %q --shard %q refused: %s", runs, shard, msg)
			assert.True(t, strings.HasPrefix(msg, "fwsim analyze: ") && strings.Count(msg, "\n") == 1 && strings.HasSuffix(msg, "\n"),
				"a usage error is one line naming the command: %q", msg)
		default:
			t.Errorf("--runs %q --shard %q: exit %d; stderr %q", runs, shard, code, msg)
		}
	})
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
	// The limits are said up front, wherever the flags are.
	for _, name := range []string{"analyze", "sweep", "report"} {
		_, stdout, _ := runCLI(t, "help", name)
		assert.Contains(t, stdout, "--runs N\n        run N initialisations, at most 2^53 (the most the statistics count exactly),\n", name)
		assert.Contains(t, stdout, "--max-duration D\n        refuse to start when the runs would take longer than D here", name)
	}
}

// --csv means the same in analyze and sweep: FILE is written as well as the
// summary; - puts the rows on standard output instead of it.
func TestAnalyzeCSVMeaning(t *testing.T) {
	args := []string{"analyze", "--gen", "pair", "--runs", "20", "--seed", "4"}
	_, summary, _ := runCLI(t, args...)
	path := filepath.Join(t.TempDir(), "runs.csv")
	code, stdout, stderr := runCLI(t, append(args, "--csv", path)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, summary, stdout)
	fromFile := readCSV(t, path)
	assert.Len(t, fromFile, 21)

	code, stdout, stderr = runCLI(t, append(args, "--csv", "-")...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, fromFile, parseCSV(t, stdout), "the same rows, and nothing else")
	assert.Contains(t, stdout, "# seed 4, profile 1394-1995, ")

	code, stdout, stderr = runCLI(t, append(args, "--csv", "-", "--json")...)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "--csv - and --json both want standard output: give --csv a file name")

	code, stdout, stderr = runCLI(t, append(args, "--csv", "-", "--shard", "1/2")...)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "--csv - and --shard both want standard output: give --csv a file name")
}

// A deadline of one metric is reported for it alone, and the stderr line of
// the exit 1 names it; on the bus fwsim explore explores (--setup-seed as
// its --seed), the probability explore computes exactly lies in Monte
// Carlo's Wilson interval.
func TestAnalyzeDeadlineOfOneMetricAgreesWithExplore(t *testing.T) {
	type deadline struct {
		Metric     string  `json:"metric"`
		DeadlineNs int64   `json:"deadline_ns"`
		P          float64 `json:"p"`
	}
	var exact struct {
		Deadlines []deadline `json:"deadlines"`
	}
	code, stdout, stderr := runCLI(t, "explore", "--gen", "pair", "--seed", "1", "--deadline", "contention_ns=2us", "--json")
	require.Equal(t, exitFailure, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &exact))
	require.Len(t, exact.Deadlines, 1)
	p := exact.Deadlines[0].P
	require.True(t, p > 0 && p < 1, "explore: %v", p)

	args := []string{"analyze", "--gen", "pair", "--setup-seed", "1", "--runs", "4000", "--deadline", "contention_ns=2us"}
	code, stdout, stderr = runCLI(t, append(args, "--json")...)
	require.Equal(t, exitFailure, code, stderr)
	var sum analysis.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	require.Len(t, sum.Deadlines, 1)
	d := sum.Deadlines[0]
	assert.Equal(t, bus.MetricContention, d.Metric)
	assert.Equal(t, int64(2000), d.DeadlineNs)
	assert.True(t, d.CI95[0] <= p && p <= d.CI95[1], "explore's %v outside analyze's Wilson interval %v (%d of %d)", p, d.CI95, d.Met, d.Of)
	assert.Equal(t, fmt.Sprintf("fwsim analyze: contention_ns > 2µs in %d of %d runs\n", d.Of-d.Met, d.Of), stderr)

	_, text, _ := runCLI(t, args...)
	assert.Contains(t, text, "2µs        contention_ns")
	assert.NotContains(t, text, "tree_id_ns    0.", "no deadline of tree_id_ns")
	assert.Equal(t, 1, strings.Count(text, "2µs"), text)
}

// Shards of per-metric deadlines merge into what the unsharded analysis
// prints, exit code and reason included; with another deadline they do not
// merge.
func TestMergeOfDeadlinesOfOneMetric(t *testing.T) {
	base := []string{"analyze", "--gen", "pair", "--runs", "200", "--deadline", "contention_ns=2us", "--deadline", "200us"}
	wantCode, want, wantErr := runCLI(t, base...)
	require.Equal(t, exitFailure, wantCode, wantErr)
	dir := t.TempDir()
	files := writeShards(t, dir, base, "1/2", "2/2")
	code, got, stderr := runCLI(t, append([]string{"merge"}, files...)...)
	assert.Equal(t, wantCode, code)
	assert.Equal(t, want, got)
	assert.Equal(t, strings.Replace(wantErr, "fwsim analyze:", "fwsim merge:", 1), stderr)

	other := writeShards(t, t.TempDir(), []string{"analyze", "--gen", "pair", "--runs", "200", "--deadline", "self_id_ns=2us", "--deadline", "200us"}, "2/2")
	code, _, stderr = runCLI(t, "merge", files[0], other[0])
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "has other deadlines than "+files[0])
}
