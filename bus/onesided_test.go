package bus

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// oneSidedText reads a one-sided contention's explanation back;
// lateText the one where the other end began its own PARENT_NOTIFY while
// the waiter's was there.
var (
	oneSidedText = regexp.MustCompile(`^(\S+) did not wait: (\S+)'s PARENT_NOTIFY was on \S+:(\d+) for (\d+) ns only, from (\d+) ns, just after \S+'s clock edge at (\d+) ns, to (\d+) ns, its next edge, which found it gone: \S+ never sampled it$`)
	lateText     = regexp.MustCompile(`^(\S+) did not wait: it began its own PARENT_NOTIFY on \S+:(\d+) on its clock edge at (\d+) ns, while (\S+)'s, there from (\d+) ns, lasted to (\d+) ns only; its next edge, at (\d+) ns, found it gone: \S+ never sampled both at once$`)
)

// Every root contention in which only one node waited says why the other
// did not, and the trace bears it out: the waiter's PARENT_NOTIFY reached
// the other's port, resolved there as the contention it was, and was gone
// again within one of that PHY's clock periods, during which the other
// PHY changed no state and never entered root contention.
func TestOneSidedContentionExplained(t *testing.T) {
	seen := 0
	for _, profile := range []string{"1394-1995", "1394a-2000", "prism"} {
		for _, gen := range []string{"pair", "chain:4", "tree:8:3"} {
			topo, err := Generate(gen)
			require.NoError(t, err)
			topo.Profile = profile
			prof, err := phy.LookupProfile(profile)
			require.NoError(t, err)
			period := 1e9 / float64(prof.Timing.ClockHz)
			for seed := range uint64(400) {
				var tr Trace
				res, err := Run(topo, Options{Seed: seed, AllowOutOfSpec: true, Observer: tr.Record})
				require.NoError(t, err)
				for _, g := range res.Generations {
					for _, c := range g.Contention {
						waited := map[string]bool{}
						for _, b := range c.Backoffs {
							waited[b.Node] = true
						}
						where := fmt.Sprintf("%s %s seed %d, %s:%d - %s:%d", profile, gen, seed, c.Nodes[0], c.Ports[0], c.Nodes[1], c.Ports[1])
						if len(waited) == 2 {
							assert.Empty(t, c.OneSided, where)
							continue
						}
						seen++
						m := oneSidedText.FindStringSubmatch(c.OneSided)
						require.NotNil(t, m, "%s: %q", where, c.OneSided)
						other, waiter := m[1], m[2]
						port, _ := strconv.Atoi(m[3])
						from, _ := strconv.ParseInt(m[5], 10, 64)
						edge, _ := strconv.ParseInt(m[6], 10, 64)
						to, _ := strconv.ParseInt(m[7], 10, 64)
						assert.True(t, waited[waiter] && !waited[other], where)
						dur, _ := strconv.ParseInt(m[4], 10, 64)
						assert.Equal(t, to-from, dur, where)
						assert.Less(t, edge, from, where)
						// One clock period at most between the two edges.
						assert.LessOrEqual(t, float64(to-edge), period+1, where)
						contended := phy.Receive(phy.TxParentNotify, phy.TxParentNotify)
						arrived, left := false, false
						for _, e := range tr.Events {
							switch {
							case e.Kind == TraceReceive && e.Node == other && e.Port == port && e.TimeNs == from:
								arrived = e.ToLine == contended
							case e.Kind == TraceReceive && e.Node == other && e.Port == port && e.TimeNs == to:
								left = e.FromLine == contended
							case e.Kind == TraceState && e.Node == other && e.TimeNs > edge && e.TimeNs < to:
								t.Errorf("%s: %s changed state at %d ns, between its edges", where, other, e.TimeNs)
							case e.Kind == TraceState && e.Node == other && e.ToState == phy.T3RootContention && e.TimeNs >= g.StartNs:
								t.Errorf("%s: %s entered root contention at %d ns", where, other, e.TimeNs)
							}
						}
						assert.True(t, arrived, "%s: the trace has no contention arriving at %s:%d at %d ns", where, other, port, from)
						assert.True(t, left, "%s: the trace has it leaving %s:%d at %d ns", where, other, port, to)
					}
				}
			}
		}
	}
	require.Greater(t, seen, 20, "too few one-sided contentions to hold the explanation to")
}

// A node that begins its own PARENT_NOTIFY on a clock edge while the other
// end's is already there samples its port only at its next edge; when the
// other end's has gone by then, only the other end waits. The unplug
// example's second generation does that (a and d), and the explanation
// holds to the trace: the other end drove PARENT_NOTIFY from its edge,
// its port showed the contention until the waiter's stopped arriving,
// within one clock period, and it did not enter root contention at its
// next edge.
func TestOneSidedContentionOfALateParentNotify(t *testing.T) {
	topo, err := LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	seen := 0
	for _, profile := range []string{"1394-1995", "1394a-2000"} {
		prof, err := phy.LookupProfile(profile)
		require.NoError(t, err)
		period := 1e9 / float64(prof.Timing.ClockHz)
		for seed := range uint64(100) {
			var tr Trace
			res, err := Run(topo, Options{Seed: seed + 1, Profile: profile, Observer: tr.Record})
			require.NoError(t, err)
			for _, g := range res.Generations {
				for _, c := range g.Contention {
					where := fmt.Sprintf("%s seed %d, %s:%d - %s:%d", profile, seed+1, c.Nodes[0], c.Ports[0], c.Nodes[1], c.Ports[1])
					waiters := map[string]bool{}
					for _, b := range c.Backoffs {
						waiters[b.Node] = true
					}
					assert.Equal(t, len(waiters) == 1, c.OneSided != "", "%s: one waiter, and why: %q", where, c.OneSided)
					if c.OneSided == "" || oneSidedText.MatchString(c.OneSided) {
						continue
					}
					m := lateText.FindStringSubmatch(c.OneSided)
					require.NotNil(t, m, "%s: %q", where, c.OneSided)
					seen++
					other, waiter := m[1], m[4]
					port, _ := strconv.Atoi(m[2])
					own, _ := strconv.ParseInt(m[3], 10, 64)
					from, _ := strconv.ParseInt(m[5], 10, 64)
					to, _ := strconv.ParseInt(m[6], 10, 64)
					next, _ := strconv.ParseInt(m[7], 10, 64)
					assert.Len(t, c.Backoffs, 1, where)
					assert.Equal(t, waiter, c.Backoffs[0].Node, where)
					assert.True(t, from <= own && own < to && to <= next, where)
					assert.LessOrEqual(t, float64(next-own), period+1, "%s: one clock period between the edges", where)
					contended := phy.Receive(phy.TxParentNotify, phy.TxParentNotify)
					began, left := false, false
					for _, e := range tr.Events {
						switch {
						case e.Kind == TraceTransmit && e.Node == other && e.Port == port && e.TimeNs == own:
							began = e.ToLine == phy.TxParentNotify
						case e.Kind == TraceReceive && e.Node == other && e.Port == port && e.TimeNs == to:
							left = e.FromLine == contended
						case e.Kind == TraceState && e.Node == other && e.ToState == phy.T3RootContention && e.TimeNs > own && e.TimeNs <= next:
							t.Errorf("%s: %s entered root contention at %d ns", where, other, e.TimeNs)
						}
					}
					assert.True(t, began, "%s: the trace has %s driving PARENT_NOTIFY on p%d from %d ns", where, other, port, own)
					assert.True(t, left, "%s: the trace has the contention leaving %s:%d at %d ns", where, other, port, to)
				}
			}
		}
	}
	require.Positive(t, seen, "no late PARENT_NOTIFY to hold the explanation to")
}
