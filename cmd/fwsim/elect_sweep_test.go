package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/lab/election"
)

// The sweep's counts at small sizes are the textbook's, counted here from
// the formulas themselves rather than taken from the sweep's own column.
func TestElectSweepCountsAreTheFormulas(t *testing.T) {
	out := jsonOutput[election.SweepJSON](t, exitOK, "elect", "--sweep", "n=2..60", "--runs", "200")
	assert.Equal(t, []int{2, 5, 10, 20, 50, 60}, out.Sizes)
	require.Len(t, out.Rows, 6*len(out.Sizes))
	for _, r := range out.Rows {
		require.Nil(t, r.Skipped)
		require.NotNil(t, r.Messages)
		n, got := float64(r.N), *r.Messages
		name := r.Algo + " " + r.Graph + " n=" + strconv.Itoa(r.N)
		switch {
		case r.Algo == "chang-roberts" && *r.Case == "best":
			assert.Equal(t, 2*n-1, got, name)
		case r.Algo == "chang-roberts" && *r.Case == "worst":
			assert.Equal(t, n*(n+1)/2, got, name)
		case r.Algo == "chang-roberts":
			// n·H(n) is the expectation: the mean of 200 random rings is
			// within 5% of it and near its confidence interval.
			h := 0.0
			for k := 1; k <= r.N; k++ {
				h += 1 / float64(k)
			}
			require.NotNil(t, r.MessagesCI95)
			assert.InDelta(t, n*h, r.FormulaValue, 1e-9, name)
			assert.InDelta(t, n*h, got, 0.05*n*h, name)
			assert.Equal(t, 200, r.Runs)
			assert.LessOrEqual(t, r.MessagesCI95[0], got, name)
			assert.GreaterOrEqual(t, r.MessagesCI95[1], got, name)
			half := (r.MessagesCI95[1] - r.MessagesCI95[0]) / 2
			assert.InDelta(t, n*h, got, 2*half+1e-9, "%s: n·H(n) within two half-widths of the 95%% interval", name)
		case r.Algo == "echo":
			assert.Equal(t, 3*(n-1), got, name)
		case r.Graph == "ring": // floodmax: E = n cables, D = ⌊n/2⌋
			assert.Equal(t, 2*n*math.Floor(n/2), got, name)
			assert.Equal(t, math.Floor(n/2)+1, *r.Time, name+": decided in round D+1")
		default: // floodmax on a tree: n−1 cables, D+1 rounds
			d := *r.Time - 1
			assert.Equal(t, 2*(n-1)*d, got, name)
		}
		if r.MessagesCI95 == nil {
			assert.Equal(t, r.FormulaValue, got, name)
		}
	}
}

// The worst case is quadratic: sizes whose formula passes --max-messages
// are listed as skipped, not run.
func TestElectSweepSkipsPastTheCap(t *testing.T) {
	out := jsonOutput[election.SweepJSON](t, exitOK, "elect", "--sweep", "n=10..100000", "--algo", "chang-roberts",
		"--ids", "worst", "--max-messages", "100000")
	require.Len(t, out.Rows, 13) // 10, 20, 50, …, 50000, 100000
	for _, r := range out.Rows {
		if r.N <= 200 { // 200·201/2 = 20100
			assert.Nil(t, r.Skipped, r.N)
			continue
		}
		require.NotNil(t, r.Skipped, r.N)
		assert.Nil(t, r.Messages)
		assert.Contains(t, *r.Skipped, "more than --max-messages 100000")
	}
	assert.Equal(t, "the formula gives 5e+09 messages, more than --max-messages 100000", *out.Rows[12].Skipped)
}

func TestElectSweepIsDeterministic(t *testing.T) {
	args := []string{"elect", "--sweep", "n=5..50", "--ids", "average", "--seed", "7", "--runs", "5"}
	code, first, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code, stderr)
	_, again, _ := runCLI(t, args...)
	assert.Equal(t, first, again)
	_, other, _ := runCLI(t, append(args[:len(args):len(args)], "--seed", "8")...)
	assert.NotEqual(t, first, other, "another seed draws other IDs")
	_, unestimated, _ := runCLI(t, append(args[:len(args):len(args)], "--max-duration", "0")...)
	assert.Equal(t, first, unestimated, "the estimate changes no output")
}

// A sweep that would outlast --max-duration is refused within a pilot's
// time (its refusals are TestLongWorkIsRefusedBeforeItStarts's), and
// Ctrl-C during the estimate stops it as it stops the sweep.
func TestElectSweepEstimateIsQuick(t *testing.T) {
	page := filepath.Join(t.TempDir(), "curves.html")
	start := time.Now()
	code, stdout, stderr, _ := runInterrupted(t, 5*time.Second, strings.NewReader(""),
		"elect", "--sweep", "n=10..100", "--runs", "1000000000", "--report", page)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Empty(t, stdout)
	assert.NoFileExists(t, page, "refused before any output")

	// The pilot of the random rings alone takes 50 ms.
	code, _, stderr, _ = runInterrupted(t, 20*time.Millisecond, strings.NewReader(""),
		"elect", "--sweep", "n=10..100", "--runs", "1000000000")
	assert.Equal(t, exitInterrupted, code, stderr)
	// 0 is no limit: the sweep starts, until the interrupt.
	code, _, stderr, _ = runInterrupted(t, 300*time.Millisecond, strings.NewReader(""),
		"elect", "--sweep", "n=10..100", "--runs", "1000000000", "--max-duration", "0")
	assert.Equal(t, exitInterrupted, code, stderr)
}

func TestElectSweepFiles(t *testing.T) {
	dir := t.TempDir()
	page, table := filepath.Join(dir, "curves.html"), filepath.Join(dir, "curves.csv")
	code, stdout, stderr := runCLI(t, "elect", "--sweep", "n=10..100", "--gen", "tree", "--report", page, "--csv", table)
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `\necho +- +tree +100 +297 +- +[0-9.]+ delays +3\(n−1\) +297 +1\.000\n`, stdout)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<svg")
	assert.Contains(t, string(html), "echo on a tree: 3(n−1)")
	text := string(mustRead(t, table))
	assert.True(t, strings.HasPrefix(text, "# fwsim "), text)
	assert.Contains(t, text, "\n# command: fwsim elect --sweep n=10..100 --gen tree --report ")
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	rows, err := r.ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+2*4) // echo and floodmax on trees at 10, 20, 50, 100
	assert.Equal(t, []string{"echo", "", "tree", "100", "1", "297", "297", "297"}, rows[4][:8])
}

func TestElectSweepErrors(t *testing.T) {
	const help = " (see 'fwsim help elect')"
	testUsageErrors(t, []usageError{
		{"no n", []string{"elect", "--sweep", "10..100"}, "fwsim elect: --sweep 10..100: want n=FROM..TO, e.g. n=10..100000" + help},
		{"no range", []string{"elect", "--sweep", "n=10"}, "fwsim elect: --sweep n=10: want n=FROM..TO, e.g. n=10..100000" + help},
		{"not a number", []string{"elect", "--sweep", "n=1e1..100"}, "fwsim elect: --sweep n=1e1..100: FROM and TO are whole numbers of nodes, e.g. n=10..100000" + help},
		{"too small", []string{"elect", "--sweep", "n=1..100"}, "fwsim elect: --sweep n=1..100: the smallest ring or tree has 2 nodes" + help},
		{"too large", []string{"elect", "--sweep", "n=10..16777217"}, "fwsim elect: --sweep n=10..16777217: the largest ring or tree has 16777216 nodes" + help},
		{"inverted", []string{"elect", "--sweep", "n=100..10"}, "fwsim elect: --sweep n=100..10: TO is smaller than FROM" + help},
		{"no runs", []string{"elect", "--sweep", "n=10..100", "--runs", "0"}, "fwsim elect: --runs 0: want at least 1 seed for the random IDs" + help},
		{"no messages", []string{"elect", "--sweep", "n=10..100", "--max-messages", "0"}, "fwsim elect: --max-messages 0: want a positive number of messages" + help},
		{"gen with size", []string{"elect", "--sweep", "n=10..100", "--gen", "ring:8"},
			"fwsim elect: --gen ring:8 with --sweep: want ring or tree, the graph family; the sweep sets the size" + help},
		{"algo without formula", []string{"elect", "--sweep", "n=10..100", "--algo", "lelann"},
			"fwsim elect: --algo lelann with --sweep: want chang-roberts, echo or floodmax, the algorithms with a textbook count" + help},
		{"echo on a ring", []string{"elect", "--sweep", "n=10..100", "--algo", "echo", "--gen", "ring"},
			"fwsim elect: --gen ring with --sweep: echo runs on a tree" + help},
		{"ids for echo", []string{"elect", "--sweep", "n=10..100", "--algo", "echo", "--ids", "worst"},
			"fwsim elect: --ids with --sweep picks Chang–Roberts's case; echo's count does not depend on the IDs" + help},
		{"worst on a tree", []string{"elect", "--sweep", "n=10..100", "--gen", "tree", "--ids", "worst"},
			"fwsim elect: --ids worst with --sweep picks a case of Chang–Roberts, which runs on a ring: not with --gen tree" + help},
		{"bad case", []string{"elect", "--sweep", "n=10..100", "--ids", "ids.txt"},
			"fwsim elect: --ids ids.txt with --sweep: want best, average or worst (or ascending, random, descending)" + help},
		{"trace", []string{"elect", "--sweep", "n=10..100", "--trace-table"},
			"fwsim elect: --trace-table does not go with --sweep, which counts the messages of every node initiating" + help},
		{"topology", []string{"elect", "--sweep", "n=10..100", "--topology", "x.yaml"},
			"fwsim elect: --topology does not go with --sweep" + help[:0]},
		{"runs alone", []string{"elect", "--algo", "echo", "--runs", "3"}, "fwsim elect: --runs goes with --sweep" + help},
		{"csv and json", []string{"elect", "--sweep", "n=10..100", "--csv", "-", "--json"},
			"fwsim elect: --csv - and --json both want standard output: give --csv a file name" + help},
		{"negative duration", []string{"elect", "--sweep", "n=10..100", "--max-duration", "-1h"},
			"fwsim elect: --max-duration -1h: want 0 (no limit) or a positive duration" + help},
		{"not a duration", []string{"elect", "--sweep", "n=10..100", "--max-duration", "soon"},
			"fwsim elect: invalid value \"soon\" for flag --max-duration: want a duration such as 500ms or 10s" + help},
		{"duration alone", []string{"elect", "--algo", "echo", "--max-duration", "1h"}, "fwsim elect: --max-duration goes with --sweep" + help},
	})
}

// Help names the cap and why it is there.
func TestElectSweepHelp(t *testing.T) {
	_, stdout, _ := runCLI(t, "elect", "--help")
	assert.True(t, strings.Contains(stdout, "n = 100000 would be 5·10^9 messages"), stdout)
	assert.Contains(t, stdout, "--max-duration D\n        --sweep: refuse to start when the sweep would take longer than D here")
}

// An interrupted sweep stops before the next size and leaves no file.
func TestElectSweepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	page := filepath.Join(t.TempDir(), "curves.html")
	var out, errOut bytes.Buffer
	code := Run(ctx, []string{"elect", "--sweep", "n=10..100000", "--report", page}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, exitInterrupted, code, errOut.String())
	assert.NoFileExists(t, page)
	assert.Empty(t, out.String())
}
