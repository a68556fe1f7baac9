package election

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// compareCase is one scenario of --compare on one topology.
type compareCase struct {
	spec    string
	o       Options
	crashed []string // the scenario's nodes down from the start
}

func (c compareCase) String() string {
	return fmt.Sprintf("%s initiators %d/%v crashed %v crashes %v seed %d", c.spec, c.o.InitiatorCount, c.o.Initiators, c.crashed, c.o.Crashes, c.o.Seed)
}

// compareCases are scenarios on every kind of graph: the initiators left
// open, all, one and three, without faults and with the faults each graph
// has an algorithm for.
func compareCases() []compareCase {
	var cases []compareCase
	for _, spec := range []string{"ring:8", "ring:5", "tree:12:3", "chain:5", "star:5", "complete:6"} {
		for _, k := range []int{0, AllNodes, 1, 3} {
			for seed := range uint64(3) {
				o := Options{IDOrder: Random, InitiatorCount: k, Seed: seed, UnitDelays: seed == 2}
				cases = append(cases, compareCase{spec: spec, o: o})
				switch spec {
				case "ring:8":
					f := o
					f.Crashes = []NodeEvent{{Node: "n2", At: 500}}
					cases = append(cases, compareCase{spec: spec, o: f})
				case "complete:6":
					f := o
					f.Crashed, f.Crashes = []string{"n5"}, []NodeEvent{{Node: "n3", At: 1500}}
					cases = append(cases, compareCase{spec: spec, o: f, crashed: []string{"n5"}})
				}
			}
		}
	}
	return cases
}

// Every row that runs runs the scenario: the same initiators (as many as
// asked, all live nodes by default, and the same nodes in every row), the
// announcement, and the same crashes, or it says how it differs; a row
// that does not run says why; and no row's leader is a crashed node.
func TestCompareRowsRunOneScenario(t *testing.T) {
	for _, c := range compareCases() {
		topo, err := bus.Generate(c.spec)
		require.NoError(t, err)
		rows, err := Compare(topo, c.o)
		require.NoError(t, err, c)
		require.Len(t, rows, len(algorithms), c)
		live := len(topo.Nodes) - len(c.crashed)
		want := c.o.InitiatorCount
		if want == 0 || want == AllNodes {
			want = live
		}
		var initiators []string // the first row's, which every other must share
		ran := 0
		for _, r := range rows {
			if r.Result == nil {
				assert.NotEmpty(t, r.Reason, "%s: %s did not run and says nothing", c, r.Algo)
				assert.Empty(t, r.Differs, "%s: %s", c, r.Algo)
				continue
			}
			ran++
			res := r.Result
			for _, d := range r.Differs {
				assert.NotEmpty(t, d, "%s: %s", c, r.Algo)
			}
			if res.Leader != "" {
				i := slices.IndexFunc(res.Nodes, func(n NodeResult) bool { return n.Node == res.Leader })
				require.GreaterOrEqual(t, i, 0, "%s: %s", c, r.Algo)
				assert.Equal(t, Leader, res.Nodes[i].State, "%s: %s elects %s, which is not up and leading", c, r.Algo, res.Leader)
				assert.NotContains(t, c.crashed, res.Leader, "%s: %s elects a crashed node", c, r.Algo)
				assert.NotContains(t, res.Crashed, res.Leader, "%s: %s elects a crashed node", c, r.Algo)
			}
			if r.Algo == "1394" {
				assert.Equal(t, len(topo.Cables), res.Messages.Count("BUS_RESET"), "%s: 1394 resets each cable once", c)
				assert.Equal(t, "delays", res.TimeUnit, c)
			}
			if len(r.Differs) > 0 {
				continue
			}
			got := res.Initiators
			if got == nil { // 1394's power-up: every node
				got = slices.Clone(res.Crashed) // none: 1394 runs without crashes
				for _, n := range topo.Nodes {
					got = append(got, n.ID)
				}
			}
			assert.Len(t, got, want, "%s: %s's initiators %v", c, r.Algo, got)
			if initiators == nil {
				initiators = slices.Sorted(slices.Values(got))
			}
			assert.Equal(t, initiators, slices.Sorted(slices.Values(got)), "%s: %s starts elsewhere", c, r.Algo)
			assert.True(t, res.Announced, "%s: %s does not announce and does not say so", c, r.Algo)
			assert.Equal(t, c.crashed, res.Crashed, "%s: %s", c, r.Algo)
			assert.Equal(t, c.o.Crashes, res.Crashes, "%s: %s", c, r.Algo)
		}
		assert.Positive(t, ran, c)
	}
}

// A row that ran the scenario and elected nobody has failed, and says why;
// rows that differ from the scenario never fail (anonymous elects nobody by
// design), nor do rows that elect.
func TestCompareFailedRows(t *testing.T) {
	topo, err := bus.Generate("ring:6")
	require.NoError(t, err)
	rows, err := Compare(topo, Options{Crashes: []NodeEvent{{Node: "n2", At: 0}}})
	require.NoError(t, err)
	var failed []string
	for _, r := range rows {
		if r.Failed() {
			failed = append(failed, r.Algo)
			assert.Empty(t, r.Result.Leader, r.Algo)
			assert.Contains(t, r.Result.NoLeader, "the ring is broken at n2", r.Algo)
		}
	}
	assert.Equal(t, []string{"chang-roberts", "chang-roberts-bidi", "chang-roberts-min", "lelann", "ring-list"}, failed,
		"the notes: under failures the ring algorithms do not terminate; on a ring of cables ring-list cannot skip")

	rows, err = Compare(topo, Options{})
	require.NoError(t, err)
	for _, r := range rows {
		assert.False(t, r.Failed(), r.Algo)
		if r.Algo == "anonymous" {
			require.NotNil(t, r.Result)
			assert.Empty(t, r.Result.Leader, "Angluin: nobody is elected on an anonymous ring")
			assert.NotEmpty(t, r.Differs, "anonymous says why it elects nobody")
		}
	}
}

// The 1394 row counts and times one span, from the first BUS_RESET to the
// end of tree identify, the reset's hold left out: one BUS_RESET per cable,
// no traced message after its time, its time in delays of the longest
// cable's propagation and a PHY's repeat delay, and tree identify as the
// bus measures it inside.
func TestIEEE1394CountsAndTimesOneSpan(t *testing.T) {
	timing := phy.Profiles()[0].Timing
	for _, spec := range []string{"pair", "chain:5", "star:4", "tree:12:3", "tree:20:7"} {
		for seed := range uint64(4) {
			topo, err := bus.Generate(spec)
			require.NoError(t, err)
			o := Options{Algo: "1394", Seed: seed, Trace: true}
			bo := bus.Options{Seed: seed, AllowOutOfSpec: true, PowerUp: bus.PowerUpAll}
			if seed%2 == 1 {
				o.Initiators = []string{topo.Nodes[len(topo.Nodes)-1].ID}
				bo.Initiators, bo.PowerUp = o.Initiators, 0
			}
			what := fmt.Sprintf("%s seed %d", spec, seed)
			res, err := Run(topo, o)
			require.NoError(t, err, what)
			assert.Equal(t, len(topo.Cables), res.Messages.Count("BUS_RESET"), "%s: one reset per cable", what)
			assert.Equal(t, "delays", res.TimeUnit, what)
			// A 4.5 m cable: 4.5 × 5.05 ns, rounded, and the repeat delay.
			assert.InDelta(t, math.Round(phy.MaxCableLengthM*phy.CableNsPerMetre)+float64(timing.RepeatDelay.Nanoseconds()), res.NsPerDelay, 0, what)
			assert.InDelta(t, float64(res.TimeNs)/res.NsPerDelay, res.Time, 0.0005, what)
			for _, m := range res.Trace {
				assert.LessOrEqual(t, m.Sent, res.Time, "%s: %s sent after the time the row reports", what, m.Type)
				assert.GreaterOrEqual(t, m.Sent, 0.0, what)
			}
			r, err := bus.Run(topo, bo)
			require.NoError(t, err, what)
			tm := r.Generations[0].Timing
			// The bus times the reset's end when a PHY leaves R1, the trace
			// when it enters T0, up to a clock cycle later.
			cycle := 1e9 / float64(timing.ClockHz)
			assert.GreaterOrEqual(t, float64(res.TimeNs), float64(tm.TreeIDDone-tm.ResetEnd)-cycle, "%s: tree identify is inside the span", what)
			assert.Less(t, res.TimeNs, timing.ResetTime.Nanoseconds(), "%s: the reset's hold is left out", what)
		}
	}
	// A longer cable makes a longer delay.
	topo, err := bus.Generate("chain:3")
	require.NoError(t, err)
	long := 100.0
	topo.Cables[1].DelayNs = &long
	res, err := Run(topo, Options{Algo: "1394"})
	require.NoError(t, err)
	assert.InDelta(t, long+float64(timing.RepeatDelay.Nanoseconds()), res.NsPerDelay, 0)
}
