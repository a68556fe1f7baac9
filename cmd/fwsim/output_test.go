package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const precious = "precious: not fwsim's to lose\n"

// preciousFile writes precious to name in dir and returns its path.
func preciousFile(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(precious), 0o640))
	return path
}

// assertUntouched checks that path still holds precious, with its mode, and
// that dir holds no temporary file.
func assertUntouched(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the user's file is gone")
	assert.Equal(t, precious, string(data), "the user's file was changed")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
	assertNoTemporaryFiles(t, filepath.Dir(path))
}

func assertNoTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "a temporary file was left behind: %s", e.Name())
	}
}

// Every command that writes files leaves the existing ones as they were
// when it fails before it has produced them.
func TestFailingCommandsKeepExistingFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args func(path string) []string
		code int
	}{
		{"run --vcd, bad --force-root", func(p string) []string {
			return []string{"run", "--gen", "pair", "--force-root", "nope", "--vcd", p}
		}, exitUsage},
		{"run --trace, bad --initiator", func(p string) []string {
			return []string{"run", "--gen", "pair", "--initiator", "nobody", "--trace", p}
		}, exitUsage},
		{"analyze --csv, bad --force-root", func(p string) []string {
			return []string{"analyze", "--gen", "pair", "--runs", "10", "--force-root", "nope", "--csv", p}
		}, exitUsage},
		{"sweep --csv, bad --force-root", func(p string) []string {
			return []string{"sweep", "--gen", "pair", "--runs", "10", "--param", "delay=10..20:10", "--force-root", "nope", "--csv", p}
		}, exitUsage},
		{"decode --emit-topology, unreadable capture", func(p string) []string {
			return []string{"decode", filepath.Join(dir, "no-such-capture.txt"), "--emit-topology", p}
		}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := preciousFile(t, dir, "user.out")
			code, _, stderr := runCLI(t, tc.args(path)...)
			assert.Equal(t, tc.code, code, stderr)
			assertUntouched(t, path)

			// Through a symbolic link: the link and its target both stay.
			link := filepath.Join(dir, "link.out")
			require.NoError(t, os.Symlink(path, link))
			defer os.Remove(link)
			code, _, stderr = runCLI(t, tc.args(link)...)
			assert.Equal(t, tc.code, code, stderr)
			assertUntouched(t, path)
			target, err := os.Readlink(link)
			require.NoError(t, err, "the link was replaced")
			assert.Equal(t, path, target)
		})
	}
}

// A run that succeeds replaces a symbolic link's target, not the link, and
// keeps the target's permissions.
func TestOutputThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	path := preciousFile(t, dir, "bus.dot")
	link := filepath.Join(dir, "link.dot")
	require.NoError(t, os.Symlink("bus.dot", link))
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--dot", link)
	require.Equal(t, exitOK, code, stderr)
	target, err := os.Readlink(link)
	require.NoError(t, err, "the link was replaced by a file")
	assert.Equal(t, "bus.dot", target)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "digraph") || strings.HasPrefix(string(data), "graph"), "%.40s", data)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
	assertNoTemporaryFiles(t, dir)
}

// When one view fails, the others are not put in place either: no file is
// left empty or half-written.
func TestOneFailingViewKeepsTheOthers(t *testing.T) {
	useDot(t, fakeDot(t, 3))
	dir := t.TempDir()
	vcd := preciousFile(t, dir, "bus.vcd")
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--vcd", vcd, "--svg", filepath.Join(dir, "bus.svg"))
	assert.Equal(t, exitOutput, code, stderr)
	assertUntouched(t, vcd)
	assert.NoFileExists(t, filepath.Join(dir, "bus.svg"))
}

// A report that fails keeps the report it replaces whole: its data.csv is
// not deleted while its index.html still links it.
func TestFailingReportKeepsThePreviousOne(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "report", "--out", dir, "--gen", "pair", "--runs", "20")
	require.Equal(t, exitOK, code, stderr)
	before := map[string]string{}
	for _, name := range []string{"index.html", "data.csv"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		before[name] = string(data)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code = Run(ctx, []string{"report", "--out", dir, "--gen", "pair", "--runs", "20", "--seed", "2"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, exitInterrupted, code, errOut.String())
	for name, want := range before {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.Equal(t, want, string(data), name)
	}
	assertNoTemporaryFiles(t, dir)
}

// Special files are written in place and never removed, even when the
// command fails.
func TestSpecialFilesAreWrittenInPlace(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--vcd", os.DevNull)
	assert.Equal(t, exitOK, code, stderr)
	code, _, _ = runCLI(t, "run", "--gen", "pair", "--force-root", "nope", "--vcd", os.DevNull)
	assert.Equal(t, exitUsage, code)
	info, err := os.Stat(os.DevNull)
	require.NoError(t, err, "the device was removed")
	assert.NotZero(t, info.Mode()&os.ModeCharDevice)

	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	code, _, stderr = runCLI(t, "run", "--gen", "pair", "--vcd", "/dev/full")
	assert.Equal(t, exitOutput, code)
	assert.Equal(t, "fwsim run: --vcd /dev/full: write /dev/full: no space left on device\n", stderr)
}

// "-" names standard output only where nothing else is written there.
func TestDashIsStandardOutput(t *testing.T) {
	code, stdout, stderr := runCLI(t, "sweep", "--gen", "pair", "--runs", "5", "--param", "delay=10..20:10", "--csv", "-")
	require.Equal(t, exitOK, code, stderr)
	rows := parseCSV(t, stdout) // the CSV alone: no table
	assert.Equal(t, "delay", rows[0][0])
	assert.Len(t, rows, 3)
	assert.NoFileExists(t, "-")

	code, stdout, stderr = runCLI(t, "run", "--gen", "pair", "--vcd", "-")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `fwsim run: --vcd -: standard output carries the command's report`)
}

// Other paths that cannot be written are refused before the run.
func TestUnwritableOutputPaths(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling.vcd")
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing", "x.vcd"), dangling))
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory: name a file"},
		{dangling, "a symbolic link to a file that does not exist: name the file itself"},
		{filepath.Join(dir, "missing", "x.vcd"), "the directory " + filepath.Join(dir, "missing") + " does not exist"},
	} {
		code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--vcd", tc.path)
		assert.Equal(t, exitUsage, code, tc.path)
		assert.Empty(t, stdout)
		assert.Equal(t, "fwsim run: --vcd "+tc.path+": "+tc.want+"\n", stderr)
	}
	assertNoTemporaryFiles(t, dir)
}

// failingWriter fails every write, as standard output on a full device or
// a closed pipe does.
type failingWriter struct{ writes int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.writes++
	return 0, syscall.ENOSPC
}

// Every command checks its writes to standard output: output that did not
// arrive is never exit 0, in text mode as in JSON mode.
func TestStandardOutputWriteErrors(t *testing.T) {
	shard := filepath.Join(t.TempDir(), "shard.json")
	code, _, stderr := runCLI(t, "analyze", "--gen", "pair", "--runs", "20", "--shard", "1/1", "--quiet")
	require.Equal(t, exitOK, code, stderr)
	_, shardJSON, _ := runCLI(t, "analyze", "--gen", "pair", "--runs", "20", "--shard", "1/1", "--quiet")
	require.NoError(t, os.WriteFile(shard, []byte(shardJSON), 0o644))
	for _, args := range [][]string{
		{"run", "--gen", "pair"},
		{"analyze", "--gen", "pair", "--runs", "20", "--quiet"},
		{"merge", shard},
		{"sweep", "--gen", "pair", "--runs", "5", "--param", "delay=10..20:10", "--quiet"},
		{"elect", "--algo", "echo", "--gen", "chain:4"},
		{"decode", captures + "ohci-two-resets.log"},
		{"crosscheck", "--capture", captures + "ohci-two-resets.log", "--max-states", "0"},
		{"version"},
		{"help", "run"},
	} {
		for _, asJSON := range []bool{false, true} {
			if asJSON && (args[0] == "version" || args[0] == "help") {
				continue
			}
			a := args
			if asJSON {
				a = append([]string{args[0], "--json"}, args[1:]...)
			}
			var out failingWriter
			var errOut bytes.Buffer
			code := Run(context.Background(), a, strings.NewReader(""), &out, &errOut)
			assert.Equal(t, exitOutput, code, "%v: %s", a, errOut.String())
			assert.NotZero(t, out.writes, a)
			assert.Contains(t, errOut.String(), "writing standard output: no space left on device\n", a)
			assert.Equal(t, 1, strings.Count(errOut.String(), "standard output"), "%v: one message: %s", a, errOut.String())
		}
	}
}

func TestWriteErrorIsOutputError(t *testing.T) {
	w := &checkedWriter{w: &failingWriter{}}
	_, err := w.Write([]byte("x"))
	var we *writeError
	require.True(t, errors.As(err, &we))
	assert.ErrorIs(t, err, syscall.ENOSPC)
	_, err2 := w.Write([]byte("y"))
	assert.Equal(t, err, err2, "the first error is kept")
}

// The trace behind --vcd and --trace is held in memory: a run that passes
// its bound stops at once and writes nothing, rather than filling memory
// and disk, or writing a trace cut short.
func TestTraceIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := preciousFile(t, dir, "run.jsonl")
	code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--trace", path, "--max-trace-events", "50")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim run: the run passed --max-trace-events 50, the bound on the trace the --vcd, --trace and --html files "+
		"are written from; no file was written: raise the bound, or lower --max-events\n", stderr)
	assertUntouched(t, path)

	// A coin that never decides would trace until its event budget.
	start := time.Now()
	code, _, _ = runCLI(t, "run", "--gen", "pair", "--coin-bias", "0", "--max-events", "1000000000",
		"--vcd", path, "--max-trace-events", "100000")
	assert.Equal(t, exitUsage, code)
	assert.Less(t, time.Since(start), 5*time.Second)
	assertUntouched(t, path)
}

// Output files are put in place only once standard output, the last thing
// a command writes, has been written: a command that exits 3 because its
// report did not arrive has changed no file.
func TestFailingStandardOutputKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	far := filepath.Join(dir, "far.yaml") // a wire beyond the conditions: explore finds a stall
	require.NoError(t, os.WriteFile(far, []byte("nodes:\n  - {id: a, ports: 1}\n  - {id: b, ports: 1}\ncables:\n  - {from: a:0, to: b:0, delay_ns: 300}\n"), 0o644))
	for _, tc := range []struct {
		name  string
		files []string // in a directory of their own
		args  func(paths []string) []string
	}{
		{"run", []string{"a.vcd", "a.gtkw", "a.jsonl", "a.dot"}, func(p []string) []string {
			return []string{"run", "--gen", "pair", "--vcd", p[0], "--gtkw", p[1], "--trace", p[2], "--dot", p[3]}
		}},
		{"analyze", []string{"runs.csv"}, func(p []string) []string {
			return []string{"analyze", "--gen", "pair", "--runs", "10", "--csv", p[0]}
		}},
		{"sweep", []string{"sweep.csv"}, func(p []string) []string {
			return []string{"sweep", "--gen", "pair", "--runs", "5", "--param", "delay=10..20:10", "--csv", p[0]}
		}},
		{"report", []string{"index.html", "data.csv"}, func(p []string) []string {
			return []string{"report", "--gen", "pair", "--runs", "10", "--out", filepath.Dir(p[0])}
		}},
		{"elect --sweep", []string{"elect.csv", "elect.html"}, func(p []string) []string {
			return []string{"elect", "--sweep", "n=10..20", "--csv", p[0], "--report", p[1]}
		}},
		{"decode", []string{"bus.yaml"}, func(p []string) []string {
			return []string{"decode", captures + "ohci-two-resets.log", "--emit-topology", p[0]}
		}},
		{"explore", []string{"stalled.json"}, func(p []string) []string {
			return []string{"explore", "--topology", far, "--allow-out-of-spec", "--clock", "ideal", "--timing", "max", "--counterexamples", filepath.Dir(p[0])}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			var paths []string
			for _, name := range tc.files {
				paths = append(paths, preciousFile(t, sub, name))
			}
			for _, asJSON := range []bool{false, true} {
				args := tc.args(paths)
				if asJSON && tc.name != "report" {
					args = append(args, "--json")
				}
				var errOut bytes.Buffer
				code := Run(context.Background(), args, strings.NewReader(""), &failingWriter{}, &errOut)
				assert.Equal(t, exitOutput, code, "%q: %s", args, errOut.String())
				assertOneLineError(t, args[0], errOut.String())
				assert.Contains(t, errOut.String(), "writing standard output: no space left on device\n", args)
				assert.NotContains(t, errOut.String(), "wrote", args)
				for _, path := range paths {
					assertUntouched(t, path)
				}
			}
		})
	}
}

// A directory made for the outputs goes again when the command fails or
// is interrupted: nothing is left of a command that wrote nothing.
func TestFailingCommandsLeaveNoDirectory(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report", "nested")
	code, _, stderr, _ := runInterrupted(t, 100*time.Millisecond, strings.NewReader(""),
		"report", "--out", report, "--gen", "pair", "--runs", "100000000")
	assert.Equal(t, exitInterrupted, code, stderr)
	assert.NoDirExists(t, filepath.Join(dir, "report"))

	cex := filepath.Join(dir, "a", "b", "c")
	code, _, stderr, _ = runInterrupted(t, 0, strings.NewReader(""), "explore", "--gen", "pair", "--counterexamples", cex)
	assert.Equal(t, exitInterrupted, code, stderr)
	assert.NoDirExists(t, filepath.Join(dir, "a"), "interrupted")
	explore := []string{"explore", "--gen", "pair", "--timing", "max", "--clock", "ideal", "--counterexamples", cex}
	code, _, stderr = runCLI(t, append(explore, "--force-root", "nope")...)
	assert.Equal(t, exitUsage, code, stderr)
	assert.NoDirExists(t, filepath.Join(dir, "a"), "failed")
	code, _, stderr = runCLI(t, explore...)
	assert.Equal(t, exitOK, code, stderr)
	assert.DirExists(t, cex, "succeeded")
}

// Removing the directories made for the outputs keeps what was there
// before, and what another put in them.
func TestAbortKeepsOthersDirectories(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files := outputs{env: &env{ctx: ctx, stdout: &checkedWriter{w: io.Discard}}}
	require.NoError(t, files.mkdirAll(filepath.Join(made, "empty")))
	require.NoError(t, os.WriteFile(filepath.Join(made, "theirs"), nil, 0o644))
	files.abort()
	assert.NoDirExists(t, filepath.Join(made, "empty"))
	assert.FileExists(t, filepath.Join(made, "theirs"))
	assert.DirExists(t, dir)
}

// A command that does not stop of itself after a signal is abandoned: its
// temporary files and the directories made for it go, the user's file
// stays, and nothing more can be made or committed. A command that has
// committed is not abandoned. Not parallel: abandoning touches every
// command of the process.
func TestAbandonRemovesWhatCommandsMade(t *testing.T) {
	made.Lock()
	made.committed = false
	made.Unlock()
	dir := t.TempDir()
	path := preciousFile(t, dir, "a.vcd")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files := outputs{env: &env{ctx: ctx, stdout: &checkedWriter{w: io.Discard}}}
	require.NoError(t, files.mkdirAll(filepath.Join(dir, "new", "deeper")))
	_, err := files.create("vcd", path)
	require.NoError(t, err)
	_, err = files.create("csv", filepath.Join(dir, "new", "deeper", "b.csv"))
	require.NoError(t, err)
	require.True(t, abandonOutputs())
	assertUntouched(t, path)
	assert.NoDirExists(t, filepath.Join(dir, "new"))
	later := outputs{env: files.env}
	created := make(chan error, 1)
	go func() {
		_, err := later.create("trace", filepath.Join(dir, "c.txt"))
		created <- err
	}()
	select {
	case <-created:
		t.Fatal("an output was made after the command was abandoned")
	case <-time.After(50 * time.Millisecond):
	}
	made.Unlock() // what the process's exit would do instead
	require.NoError(t, <-created)
	require.NoError(t, later.commit())
	assert.False(t, abandonOutputs(), "a command that committed is let finish")
	assert.FileExists(t, filepath.Join(dir, "c.txt"))
	made.Lock()
	made.committed = false
	made.Unlock()
}
