package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runInterrupted runs args, cancelling their context after delay as SIGINT
// would (before they start when delay is 0), and returns what Run returned and how long it took after the
// cancel.
func runInterrupted(t *testing.T, delay time.Duration, stdin io.Reader, args ...string) (code int, stdout, stderr string, after time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	if delay == 0 {
		cancel()
	} else {
		timer := time.AfterFunc(delay, func() { cancelled = time.Now(); cancel() })
		defer timer.Stop()
	}
	var out, errOut bytes.Buffer
	code = Run(ctx, args, stdin, &out, &errOut)
	if !cancelled.IsZero() {
		after = time.Since(cancelled)
	}
	return code, out.String(), errOut.String(), after
}

// Every command stops on SIGINT with exit 130 and one line on stderr.
func TestEveryCommandStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	_, shardJSON, _ := runCLI(t, "analyze", "--gen", "pair", "--runs", "20", "--shard", "1/1", "--quiet")
	shard := filepath.Join(dir, "shard.json")
	require.NoError(t, os.WriteFile(shard, []byte(shardJSON), 0o644))
	for _, args := range [][]string{
		{"run", "--gen", "pair"},
		{"analyze", "--gen", "pair", "--runs", "1000000"},
		{"sweep", "--gen", "pair", "--runs", "100000", "--param", "delay=10..20:10"},
		{"report", "--out", filepath.Join(dir, "report"), "--gen", "pair", "--runs", "1000000"},
		{"elect", "--algo", "echo", "--gen", "chain:4"},
		{"elect", "--compare", "--gen", "ring:8"},
		{"mutex", "--algo", "central", "--gen", "ring:5"},
		{"multicast", "--algo", "ack", "--gen", "ring:5"},
		{"merge", shard},
		{"decode"},        // from stdin
		{"decode", shard}, // from a file
		{"crosscheck", "--capture", captures + "ohci-two-resets.log"},
	} {
		// Cancelled before it starts: the command stops at its first check.
		code, stdout, stderr, _ := runInterrupted(t, 0, strings.NewReader("0x807f8c56\n"), args...)
		assert.Equal(t, exitInterrupted, code, "%v: %s", args, stderr)
		assert.Equal(t, "fwsim "+args[0]+": interrupted; no output file was written or changed\n", stderr, args)
		assert.Empty(t, stdout, args)
	}
	assertNoTemporaryFiles(t, dir)
}

// A long run stops within a fraction of a second of SIGINT, not at its
// end: a coin that always says SLOW contends until the event budget.
func TestLongRunsStopOnInterrupt(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--gen", "pair", "--coin-bias", "0", "--max-events", "1000000000", "--vcd", filepath.Join(t.TempDir(), "x.vcd")},
		{"analyze", "--gen", "pair", "--coin-bias", "0", "--max-events", "1000000000", "--runs", "4", "--workers", "1"},
		{"elect", "--algo", "chang-roberts", "--gen", "ring:4000", "--ids", "descending"},
		{"mutex", "--algo", "ricart-agrawala", "--gen", "complete:300", "--requests", "100"},
		{"multicast", "--algo", "srm", "--gen", "ring:2000", "--messages", "1000", "--loss", "0.3"},
	} {
		code, stdout, stderr, after := runInterrupted(t, 100*time.Millisecond, strings.NewReader(""), args...)
		assert.Equal(t, exitInterrupted, code, "%v: %s", args, stderr)
		assert.Empty(t, stdout, args)
		assert.Less(t, after, time.Second, args)
	}
}

// A read that waits for input that never comes (a terminal, a stalled
// pipe) does not hold the command past SIGINT.
func TestWaitingForInputStopsOnInterrupt(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	code, _, stderr, after := runInterrupted(t, 50*time.Millisecond, r, "decode")
	assert.Equal(t, exitInterrupted, code, stderr)
	assert.Less(t, after, time.Second)
}

// The interrupt message starts on a line of its own, not on the progress
// bar's.
func TestInterruptClearsTheProgressBar(t *testing.T) {
	saved := isTerminal
	t.Cleanup(func() { isTerminal = saved })
	isTerminal = func(io.Writer) bool { return true }
	code, _, stderr, _ := runInterrupted(t, 200*time.Millisecond, strings.NewReader(""),
		"analyze", "--gen", "pair", "--runs", "10000000", "--workers", "1")
	require.Equal(t, exitInterrupted, code, stderr)
	require.Contains(t, stderr, "runs", "no progress bar was drawn")
	before, _, ok := strings.Cut(stderr, "fwsim analyze: interrupted")
	require.True(t, ok, stderr)
	assert.Regexp(t, "\r +\r$", before, "the bar was not erased before the message")
}
