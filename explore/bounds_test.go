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
