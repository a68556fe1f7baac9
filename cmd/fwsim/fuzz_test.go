package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzedCommands are the commands FuzzFlagValues drives, each with the
// arguments that make it complete without the fuzzed flag. Flags that name
// files to write are left out: a fuzzer must not create files where it
// likes.
var fuzzedCommands = []struct {
	name  string
	base  func(dir string) []string
	flags []string
}{
	{"run", func(string) []string { return []string{"run"} },
		[]string{"gen", "seed", "profile", "force-root", "initiator", "power-up", "policy", "coin-bias", "timing", "clock", "max-events", "max-trace-events", "vcd-dialect"}},
	{"analyze", func(string) []string { return []string{"analyze", "--quiet"} },
		[]string{"gen", "runs", "workers", "deadline", "shard", "seed", "coin-bias", "timing", "policy", "max-events", "setup-seed"}},
	{"explore", func(string) []string { return []string{"explore", "--max-states", "50"} },
		[]string{"gen", "timing", "phases", "event-window", "deadline", "max-states", "seed", "coin-bias", "clock", "policy"}},
	{"sweep", func(string) []string { return []string{"sweep", "--quiet", "--param", "delay=10..20:10"} },
		[]string{"param", "runs", "deadline", "gen", "workers"}},
	{"report", func(dir string) []string { return []string{"report", "--quiet", "--out", filepath.Join(dir, "report")} },
		[]string{"param", "runs", "deadline", "gen"}},
	{"elect", func(string) []string { return []string{"elect", "--algo", "echo"} },
		[]string{"algo", "gen", "ids", "initiator", "initiators", "crash", "recover", "seed", "max-trace-events"}},
	{"elect", func(string) []string { return []string{"elect", "--sweep", "n=2..20"} },
		[]string{"sweep", "algo", "gen", "ids", "runs", "max-messages", "seed", "compare"}},
	{"mutex", func(string) []string { return []string{"mutex", "--algo", "token-ring", "--gen", "ring:3"} },
		[]string{"algo", "gen", "requests", "cs-time", "think", "seed", "crash", "lose-token-at", "notify", "request-reply", "max-trace-events"}},
	{"multicast", func(string) []string {
		return []string{"multicast", "--algo", "nack", "--messages", "3", "--loss", "0.2"}
	},
		[]string{"algo", "compare", "gen", "messages", "loss", "stop", "seed", "crash", "join", "leave", "trace", "max-trace-events"}},
	{"multicast", func(string) []string {
		return []string{"multicast", "--algo", "vsync", "--messages", "3", "--loss", "0.2", "--join", "n4@1"}
	},
		[]string{"gen", "messages", "crash", "join", "leave"}},
	{"multicast", func(string) []string { return []string{"multicast", "--compare", "--messages", "3", "--loss", "0.2"} },
		[]string{"compare", "algo", "gen", "messages", "loss", "stop", "seed", "crash", "join", "leave", "trace"}},
	{"decode", func(string) []string { return []string{"decode"} }, []string{"format"}},
	{"crosscheck", func(string) []string { return []string{"crosscheck", "--capture", captures + "ohci-two-resets.log"} },
		[]string{"format", "seed", "force-root", "initiator"}},
	{"linestates", func(string) []string { return []string{"linestates", sigrokPair} },
		[]string{"format", "channels", "samplerate", "gen", "seed", "initiator", "force-root", "timing"}},
}

// oddValues are the values every flag of every command is tried with:
// TestFlagValues tries each with each, and they seed FuzzFlagValues.
var oddValues = []string{"1", "0", "-1", "pair", "tree:63:3", "ring:3", "chain:4", "9223372036854775807",
	"18446744073709551616", "1us", "1.5ns", "-2us", "3/8", "0/0", "8/3", "delay=0..440:10", "nodes=2..62:4",
	"a", "n0", "", "\x00", "\x1b[31m", "NaN", "1e309", "random", "max", "ideal", "sigrok", "echo", "all", "descending",
	"firewire-ohci", "tree:2:1", "0.5", "1h", "delay=1..2:0", "contention_ns=2us", "tree_id_ns=", "grid:4", "166us..172us", "nondet",
	"n0@1", "n1@0.5", "@", "a@b@c", "central", "token-ring", "2.5", "1000000.001", "ack", "nack", "0.50001", "1e-320",
	"true", "n0@1000000.001", "vsync", "n4@0.5", "n4@2", "n=10..100000", "n=2..16777217", "worst", "average", "floodmax",
	"one", "staggered"}

// TestFlagValues gives every odd value to every flag of every command, as
// FuzzFlagValues checks any value.
func TestFlagValues(t *testing.T) {
	ctx := cancelled()
	for _, v := range oddValues {
		for ci, c := range fuzzedCommands {
			for _, flag := range c.flags {
				checkFlagValue(t, ctx, uint8(ci), flag, v)
			}
		}
	}
}

// FuzzFlagValues gives any value to any flag of every command. Its seeds
// hold every flag and every odd value once, not each with each (which is
// TestFlagValues' work), so that a short fuzzing pass gets past them to
// inputs of its own.
func FuzzFlagValues(f *testing.F) {
	k := 0
	for ci, c := range fuzzedCommands {
		for _, flag := range c.flags {
			f.Add(uint8(ci), flag, oddValues[k%len(oddValues)])
			k++
		}
	}
	for ; k < len(oddValues); k++ {
		ci := k % len(fuzzedCommands)
		c := fuzzedCommands[ci]
		f.Add(uint8(ci), c.flags[k%len(c.flags)], oddValues[k])
	}
	ctx := cancelled()
	f.Fuzz(func(t *testing.T, command uint8, flag, value string) {
		checkFlagValue(t, ctx, command, flag, value)
	})
}

// cancelled is a context cancelled before any command starts, so each stops
// right after it has read and checked its flags: the checks are explored,
// not long runs.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// checkFlagValue runs a command with value given to flag. Whatever the
// value, the command exits with a documented code and, for a usage error,
// says so in one line naming the command; it never panics.
func checkFlagValue(t *testing.T, ctx context.Context, command uint8, flag, value string) {
	t.Helper()
	c := fuzzedCommands[int(command)%len(fuzzedCommands)]
	args := append(c.base(t.TempDir()), "--"+flag+"="+value)
	var out, errOut bytes.Buffer
	code := Run(ctx, args, strings.NewReader(""), &out, &errOut)
	switch code {
	case exitOK, exitFailure, exitInterrupted:
	case exitIncomplete:
		if c.name != "explore" {
			t.Errorf("%q: exit %d is explore's alone", args, code)
		}
	case exitUsage:
		msg := errOut.String()
		if !strings.HasPrefix(msg, "fwsim "+c.name+": ") || strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
			t.Errorf("%q: a usage error must be one line naming the command, got %q", args, msg)
		}
	default:
		t.Errorf("%q: exit %d, not a documented code; stderr %q", args, code, errOut.String())
	}
}
