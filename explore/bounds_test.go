package explore

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// longScenario is a pair whose topology scripts n events, its cable
// unplugged and plugged back in turn: every partial run of an exploration
// goes through them.
func longScenario(t *testing.T, n int) *bus.Topology {
	t.Helper()
	var b strings.Builder
	b.WriteString("nodes:\n  - {id: a, ports: 1}\n  - {id: b, ports: 1}\ncables:\n  - {from: \"a:0\", to: \"b:0\", length_m: 2}\nevents:\n")
	for i := range n {
		what := "disconnect"
		if i%2 == 1 {
			what = "connect"
		}
		fmt.Fprintf(&b, "  - {at: %dus, %s: {from: \"a:0\", to: \"b:0\"}}\n", 1000+500*i, what)
	}
	topo, err := bus.ParseTopology([]byte(b.String()), "long.yaml")
	require.NoError(t, err)
	return topo
}

// Each partial run watches the interrupt, not only the gaps between runs:
// through a long scenario one run takes a second.
func TestInterruptStopsARun(t *testing.T) {
	topo := longScenario(t, 20_000)
	interrupt := make(chan struct{})
	close(interrupt)
	e, err := newExplorer(topo, Options{Interrupt: interrupt})
	require.NoError(t, err)
	start := time.Now()
	// Option 0 at every choice, more choices than the run makes: a run
	// through the whole scenario.
	_, err = e.workers[0].Follow(make([]int, 100_000))
	assert.ErrorIs(t, err, bus.ErrInterrupted)
	assert.Less(t, time.Since(start), 500*time.Millisecond*raceSlack)
}

// within runs f and fails the test unless it returns within d (times
// raceSlack).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d * raceSlack):
		t.Fatalf("still running after %v", d*raceSlack)
	}
}

// A deadline far beyond every contention's length gives the step
// functions of the budget (budgetSolver) a step for every few ns: they
// stop at their bound, as the unrolling does, and the answer is the
// interval they had reached, which holds the exact value.
func TestLongDeadlineStaysBounded(t *testing.T) {
	e, err := newExplorer(generatedTopo(t, "pair"), Options{Bus: bus.Options{IdealClock: true}, MaxStates: 5000})
	require.NoError(t, err)
	require.NoError(t, e.build())
	m := metricIndex(bus.MetricContention)
	within(t, 15*time.Second, func() {
		p, err := e.budgetBounds(m, int64(time.Second))
		require.NoError(t, err)
		assert.Equal(t, "1", p.Max.RatString(), "the upper bound of a probability")
		assert.LessOrEqual(t, p.Min.Sign(), 1)
	})
}

// The step functions of a long deadline notice Ctrl-C.
func TestLongDeadlineStopsOnInterrupt(t *testing.T) {
	interrupt := make(chan struct{})
	e, err := newExplorer(generatedTopo(t, "pair"), Options{MaxStates: 500, Interrupt: interrupt})
	require.NoError(t, err)
	require.NoError(t, e.build())
	close(interrupt)
	within(t, 500*time.Millisecond, func() {
		_, err := e.budgetBounds(metricIndex(bus.MetricContention), int64(time.Second))
		assert.ErrorIs(t, err, bus.ErrInterrupted)
	})
}

// stalledReplay is the counterexample file of a stall: a 300 ns wire,
// waits at their maximum.
func stalledReplay(t testing.TB) []byte {
	t.Helper()
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	d := 300.0
	topo.Cables[0].LengthM, topo.Cables[0].DelayNs = nil, &d
	o := Options{Bus: bus.Options{IdealClock: true, AllowOutOfSpec: true}, Timing: Max}
	res, err := Explore(topo, o)
	require.NoError(t, err)
	cex := res.Counterexamples(topo, o)
	require.NotEmpty(t, cex)
	data, err := json.MarshalIndent(cex[0].File, "", "  ")
	require.NoError(t, err)
	return data
}

// A counterexample file is read strictly: each error names the file and
// the field, and says what was expected.
func TestReadReplayFileRefuses(t *testing.T) {
	valid := stalledReplay(t)
	topo, o, err := ReadReplayFile("cex.json", valid)
	require.NoError(t, err)
	_, err = bus.Run(topo, o)
	require.NoError(t, err)
	edit := func(old, new string) []byte {
		require.Contains(t, string(valid), old)
		return []byte(strings.Replace(string(valid), old, new, 1))
	}
	firstMeaning := regexp.MustCompile(`"meaning": "[^"]*"`).FindString(string(valid))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"trailing data", append(slices.Clone(valid), "{}"...), "data after the object"},
		{"a key twice", edit(`"seed": `, `"seed": 1, "seed": `), "seed: given twice"},
		{"a key twice in a choice", edit(`"option": `, `"option": 0, "option": `), "choices[0].option: given twice"},
		{"a window of three", edit(`"event_window_ns": null`, `"event_window_ns": [1, 2, 3]`), "event_window_ns: want [FROM, TO]"},
		{"a window of one", edit(`"event_window_ns": null`, `"event_window_ns": [1]`), "event_window_ns: want [FROM, TO]"},
		{"a window backwards", edit(`"event_window_ns": null`, `"event_window_ns": [5, 1]`), "event_window_ns: [5, 1]"},
		{"an unknown outcome", edit(`"outcome": "stalled"`, `"outcome": "fine"`), `outcome: "fine": want one of ok, config-timeout`},
		{"a probability above 1", edit(`"probability": "1/4"`, `"probability": "7/3"`), `probability: "7/3": want a fraction`},
		{"a probability NaN", edit(`"probability": "1/4"`, `"probability": "NaN"`), `probability: "NaN"`},
		{"a probability of a huge exponent", edit(`"probability": "1/4"`, `"probability": "1e999999999"`), `probability: "1e999999999"`},
		{"a coin bias of a huge exponent", edit(`"coin_bias": "1/2"`, `"coin_bias": "1e-999999999"`), `coin_bias: "1e-999999999"`},
		{"a seed of the wrong type", edit(`"seed": `, `"seed": "x", "sed": `), "seed: a JSON string: want a whole number from 0"},
		{"a choice without meaning", edit(firstMeaning, `"meaning": ""`), "choices[0].meaning: missing"},
		{"too large", append(slices.Clone(valid), make([]byte, MaxReplayFileSize)...), "larger than 16 MiB"},
	} {
		_, _, err := ReadReplayFile("cex.json", tc.data)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), "cex.json: ", tc.name)
			assert.Contains(t, err.Error(), tc.want, tc.name)
		}
	}
	// A meaning that the run does not give: the path is of another bus.
	topo, o, err = ReadReplayFile("cex.json", edit(firstMeaning, `"meaning": "SLOW"`))
	require.NoError(t, err)
	_, err = bus.Run(topo, o)
	assert.ErrorContains(t, err, `choice 1 of the path (`)
	assert.ErrorContains(t, err, `says option 0 means "SLOW", but here it means`)
}

// An event window of more instants than the exploration may explore is
// refused before any is listed past the bound; the widest windows (an
// hour: 350 billion clock edges) are refused by the bus without listing
// one.
func TestWideEventWindowRefused(t *testing.T) {
	topo, err := bus.LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		win  bus.Window
		want string
	}{
		{bus.Window{From: 0, To: 1_000_000}, "a shift of the bus has 196608 options, each a state to explore: more than max states 50000 allows"},
		{bus.Window{From: 0, To: int64(time.Hour)}, "the event window 0..3600000000000 ns holds 707788800000 clock edges, each an instant for the first event: more than 1048576"},
	} {
		within(t, 2*time.Second, func() {
			_, err := Explore(topo, Options{Bus: bus.Options{Seed: 1}, Space: bus.ChoiceSpace{EventWindow: &tc.win}, MaxStates: 50_000})
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// The last state expanded takes the count of states past MaxStates by
// less than MaxOvershoot: a shift among many instants is left unexpanded
// when it would go further.
func TestStatesStayWithinTheBound(t *testing.T) {
	topo, err := bus.LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	const maxStates = 300
	res, err := Explore(topo, Options{Bus: bus.Options{Seed: 1}, MaxStates: maxStates,
		Space: bus.ChoiceSpace{PhaseGrid: 2, EventWindow: &bus.Window{From: 168_000, To: 169_000}}})
	require.NoError(t, err)
	assert.False(t, res.Complete)
	assert.Less(t, res.States, maxStates+MaxOvershoot, "%d states", res.States)
}

// A replay lists the clock edges of its window too, up to the bus's bound.
func TestReplayOfAWideWindowRefused(t *testing.T) {
	topo, err := bus.LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	o := bus.Options{Seed: 1, Replay: &bus.Path{Space: bus.ChoiceSpace{EventWindow: &bus.Window{From: 0, To: 20_000_000}}},
		MaxEvents: 1000}
	within(t, time.Second, func() {
		_, err := bus.Run(topo, o)
		assert.ErrorContains(t, err, "the event window 0..20000000 ns holds")
	})
}

// A bound on the states whose memory the machine cannot hold is refused
// once the first states show their size, not when memory runs out.
func TestMaxStatesBeyondTheMemoryBudgetRefused(t *testing.T) {
	topo := generatedTopo(t, "tree:12")
	within(t, 5*time.Second, func() {
		_, err := Explore(topo, Options{Timing: Nondet, Space: bus.ChoiceSpace{PhaseGrid: 4}, MaxStates: 100_000_000})
		require.ErrorIs(t, err, ErrInvalidOptions)
		assert.ErrorContains(t, err, "max states 100000000 would take about")
		assert.ErrorContains(t, err, "more than the memory budget of 4096 MiB; lower max states, or raise the budget")
	})
}

// An exploration whose pace says its MaxStates states would outlast
// MaxDuration is refused after its first second, not when they are found.
func TestExplorationBeyondMaxDurationRefused(t *testing.T) {
	topo := generatedTopo(t, "tree:12")
	within(t, 10*time.Second, func() {
		_, err := Explore(topo, Options{Timing: Nondet, Space: bus.ChoiceSpace{PhaseGrid: 4}, MaxStates: 5_000_000, MaxMemory: 1 << 40,
			MaxDuration: 2 * time.Second})
		require.ErrorIs(t, err, ErrInvalidOptions)
		assert.ErrorContains(t, err, "max states 5000000 would take at least")
		assert.ErrorContains(t, err, "more than max duration 2s")
	})
}

// Ctrl-C during the solving stops it too: the graph is known, the answers
// are not, and Explore returns bus.ErrInterrupted, not results.
func TestInterruptStopsTheSolving(t *testing.T) {
	interrupt := make(chan struct{})
	e, err := newExplorer(generatedTopo(t, "pair"), Options{Interrupt: interrupt})
	require.NoError(t, err)
	require.NoError(t, e.build())
	close(interrupt)
	_, err = e.solve()
	assert.ErrorIs(t, err, bus.ErrInterrupted)
}
