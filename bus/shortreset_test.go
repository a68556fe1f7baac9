package bus

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// resetEpisode is one R0 of a trace: the node, when it entered R0, and how
// long it drove BUS_RESET until it went on to R1 (-1 when it did not: the
// trace ends in it, or the PHY started its reset over).
type resetEpisode struct {
	node       string
	start, len int64
}

func resetEpisodes(trace []TraceEvent) []resetEpisode {
	var out []resetEpisode
	open := map[string]int{}
	for _, e := range trace {
		if e.Kind != TraceState {
			continue
		}
		if k, ok := open[e.Node]; ok && e.FromState == phy.R0ResetStart {
			if e.ToState == phy.R1ResetWait {
				out[k].len = e.TimeNs - out[k].start
			}
			delete(open, e.Node)
		}
		if e.ToState == phy.R0ResetStart {
			open[e.Node] = len(out)
			out = append(out, resetEpisode{e.Node, e.TimeNs, -1})
		}
	}
	return out
}

// shortResetProblems checks that every R0 shorter than the shortest long
// reset belongs to a generation a short reset began: no PHY may carry a
// short-reset mark past the reset it was meant for (docs/protocol.md §4).
func shortResetProblems(topo *Topology, res *Result, trace []TraceEvent) []string {
	shortest := time.Duration(1<<63 - 1)
	for _, name := range []string{topo.Profile, "1394-1995", "1394a-2000", "1394b-2002", "prism"} {
		p, err := phy.LookupProfile(name)
		if err != nil {
			continue
		}
		t := p.Timing
		if topo.Timing != nil {
			t = topo.Timing.apply(t)
		}
		shortest = min(shortest, t.ResetTime, cmp.Or(t.ResetTimeRange.Min, t.ResetTime))
	}
	// A fast clock (up to +100 ppm in spec, maxClockPPM beyond) counts a timer
	// short in real time, and edges round it by up to a cycle (41 ns at the
	// slowest clock a file may give): a long reset is at least this long.
	minLong := int64(float64(shortest)*(1-maxClockPPM*1e-6)) - 41
	var problems []string
	for _, ep := range resetEpisodes(trace) {
		if ep.len < 0 || ep.len >= minLong {
			continue
		}
		// The node's generation: the last to begin by then that holds it
		// (a disconnect at the instant of a short reset begins another,
		// of the nodes cut off).
		var g *Generation
		for k := range res.Generations {
			if _, in := res.Generations[k].Node(ep.node); in && res.Generations[k].StartNs <= ep.start {
				g = &res.Generations[k]
			}
		}
		if g == nil || !strings.HasPrefix(g.Cause.Text, "short reset from") {
			problems = append(problems, fmt.Sprintf("%s drives BUS_RESET for %d ns from %d ns, a short reset, in a generation no short reset began", ep.node, ep.len, ep.start))
		}
	}
	return problems
}

// TestNoShortResetMarkOutlivesItsReset: a short reset scripted while the
// bus initialises used to mark every PHY at once; the PHYs that absorbed it
// in R0 or R1 kept the mark, and their next received reset, a long one,
// lasted 1.34 µs. It now waits for the idle bus, as an arbitrated reset
// must, and every later long reset is long on every PHY. The chain,
// and trees with a disconnect in between.
func TestNoShortResetMarkOutlivesItsReset(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		events func(topo *Topology) []Event
	}{
		{"chain:5", func(topo *Topology) []Event {
			return []Event{{At: 166700, Reset: &ResetEvent{Node: "n4", Short: true}}, {At: Duration(2 * time.Millisecond), Reset: &ResetEvent{Node: "n0"}}}
		}},
		{"tree:12:1", func(topo *Topology) []Event {
			return []Event{{At: 166700, Reset: &ResetEvent{Node: lastNode(topo), Short: true}}, {At: Duration(2 * time.Millisecond), Reset: &ResetEvent{Node: "n0"}}}
		}},
		{"tree:10:2", func(topo *Topology) []Event {
			last := topo.Cables[len(topo.Cables)-1]
			return []Event{
				{At: 166700, Reset: &ResetEvent{Node: lastNode(topo), Short: true}},
				{At: 166900, Disconnect: &Cable{From: last.From, To: last.To}},
				{At: Duration(2 * time.Millisecond), Reset: &ResetEvent{Node: "n0"}},
			}
		}},
	} {
		topo := mustGenerate(t, tc.spec)
		topo.Profile = "1394a-2000"
		topo.Events = tc.events(topo)
		for seed := range uint64(10) {
			var tr Trace
			res, problems, err := runTraced(topo, Options{Seed: seed})
			require.NoError(t, err)
			assert.Empty(t, problems, "%s seed %d", tc.spec, seed)
			_, err = Run(topo, Options{Seed: seed, Observer: tr.Record})
			require.NoError(t, err)
			assert.Empty(t, shortResetProblems(topo, res, tr.Events), "%s seed %d", tc.spec, seed)
			last := res.Generations[len(res.Generations)-1]
			assert.Equal(t, OutcomeOK, last.Outcome, "%s seed %d", tc.spec, seed)
			assert.Contains(t, last.Cause.Text, "long reset from n0", "%s seed %d", tc.spec, seed)
		}
	}
}

// TestShortResetWaitsForAnIdleBus: a short reset is arbitrated, so one
// requested during self identify waits, like a PHY configuration packet,
// and goes out the moment the bus is idle; it interrupts nothing, and every
// PHY then drives BUS_RESET for SHORT_RESET_TIME.
func TestShortResetWaitsForAnIdleBus(t *testing.T) {
	topo := mustGenerate(t, "star:4")
	topo.Profile = "1394a-2000"
	topo.Events = []Event{{At: 168100, Reset: &ResetEvent{Node: "n1", Short: true}}}
	var tr Trace
	res, err := Run(topo, Options{Seed: 1, NominalTimers: true, Observer: tr.Record})
	require.NoError(t, err)
	require.Len(t, res.Generations, 2)
	first, short := res.Generations[0], res.Generations[1]
	require.Equal(t, OutcomeOK, first.Outcome, "the initialisation under way is not interrupted")
	idle := first.StartNs + first.Timing.SelfIDDone
	assert.Equal(t, "short reset from n1 (event 0)", short.Cause.Text)
	var details []string
	for _, e := range tr.Events {
		if e.Kind == TraceScenario {
			details = append(details, fmt.Sprintf("%d %s", e.TimeNs, e.Detail))
		}
	}
	assert.Equal(t, []string{
		"168100 short reset from n1 (event 0) waits: the bus is not idle",
		fmt.Sprintf("%d short reset from n1 (event 0)", idle),
	}, details)
	assert.Equal(t, OutcomeOK, short.Outcome)
	shortTime := int64(topo.resolvedProfile(t).Timing.ShortResetTime)
	for _, ep := range resetEpisodes(tr.Events) {
		if ep.start >= short.StartNs {
			assert.InDelta(t, shortTime, ep.len, 41, "%s drives the short reset", ep.node)
		}
	}
}

// TestShortResetFallsBackToALongOne: a PHY that cannot win the bus for its
// short reset within MAX_ARB_STATE_TIME of idling in A0 initiates a long
// reset (the state machine's arbitration timeout). Here n1, identified
// first, idles in A0 while the three other nodes still identify, longer
// than a MAX_ARB_STATE_TIME of 5 µs (its request came before it got there:
// the time counts from its entry to A0).
func TestShortResetFallsBackToALongOne(t *testing.T) {
	topo := mustGenerate(t, "star:4")
	topo.Profile = "1394a-2000"
	topo.Events = []Event{{At: 168100, Reset: &ResetEvent{Node: "n1", Short: true}}}
	timing := topo.resolvedProfile(t).Timing
	timing.MaxArbStateTime = 5 * time.Microsecond
	var tr Trace
	res, err := Run(topo, Options{Seed: 1, NominalTimers: true, Timing: &timing, Observer: tr.Record})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(res.Generations), 2)
	first, fallback := res.Generations[0], res.Generations[1]
	assert.Equal(t, OutcomeInterrupted, first.Outcome, "the long reset cuts self identify short")
	assert.Equal(t, "long reset from n1 (event 0): its short reset won no arbitration within MAX_ARB_STATE_TIME", fallback.Cause.Text)
	var a0 int64
	for _, e := range tr.Events {
		if e.Kind == TraceState && e.Node == "n1" && e.ToState == phy.A0Idle && a0 == 0 {
			a0 = e.TimeNs
		}
	}
	assert.InDelta(t, a0+int64(timing.MaxArbStateTime), fallback.StartNs, 41, "MAX_ARB_STATE_TIME after n1 entered A0")
	for _, ep := range resetEpisodes(tr.Events) {
		if ep.start >= fallback.StartNs && ep.len >= 0 {
			assert.GreaterOrEqual(t, ep.len, int64(timing.ResetTime)-41, "%s drives a long reset", ep.node)
		}
	}
}

// resolvedProfile is the bus profile of topo, with its timing overrides.
func (t *Topology) resolvedProfile(tb testing.TB) phy.Profile {
	rt, err := t.resolve(ResolveOptions{AllowOutOfSpec: true})
	require.NoError(tb, err)
	return rt.profile
}
