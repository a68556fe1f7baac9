package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileInputs are the classes of careless and hostile input, each as the
// contents of a file (or, for a path, the path itself): every command that
// reads a file must answer each with a precise error, never a panic, a hang
// or a different result. Interrupts are interrupt_test.go's.
func hostileInputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	unreadable := write("unreadable", "nodes: [{id: a, ports: 1}]\n")
	require.NoError(t, os.Chmod(unreadable, 0))
	return map[string]string{
		"empty":              write("empty", ""),
		"binary":             write("binary", "\x00\x01\xfe\xff\x7fELF\x00\x00garbage\xc3\x28"),
		"huge":               write("huge", strings.Repeat("# a comment line that goes on and on\n", 150_000)),
		"one huge line":      write("huge-line", strings.Repeat("0", 5<<20)),
		"deep JSON":          write("deep.json", strings.Repeat("[", 100_000)),
		"deep YAML":          write("deep.yaml", strings.Repeat("- ", 50_000)+"x\n"),
		"duplicate key":      write("duplicate.yaml", "nodes:\n  - {id: a, ports: 1}\nnodes:\n  - {id: b, ports: 1}\n"),
		"duplicate node":     write("duplicate-node.yaml", "nodes:\n  - {id: a, ports: 1}\n  - {id: a, ports: 1}\n"),
		"unknown field":      write("unknown.yaml", "nodes:\n  - {id: a, ports: 1, colour: red}\n"),
		"out of range":       write("range.yaml", "nodes:\n  - {id: a, ports: 99999999999999999999999}\n"),
		"control characters": write("control.yaml", "nodes:\n  - {id: \"a\\e[31m\\0\", ports: 1}\n"),
		"unreadable":         unreadable,
		"a directory":        dir,
		"missing":            filepath.Join(dir, "no-such-file"),
		"/dev/null":          os.DevNull,
		"/dev/zero":          "/dev/zero",
	}
}

// fileReaders are the commands and flags that read a file, each as the
// arguments that read path.
var fileReaders = map[string]func(path string) []string{
	"run --topology":     func(p string) []string { return []string{"run", "--topology", p} },
	"analyze --topology": func(p string) []string { return []string{"analyze", "--runs", "10", "--topology", p} },
	"sweep --topology": func(p string) []string {
		return []string{"sweep", "--runs", "10", "--param", "delay=10..20:10", "--topology", p}
	},
	"report --topology": func(p string) []string {
		return []string{"report", "--runs", "10", "--out", filepath.Join(filepath.Dir(p), "report"), "--topology", p}
	},
	"elect --topology":     func(p string) []string { return []string{"elect", "--algo", "echo", "--topology", p} },
	"elect --ids":          func(p string) []string { return []string{"elect", "--algo", "echo", "--gen", "chain:4", "--ids", p} },
	"decode":               func(p string) []string { return []string{"decode", p} },
	"crosscheck --capture": func(p string) []string { return []string{"crosscheck", "--capture", p} },
	"crosscheck --topology": func(p string) []string {
		return []string{"crosscheck", "--capture", captures + "ohci-two-resets.log", "--topology", p}
	},
	"merge":                 func(p string) []string { return []string{"merge", p} },
	"linestates":            func(p string) []string { return []string{"linestates", p} },
	"linestates --channels": func(p string) []string { return []string{"linestates", sigrokPair, "--channels", "@" + p} },
}

func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the hostile-input sweep reads files of several MiB")
	}
	dir := t.TempDir()
	inputs := hostileInputs(t, dir)
	rootReads := false
	if f, err := os.Open(inputs["unreadable"]); err == nil {
		f.Close()
		rootReads = true // root reads any file: the class says nothing here
	}
	for reader, args := range fileReaders {
		for class, path := range inputs {
			if class == "unreadable" && rootReads {
				continue
			}
			t.Run(reader+"/"+class, func(t *testing.T) {
				a := args(path)
				code, stdout, stderr := runGuarded(t, 20*time.Second, a)
				require.Equal(t, exitUsage, code, "%q: want a usage error; stdout %.200q, stderr %q", a, stdout, stderr)
				assert.Empty(t, stdout)
				assertOneLineError(t, a[0], stderr)
				// The message names the file, or the flag and the file.
				named := filepath.Base(path)
				if path == captures+"ohci-two-resets.log" {
					named = "topology"
				}
				assert.Contains(t, stderr, named, "the error does not name the file")
			})
		}
	}
	if rootReads {
		t.Log("running as root, which reads files without read permission: the unreadable class was not tried")
	}
}

// The terminal class: names a logic-analyzer capture, its channel map or
// the command line gives (VCD $var names, a CSV's channels, --channels,
// the file's own name) reach the report and the errors escaped: none
// sends a control character to the terminal, whether linestates reads the
// capture or refuses it.
func TestHostileTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	vcd, err := os.ReadFile(sigrokPair)
	require.NoError(t, err)
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	const esc = "\x1b[2J\x1b]0;owned\x07\u009b31m"
	// fwsim's VCD escapes a node's bytes as %XX, which the reader undoes.
	percent := write("percent.vcd", strings.ReplaceAll(string(vcd), " a.p0.", " a%1B%5B2J%07%C2%9B.p0."))
	raw := write("raw.vcd", strings.ReplaceAll(string(vcd), " b.p0.", " b"+esc+".p0."))
	csv, err := os.ReadFile(labCapture)
	require.NoError(t, err)
	csvNames := write("names.csv", strings.Replace(string(csv), "D0, D1, D2, D3", "a"+esc+".p0.tpa.hi, a"+esc+".p0.tpa.lo, a"+esc+".p0.tpb.hi, a"+esc+".p0.tpb.lo", 1))
	channels := "a" + esc + ".p0.tpa.hi=D0,a" + esc + ".p0.tpa.lo=D1,a" + esc + ".p0.tpb.hi=D2,a" + esc + ".p0.tpb.lo=D3"
	named := write("cap"+esc+".vcd", string(vcd))
	// esc as the report shows it (escaped as messages are) and as errors
	// quote it (strconv.Quote).
	const reported, quoted = `\x1b[2J\x1b]0;owned\x07\x9b31m`, `\x1b[2J\x1b]0;owned\a\u009b31m`
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		shown string // what stdout or stderr shows of the name
	}{
		{"VCD names, escaped as fwsim writes them", []string{"linestates", percent, "--gen", "pair"}, exitFailure, `a\x1b[2J\x07\x9b.p0`},
		{"VCD names", []string{"linestates", raw}, exitOK, reported},
		{"CSV channels", []string{"linestates", csvNames}, exitOK, reported},
		{"--channels", []string{"linestates", labCapture, "--channels", channels}, exitOK, reported},
		{"--channels against the emulation", []string{"linestates", labCapture, "--channels", channels, "--gen", "pair"}, exitFailure, reported},
		{"the file's name", []string{"linestates", named}, exitOK, reported},
		{"a channel the capture lacks", []string{"linestates", raw, "--channels", strings.ReplaceAll(channels, "=D", "=D"+esc)}, exitUsage, quoted},
		{"a port out of range", []string{"linestates", write("port.vcd", strings.ReplaceAll(string(vcd), " b.p0.", " b"+esc+".p30."))}, exitUsage, quoted},
		{"not a capture", []string{"linestates", write("escapes", esc+"\n")}, exitUsage, quoted},
		{"a rate", []string{"linestates", write("rate.csv", strings.Replace(string(csv), "24 MHz\n", esc+" MHz\n", 1))}, exitUsage, quoted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runGuarded(t, 20*time.Second, tc.args)
			assert.Equal(t, tc.code, code, stderr)
			if code == exitUsage {
				assert.Empty(t, stdout)
				assertOneLineError(t, "linestates", stderr)
			}
			for _, out := range []string{stdout, stderr} {
				for _, r := range out {
					if unicode.IsControl(r) && r != '\n' {
						assert.Fail(t, fmt.Sprintf("a raw control character %U in %q", r, out))
						break
					}
				}
			}
			assert.Contains(t, stdout+stderr, tc.shown, "the name, escaped")
		})
	}
}

// runGuarded runs args and fails the test, rather than hanging it, when
// they take longer than limit; a panic fails it with the arguments.
func runGuarded(t *testing.T, limit time.Duration, args []string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
		panicked       any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			r.panicked = recover()
			done <- r
		}()
		var out, errOut bytes.Buffer
		r.code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		r.stdout, r.stderr = out.String(), errOut.String()
	}()
	select {
	case r := <-done:
		if r.panicked != nil {
			t.Fatalf("%q panicked: %v", args, r.panicked)
		}
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		t.Fatalf("%q took more than %v", args, limit)
		return 0, "", ""
	}
}

// assertOneLineError checks that msg is one line that names the command
// and holds no control character.
func assertOneLineError(t *testing.T, command, msg string) {
	t.Helper()
	assert.True(t, strings.HasPrefix(msg, "fwsim "+command+": "), "%q", msg)
	assert.Equal(t, 1, strings.Count(msg, "\n"), "not one line: %q", msg)
	assert.True(t, strings.HasSuffix(msg, "\n"), "%q", msg)
	for _, r := range strings.TrimSuffix(msg, "\n") {
		if unicode.IsControl(r) {
			assert.Fail(t, fmt.Sprintf("a raw control character %U in %q", r, msg))
			break
		}
	}
}
