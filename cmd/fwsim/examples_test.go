package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/internal/testenv"
)

// helpExamples are the examples of command name's help, each continued line
// joined to the one before.
func helpExamples(t *testing.T, name string) []string {
	code, help, stderr := runCLI(t, "help", name)
	require.Equal(t, exitOK, code, stderr)
	_, block, found := strings.Cut(help, "\nExamples:\n")
	if !found {
		return nil
	}
	return joinContinued(strings.Split(strings.TrimRight(block, "\n"), "\n"))
}

// joinContinued trims lines and joins each that ends in \ to the next, as
// sh reads a continued line.
func joinContinued(lines []string) []string {
	var out []string
	continued := false
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if continued {
			out[len(out)-1] += " " + line
		} else {
			out = append(out, line)
		}
		continued = strings.HasSuffix(line, `\`)
		if continued {
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], `\`)
		}
	}
	return out
}

var (
	exitRemark  = regexp.MustCompile(`\bexit (\d+)\b`)
	needsRemark = regexp.MustCompile(`^needs \S`)
)

// shellWords splits a command line as sh does for the examples: words apart
// by blanks, '…' quoting, and a # that starts a word starting the comment.
// It refuses what the examples must not need (other quotes, $, ;, (, `),
// as a shell would read them otherwise.
func shellWords(t *testing.T, line string) (words []string, comment string) {
	var w strings.Builder
	inWord, quoted := false, false
	for i, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case r == '#' && !inWord:
			return words, strings.TrimSpace(line[i+1:])
		case strings.ContainsRune("\"$;()`\\", r):
			t.Fatalf("example %q: %q is more shell than the test reads", line, r)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "example %q: unclosed quote", line)
	if inWord {
		words = append(words, w.String())
	}
	return words, ""
}

// TestHelpExamplesRun runs every example of every command's help as
// pasted, in order, in one directory that holds examples/ and
// hwtest/testdata/: each must exit as its comment says (0 unless it says
// "exit N"). Pipes, && and > run as in sh; an example whose comment says
// "needs …" (a real bus, another program) is only parsed.
func TestHelpExamplesRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../../examples")))
	require.NoError(t, os.CopyFS(filepath.Join(dir, "hwtest", "testdata"), os.DirFS("../../hwtest/testdata")))
	t.Chdir(dir)
	start := time.Now()
	for _, c := range commands() {
		for _, ex := range helpExamples(t, c.name) {
			words, comment := shellWords(t, ex)
			want := exitOK
			if m := exitRemark.FindStringSubmatch(comment); m != nil {
				want, _ = strconv.Atoi(m[1])
			}
			if needsRemark.MatchString(comment) {
				continue
			}
			began := time.Now()
			assert.Equal(t, want, runExample(t, words), "%s", ex)
			t.Logf("%v\t%s", time.Since(began).Round(time.Millisecond), ex)
		}
	}
	t.Logf("every example: %v", time.Since(start).Round(time.Millisecond))
}

// runExample runs words, commands joined by && and |, the last one's
// output perhaps redirected by > FILE, and returns the exit code of the
// last command run. Every command must be fwsim.
func runExample(t *testing.T, words []string) int {
	code := exitOK
	for _, and := range splitWords(words, "&&") {
		var out bytes.Buffer
		var in []byte
		redirect := ""
		for _, cmd := range splitWords(and, "|") {
			if n := len(cmd); n > 2 && cmd[n-2] == ">" {
				cmd, redirect = cmd[:n-2], cmd[n-1]
			}
			if cmd[0] != "fwsim" {
				t.Errorf("%q: only fwsim runs here; say what else the example needs in its comment, # needs …", cmd)
				return -1
			}
			var args []string
			for _, a := range cmd[1:] {
				if matches, _ := filepath.Glob(a); strings.ContainsRune(a, '*') && len(matches) > 0 {
					args = append(args, matches...)
				} else {
					args = append(args, a)
				}
			}
			out.Reset()
			var errOut bytes.Buffer
			code = Run(context.Background(), args, bytes.NewReader(in), &out, &errOut)
			if code != exitOK {
				t.Logf("%q: exit %d: %s", cmd, code, errOut.String())
			}
			in = bytes.Clone(out.Bytes())
		}
		if redirect != "" {
			require.NoError(t, os.WriteFile(redirect, out.Bytes(), 0o644))
		}
		if code != exitOK {
			return code
		}
	}
	return code
}

// splitWords splits words at every sep.
func splitWords(words []string, sep string) [][]string {
	out := [][]string{nil}
	for _, w := range words {
		if w == sep {
			out = append(out, nil)
			continue
		}
		out[len(out)-1] = append(out[len(out)-1], w)
	}
	return out
}

// readmeExamples are the command lines of README.md's shell blocks, each
// continued line joined to the one before.
func readmeExamples(t *testing.T) []string {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var lines []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
		case strings.HasPrefix(line, "```"):
			inBlock = false
		case inBlock:
			lines = append(lines, line)
		}
	}
	return joinContinued(lines)
}

// readmeRunsAs is how the README's few lines that are more than one
// fwsim command run here: the shard loop as its four commands, and a
// trailing | tail, which only trims what is printed, without it.
var readmeRunsAs = map[string][]string{
	"for k in 1 2 3 4; do go run ./cmd/fwsim analyze --gen pair --runs 100000 --shard $k/4 > shard-$k.json; done": {
		"fwsim analyze --gen pair --runs 100000 --shard 1/4 > shard-1.json",
		"fwsim analyze --gen pair --runs 100000 --shard 2/4 > shard-2.json",
		"fwsim analyze --gen pair --runs 100000 --shard 3/4 > shard-3.json",
		"fwsim analyze --gen pair --runs 100000 --shard 4/4 > shard-4.json",
	},
}

// TestREADMEExamplesRun runs every fwsim command of README.md's shell
// blocks as pasted, in order, in one directory that holds the files they
// read: each must exit as its comment says ("exit N" or "exit code N", 0
// otherwise). Every line is checked to be one the test knows how to run;
// running them all takes about 20 s, so FWSIM_LONG=1 (CI's long pass)
// runs them.
func TestREADMEExamplesRun(t *testing.T) {
	type example struct {
		line  string
		words []string
		want  int
	}
	var examples []example
	for _, line := range readmeExamples(t) {
		switch {
		case strings.HasPrefix(line, "go test ") || strings.HasPrefix(line, "go install "):
			continue // the suite and the install, not fwsim commands
		case strings.HasPrefix(line, "dmesg "):
			continue // needs the kernel log of a machine with FireWire
		}
		lines := readmeRunsAs[line]
		if lines == nil {
			cmd, ok := strings.CutPrefix(line, "go run ./cmd/fwsim ")
			require.True(t, ok, "README line %q: not a fwsim command the test knows how to run", line)
			if before, _, piped := strings.Cut(cmd, " | tail "); piped {
				cmd = before
			}
			lines = []string{"fwsim " + cmd}
		}
		for _, l := range lines {
			words, comment := shellWords(t, l)
			want := exitOK
			if m := readmeExit.FindStringSubmatch(comment); m != nil {
				want, _ = strconv.Atoi(m[1])
			}
			examples = append(examples, example{line, words, want})
		}
	}
	require.NotEmpty(t, examples)
	if !testenv.Long() {
		t.Skipf("%d README commands parsed; running them takes about 20 s: FWSIM_LONG=1 runs them", len(examples))
	}
	dir := t.TempDir()
	for _, d := range []string{"examples", "hwtest/testdata", "view/testdata/golden"} {
		require.NoError(t, os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("../..", d))))
	}
	t.Chdir(dir)
	for _, ex := range examples {
		began := time.Now()
		assert.Equal(t, ex.want, runExample(t, ex.words), "%s", ex.line)
		t.Logf("%v\t%s", time.Since(began).Round(time.Millisecond), ex.line)
	}
}
