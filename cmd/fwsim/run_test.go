package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/view/player"
)

const hotplugExample = "../../examples/hotplug.yaml"

// goldenRuns are the fixed (topology, seed) pairs whose output the golden
// files pin, text and JSON.
var goldenRuns = []goldenCase{
	{name: "default", args: []string{"run"}, code: exitOK}, // seed 1: the README's command
	{name: "pair-seed7", args: []string{"run", "--gen", "pair", "--seed", "7"}, code: exitOK},
	{name: "ring3", args: []string{"run", "--gen", "ring:3"}, code: exitFailure, // a loop: config-timeout
		stderr: "fwsim run: 1 of 1 generations did not end ok\n"},
	{name: "hotplug", args: []string{"run", "--topology", hotplugExample}, code: exitOK},
	// A mixed bus whose gap counts disagree: a warning, and still ok.
	{name: "mixed-bus", args: []string{"run", "--topology", "../../examples/mixed-bus.yaml"}, code: exitOK},
}

func TestRunGolden(t *testing.T) {
	testGoldenCases(t, goldenRuns, func(name, format string) string { return "run-" + name + "." + format })
}

func TestRunDefaultIsTheDefaultExample(t *testing.T) {
	_, fromDefault, _ := runCLI(t, "run", "--json")
	code, fromFile, stderr := runCLI(t, "run", "--json", "--topology", "../../examples/default.yaml")
	require.Equal(t, exitOK, code, stderr)
	var a, b map[string]any
	require.NoError(t, json.Unmarshal([]byte(fromDefault), &a))
	require.NoError(t, json.Unmarshal([]byte(fromFile), &b))
	delete(a, "topology")
	delete(b, "topology")
	assert.Equal(t, a, b)
}

func TestRunSeedChangesThePair(t *testing.T) {
	// Drop the header line, which names the seed, and compare what happened.
	body := func(seed string) string {
		code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--seed", seed)
		require.Equal(t, exitOK, code, stderr)
		_, rest, _ := strings.Cut(stdout, "\n")
		return rest
	}
	first := body("1")
	for _, seed := range []string{"2", "3", "4", "5", "6", "7", "8", "9", "10"} {
		if body(seed) != first {
			return
		}
	}
	t.Fatal("seeds 1 to 10 all give the same run of --gen pair")
}

func TestRunFlagSpellings(t *testing.T) {
	_, want, _ := runCLI(t, "run", "--gen", "pair", "--seed", "7")
	for _, args := range [][]string{
		{"run", "--gen=pair", "--seed=7"},
		{"run", "-gen", "pair", "-seed", "7"},
		{"run", "--seed", "7", "--gen", "pair"},
	} {
		code, got, stderr := runCLI(t, args...)
		assert.Equal(t, exitOK, code, "%v: %s", args, stderr)
		assert.Equal(t, want, got, args)
	}
}

func TestRunErrors(t *testing.T) {
	testUsageErrors(t, []usageError{
		{"unknown flag", []string{"run", "--bogus"},
			"fwsim run: flag provided but not defined: --bogus (see 'fwsim help run')"},
		{"topology and gen", []string{"run", "--topology", "x.yaml", "--gen", "pair"},
			"fwsim run: --topology and --gen are mutually exclusive (see 'fwsim help run')"},
		{"missing file", []string{"run", "--topology", "testdata/no-such-file.yaml"},
			"fwsim run: topology file testdata/no-such-file.yaml: no such file or directory"},
		{"malformed file", []string{"run", "--topology", "testdata/malformed.yaml"},
			`fwsim run: testdata/malformed.yaml:6: nodes[1].ports: want an integer, got "two"`},
		{"bad gen spec", []string{"run", "--gen", "mesh:4"},
			`fwsim run: bad generator spec "mesh:4": unknown kind "mesh" (want chain:N, star:N, tree:N[:SEED], ring:N, complete:N or pair)`},
		{"gen size", []string{"run", "--gen", "chain:0"},
			`fwsim run: bad generator spec "chain:0": chain needs a size from 1 to 16777216 (want chain:N, star:N, tree:N[:SEED], ring:N, complete:N or pair)`},
		{"unknown profile", []string{"run", "--profile", "1394c"},
			`fwsim run: invalid value "1394c" for flag --profile: want 1394-1995, 1394a-2000, 1394b-2002 or prism (see 'fwsim help run')`},
		{"unknown force-root node", []string{"run", "--force-root", "printer"},
			`fwsim run: --force-root: unknown node "printer" (the bus has pc, hub, camera, disk1, disk2, audio)`},
		{"unknown initiator", []string{"run", "--gen", "chain:3", "--initiator", "n1", "--initiator", "n7"},
			`fwsim run: --initiator: unknown node "n7" (the bus has n0, n1, n2)`},
		{"initiator twice", []string{"run", "--initiator", "pc", "--initiator", "pc"},
			`fwsim run: invalid value "pc" for flag --initiator: "pc" is given twice; want each once (see 'fwsim help run')`},
		{"coin bias above 1", []string{"run", "--coin-bias", "1.5"},
			`fwsim run: invalid value "1.5" for flag --coin-bias: want a probability from 0 to 1, e.g. 0.25 or 1/4 (see 'fwsim help run')`},
		{"coin bias not a number", []string{"run", "--coin-bias", "NaN"},
			`fwsim run: invalid value "NaN" for flag --coin-bias: want a probability from 0 to 1, e.g. 0.25 or 1/4 (see 'fwsim help run')`},
		{"timing", []string{"run", "--timing", "bogus"},
			`fwsim run: invalid value "bogus" for flag --timing: want random or min or max (see 'fwsim help run')`},
		{"clock", []string{"run", "--clock", "bogus"},
			`fwsim run: invalid value "bogus" for flag --clock: want cycle or ideal (see 'fwsim help run')`},
		{"policy", []string{"run", "--policy", "smaller-id-wins"},
			`fwsim run: invalid value "smaller-id-wins" for flag --policy: want coin or larger-id-wins (see 'fwsim help run')`},
		{"negative seed", []string{"run", "--seed", "-1"},
			`fwsim run: invalid value "-1" for flag --seed: want a positive integer (see 'fwsim help run')`},
		{"zero seed", []string{"run", "--seed", "0"},
			`fwsim run: invalid value "0" for flag --seed: want a positive integer (see 'fwsim help run')`},
		{"missing value", []string{"run", "--gen"},
			"fwsim run: flag needs an argument: --gen (see 'fwsim help run')"},
		{"stray argument", []string{"run", "--gen", "pair", "extra"},
			`fwsim run: unexpected argument "extra" (run takes flags only) (see 'fwsim help run')`},
		{"stray argument first", []string{"run", "pair"},
			`fwsim run: unexpected argument "pair" (run takes flags only) (see 'fwsim help run')`},
		// An empty value is a mistake, not a request for the default bus.
		{"empty gen", []string{"run", "--gen", ""},
			`fwsim run: invalid value "" for flag --gen: want a non-empty value (see 'fwsim help run')`},
		{"empty topology", []string{"run", "--topology", ""},
			`fwsim run: invalid value "" for flag --topology: want a non-empty value (see 'fwsim help run')`},
		{"empty view file", []string{"run", "--svg", ""},
			`fwsim run: invalid value "" for flag --svg: want a non-empty value (see 'fwsim help run')`},
		// bus.Options takes 0 for the default budget; on the command line it is a typo.
		{"zero max events", []string{"run", "--max-events", "0"},
			`fwsim run: invalid value "0" for flag --max-events: want a positive integer (see 'fwsim help run')`},
		{"out of spec", []string{"run", "--gen", "chain:20"},
			"fwsim run: --gen chain:20: cables: the bus is 19 cable hops across"},
	})
}

// A budget too small to reach the first reset leaves no generation: that
// is a failure, not "every generation ended ok". (A PHY's first event
// starts its reset: here a scripted event at 0 ns comes first.)
func TestRunBudgetBeforeTheFirstReset(t *testing.T) {
	topo := filepath.Join(t.TempDir(), "config-at-0.yaml")
	require.NoError(t, os.WriteFile(topo, []byte(`nodes: [{id: a, ports: 1}, {id: b, ports: 1}]
cables: [{from: "a:0", to: "b:0"}]
events: [{at: 0s, phy_config: {node: a, gap_count: 7}}]
`), 0o644))
	code, _, stderr := runCLI(t, "run", "--max-events", "1", "--topology", topo)
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, "fwsim run: the budget of --max-events 1 ran out before the first bus reset began\n", stderr)
}

func TestRunOutOfSpecNamesTheFlag(t *testing.T) {
	_, _, stderr := runCLI(t, "run", "--gen", "chain:20")
	assert.True(t, strings.HasSuffix(stderr, "; rerun with --allow-out-of-spec\n"), stderr)

	code, stdout, stderr := runCLI(t, "run", "--gen", "chain:20", "--allow-out-of-spec")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "\nOUT OF SPEC: cables: the bus is 19 cable hops across")

	out := runJSONOutput(t, exitOK, "run", "--gen", "chain:20", "--allow-out-of-spec")
	assert.NotEmpty(t, out.OutOfSpec)
}

// runFlags are every flag of "fwsim run", which help must explain.
var runFlags = []string{"topology", "gen", "seed", "profile", "force-root", "initiator", "power-up", "policy",
	"coin-bias", "timing", "clock", "nominal-timers", "allow-out-of-spec", "max-events", "max-memory", "until", "traffic", "replay", "json", "vcd", "vcd-dialect", "gtkw", "trace", "max-trace-events", "dot", "svg", "html"}

func TestRunHelp(t *testing.T) {
	help, flags := flagHelp(t, "run")
	assert.ElementsMatch(t, runFlags, slices.Collect(maps.Keys(flags)))
	assert.Contains(t, help, "\nExamples:\n  fwsim run\n")
	for _, args := range [][]string{{"run", "-h"}, {"run", "--help"}, {"run", "--gen", "pair", "-help"}} {
		code, stdout, stderr := runCLI(t, args...)
		assert.Equal(t, exitOK, code, args)
		assert.Empty(t, stderr, args)
		assert.Equal(t, help, stdout, args)
	}
}

func TestRunOutputFitsIn100Columns(t *testing.T) {
	for _, args := range [][]string{{"run"}, {"run", "--gen", "pair"}, {"run", "--gen", "tree:30:5"}} {
		_, stdout, _ := runCLI(t, args...)
		for _, line := range strings.Split(stdout, "\n") {
			assert.LessOrEqual(t, len([]rune(line)), 100, "%v: line too long: %q", args, line)
		}
	}
}

// runJSONOutput runs "fwsim run" args with --json and decodes the output.
func runJSONOutput(t *testing.T, wantCode int, args ...string) bus.ResultJSON {
	t.Helper()
	return jsonOutput[bus.ResultJSON](t, wantCode, args...)
}

func TestRunJSONFieldOrder(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--json")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []string{
		"schema_version", "fwsim_version", "topology", "seed", "profile", "policy", "coin_bias", "force_root", "power_up", "initiators", "awaiting_connect", "timing", "clock", "out_of_spec",
		"outcome", "problems", "warnings", "root", "nodes", "self_ids", "timing_ns", "contention", "links", "config_timeouts",
		"generations", "events", "end_ns",
	}, topLevelKeys(t, stdout))

	var doc struct {
		Generations []json.RawMessage `json:"generations"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	require.Len(t, doc.Generations, 1)
	assert.Equal(t, []string{
		"index", "start_ns", "end_ns", "cause", "cause_kind", "cause_node", "cause_event", "outcome", "problems", "warnings", "root", "nodes", "self_ids",
		"timing_ns", "contention", "links", "config_timeouts", "bus_manager",
	}, topLevelKeys(t, string(doc.Generations[0])))
}

// topLevelKeys lists the keys of the JSON object in data, in order.
func topLevelKeys(t *testing.T, data string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		key, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, key.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

func TestRunJSONTopLevelIsTheFirstGeneration(t *testing.T) {
	out := runJSONOutput(t, exitOK, "run", "--topology", hotplugExample)
	require.Greater(t, len(out.Generations), 1)
	assert.Equal(t, out.Generations[0].GenerationJSON, out.GenerationJSON)
	for i, g := range out.Generations {
		assert.Equal(t, i, g.Index)
		assert.Equal(t, "ok", g.Outcome)
	}
}

func TestRunJSONNulls(t *testing.T) {
	out := runJSONOutput(t, exitFailure, "run", "--gen", "ring:3")
	assert.Equal(t, "config-timeout", out.Outcome)
	assert.NotEmpty(t, out.Problems)
	assert.Nil(t, out.Root)
	assert.Empty(t, out.SelfIDs)
	assert.NotNil(t, out.TimingNs.ResetEnd)
	assert.Nil(t, out.TimingNs.TreeIDDone)
	assert.Nil(t, out.TimingNs.SelfIDDone)
	require.Len(t, out.Nodes, 3)
	for _, n := range out.Nodes {
		assert.Nil(t, n.PhyID, n.ID)
		assert.Nil(t, n.ParentPort, n.ID)
		assert.Equal(t, []string{"ncon", "ncon"}, n.Ports, n.ID)
	}

	// Empty lists are [] rather than null (seed 7: no root contention).
	_, stdout, _ := runCLI(t, "run", "--json", "--seed", "7")
	assert.Contains(t, stdout, "\n  \"out_of_spec\": [],\n")
	assert.Contains(t, stdout, "\n  \"problems\": [],\n")
	assert.Contains(t, stdout, "\n  \"contention\": [],\n")
}

func TestRunOptionsReachTheRun(t *testing.T) {
	t.Run("policy larger-id-wins makes b root", func(t *testing.T) {
		for _, seed := range []string{"1", "2", "3", "4"} {
			out := runJSONOutput(t, exitOK, "run", "--gen", "pair", "--policy", "larger-id-wins", "--seed", seed)
			assert.Equal(t, "larger-id-wins", out.Policy)
			require.NotNil(t, out.Root)
			assert.Equal(t, "b", *out.Root, "seed %s", seed)
		}
	})
	t.Run("coin bias 0 never picks fast", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--coin-bias", "0", "--max-events", "2000", "--json")
		require.NotEqual(t, exitUsage, code, stderr)
		var out bus.ResultJSON
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		require.NotEmpty(t, out.Contention)
		for _, b := range out.Contention[0].Backoffs {
			assert.False(t, b.Fast)
		}
	})
	t.Run("timing min pins fast waits to the window's bound", func(t *testing.T) {
		waits := map[int64]bool{}
		for _, seed := range []string{"1", "2", "3", "4", "5", "6"} {
			out := runJSONOutput(t, exitOK, "run", "--gen", "pair", "--timing", "min", "--clock", "ideal", "--seed", seed)
			assert.Equal(t, "min", out.Timing)
			assert.Equal(t, "ideal", out.Clock)
			for _, c := range out.Contention {
				for _, b := range c.Backoffs {
					if b.Fast {
						waits[b.WaitNs] = true
					}
				}
			}
		}
		assert.Len(t, waits, 1, "fast waits at --timing min --clock ideal: %v", waits)
	})
	t.Run("force root", func(t *testing.T) {
		out := runJSONOutput(t, exitOK, "run", "--gen", "chain:3", "--force-root", "n0")
		require.NotNil(t, out.Root)
		assert.Equal(t, "n0", *out.Root)
	})
	t.Run("initiator", func(t *testing.T) {
		out := runJSONOutput(t, exitOK, "run", "--gen", "chain:3", "--initiator", "n2")
		assert.Equal(t, "reset from n2", out.Generations[0].Cause)
		for _, n := range out.Nodes {
			assert.Equal(t, n.ID == "n2", n.Initiated, n.ID)
		}
	})
	t.Run("profile", func(t *testing.T) {
		out := runJSONOutput(t, exitOK, "run", "--profile", "1394a-2000")
		assert.Equal(t, "1394a-2000", out.Profile)
	})
	t.Run("max events", func(t *testing.T) {
		out := runJSONOutput(t, exitFailure, "run", "--max-events", "10")
		assert.Equal(t, "budget-exhausted", out.Outcome)
		assert.LessOrEqual(t, out.Events, uint64(10))
	})
}

func TestRunTextSections(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--seed", "7", "--clock", "ideal", "--coin-bias", "0.25")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(stdout, "\n")
	assert.Equal(t, "fwsim run: seed 7, profile 1394-1995, policy coin, coin bias 0.25, timing random, clock ideal", lines[0])
	assert.Equal(t, "topology: gen pair", lines[1])
	assert.Equal(t, "first reset: power-up of a, the last PHY of the bus", lines[2])
	for _, want := range []string{
		"\ngeneration 0 at ", "\n  root: ", "\n  id  phy_ID  role ", "\n  root contention:\n    a:0 - b:0: ",
		"\n  timeline (ns; waits in ns):\n        at  since start\n", "  0  reset starts\n", "  reset done; tree identify starts\n",
		"  root contention a:0 - b:0, round 1: a ", "  tree identify done, root ", "  self identify done: ok\n",
		"\n  self-IDs (2):\n    0x80",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.Regexp(t, `\n1 generation, 1 ok; \d+ events; end \d+ ns\n$`, stdout)
}

func TestRunIgnoresStdin(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(t.Context(), []string{"run", "--gen", "pair"}, iotestErrReader{}, &out, &errOut)
	assert.Equal(t, exitOK, code, errOut.String())
}

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestRunRecordsHowTheRunWasSet: the output alone reproduces the run.
func TestRunRecordsHowTheRunWasSet(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--json", "--seed", "9", "--force-root", "camera",
		"--initiator", "pc", "--initiator", "hub", "--coin-bias", "0.75")
	require.Equal(t, exitOK, code, stderr)
	var doc struct {
		Seed       uint64   `json:"seed"`
		CoinBias   float64  `json:"coin_bias"`
		ForceRoot  *string  `json:"force_root"`
		Initiators []string `json:"initiators"`
		Root       string   `json:"root"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, uint64(9), doc.Seed)
	assert.Equal(t, 0.75, doc.CoinBias)
	require.NotNil(t, doc.ForceRoot)
	assert.Equal(t, "camera", *doc.ForceRoot)
	assert.Equal(t, []string{"pc", "hub"}, doc.Initiators)
	assert.Equal(t, "camera", doc.Root)
}

// TestRunViewFiles: the view flags write what the bus package's writers
// write for the same run (their golden files), and leave stdout alone.
func TestRunViewFiles(t *testing.T) {
	dir := t.TempDir()
	vcdPath, tracePath, dotPath := filepath.Join(dir, "a.vcd"), filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.dot")
	code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--seed", "7", "--vcd", vcdPath, "--trace", tracePath, "--dot", dotPath)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	want, err := os.ReadFile("testdata/run-pair-seed7.txt")
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout, "the view flags change the report")
	for path, golden := range map[string]string{vcdPath: "pair-seed7.vcd", tracePath: "pair-seed7.jsonl", dotPath: "pair-seed7.dot"} {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join("..", "..", "view", "testdata", "golden", golden))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s differs from the view package's %s", filepath.Base(path), golden)
	}
}

// TestRunVCDDialect: --vcd-dialect sigrok writes the bus package's sigrok
// dialect, and is a usage error without --vcd.
func TestRunVCDDialect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.vcd")
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--seed", "7", "--vcd", path, "--vcd-dialect", "sigrok")
	require.Equal(t, exitOK, code, stderr)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("..", "..", "view", "testdata", "golden", "pair-seed7.sigrok.vcd"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	code, _, stderr = runCLI(t, "run", "--gen", "pair", "--vcd-dialect", "gtkwave")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--vcd-dialect needs --vcd FILE")
	code, _, stderr = runCLI(t, "run", "--gen", "pair", "--vcd", path, "--vcd-dialect", "pulseview")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want gtkwave or sigrok")
}

// TestReadingABusResetDoc: docs/reading-a-bus-reset.md walks through the
// waveform "fwsim run --gen pair --seed 7 --vcd" writes (the bus package's
// golden file, which TestRunViewFiles ties to the command) and the hot-plug
// one. Every time it quotes (written "166 752") is a time stamp of those
// files, every variable it names in backquotes is declared there, every
// value it quotes is one a variable takes, and the timeline lines it shows
// are in the report.
func TestReadingABusResetDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "reading-a-bus-reset.md"))
	require.NoError(t, err)
	stamps, paths, values := map[int64]bool{}, map[string]bool{}, map[string]bool{}
	for _, golden := range []string{"pair-seed7.vcd", "hotplug.vcd"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "view", "testdata", "golden", golden))
		require.NoError(t, err)
		f, err := vcd.Parse(bytes.NewReader(data))
		require.NoError(t, err)
		for _, d := range f.Vars {
			paths[d.Path()] = true
		}
		for _, c := range f.Changes {
			stamps[c.Time] = true
			values[c.Value] = true
		}
	}

	times := regexp.MustCompile(`\b\d{1,3}(?: \d{3})+\b`).FindAllString(string(doc), -1)
	require.Greater(t, len(times), 30, "the doc quotes its times as 166 752")
	for _, s := range times {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, " ", ""), 10, 64)
		require.NoError(t, err)
		assert.True(t, stamps[n], "the doc quotes %s ns, which is no time stamp of the files", s)
	}

	variable := regexp.MustCompile(`^(a|b|bus)\.[a-z0-9_.]+$`)
	value := regexp.MustCompile(`^([A-Z][A-Z0-9_/]+|reset|tree_id|self_id|ok|(fast|slow)_\d+ns|(p\d+|link):[0-9a-f]{8}|\S+_\(event_\d+\))$`)
	checked := 0
	prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(doc), "")
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose, -1) {
		switch q := m[1]; {
		case variable.MatchString(q):
			assert.True(t, paths[q], "the doc names %s, which the files do not declare", q)
			checked++
		case value.MatchString(q):
			assert.True(t, values[q], "the doc quotes the value %s, which no variable takes", q)
			checked++
		}
	}
	assert.Greater(t, checked, 40)

	report, err := os.ReadFile("testdata/run-pair-seed7.txt")
	require.NoError(t, err)
	timeline := regexp.MustCompile(`(?m)^ +\d+ +\d+  root contention .*$`).FindAllString(string(doc), -1)
	require.Len(t, timeline, 2)
	for _, line := range timeline {
		assert.Contains(t, strings.Split(string(report), "\n"), line)
	}
}

// TestRunViewFilesOfAFailedRun: the waveform of a failing run is the one
// worth keeping.
func TestRunViewFilesOfAFailedRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ring.vcd")
	code, _, _ := runCLI(t, "run", "--gen", "ring:3", "--vcd", path)
	require.Equal(t, exitFailure, code)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = vcd.Parse(f)
	assert.NoError(t, err)
}

func TestRunTracesOnlyForViewsThatNeedIt(t *testing.T) {
	for _, tc := range []struct {
		v    viewFiles
		want bool
	}{
		{viewFiles{}, false},
		{viewFiles{dot: "a.dot"}, false},
		{viewFiles{svg: "a.svg"}, false},
		{viewFiles{dot: "a.dot", svg: "a.svg"}, false},
		{viewFiles{vcd: "a.vcd"}, true},
		{viewFiles{trace: "a.jsonl"}, true},
	} {
		assert.Equal(t, tc.want, tc.v.traced(), "%+v", tc.v)
	}
}

// useDot makes lookPath find path as Graphviz's dot, or nothing when path
// is "".
func useDot(t *testing.T, path string) {
	t.Helper()
	saved := lookPath
	t.Cleanup(func() { lookPath = saved })
	lookPath = func(string) (string, error) {
		if path == "" {
			return "", exec.ErrNotFound
		}
		return path, nil
	}
}

// fakeDot writes a script that stands for dot: it keeps its input beside
// itself, prints an SVG-ish line, and exits with code.
func fakeDot(t *testing.T, code int) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "dot")
	script := fmt.Sprintf("#!/bin/sh\ncat > %q\necho \"<svg args='$*'/>\"\necho 'Error: fake failure' >&2\nexit %d\n", filepath.Join(dir, "stdin.dot"), code)
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

func TestRunSVG(t *testing.T) {
	t.Run("without dot", func(t *testing.T) {
		useDot(t, "")
		svg := filepath.Join(t.TempDir(), "bus.svg")
		code, stdout, stderr := runCLI(t, "run", "--gen", "pair", "--svg", svg)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, stdout)
		assert.Equal(t, "fwsim run: --svg needs Graphviz's dot, which is not on PATH: install Graphviz "+
			"(apt install graphviz, dnf install graphviz or brew install graphviz), or write DOT with --dot\n", stderr)
		assert.NoFileExists(t, svg)
	})
	t.Run("with dot", func(t *testing.T) {
		dot := fakeDot(t, 0)
		useDot(t, dot)
		dir := t.TempDir()
		code, _, stderr := runCLI(t, "run", "--gen", "pair", "--seed", "7", "--svg", filepath.Join(dir, "bus.svg"), "--dot", filepath.Join(dir, "bus.dot"))
		require.Equal(t, exitOK, code, stderr)
		svg, err := os.ReadFile(filepath.Join(dir, "bus.svg"))
		require.NoError(t, err)
		assert.Equal(t, "<svg args='-Tsvg'/>\n", string(svg))
		piped, err := os.ReadFile(filepath.Join(filepath.Dir(dot), "stdin.dot"))
		require.NoError(t, err)
		written, err := os.ReadFile(filepath.Join(dir, "bus.dot"))
		require.NoError(t, err)
		assert.Equal(t, string(written), string(piped), "dot was not given the DOT of the run")
	})
	t.Run("dot fails", func(t *testing.T) {
		useDot(t, fakeDot(t, 3))
		code, _, stderr := runCLI(t, "run", "--gen", "pair", "--svg", filepath.Join(t.TempDir(), "bus.svg"))
		assert.Equal(t, exitOutput, code)
		assert.Contains(t, stderr, "exit status 3: Error: fake failure\n")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	})
	t.Run("real dot", func(t *testing.T) {
		if _, err := exec.LookPath("dot"); err != nil {
			t.Skip("Graphviz's dot is not installed")
		}
		svg := filepath.Join(t.TempDir(), "bus.svg")
		code, _, stderr := runCLI(t, "run", "--svg", svg)
		require.Equal(t, exitOK, code, stderr)
		out, err := os.ReadFile(svg)
		require.NoError(t, err)
		assert.Contains(t, string(out), "<svg")
		assert.Contains(t, string(out), "phy_ID")
	})
}

func TestRunViewFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.vcd")
	missing := filepath.Join(dir, "no-such-dir", "bus.dot")
	code, stdout, stderr := runCLI(t, "run", "--vcd", good, "--dot", missing)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim run: --dot "+missing+": the directory "+filepath.Dir(missing)+" does not exist\n", stderr)
	assert.NoFileExists(t, good, "a file created before the error stays behind")

	same := dir + "/./good.vcd"
	code, _, stderr = runCLI(t, "run", "--vcd", good, "--trace", same)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim run: --vcd "+good+" and --trace "+same+" name the same file\n", stderr)
	assert.NoFileExists(t, good)

	// Bad input after the files were opened removes them too.
	code, _, _ = runCLI(t, "run", "--vcd", good, "--initiator", "nobody")
	assert.Equal(t, exitUsage, code)
	assert.NoFileExists(t, good)
}

// TestRunTimeline checks the timeline against the JSON output of the same
// run: every phase end and every round, at its time since power-up and
// since the generation's start, in ns.
func TestRunTimeline(t *testing.T) {
	entry := regexp.MustCompile(`(?m)^ +(\d+) +(\d+)  (.*)$`)
	for _, seed := range []string{"1", "7", "12"} {
		out := runJSONOutput(t, exitOK, "run", "--gen", "pair", "--seed", seed)
		code, text, stderr := runCLI(t, "run", "--gen", "pair", "--seed", seed)
		require.Equal(t, exitOK, code, stderr)
		_, timeline, ok := strings.Cut(text, "  timeline (ns; waits in ns):\n")
		require.True(t, ok)
		timeline, _, _ = strings.Cut(timeline, "  self-IDs")
		at := map[string]int64{} // since the start, by the entry's text up to its first comma
		for _, m := range entry.FindAllStringSubmatch(timeline, -1) {
			abs, _ := strconv.ParseInt(m[1], 10, 64)
			rel, _ := strconv.ParseInt(m[2], 10, 64)
			assert.Equal(t, out.Generations[0].StartNs+rel, abs, "seed %s: %s", seed, m[0])
			what, _, _ := strings.Cut(m[3], ",")
			at[what] = rel
		}
		assert.Equal(t, *out.TimingNs.ResetEnd, at["reset done; tree identify starts"], "seed %s", seed)
		assert.Equal(t, *out.TimingNs.TreeIDDone, at["tree identify done"], "seed %s", seed)
		assert.Equal(t, *out.TimingNs.SelfIDDone, at["self identify done: ok"], "seed %s", seed)
		require.Len(t, out.Contention, 1)
		c := out.Contention[0]
		assert.Equal(t, c.Rounds, strings.Count(timeline, "root contention a:0 - b:0, round "), "seed %s", seed)
		// Each node's k-th wait is in round k.
		round := map[string]int{}
		for _, b := range c.Backoffs {
			round[b.Node]++
			line := fmt.Sprintf("round %d: ", round[b.Node])
			i := strings.Index(timeline, line)
			require.GreaterOrEqual(t, i, 0, "seed %s: no %q", seed, line)
			rest, _, _ := strings.Cut(timeline[i:], "\n")
			assert.Contains(t, rest, fmt.Sprintf("%s %s %d", b.Node, map[bool]string{true: "fast", false: "slow"}[b.Fast], b.WaitNs), "seed %s", seed)
		}
	}
}

// A contention that never resolves says so, with no end time.
func TestRunTextUnresolvedContention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`nodes:
  - {id: a, ports: 1}
  - {id: b, ports: 1}
cables:
  - {from: "a:0", to: "b:0", delay_ns: 300}
`), 0o644))
	code, stdout, _ := runCLI(t, "run", "--topology", path, "--allow-out-of-spec", "--seed", "2")
	require.Equal(t, exitFailure, code)
	assert.Regexp(t, `\n    a:0 - b:0: 1 round, from \d+ ns, unresolved, parent none\n`, stdout)
}

// --gtkw writes a save file beside the VCD that names it as the save file
// finds it, and needs a GTKWave-dialect VCD file.
func TestRunGTKW(t *testing.T) {
	dir := t.TempDir()
	vcdPath, gtkwPath := filepath.Join(dir, "waves", "run.vcd"), filepath.Join(dir, "run.gtkw")
	require.NoError(t, os.Mkdir(filepath.Dir(vcdPath), 0o755))
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--vcd", vcdPath, "--gtkw", gtkwPath)
	require.Equal(t, exitOK, code, stderr)
	save, err := os.ReadFile(gtkwPath)
	require.NoError(t, err)
	assert.Contains(t, string(save), "[dumpfile] \"waves/run.vcd\"\n")
	assert.Contains(t, string(save), "+{a p0 line_rx} a.p0.line_rx\n")
	assert.FileExists(t, vcdPath)

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--gtkw", gtkwPath}, "--gtkw needs --vcd FILE"},
		{[]string{"--gtkw", gtkwPath, "--vcd", "-"}, "--gtkw needs --vcd FILE"},
		{[]string{"--gtkw", gtkwPath, "--vcd", vcdPath, "--vcd-dialect", "sigrok"}, "--gtkw goes with the gtkwave dialect of --vcd, not --vcd-dialect sigrok"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"run", "--gen", "pair"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.msg, tc.args)
	}
}

// TestRunViewsRefuseDash: run's report goes to standard output, so a view
// named "-" is refused, and no file named "-" is written either.
func TestRunViewsRefuseDash(t *testing.T) {
	for _, flag := range []string{"--vcd", "--gtkw", "--trace", "--dot", "--html"} {
		args := []string{"run", "--gen", "pair", flag, "-"}
		if flag == "--gtkw" {
			args = append(args, "--vcd", filepath.Join(t.TempDir(), "run.vcd"))
		}
		code, stdout, stderr := runCLI(t, args...)
		assert.Equal(t, exitUsage, code, flag)
		assert.Empty(t, stdout, flag)
		assert.Contains(t, stderr, "fwsim run: "+flag+" -: standard output carries the command's report", flag)
		assert.NoFileExists(t, "-")
	}
}

// run --html FILE writes the page that plays the run: every node of the
// bus, and an event for every entry of the --trace file and each
// generation's milestones.
func TestRunHTML(t *testing.T) {
	dir := t.TempDir()
	page, trace := filepath.Join(dir, "pair.html"), filepath.Join(dir, "pair.jsonl")
	code, _, stderr := runCLI(t, "run", "--gen", "pair", "--seed", "7", "--html", page, "--trace", trace)
	require.Equal(t, exitOK, code, stderr)
	title, nodes, events := pageData(t, page)
	assert.Equal(t, "fwsim run: gen pair", title)
	assert.ElementsMatch(t, []string{"a", "b"}, nodes)
	lines, err := os.ReadFile(trace)
	require.NoError(t, err)
	entries := strings.Count(string(lines), "\n") - 1 // the header
	// Each node's badge cleared at the start, the root named, each node's
	// phy_ID once it sends its self-ID, the end of self identify.
	assert.Equal(t, entries+2+1+2+1, events)
}

// A zero bus.Options runs what fwsim run runs without flags: the JSON is
// the same, seed included.
func TestZeroOptionsAreTheCommandsDefaults(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--json")
	require.Equal(t, exitOK, code, stderr)
	res, err := bus.Run(bus.DefaultTopology(), bus.Options{})
	require.NoError(t, err)
	assert.Equal(t, uint64(bus.DefaultSeed), res.Seed)
	var want bytes.Buffer
	require.NoError(t, jsonout.Write(&want, bus.NewResultJSON("default", res)))
	assert.JSONEq(t, want.String(), stdout)
}

// A page of more events than a browser plays is refused, naming the count
// and the bound (exit 2), and no file is written: not the page, not the
// run's other views, not a lab's trace.
func TestHTMLPageTooLarge(t *testing.T) {
	saved := player.MaxEvents
	player.MaxEvents = 50
	t.Cleanup(func() { player.MaxEvents = saved })
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "--gen", "pair", "--html", filepath.Join(dir, "run.html"), "--vcd", filepath.Join(dir, "run.vcd")},
		{"elect", "--algo", "lelann", "--gen", "ring:5", "--html", filepath.Join(dir, "elect.html"), "--trace", filepath.Join(dir, "elect.jsonl")},
	} {
		code, _, stderr := runCLI(t, args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Regexp(t, `^fwsim `+args[0]+`: --html \S+: too many events for one page: \d+, more than the 50 a browser plays smoothly; play a smaller bus or a shorter run`, stderr)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file written")
}
