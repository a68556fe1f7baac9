package bus

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// TestTimingBoundsNameTheField: every timing override is accepted at its
// bound and refused just beyond it with ErrBadTiming, naming the field's
// path and line (a window's end by its own path).
func TestTimingBoundsNameTheField(t *testing.T) {
	bound := int64(phy.MaxTimingDuration)
	check := func(field, value string) error {
		text := fmt.Sprintf("nodes: [{id: a, ports: 1}]\ntiming:\n  %s: %s\n", field, value)
		return mustParse(t, text, "t.yaml").Validate(ResolveOptions{})
	}
	fields := fieldNames(reflect.TypeFor[TimingOverrides]())
	require.Len(t, fields, 13)
	for _, field := range fields {
		var at, beyond, path, msg string
		switch field {
		case "clock_hz":
			at, beyond, path = "1000000000", "1000000001", "timing.clock_hz"
			msg = "1000000001 Hz, want 1 Hz to 1000000000 Hz (1 GHz)"
		case "root_contend_fast", "root_contend_slow":
			at = fmt.Sprintf("{min: %d, max: %d}", bound, bound)
			beyond, path = fmt.Sprintf("{min: 1us, max: %d}", bound+1), "timing."+field+".max"
			msg = "1.000000001s, want 1ns to 1s"
		default:
			at, beyond, path = "1s", fmt.Sprint(bound+1), "timing."+field
			least := "1ns"
			if slices.Contains([]string{"short_reset_time", "connect_timeout", "data_prefix", "data_end", "speed_signal"}, field) {
				least = "0s" // zero means none, or no time
			}
			msg = "1.000000001s, want " + least + " to 1s"
		}
		assert.NoError(t, check(field, at), "%s at the bound", field)
		err := check(field, beyond)
		assert.ErrorIs(t, err, ErrBadTiming, field)
		assert.EqualError(t, err, "t.yaml:3: "+path+": "+msg)
	}
	err := check("root_contend_slow", "{min: 2us, max: 1us}")
	assert.EqualError(t, err, "t.yaml:3: timing.root_contend_slow: window 2µs–1µs is empty: its min is above its max")
	err = check("reset_wait", "-1ns")
	assert.EqualError(t, err, "t.yaml:3: timing.reset_wait: -1ns, want 1ns to 1s")
}

// ringAtTheBound is a loop whose CONFIG_TIMEOUT is phy.MaxTimingDuration.
const ringAtTheBound = `nodes:
  - {id: a, ports: 2}
  - {id: b, ports: 2}
  - {id: c, ports: 2}
cables:
  - {from: "a:0", to: "b:0"}
  - {from: "b:1", to: "c:0"}
  - {from: "c:1", to: "a:1"}
timing: {config_timeout: 1s, clock_hz: %d}
`

// TestTimersAtTheBound: the longest timers run exactly: on a loop a
// CONFIG_TIMEOUT of the bound fires that long after the last PHY entered
// T0, at the standard clock and at the fastest, set in the file or through
// Options.Timing; back-offs of the bound wait that long.
func TestTimersAtTheBound(t *testing.T) {
	for _, hz := range []int64{49152000, phy.MaxClockHz} {
		topo := mustParse(t, fmt.Sprintf(ringAtTheBound, hz), "ring.yaml")
		fromGo := phy.Profiles()[0].Timing
		fromGo.ConfigTimeout, fromGo.ClockHz = phy.MaxTimingDuration, hz
		for name, o := range map[string]Options{
			"file":   {MaxTime: 3 * time.Second},
			"Go":     {MaxTime: 3 * time.Second, Timing: &fromGo},
			"ideal":  {MaxTime: 3 * time.Second, IdealClock: true},
			"seeded": {MaxTime: 3 * time.Second, Seed: 99},
		} {
			res := runOK(t, topo, o)
			require.Len(t, res.Generations, 1, name)
			g := res.Generations[0]
			require.Equal(t, OutcomeConfigTimeout, g.Outcome, "%d Hz, %s", hz, name)
			// The last timer to fire is that of the last PHY to enter T0.
			assert.Equal(t, g.StartNs+g.Timing.ResetEnd+int64(phy.MaxTimingDuration), res.EndNs, "%d Hz, %s", hz, name)
		}
	}

	pair := mustParse(t, `nodes: [{id: a, ports: 1}, {id: b, ports: 1}]
cables: [{from: "a:0", to: "b:0"}]
timing: {root_contend_fast: {min: 500ms, max: 500ms}, root_contend_slow: {min: 1s, max: 1s}}
`, "pair.yaml")
	waits := map[int64]bool{}
	for seed := range uint64(4) {
		res := runOK(t, pair, Options{Seed: seed, MaxTime: 10 * time.Second})
		g := res.Generations[0]
		require.Equal(t, OutcomeOK, g.Outcome, "seed %d", seed)
		for _, b := range g.Contention[0].Backoffs {
			waits[b.WaitNs] = true
		}
	}
	assert.Equal(t, map[int64]bool{5e8: true, 1e9: true}, waits)
}

// TestScenarioAtItsBounds: a reset at the latest scripted time, an hour,
// starts a generation then; a cable at the longest delay, far beyond what
// tree identify tolerates, runs to its time budget without an overflow.
func TestScenarioAtItsBounds(t *testing.T) {
	topo := mustGenerate(t, "pair")
	topo.Events = []Event{{At: maxEventTime, Reset: &ResetEvent{Node: "a"}}}
	res := runOK(t, topo, Options{Seed: 1})
	last := res.Generations[len(res.Generations)-1]
	assert.GreaterOrEqual(t, last.StartNs, int64(maxEventTime))
	assert.Less(t, last.StartNs, int64(maxEventTime)+int64(time.Microsecond))
	assert.Equal(t, OutcomeOK, last.Outcome)

	topo = mustGenerate(t, "chain:3")
	delay := float64(maxCableDelayNs)
	topo.Cables[0].DelayNs = &delay
	res = runOK(t, topo, Options{Seed: 1, AllowOutOfSpec: true, MaxTime: 10 * time.Millisecond})
	require.NotEmpty(t, res.Generations)
	for _, g := range res.Generations {
		assert.GreaterOrEqual(t, g.StartNs, int64(0))
		assert.LessOrEqual(t, g.StartNs, int64(10*time.Millisecond))
	}

	topo = mustParse(t, `timing: {clock_hz: 1000000000}
nodes: [{id: a, ports: 1, clock_ppm: -100000}, {id: b, ports: 1}]
cables: [{from: "a:0", to: "b:0"}]
`, "slow-clock.yaml")
	res = runOK(t, topo, Options{Seed: 1, AllowOutOfSpec: true})
	assert.Equal(t, OutcomeOK, res.Generations[0].Outcome)
}

// TestNodeIDRule: ids may hold letters and digits of any script, combining
// marks and _ - . + / @ #, up to 64 characters; anything else is an
// ErrBadNodeID naming the character by its code point.
func TestNodeIDRule(t *testing.T) {
	check := func(id string) error {
		return (&Topology{Nodes: []Node{{ID: id, Ports: 1}}}).Validate(ResolveOptions{})
	}
	for _, id := range []string{"a", "n62", "pc", "_hub", "7", "Kamera-2.1+x@y#z/p0", "日本", "cafe\u0301", "Ωmega", "٣", strings.Repeat("é", 64)} {
		assert.NoError(t, check(id), "%q", id)
	}
	for id, what := range map[string]string{
		"a\x00b":                "U+0000",
		"a\x1b[31m":             "U+001B",
		"a\nb":                  "U+000A",
		"a\tb":                  "U+0009",
		"a b":                   "' ' (U+0020)",
		"a\u00a0b":              "U+00A0",
		"a\u202eb":              "U+202E",
		"a\u200bb":              "U+200B",
		"a\u3164b":              "'ㅤ' (U+3164)",
		`a"b`:                   `'"' (U+0022)`,
		"a'b":                   `'\'' (U+0027)`,
		`a\b`:                   `'\\' (U+005C)`,
		"a,b":                   "',' (U+002C)",
		"a;b":                   "';' (U+003B)",
		"a:b":                   "':' (U+003A)",
		"a$b":                   "'$' (U+0024)",
		"a%b":                   "'%' (U+0025)",
		"a<b":                   "'<' (U+003C)",
		"a{b":                   "'{' (U+007B)",
		"-a":                    "'-' (U+002D) as its first character",
		"#a":                    "'#' (U+0023) as its first character",
		".a":                    "'.' (U+002E) as its first character",
		"\u0301a":               "'\u0301' (U+0301) as its first character",
		"a\xffb":                "the byte 0xff, which is not UTF-8 text",
		strings.Repeat("é", 65): "is 65 characters long",
	} {
		err := check(id)
		assert.ErrorIs(t, err, ErrBadNodeID, "%q", id)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), what, "%q", id)
			assert.Contains(t, err.Error(), nodeIDRule, "%q", id)
			assert.False(t, strings.ContainsFunc(err.Error(), func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }),
				"%q: the message holds what a terminal would obey: %q", id, err.Error())
		}
	}
}

// TestGeneratedIDsFollowTheRule: every generator's ids are valid ids.
func TestGeneratedIDsFollowTheRule(t *testing.T) {
	for _, spec := range []string{"pair", "chain:63", "star:2", "tree:63:7", "ring:3", "complete:3"} {
		topo := mustGenerate(t, spec)
		r := resolver{t: topo}
		for i, n := range topo.Nodes {
			assert.NoError(t, r.nodeID(n.ID, item{list: "nodes", index: i}), spec)
		}
	}
}
