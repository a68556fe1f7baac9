package main

import (
	"bufio"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labRuns are a run of each lab, on five nodes, with the algorithm and the
// topology at args[2] and args[4].
var labRuns = [][]string{
	{"elect", "--algo", "bully", "--gen", "complete:5", "--initiators", "one"},
	{"mutex", "--algo", "token-ring", "--gen", "ring:5", "--requests", "2"},
	{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--stop", "--seed", "3"},
}

// A lab's --trace FILE holds, after its header, the entries the report's
// trace lists with --trace-table, one a line; the report leaves them out
// without --trace-table; and --trace means a file in every command, so the
// next flag is refused as one.
func TestLabTraceFile(t *testing.T) {
	for _, args := range labRuns {
		t.Run(args[0], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trace.jsonl")
			code, withFile, stderr := runCLI(t, append(args, "--trace", path, "--json")...)
			require.Contains(t, []int{exitOK, exitFailure}, code, stderr)
			_, withTable, stderr := runCLI(t, append(args, "--trace-table", "--json")...)
			var report struct {
				Algo  string            `json:"algo"`
				Seed  uint64            `json:"seed"`
				Trace []json.RawMessage `json:"trace"`
			}
			require.NoError(t, json.Unmarshal([]byte(withTable), &report), stderr)
			require.NotEmpty(t, report.Trace)
			assert.NotContains(t, withFile, `"trace"`, "the report holds the trace only with --trace-table")

			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			require.True(t, sc.Scan())
			var header map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &header))
			assert.Equal(t, args[0], header["command"])
			assert.Equal(t, report.Algo, header["algo"])
			assert.EqualValues(t, report.Seed, header["seed"])
			assert.Equal(t, "delays", header["time_unit"])
			var entries []string
			for sc.Scan() {
				entries = append(entries, sc.Text())
			}
			require.NoError(t, sc.Err())
			require.Len(t, entries, len(report.Trace))
			for i, e := range report.Trace {
				assert.JSONEq(t, string(e), entries[i], "entry %d", i)
			}
		})
	}
	code, _, stderr := runCLI(t, "elect", "--algo", "bully", "--gen", "complete:5", "--trace", "--json")
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.HasPrefix(stderr, "fwsim elect: --trace --json: that is a flag, not a file name"), stderr)
}

// pageData reads the data a --html page plays: its nodes and events.
func pageData(t *testing.T, path string) (title string, nodes []string, events int) {
	t.Helper()
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(page), "<!DOCTYPE html>"), "an HTML page")
	m := regexp.MustCompile(`(?s)<title>(.*?)</title>.*<script id="data" type="application/json">(.*?)</script>`).FindSubmatch(page)
	require.NotNil(t, m, "the page's data")
	var data struct {
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
		Events []json.RawMessage `json:"events"`
	}
	require.NoError(t, json.Unmarshal(m[2], &data))
	for _, n := range data.Nodes {
		nodes = append(nodes, n.ID)
	}
	return html.UnescapeString(string(m[1])), nodes, len(data.Events)
}

// A lab's --html FILE is the page that plays its run: the graph's nodes and
// an event for every message sent and delivered and every node event of
// the trace. It plays one run, so --compare refuses it.
func TestLabHTML(t *testing.T) {
	for _, args := range labRuns {
		t.Run(args[0], func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "run.html")
			code, stdout, stderr := runCLI(t, append(args, "--html", page, "--trace-table", "--json")...)
			require.Contains(t, []int{exitOK, exitFailure}, code, stderr)
			var report struct {
				Trace []struct {
					Event   string   `json:"event"`
					Arrived *float64 `json:"arrived"` // null: lost
				} `json:"trace"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &report))
			want := 0
			for _, e := range report.Trace {
				want++
				if e.Event == "message" && e.Arrived != nil {
					want++ // sent, then delivered
				}
			}
			title, nodes, events := pageData(t, page)
			assert.Equal(t, "fwsim "+args[0]+" --algo "+args[2]+": gen "+args[4], title)
			assert.Equal(t, []string{"n0", "n1", "n2", "n3", "n4"}, nodes)
			assert.Equal(t, want, events)

			code, _, stderr = runCLI(t, args[0], "--compare", "--gen", args[4], "--html", page)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, "--trace, --trace-table and --html follow one run: not with --compare")
		})
	}
}

// A lab's --max-trace-events bounds the trace its outputs are written
// from, as run's does: a run that passes it writes no file (exit 2).
func TestLabTraceIsBounded(t *testing.T) {
	for _, args := range labRuns {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			trace, page := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.html")
			code, stdout, stderr := runCLI(t, append(args, "--trace", trace, "--html", page, "--max-trace-events", "5")...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Regexp(t, `^fwsim `+args[0]+`: trace full: \S+ traced more than 5 entries, the bound of --max-trace-events on the trace that --trace, --trace-table and --html are written from; no file was written: raise the bound, or trace a smaller run\n$`, stderr)
			assert.NoFileExists(t, trace)
			assert.NoFileExists(t, page)
		})
	}
}
