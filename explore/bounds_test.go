package explore

import (
	"fmt"
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
	_, err = e.follow(make([]int, 100_000))
	assert.ErrorIs(t, err, bus.ErrInterrupted)
	assert.Less(t, time.Since(start), 500*time.Millisecond)
}

// within runs f and fails the test unless it returns within d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
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
	within(t, 5*time.Second, func() {
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
