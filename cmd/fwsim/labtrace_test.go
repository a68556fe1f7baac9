package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lab's --trace FILE holds, after its header, the entries the report's
// trace lists with --trace-table, one a line; the report leaves them out
// without --trace-table; and --trace means a file in every command, so the
// next flag is refused as one.
func TestLabTraceFile(t *testing.T) {
	for _, args := range [][]string{
		{"elect", "--algo", "bully", "--gen", "complete:5", "--initiators", "one"},
		{"mutex", "--algo", "token-ring", "--gen", "ring:5", "--requests", "2"},
		{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--stop", "--seed", "3"},
	} {
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
