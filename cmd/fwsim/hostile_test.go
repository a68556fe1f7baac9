package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/analysis"
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
		"raw escape":         write("escape.yaml", "nodes:\n  - {id: a\x1b]0;title\a, ports: 1}\n"),
		"latin-1 text":       write("latin1.yaml", "nodes:\n  - {id: caf\xe9, ports: 1}\n"),
		"long YAML key":      write("long-key.yaml", "nodes:\n  - id: a\n    "+strings.Repeat("k", 1100)+": 1\n"),
		"unknown anchor":     write("anchor.yaml", "nodes:\n  - {id: a, ports: 1}\n  - *nope\n"),
		"repeated field":     write("repeated.json", "{\"runs\": 1, \"runs\": 1}\n"),
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
	"merge": func(p string) []string { return []string{"merge", p} },
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

// The strings of a shard that no hash covers (the topology's name) or that
// name nodes reach the terminal escaped: an escape sequence in them set
// the window title and cleared the screen.
func TestMergeEscapesTheShardsStrings(t *testing.T) {
	files := writeShards(t, t.TempDir(), []string{"analyze", "--gen", "pair", "--runs", "20"}, "1/2", "2/2")
	const hostile = "\x1b]0;owned\a\x1b[2J"
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		var s analysis.Summary
		require.NoError(t, json.Unmarshal(b, &s))
		s.Topology = hostile + s.Topology
		s.Roots[hostile+"a"] = s.Roots["a"]
		delete(s.Roots, "a")
		b, err = json.Marshal(&s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, b, 0o644))
	}
	code, stdout, stderr := runCLI(t, "merge", files[0], files[1])
	require.Equal(t, exitOK, code, stderr)
	for _, r := range stdout {
		assert.False(t, unicode.IsControl(r) && r != '\n', "a raw control character %U in %q", r, stdout)
	}
	escaped := `\x1b]0;owned\x07\x1b[2J`
	assert.True(t, strings.HasPrefix(stdout, "analysis of "+escaped+"gen pair: 20 runs"), stdout)
	assert.Contains(t, stdout, "roots:    "+escaped+"a ")
}
