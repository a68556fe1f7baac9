package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// runCLI runs the command line args and returns the exit code, stdout and
// stderr.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// jsonOutput runs args with --json, checks the exit code and decodes the
// output strictly into T: every field the output has, T must know.
func jsonOutput[T any](t *testing.T, wantCode int, args ...string) T {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(args, "--json")...)
	require.Equal(t, wantCode, code, stderr)
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var out T
	require.NoError(t, dec.Decode(&out))
	return out
}

// goldenCase is a command whose text and --json output are pinned by
// golden files.
type goldenCase struct {
	name string
	args []string
	code int
	// stderr is the exact diagnostic of a failure; "" accepts any line that
	// names the command.
	stderr string
}

// testGoldenCases runs every case twice, as text and with --json, checks
// its exit code and stderr, compares stdout with the golden file
// path(name, format) names, and checks that a second run gives the same bytes.
func testGoldenCases(t *testing.T, cases []goldenCase, path func(name, format string) string) {
	for _, tc := range cases {
		for _, format := range []string{"txt", "json"} {
			t.Run(tc.name+"."+format, func(t *testing.T) {
				args := tc.args
				if format == "json" {
					args = append(args[:len(args):len(args)], "--json")
				}
				code, stdout, stderr := runCLI(t, args...)
				require.Equal(t, tc.code, code, "stderr: %s", stderr)
				switch {
				case tc.code == exitOK:
					assert.Empty(t, stderr)
				case tc.stderr != "":
					assert.Equal(t, tc.stderr, stderr)
				default:
					assert.True(t, strings.HasPrefix(stderr, "fwsim "+args[0]+": "), stderr)
				}
				golden(t, path(tc.name, format), stdout)

				_, again, _ := runCLI(t, args...)
				assert.Equal(t, stdout, again, "a second run differs")
			})
		}
	}
}

// usageError is a command line that must fail with exit code 2 and one line
// on stderr that starts with want.
type usageError struct {
	name string
	args []string
	want string // the whole stderr line, or its start
}

func testUsageErrors(t *testing.T, cases []usageError) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.True(t, strings.HasPrefix(stderr, tc.want), "stderr %q\nwant prefix %q", stderr, tc.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "want one line, got %q", stderr)
			assert.NotContains(t, stderr, "goroutine")
		})
	}
}

// readCSV reads the whole CSV file at path, after checking that it starts
// with fwsim's three comment lines (csvPreamble), which it leaves out.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return parseCSV(t, string(data))
}

// csvForGolden is a CSV of fwsim with what varies from machine to machine
// in its preamble replaced: the version line and path, the file's name.
func csvForGolden(t *testing.T, text, path string) string {
	t.Helper()
	parseCSV(t, text)
	first, rest, _ := strings.Cut(text, "\n")
	require.True(t, strings.HasPrefix(first, "# fwsim "))
	return "# fwsim VERSION\n" + strings.ReplaceAll(rest, path, "FILE")
}

// parseCSV is readCSV of text.
func parseCSV(t *testing.T, text string) [][]string {
	t.Helper()
	lines := strings.SplitN(text, "\n", 4)
	require.Len(t, lines, 4, "a CSV of fwsim has a preamble and a header:\n%.300s", text)
	assert.Regexp(t, `^# fwsim \S`, lines[0])
	assert.Regexp(t, `^# command: fwsim `, lines[1])
	assert.Regexp(t, `^# seed \d+, profile [a-z0-9-]+, timing `, lines[2])
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	rows, err := r.ReadAll()
	require.NoError(t, err)
	return rows
}

// golden compares got with testdata/name, or rewrites the file with -update.
// The fwsim version in JSON, which names the Go release, reads VERSION.
func golden(t *testing.T, name, got string) {
	t.Helper()
	version, _ := json.Marshal(bus.FwsimVersion())
	got = strings.ReplaceAll(got, `"fwsim_version": `+string(version), `"fwsim_version": "VERSION"`)
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./cmd/fwsim -update")
	assert.Equal(t, string(want), got, "output differs from %s; if the change is intended, run go test ./cmd/fwsim -update and review the diff", path)
}

func TestNoArgumentsPrintsUsageAndFails(t *testing.T) {
	code, stdout, stderr := runCLI(t)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "Usage: fwsim <command> [flags]")
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runCLI(t, args...)
		assert.Equal(t, exitOK, code, args)
		assert.Empty(t, stderr, args)
		for _, c := range commands() {
			assert.Contains(t, stdout, "\n  "+c.name+" ", "%v: command %s not listed", args, c.name)
			assert.Contains(t, stdout, c.summary, args)
		}
	}
}

// flagHelp runs "fwsim help name" and returns the help text and the help
// of each flag, by flag name.
func flagHelp(t *testing.T, name string) (help string, flags map[string]string) {
	t.Helper()
	code, help, stderr := runCLI(t, "help", name)
	require.Equal(t, exitOK, code, name)
	require.Empty(t, stderr, name)
	flags = map[string]string{}
	for _, block := range strings.Split(help, "\n  --")[1:] {
		flag, _, _ := strings.Cut(block, " ")
		flag, _, _ = strings.Cut(flag, "\n")
		flags[flag] = block
	}
	return help, flags
}

// TestHelpOfEveryCommand holds every command to the conventions of the
// command line: a usage line, an example of every flag that uses it, lines
// that fit a terminal, and -h giving the same text as "fwsim help".
func TestHelpOfEveryCommand(t *testing.T) {
	for _, c := range commands() {
		help, flags := flagHelp(t, c.name)
		assert.Contains(t, help, "Usage: fwsim "+c.name, c.name)
		for flag, block := range flags {
			assert.Contains(t, block, "e.g. ", "%s: help gives no example of --%s", c.name, flag)
			assert.Contains(t, block, "--"+flag, "%s: the example of --%s does not use it", c.name, flag)
		}
		for _, line := range strings.Split(help, "\n") {
			assert.LessOrEqual(t, len([]rune(line)), 100, "%s: help line too long: %q", c.name, line)
		}
		code, again, _ := runCLI(t, c.name, "-h") // "help -h" explains help too
		assert.Equal(t, exitOK, code, c.name)
		assert.Equal(t, help, again, c.name)
	}
}

func TestUnknownCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "bogus", "--json")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	// The list names every command in table order: run first, help last.
	listed := regexp.MustCompile(`^fwsim: unknown command "bogus" \(commands: (run, [a-z, ]+, help); see 'fwsim help'\)\n$`).FindStringSubmatch(stderr)
	require.NotNil(t, listed, stderr)
	assert.Len(t, strings.Split(listed[1], ", "), len(commands()))

	code, stdout, stderr = runCLI(t, "help", "bogus")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim help: unknown command \"bogus\" (commands: "+listed[1]+")\n", stderr)

	code, stdout, stderr = runCLI(t, "help", "run", "version")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "want at most one command")
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "version")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	assert.Regexp(t, `^fwsim (\(devel\)|v\S+)( go\S+)?\n$`, stdout)
	for _, flag := range []string{"--version", "-version", "-v"} {
		code, again, stderr := runCLI(t, flag)
		assert.Equal(t, exitOK, code, flag)
		assert.Empty(t, stderr, flag)
		assert.Equal(t, stdout, again, flag)
	}

	code, stdout, stderr = runCLI(t, "version", "extra")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `fwsim version: unexpected argument "extra"`)
}

func TestDoubleDash(t *testing.T) {
	fs := newFlags("x", "Usage: fwsim x")
	fs.Bool("json", false, "")
	fs.Var(newUint64(new(uint64), 0), "seed", "")
	fs.Int("runs", 1, "")
	fs.Duration("for", 0, "")
	for _, tc := range []struct{ args, want string }{
		{"--bogus", "flag provided but not defined: --bogus"},
		{"--seed", "flag needs an argument: --seed"},
		{"--seed=x", `invalid value "x" for flag --seed: want an unsigned integer`},
		// The flag package's own reasons say what it wanted.
		{"--json=maybe", `invalid boolean value "maybe" for --json: want true or false`},
		{"--runs=1.5", `invalid value "1.5" for flag --runs: want an integer`},
		{"--for=3", `invalid value "3" for flag --for: want a duration such as 500ms or 10s`},
	} {
		err := fs.Parse([]string{tc.args})
		require.Error(t, err, tc.args)
		assert.Equal(t, tc.want, fs.doubleDash(err.Error()), tc.args)
	}
}
