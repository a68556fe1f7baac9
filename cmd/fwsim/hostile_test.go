package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
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

// fifoReaders are the commands and flags that read a file, beyond those
// fileReaders tries every hostile content with.
var fifoReaders = map[string]func(path string) []string{
	"run --replay":          func(p string) []string { return []string{"run", "--replay", p} },
	"linestates --channels": func(p string) []string { return []string{"linestates", "--channels", "@" + p, p} },
	"linestates":            func(p string) []string { return []string{"linestates", p} },
	"mutex --topology":      func(p string) []string { return []string{"mutex", "--algo", "central", "--topology", p} },
}

// fileWriters are the commands and flags that write a file, each as the
// arguments that write path.
var fileWriters = map[string]func(path string) []string{
	"run --vcd":     func(p string) []string { return []string{"run", "--gen", "pair", "--vcd", p} },
	"run --trace":   func(p string) []string { return []string{"run", "--gen", "pair", "--trace", p} },
	"run --dot":     func(p string) []string { return []string{"run", "--gen", "pair", "--dot", p} },
	"analyze --csv": func(p string) []string { return []string{"analyze", "--gen", "pair", "--runs", "10", "--csv", p} },
	"sweep --csv": func(p string) []string {
		return []string{"sweep", "--gen", "pair", "--runs", "10", "--param", "delay=10..20:10", "--csv", p}
	},
	"elect --sweep --csv": func(p string) []string { return []string{"elect", "--sweep", "n=10..20", "--csv", p} },
	"elect --trace":       func(p string) []string { return []string{"elect", "--algo", "lelann", "--gen", "ring:4", "--trace", p} },
	"mutex --trace": func(p string) []string {
		return []string{"mutex", "--algo", "central", "--gen", "ring:4", "--trace", p}
	},
	"multicast --trace": func(p string) []string {
		return []string{"multicast", "--algo", "ack", "--gen", "ring:4", "--trace", p}
	},
	"decode --emit-topology": func(p string) []string {
		return []string{"decode", captures + "ohci-two-resets.log", "--emit-topology", p}
	},
}

// The FIFO class: a FIFO that nothing opens at the other end holds a
// command that opens it, to read or to write, in open(2). Ctrl-C ends the
// wait within half a second, as it ends any other.
func TestHostileFIFOs(t *testing.T) {
	cases := map[string]func(string) []string{}
	for _, m := range []map[string]func(string) []string{fileReaders, fifoReaders, fileWriters} {
		maps.Copy(cases, m)
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "fifo")
			mkfifo(t, fifo)
			a := args(fifo)
			code, stdout, stderr, after := runUntilInterrupted(t, 300*time.Millisecond, a)
			assert.Equal(t, exitInterrupted, code, "%q: %s", a, stderr)
			assert.Empty(t, stdout, a)
			assert.Equal(t, "fwsim "+a[0]+": interrupted; no output file was written or changed\n", stderr, a)
			assert.Less(t, after, 500*time.Millisecond, a)
		})
	}
}

// runUntilInterrupted runs args and cancels their context after wait, as
// Ctrl-C would, and returns what Run returned and how long it took after
// the cancel. Run must still be running at the cancel, and end within
// seconds of it.
func runUntilInterrupted(t *testing.T, wait time.Duration, args []string) (code int, stdout, stderr string, after time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		code           int
		stdout, stderr string
		at             time.Time
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		code := Run(ctx, args, strings.NewReader(""), &out, &errOut)
		done <- result{code, out.String(), errOut.String(), time.Now()}
	}()
	select {
	case r := <-done:
		t.Fatalf("%q ended before the interrupt, with exit %d: %s", args, r.code, r.stderr)
	case <-time.After(wait):
	}
	cancelled := time.Now()
	cancel()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr, r.at.Sub(cancelled)
	case <-time.After(5 * time.Second):
		t.Fatalf("%q still runs 5 s after the interrupt", args)
		return 0, "", "", 0
	}
}

// buildFwsim builds the command into a temporary directory, for what only
// a process of its own can show: how it answers signals.
func buildFwsim(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fwsim")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return path
}

// The signal class: SIGTERM and SIGHUP, which kill, timeout, batch
// schedulers and a closing terminal send, stop every command that writes
// files as Ctrl-C does: the same message, the exit status shells give a
// process the signal killed (128 + its number), the user's file as it was
// and no temporary file left beside it.
func TestHostileSignals(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM and SIGHUP are unix's")
	}
	fwsim := buildFwsim(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		out  string // the existing file the command would replace
		args []string
	}{
		{"run", syscall.SIGTERM, "run.vcd", []string{"run", "--gen", "pair", "--coin-bias", "0", "--max-events", "1000000000", "--vcd"}},
		{"analyze", syscall.SIGHUP, "runs.csv", []string{"analyze", "--gen", "pair", "--runs", "100000000", "--csv"}},
		{"sweep", syscall.SIGTERM, "sweep.csv", []string{"sweep", "--gen", "pair", "--runs", "100000000", "--param", "delay=10..20:10", "--csv"}},
		{"elect --sweep", syscall.SIGHUP, "elect.csv", []string{"elect", "--sweep", "n=10..100000", "--runs", "1000", "--csv"}},
		{"decode", syscall.SIGTERM, "bus.yaml", []string{"decode", "--emit-topology"}}, // waits on stdin
		{"report", syscall.SIGHUP, "index.html", []string{"report", "--gen", "pair", "--runs", "100000000", "--out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := preciousFile(t, dir, tc.out)
			target := path
			if tc.name == "report" {
				target = dir // report writes a directory
			}
			p := startProcess(t, fwsim, append(tc.args, target)...)
			waitForTemporaryFile(t, dir)
			require.NoError(t, p.cmd.Process.Signal(tc.sig))
			code := p.wait(t)
			assert.Equal(t, 128+int(tc.sig), code, p.stderr.String())
			assert.Equal(t, "fwsim "+strings.Fields(tc.name)[0]+": interrupted; no output file was written or changed\n", p.stderr.String())
			assertUntouched(t, path)
		})
	}

	// The process waiting for a FIFO's other end, to read or to write,
	// ends within half a second of the signal.
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"run", "--topology"}},
		{syscall.SIGTERM, []string{"run", "--gen", "pair", "--vcd"}},
	} {
		t.Run(tc.sig.String()+" at a FIFO", func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "fifo")
			mkfifo(t, fifo)
			p := startProcess(t, fwsim, append(tc.args, fifo)...)
			waitInOpen(t, p)
			signalled := time.Now()
			require.NoError(t, p.cmd.Process.Signal(tc.sig))
			assert.Equal(t, 128+int(tc.sig), p.wait(t), p.stderr.String())
			assert.Less(t, time.Since(signalled), 500*time.Millisecond)
			assert.Equal(t, "fwsim run: interrupted; no output file was written or changed\n", p.stderr.String())
		})
	}

	// Building the graph of a million cables does not look at the
	// context; the process still ends within half a second of the signal.
	t.Run("SIGINT while building a graph", func(t *testing.T) {
		t.Parallel()
		p := startProcess(t, fwsim, "elect", "--algo", "floodmax", "--gen", "complete:1448")
		time.Sleep(400 * time.Millisecond)
		signalled := time.Now()
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
		assert.Equal(t, 130, p.wait(t), p.stderr.String())
		assert.Less(t, time.Since(signalled), 500*time.Millisecond)
		assert.Equal(t, "fwsim elect: interrupted; no output file was written or changed\n", p.stderr.String())
	})

	// A command started with SIGHUP ignored, as nohup starts it, outlives
	// the terminal: it keeps running, and stops on SIGTERM.
	t.Run("nohup", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := preciousFile(t, dir, "runs.csv")
		p := startProcess(t, "sh", "-c", `trap "" HUP; exec "$0" "$@"`, fwsim,
			"analyze", "--gen", "pair", "--runs", "100000000", "--csv", path)
		waitForTemporaryFile(t, dir)
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
		select {
		case <-p.done:
			t.Fatalf("SIGHUP stopped a command started with it ignored: %s", p.stderr.String())
		case <-time.After(200 * time.Millisecond):
		}
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
		assert.Equal(t, 143, p.wait(t), p.stderr.String())
		assertUntouched(t, path)
	})
}

// process is a command running as a process of its own.
type process struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan int // its exit status, once it has ended: -1 when a signal killed it
}

// startProcess starts name with args, its standard input a pipe that stays
// open and empty.
func startProcess(t *testing.T, name string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(name, args...), done: make(chan int, 1)}
	stdin, err := p.cmd.StdinPipe()
	require.NoError(t, err)
	p.cmd.Stderr = &p.stderr
	require.NoError(t, p.cmd.Start())
	go func() {
		p.cmd.Wait()
		p.done <- p.cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		stdin.Close()
	})
	return p
}

// wait waits for the process to end, two seconds at most, and returns its
// exit status.
func (p *process) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-p.done:
		return code
	case <-time.After(2 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("%q still runs 2 s after the signal", p.cmd.Args)
		return 0
	}
}

// waitInOpen waits until one of p's threads waits in open(2) for the other
// end of a FIFO, as Linux's /proc shows; elsewhere it gives p 300 ms.
func waitInOpen(t *testing.T, p *process) {
	t.Helper()
	tasks := fmt.Sprintf("/proc/%d/task", p.cmd.Process.Pid)
	if _, err := os.Stat(tasks); err != nil {
		time.Sleep(300 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		wchans, _ := filepath.Glob(filepath.Join(tasks, "*", "wchan"))
		for _, name := range wchans {
			if data, _ := os.ReadFile(name); string(data) == "wait_for_partner" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%q never waited for the FIFO's other end", p.cmd.Args)
}

// waitForTemporaryFile waits until a temporary output file appears in dir
// or below: the command has started writing.
func waitForTemporaryFile(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		found := false
		filepath.WalkDir(dir, func(path string, _ fs.DirEntry, _ error) error {
			found = found || strings.HasSuffix(path, ".tmp")
			return nil
		})
		if found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no temporary file appeared in %s", dir)
}

// The identity class: two outputs that name one file, however spelled,
// would lose one of them. They are refused, naming both flags, and no
// file is written.
func TestHostileOutputIdentity(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("sub", 0o755))
	require.NoError(t, os.Symlink("sub", "sub-link"))
	existing := preciousFile(t, dir, "existing.vcd")
	require.NoError(t, os.Symlink("existing.vcd", "existing-link.vcd"))
	require.NoError(t, os.Link("existing.vcd", "existing-hard.vcd"))
	for _, tc := range []struct {
		name  string
		args  []string
		flags [2]string // the two flags and their paths, as the message names them
	}{
		{"relative and absolute", []string{"run", "--gen", "pair", "--vcd", "new.vcd", "--trace", filepath.Join(dir, "new.vcd")},
			[2]string{"--vcd new.vcd", "--trace " + filepath.Join(dir, "new.vcd")}},
		{"a directory through a symbolic link", []string{"run", "--gen", "pair", "--vcd", "sub/new.vcd", "--dot", "sub-link/new.vcd"},
			[2]string{"--vcd sub/new.vcd", "--dot sub-link/new.vcd"}},
		{"a file through a symbolic link", []string{"run", "--gen", "pair", "--vcd", "existing.vcd", "--trace", "existing-link.vcd"},
			[2]string{"--vcd existing.vcd", "--trace existing-link.vcd"}},
		{"a hard link", []string{"run", "--gen", "pair", "--dot", "existing-hard.vcd", "--vcd", "existing.vcd"},
			[2]string{"--vcd existing.vcd", "--dot existing-hard.vcd"}}, // in the order run opens its files
		{"elect --sweep", []string{"elect", "--sweep", "n=10..20", "--csv", "sweep.csv", "--report", "../" + filepath.Base(dir) + "/sweep.csv"},
			[2]string{"--csv sweep.csv", "--report ../" + filepath.Base(dir) + "/sweep.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, "fwsim "+tc.args[0]+": "+tc.flags[0]+" and "+tc.flags[1]+" name the same file\n", stderr)
			assertUntouched(t, existing)
			for _, name := range []string{"new.vcd", "sub/new.vcd", "sweep.csv"} {
				assert.NoFileExists(t, name)
			}
			assertNoTemporaryFiles(t, "sub")
		})
	}
}

// The umask class: a new output file gets the permissions 0666 less the
// umask, a new directory 0777 less the umask, as any program's do; an
// existing file keeps its own.
func TestHostileUmask(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		umask           int
		file, directory os.FileMode
	}{{0o077, 0o600, 0o700}, {0o002, 0o664, 0o775}, {0o027, 0o640, 0o750}} {
		t.Run(fmt.Sprintf("%04o", tc.umask), func(t *testing.T) {
			setUmask(t, tc.umask)
			vcd := filepath.Join(dir, fmt.Sprintf("new-%o.vcd", tc.umask))
			code, _, stderr := runCLI(t, "run", "--gen", "pair", "--vcd", vcd)
			require.Equal(t, exitOK, code, stderr)
			assertMode(t, tc.file, vcd)

			report := filepath.Join(dir, fmt.Sprintf("report-%o", tc.umask), "nested")
			code, _, stderr = runCLI(t, "report", "--gen", "pair", "--runs", "10", "--out", report)
			require.Equal(t, exitOK, code, stderr)
			assertMode(t, tc.directory, filepath.Dir(report))
			assertMode(t, tc.directory, report)
			for _, name := range []string{"index.html", "data.csv", firstRunVCD, firstRunGTKW} {
				assertMode(t, tc.file, filepath.Join(report, name))
			}

			existing := filepath.Join(dir, "existing.csv")
			require.NoError(t, os.WriteFile(existing, nil, 0o600))
			require.NoError(t, os.Chmod(existing, 0o604))
			code, _, stderr = runCLI(t, "analyze", "--gen", "pair", "--runs", "10", "--csv", existing)
			require.Equal(t, exitOK, code, stderr)
			assertMode(t, 0o604, existing)
		})
	}
}

func assertMode(t *testing.T, want os.FileMode, path string) {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, want, info.Mode().Perm(), "%s: %04o", path, info.Mode().Perm())
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

// The memory class: work the documented sizes allow but the memory budget
// does not fit is refused before anything is built, quickly and with the
// estimate, naming --max-memory; a bad budget is a usage error; and a
// protocol that floods its links stops at its event budget instead of
// filling the machine.
func TestHostileMemoryBudgets(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--gen", "chain:16777216", "--allow-out-of-spec"}, exitUsage,
			`^fwsim run: --gen chain:16777216: a bus of 16777216 nodes and 16777215 cables would take about 48GiB of memory, more than --max-memory 4GiB: `},
		{[]string{"analyze", "--gen", "tree:2000000", "--allow-out-of-spec", "--max-memory", "1GB"}, exitUsage,
			`^fwsim analyze: --gen tree:2000000: a bus of 2000000 nodes and 1999999 cables would take about 5\.7GiB of memory, more than --max-memory 953\.7MiB: `},
		{[]string{"elect", "--compare", "--gen", "complete:2048", "--max-memory", "512MiB"}, exitUsage,
			`^fwsim elect: --gen complete:2048: a graph of 2048 nodes and 2096128 cables would take about 58\d(\.\d)?MiB of memory, more than --max-memory 512MiB: `},
		{[]string{"mutex", "--algo", "central", "--gen", "tree:16777216"}, exitUsage,
			`^fwsim mutex: --gen tree:16777216: a graph of 16777216 nodes and 16777215 cables would take about 7(\.\d)?GiB of memory, more than --max-memory 4GiB: `},
		{[]string{"explore", "--gen", "tree:12", "--timing", "nondet", "--phases", "grid:4", "--max-states", "1000000", "--max-memory", "1GiB"}, exitUsage,
			`more than the memory budget of 1024 MiB`},
		{[]string{"elect", "--sweep", "n=10..16777216"}, exitUsage,
			`^fwsim elect: --sweep n=10..16777216: a graph of 16777216 nodes and 16777216 cables would take about 7(\.\d)?GiB of memory, more than --max-memory 4GiB: `},
		{[]string{"run", "--max-memory", "12"}, exitUsage, `^fwsim run: invalid value "12" for flag --max-memory: want a size from 1MiB to 4EiB`},
		{[]string{"multicast", "--algo", "ack", "--max-memory", "1.5 TB", "--max-memory", "NaNGiB"}, exitUsage, `invalid value "NaNGiB" for flag --max-memory`},
	} {
		code, stdout, stderr := runGuarded(t, 2*time.Second, tc.args)
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, stderr)
		assert.Empty(t, stdout, tc.args)
		assertOneLineError(t, tc.args[0], stderr)
		assert.Regexp(t, tc.want, stderr, tc.args)
	}
}

// A closed standard output is what the Go runtime makes of it before
// fwsim starts: /dev/null, as README's "Files, errors and Ctrl-C" says.
// The report is discarded, and the command succeeds as with > /dev/null;
// were the runtime to leave the descriptor closed, the write would fail
// and this would exit 3.
func TestClosedStandardOutputIsDevNull(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell's >&- is unix's")
	}
	fwsim := buildFwsim(t)
	cmd := exec.Command("sh", "-c", `exec "$0" run --gen pair >&-`, fwsim)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	require.NoError(t, err, stderr.String())
	assert.Empty(t, stderr.String())
}
