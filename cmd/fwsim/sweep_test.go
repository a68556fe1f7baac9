package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainSweep crosses the 1394-1995 threshold (120 ns) on a chain whose
// reset starts at one end: the middle nodes contend with the largest skew.
var chainSweep = []string{"sweep", "--gen", "chain:4", "--initiator", "n0", "--param", "delay=116..128:4",
	"--runs", "200", "--seed", "1"}

func TestSweepGolden(t *testing.T) {
	for _, format := range []string{"txt", "json", "csv"} {
		t.Run(format, func(t *testing.T) {
			args := slices.Clone(chainSweep)
			var csvPath string
			switch format {
			case "json":
				args = append(args, "--json")
			case "csv":
				csvPath = filepath.Join(t.TempDir(), "sweep.csv")
				args = append(args, "--csv", csvPath)
			}
			code, stdout, stderr := runCLI(t, args...)
			require.Equal(t, exitOK, code, "failures beyond the threshold are data: %s", stderr)
			assert.Empty(t, stderr)
			if csvPath != "" {
				// --csv also writes the rows: the table is on stdout as
				// without it.
				_, table, _ := runCLI(t, args[:len(args)-2]...)
				assert.Equal(t, table, stdout)
				b, err := os.ReadFile(csvPath)
				require.NoError(t, err)
				stdout = csvForGolden(t, string(b), csvPath)
			}
			golden(t, filepath.Join("sweep", "chain4."+format), stdout)
		})
	}
}

type sweepOut struct {
	Seed   uint64 `json:"seed"`
	Runs   int    `json:"runs"`
	Points []struct {
		Values         map[string]float64 `json:"values"`
		DelayNs        int64              `json:"delay_ns"`
		ThresholdNs    float64            `json:"threshold_ns"`
		RoundTrip      bool               `json:"round_trip"`
		Separation     bool               `json:"separation"`
		ConditionsHold bool               `json:"conditions_hold"`
		OutOfSpec      *string            `json:"out_of_spec"`
		Runs           int                `json:"runs"`
		Failed         int64              `json:"failed"`
		Failures       map[string]int64   `json:"failures"`
		Metrics        map[string]struct {
			N    int64   `json:"n"`
			Mean float64 `json:"mean"`
		} `json:"metrics"`
	} `json:"points"`
}

func runSweepJSON(t *testing.T, args ...string) sweepOut {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(args, "--json")...)
	require.Equal(t, exitOK, code, stderr)
	var out sweepOut
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	return out
}

// The condition columns follow docs/protocol.md §5 on both sides of each profile's
// threshold: 1394-1995 (FAST 240–260, SLOW 570–600 ns) breaks the round
// trip at 2·120 = 240; prism (FAST 760–850, SLOW 1590–1670 ns) breaks the
// separation at 2·370 + 850 = 1590, and the round trip only at 380.
func TestSweepConditionColumns(t *testing.T) {
	for _, tc := range []struct {
		profile              string
		param                string
		roundTrip, separated float64 // the first delay at which each fails
	}{
		{"1394-1995", "delay=116..160:2", 120, 156},
		{"prism", "delay=366..384:2", 380, 370},
	} {
		out := runSweepJSON(t, "sweep", "--gen", "pair", "--profile", tc.profile, "--param", tc.param, "--runs", "2")
		require.NotEmpty(t, out.Points)
		for _, p := range out.Points {
			d := p.Values["delay"]
			assert.Equal(t, int64(d), p.DelayNs)
			assert.Equal(t, d < tc.roundTrip, p.RoundTrip, "%s at %v ns", tc.profile, d)
			assert.Equal(t, d < tc.separated, p.Separation, "%s at %v ns", tc.profile, d)
			assert.Equal(t, d < min(tc.roundTrip, tc.separated), p.ConditionsHold)
			assert.Equal(t, min(tc.roundTrip, tc.separated), p.ThresholdNs)
			require.NotNil(t, p.OutOfSpec, "a %v ns cable is longer than 4.5 m", d)
			assert.Contains(t, *p.OutOfSpec, "delay")
		}
	}
}

// Past the threshold the failures show up, and they are counted, not
// errors; within it there are none. This is the sweep docs/timing.md shows.
func TestSweepShowsFailuresPastTheThreshold(t *testing.T) {
	out := runSweepJSON(t, "sweep", "--gen", "chain:4", "--initiator", "n0", "--profile", "prism",
		"--param", "delay=360..420:20", "--runs", "300", "--seed", "5")
	require.Len(t, out.Points, 4)
	for _, p := range out.Points {
		var sum int64
		for _, n := range p.Failures {
			sum += n
		}
		assert.Equal(t, p.Failed, sum)
		assert.Equal(t, 300, p.Runs)
		if p.ConditionsHold {
			assert.Zero(t, p.Failed, "failures at %v ns, within the conditions", p.DelayNs)
		}
	}
	assert.Positive(t, out.Points[3].Failed, "no failure at 420 ns, 50 ns past the prism threshold")
}

func TestSweepExitsOneOnFailuresWithinTheConditions(t *testing.T) {
	// A loop never configures, however short its cables.
	code, stdout, stderr := runCLI(t, "sweep", "--gen", "ring:3", "--param", "coin_bias=0.5", "--runs", "3")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "config-timeout 3")
	assert.Equal(t, "fwsim sweep: 3 runs failed at 1 points where the correctness conditions hold\n", stderr)
}

func TestSweepIsTheSameAtAnyWorkerCount(t *testing.T) {
	args := []string{"sweep", "--gen", "tree:6:2", "--param", "delay=20..140:60", "--param", "coin_bias=0.3..0.7:0.4",
		"--runs", "150", "--json"}
	_, one, _ := runCLI(t, append(args, "--workers", "1")...)
	_, two, _ := runCLI(t, append(args, "--workers", "2")...)
	require.NotEmpty(t, one)
	assert.Equal(t, one, two)
}

func TestSweepNodes(t *testing.T) {
	out := runSweepJSON(t, "sweep", "--gen", "tree:2:4", "--param", "nodes=2..10:4", "--runs", "5")
	require.Len(t, out.Points, 3)
	for _, p := range out.Points {
		assert.Equal(t, int64(5), p.Metrics["self_id_ns"].N, "nodes=%v", p.Values["nodes"])
		assert.Nil(t, p.OutOfSpec, "standard cables and 3-port nodes are within spec")
	}
	// More nodes take longer to identify themselves.
	assert.Less(t, out.Points[0].Metrics["self_id_ns"].Mean, out.Points[2].Metrics["self_id_ns"].Mean)
}

func TestSweepCSVColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	code, _, stderr := runCLI(t, "sweep", "--gen", "pair", "--param", "cable_length=4..40:36", "--runs", "4",
		"--deadline", "2us", "--csv", path)
	require.Equal(t, exitOK, code, stderr)
	rows := readCSV(t, path)
	require.Len(t, rows, 3)
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, name := range []string{"cable_length", "delay_ns", "round_trip", "conditions_hold", "out_of_spec", "stalled",
		"contention_ns_mean", "contention_ns_ci_lo", "contention_ns_p99", "contention_rounds_mean", "p_contention_ns_le_2µs"} {
		assert.Contains(t, col, name)
	}
	// 4 m is 20.2 ns, 40 m is 202 ns: past the 120 ns threshold.
	assert.Equal(t, []string{"20", "true", "false"}, []string{rows[1][col["delay_ns"]], rows[1][col["conditions_hold"]], rows[1][col["out_of_spec"]]})
	assert.Equal(t, []string{"202", "false", "true"}, []string{rows[2][col["delay_ns"]], rows[2][col["conditions_hold"]], rows[2][col["out_of_spec"]]})
	runs, err := strconv.Atoi(rows[2][col["runs"]])
	require.NoError(t, err)
	assert.Equal(t, 4, runs)
}

func TestSweepErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--gen", "pair"}, "want at least one --param, e.g. --param delay=100ns..400ns:20ns"},
		{[]string{"--param", "delay=0..10"}, `invalid value "delay=0..10" for flag --param: "delay=0..10": no ':STEP' after the range`},
		{[]string{"--param", "speed=1"}, `unknown parameter "speed"`},
		{[]string{"--param", "delay=1", "--param", "delay=2"}, "--param: delay is swept twice"},
		{[]string{"--param", "nodes=2..4:1", "--topology", "../../examples/pair.yaml"}, "--param: nodes needs a generated bus"},
		{[]string{"--gen", "pair", "--param", "fast_min=300"}, "--param: at fast_min=300 the windows are FAST 300ns–260ns"},
		{[]string{"--gen", "pair", "--param", "delay=1", "--csv", "-", "--json"}, "--csv - and --json both want standard output: give --csv a file name"},
		{[]string{"--gen", "pair", "--param", "delay=1", "--runs", "0"}, "--runs 0: want at least 1"},
		{[]string{"--gen", "pair", "--param", "delay=1", "--runs", "9223372036854775807"}, "--runs 9223372036854775807: at most 9007199254740992, because "},
		// The runs of all points together are one count.
		{[]string{"--gen", "pair", "--param", "delay=1..2:1", "--runs", "9007199254740992"},
			"--runs 9007199254740992: at most 4503599627370496 at 2 points, because a sweep counts the runs of all its points in one total, held to the 2^53 of one analysis"},
		{[]string{"--gen", "pair", "--param", "delay=1", "--max-duration", "-1s"}, "--max-duration -1s: want 0 (no limit) or a positive duration"},
		// The parameter would silently override the flag.
		{[]string{"--gen", "pair", "--param", "coin_bias=0.5", "--coin-bias", "0.2"}, "--coin-bias and --param coin_bias both set the coin's bias; give one"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"sweep"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout, tc.args)
		assert.True(t, strings.HasPrefix(stderr, "fwsim sweep: "), stderr)
		assert.Contains(t, stderr, tc.msg, tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
	code, _, stderr := runCLI(t, "sweep", "--gen", "pair", "--param", "delay=1", "--initiator", "zz", "--runs", "1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "zz")
}

// A topology file is validated as run validates it, even where a point
// replaces what is wrong (a delay replaces every cable's), and its errors
// blame the file, not --param; a generated point that cannot run is named,
// not the --gen it was resized from.
func TestSweepBlamesWhatFailed(t *testing.T) {
	dir := t.TempDir()
	file := func(name, data string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
		return path
	}
	pair := "nodes:\n  - {id: a, ports: 1}\n  - {id: b, ports: 1}\ncables:\n  - {from: a:0, to: b:0%s}\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topology", file("nan.yaml", fmt.Sprintf(pair, ", length_m: .nan")), "--param", "delay=10"},
			"nan.yaml:5: cables[0].length_m: cable a:0–b:0 has length NaN m, want 0 m to 198 km"},
		{[]string{"--topology", file("huge.yaml", fmt.Sprintf(pair, ", length_m: 1e308")), "--param", "delay=10"},
			"huge.yaml:5: cables[0].length_m: cable a:0–b:0 has length 1e+308 m, want 0 m to 198 km"},
		{[]string{"--topology", file("delay.yaml", fmt.Sprintf(pair, ", delay_ns: 1000000.4")), "--param", "cable_length=1"},
			"delay.yaml:5: cables[0].delay_ns: cable a:0–b:0 has delay 1.0000004e+06 ns, want 0 to 1000000 ns"},
		{[]string{"--topology", file("profile.yaml", "profile: nope\n"+fmt.Sprintf(pair, "")), "--param", "delay=10..20:10"},
			`profile.yaml:1: profile: unknown profile "nope" (want 1394-1995, 1394a-2000, 1394b-2002, prism)`},
		{[]string{"--gen", "complete:2", "--param", "nodes=2..63:1"},
			`--param: at nodes=29 (--gen complete:29): nodes[0].ports: node "n0" has 28 ports, more than 27`},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"sweep", "--runs", "2"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout, tc.args)
		assert.True(t, strings.HasPrefix(stderr, "fwsim sweep: "), stderr)
		assert.Contains(t, stderr, tc.want, tc.args)
		assert.NotContains(t, stderr, "--gen complete:2:", "the point is named, not the base")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
}

func TestSweepHelpListsTheParameters(t *testing.T) {
	code, stdout, _ := runCLI(t, "help", "sweep")
	require.Equal(t, exitOK, code)
	for _, name := range []string{"delay (ns)", "cable_length (m)", "fast_min (ns)", "slow_max (ns)", "coin_bias", "nodes", "--param NAME=FROM..TO:STEP", "--initiator NODE", "--deadline DUR"} {
		assert.Contains(t, stdout, name)
	}
}

// --csv means what it means to analyze: FILE is written as well as the
// table (or the JSON); - puts the rows on standard output instead of the
// table.
func TestSweepCSVMeaning(t *testing.T) {
	args := []string{"sweep", "--gen", "pair", "--param", "delay=10..30:20", "--runs", "4", "--seed", "3"}
	path := filepath.Join(t.TempDir(), "sweep.csv")
	code, stdout, stderr := runCLI(t, append(args, "--csv", path, "--json")...)
	require.Equal(t, exitOK, code, stderr)
	var out sweepOut
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "the JSON is on standard output as without --csv")
	assert.Len(t, out.Points, 2)
	fromFile := readCSV(t, path)
	assert.Len(t, fromFile, 3)

	code, stdout, stderr = runCLI(t, append(args, "--csv", "-")...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, fromFile, parseCSV(t, stdout), "the same rows, and no table")
	assert.Contains(t, stdout, "# command: fwsim sweep --gen pair --param delay=10..30:20 --runs 4 --seed 3 --csv -\n")
}

// The sweep table shows each point's place against the standard's limits,
// lists why a point is out of spec, does not repeat the swept delay, and
// tells a reset's interruption from Ctrl-C.
func TestSweepTableSaysOutOfSpec(t *testing.T) {
	code, stdout, stderr := runCLI(t, "sweep", "--gen", "pair", "--param", "delay=0..400:200", "--runs", "20", "--quiet")
	require.Equal(t, exitOK, code, "the stalls are where the conditions fail: %s", stderr)
	assert.Regexp(t, `\ndelay_ns +rt +sep +spec +runs`, stdout, "no second delay column")
	assert.Regexp(t, `\n0 +holds +holds +in +20 `, stdout)
	assert.Regexp(t, `\n200 +FAILS +FAILS +OUT +20 `, stdout)
	assert.Contains(t, stdout, "\nout of spec (beyond the standard's limits, run all the same):\n  200: cables[0].delay_ns: cable a:0–b:0 has a delay of 200 ns")
	_, stdout, _ = runCLI(t, "sweep", "--gen", "pair", "--param", "cable_length=1..5:4", "--runs", "5", "--quiet")
	assert.Regexp(t, `\ncable_length_m +delay +rt +sep +spec`, stdout, "the delay the conditions use, beside a length")
	// The unplug scripted inside self identify cuts every generation.
	_, stdout, _ = runCLI(t, "sweep", "--topology", "../../examples/unplug-window.yaml", "--param", "delay=10..20:10", "--runs", "5", "--quiet")
	assert.Contains(t, stdout, "  interrupted 5\n")
	assert.Contains(t, stdout, "\ninterrupted: a scripted bus reset cut the generation short (not Ctrl-C, which stops the sweep)\n")
}
