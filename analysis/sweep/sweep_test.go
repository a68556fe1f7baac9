package sweep

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  Param
		count int
	}{
		{"delay=0..400:20", Param{Name: "delay", Unit: "ns", From: 0, To: 400, Step: 20}, 21},
		{"delay=0..390:20", Param{Name: "delay", Unit: "ns", From: 0, To: 390, Step: 20}, 20},
		{"coin_bias=0.1..0.3:0.1", Param{Name: "coin_bias", From: 0.1, To: 0.3, Step: 0.1}, 3},
		{"cable_length=4.5", Param{Name: "cable_length", Unit: "m", From: 4.5, To: 4.5, Step: 1}, 1},
		{"nodes=2..62:10", Param{Name: "nodes", From: 2, To: 62, Step: 10}, 7},
		{"fast_min=200..260:1", Param{Name: "fast_min", Unit: "ns", From: 200, To: 260, Step: 1}, 61},
		// Units: times in ns, us (µs), ms or s, lengths in m, cm or mm;
		// a bare number is in the parameter's own unit. Decimals are exact.
		{"delay=100ns..160ns:2ns", Param{Name: "delay", Unit: "ns", From: 100, To: 160, Step: 2}, 31},
		{"delay=0.1us..0.16us:20ns", Param{Name: "delay", Unit: "ns", From: 100, To: 160, Step: 20}, 4},
		{"delay=1µs", Param{Name: "delay", Unit: "ns", From: 1000, To: 1000, Step: 1}, 1},
		{"delay=0.001ms..1e3ns:0.0000001s", Param{Name: "delay", Unit: "ns", From: 1000, To: 1000, Step: 100}, 1},
		{"cable_length=1m..3m:1m", Param{Name: "cable_length", Unit: "m", From: 1, To: 3, Step: 1}, 3},
		{"cable_length=50cm..4500mm:0.5m", Param{Name: "cable_length", Unit: "m", From: 0.5, To: 4.5, Step: 0.5}, 9},
		{"fast_min=0.24us..0.26us:1ns", Param{Name: "fast_min", Unit: "ns", From: 240, To: 260, Step: 1}, 21},
	} {
		p, err := Parse(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, p, tc.in)
		assert.Equal(t, tc.count, p.Count(), tc.in)
		assert.LessOrEqual(t, p.Value(p.Count()-1), p.To+1e-9, "%s: the last value passes TO", tc.in)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"delay", "no '='"},
		{"length=1..2:1", `unknown parameter "length"; known: delay, cable_length, fast_min`},
		{"delay=a..2:1", `FROM "a" is not a number`},
		{"delay=1..b:1", `TO "b" is not a number`},
		{"delay=1..2:x", `STEP "x" is not a number`},
		{"delay=1..2", "no ':STEP' after the range"},
		{"delay=1:2", "a STEP needs a range FROM..TO"},
		{"delay=0..10:0", "STEP must be positive"},
		{"delay=0..10:-1", "STEP must be positive"},
		{"delay=10..0:1", "TO 0 is below FROM 10"},
		{"delay=-5..10:5", "delay takes values from 0 to 1e+06 ns"},
		{"coin_bias=0..1.5:0.5", "coin_bias takes values from 0 to 1"},
		{"nodes=2.5..4:1", "FROM 2.5 of nodes is not an integer"},
		{"nodes=2..64:1", "nodes takes values from 1 to 63"},
		// Windows are whole nanoseconds: 10.5 would silently run as 11.
		{"fast_min=10.5", "FROM 10.5 of fast_min is not a whole number of ns"},
		{"fast_min=0.2405us", "FROM 0.2405us of fast_min is not a whole number of ns"},
		{"slow_max=500..600:0.5", "STEP 0.5 of slow_max is not a whole number of ns"},
		{"delay=100km", `FROM "100km": unknown unit "km"; delay takes ns, us (µs), ms, s`},
		{"cable_length=1m..2ns:1m", `TO "2ns": unknown unit "ns"; cable_length takes m, cm, mm`},
		{"coin_bias=0.5ns", `FROM "0.5ns": coin_bias is a plain number, with no unit`},
		{"delay=us", `FROM "us" is not a number`},
		{"delay=1e999ns", `FROM "1e999ns" is not a number`},
		{"delay=0..1000:0.01", "more than 10000 values"},
		{"delay=NaN", `FROM "NaN" is not a number`},
		{"delay=0..Inf:1", `TO "Inf" is not a number`},
	} {
		_, err := Parse(tc.in)
		require.Error(t, err, tc.in)
		assert.ErrorIs(t, err, ErrBadParam, tc.in)
		assert.Contains(t, err.Error(), tc.msg, tc.in)
		assert.Contains(t, err.Error(), `"`+tc.in+`"`, "%s: the error quotes the flag", tc.in)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"delay=0..400:20", "coin_bias=0.5", "nodes=2..63:1", "x=", "delay=1e308..1e308:1e-308", "fast_min=1..2:1e-9", "delay=0.1us..2ms:0.5µs", "cable_length=50cm..4m:1mm", "delay=0e99999999999ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			require.ErrorIs(t, err, ErrBadParam)
			return
		}
		n := p.Count()
		require.True(t, n >= 1 && n <= MaxPoints+1, "count %d", n)
		require.GreaterOrEqual(t, p.Value(n-1), p.From)
		// The grammar reads back what String writes.
		q, err := Parse(p.String())
		require.NoError(t, err)
		require.Equal(t, p.Count(), q.Count())
	})
}

func mustParse(t *testing.T, specs ...string) []Param {
	t.Helper()
	var ps []Param
	for _, s := range specs {
		p, err := Parse(s)
		require.NoError(t, err)
		ps = append(ps, p)
	}
	return ps
}

func TestGridOrderIsNestedLoops(t *testing.T) {
	g, err := NewGrid(mustParse(t, "delay=0..20:10", "coin_bias=0.25..0.75:0.5"))
	require.NoError(t, err)
	require.Equal(t, 6, g.Len())
	var got [][]float64
	for i := range g.Len() {
		got = append(got, g.Point(i).Values)
	}
	assert.Equal(t, [][]float64{{0, 0.25}, {0, 0.75}, {10, 0.25}, {10, 0.75}, {20, 0.25}, {20, 0.75}}, got)
	assert.Equal(t, "delay=10 coin_bias=0.75", g.Point(3).String())
}

func TestGridErrors(t *testing.T) {
	for _, tc := range []struct {
		specs []string
		msg   string
	}{
		{nil, "no parameter to sweep"},
		{[]string{"delay=0..10:1", "delay=5"}, "delay is swept twice"},
		{[]string{"delay=0..10:1", "cable_length=1"}, "delay and cable_length both set the cable delay"},
		{[]string{"delay=0..999:1", "fast_min=100..200:1"}, "more than 10000 points"},
	} {
		_, err := NewGrid(mustParse(t, tc.specs...))
		require.Error(t, err, tc.specs)
		assert.ErrorIs(t, err, ErrBadParam)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

func point(t *testing.T, specs ...string) Point {
	t.Helper()
	g, err := NewGrid(mustParse(t, specs...))
	require.NoError(t, err)
	require.Equal(t, 1, g.Len())
	return g.Point(0)
}

func TestApplyDelayAndLengthSetEveryCable(t *testing.T) {
	topo, err := bus.Generate("tree:8:3")
	require.NoError(t, err)
	base := Base{Topology: topo, Gen: "tree:8:3"}

	got, o, err := base.Apply(point(t, "delay=150"))
	require.NoError(t, err)
	assert.True(t, o.AllowOutOfSpec, "a 150 ns cable is out of spec and must still run")
	require.Len(t, got.Cables, 7)
	for _, c := range got.Cables {
		require.NotNil(t, c.DelayNs)
		assert.Equal(t, 150.0, *c.DelayNs)
		assert.Nil(t, c.LengthM)
	}
	for _, c := range topo.Cables {
		assert.Nil(t, c.DelayNs, "the base topology is not modified")
	}

	got, _, err = base.Apply(point(t, "cable_length=10"))
	require.NoError(t, err)
	for _, c := range got.Cables {
		require.NotNil(t, c.LengthM)
		assert.Equal(t, 10.0, *c.LengthM)
	}
	cond, err := Evaluate(got, bus.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(51), cond.DelayNs, "10 m at 5.05 ns/m is 50.5 ns, rounded half away from zero")

	res, err := bus.Run(got, bus.Options{AllowOutOfSpec: true, Seed: 1})
	require.NoError(t, err)
	assert.NotEmpty(t, res.OutOfSpec, "the emulator sees the 10 m cables as out of spec")
}

func TestApplyWindows(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	base := Base{Topology: topo, Options: bus.Options{Profile: "prism"}}
	got, o, err := base.Apply(point(t, "fast_max=900", "slow_min=1500"))
	require.NoError(t, err)
	cond, err := Evaluate(got, o)
	require.NoError(t, err)
	assert.Equal(t, phy.Window{Min: 760 * time.Nanosecond, Max: 900 * time.Nanosecond}, cond.Fast, "fast_min keeps the prism value")
	assert.Equal(t, phy.Window{Min: 1500 * time.Nanosecond, Max: 1670 * time.Nanosecond}, cond.Slow)

	// The emulator runs with the windows the point asks for: with --timing
	// min every wait is a window's lower bound.
	res, err := bus.Run(got, bus.Options{Profile: "prism", Seed: 2, IdealClock: true, Corner: treeid.CornerMin})
	require.NoError(t, err)
	for _, b := range res.Generations[0].Contention[0].Backoffs {
		want := int64(760)
		if !b.Fast {
			want = 1500
		}
		assert.Equal(t, want, b.WaitNs)
	}

	_, _, err = base.Apply(point(t, "fast_min=900"))
	assert.ErrorIs(t, err, ErrBadParam)
	assert.ErrorContains(t, err, "at fast_min=900 the windows are FAST 900ns–850ns")

	// Options.Timing, when set, is what the run uses, so the point changes it.
	timing := phy.Profiles()[0].Timing
	base.Options.Timing = &timing
	_, o, err = base.Apply(point(t, "slow_max=700"))
	require.NoError(t, err)
	assert.Equal(t, 700*time.Nanosecond, o.Timing.RootContendSlow.Max)
	assert.Equal(t, 600*time.Nanosecond, timing.RootContendSlow.Max, "the base timing is not modified")
}

func TestApplyNodesAndCoinBias(t *testing.T) {
	topo, err := bus.Generate("tree:5:9")
	require.NoError(t, err)
	base := Base{Topology: topo, Gen: "tree:5:9"}
	got, o, err := base.Apply(point(t, "nodes=12", "coin_bias=0.25"))
	require.NoError(t, err)
	want, err := bus.Generate("tree:12:9")
	require.NoError(t, err)
	assert.Equal(t, want.Cables, got.Cables, "the tree keeps its seed")
	require.NotNil(t, o.CoinBias)
	assert.Equal(t, 0.25, *o.CoinBias)

	for _, tc := range []struct{ gen, msg string }{
		{"", "not a topology file"},
		{"pair", "cannot resize --gen pair"},
		{"star:4", "nodes=1: bad generator spec"},
	} {
		_, _, err := Base{Topology: topo, Gen: tc.gen}.Apply(point(t, "nodes=1"))
		assert.ErrorIs(t, err, ErrBadParam, tc.gen)
		assert.ErrorContains(t, err, tc.msg, tc.gen)
	}
	g, err := NewGrid(mustParse(t, "nodes=1..3:1"))
	require.NoError(t, err)
	assert.ErrorContains(t, Base{Topology: topo, Gen: "star:4"}.Check(g), "nodes=1", "Check finds the bad point before any run")
}

// Check validates the base as a topology file is validated, though a delay
// replaces every cable's, and each point's topology, naming the point.
func TestCheckValidatesTheBaseAndEveryPoint(t *testing.T) {
	topo, err := bus.ParseTopology([]byte("nodes: [{id: a, ports: 1}, {id: b, ports: 1}]\ncables: [{from: a:0, to: b:0, length_m: .nan}]\n"), "nan.yaml")
	require.NoError(t, err)
	g, err := NewGrid(mustParse(t, "delay=10"))
	require.NoError(t, err)
	err = Base{Topology: topo}.Check(g)
	assert.ErrorIs(t, err, bus.ErrBadCableLength)
	assert.NotErrorIs(t, err, ErrBadParam, "the file is wrong, not the parameter")

	complete, err := bus.Generate("complete:2")
	require.NoError(t, err)
	g, err = NewGrid(mustParse(t, "nodes=2..63:1"))
	require.NoError(t, err)
	err = Base{Topology: complete, Gen: "complete:2"}.Check(g)
	assert.ErrorIs(t, err, ErrBadParam)
	assert.ErrorContains(t, err, "at nodes=29 (--gen complete:29): nodes[0].ports")
}

// The thresholds docs/protocol.md §5 predicts: delay < 120 ns for the 1394-1995 windows
// (240/2 = 120 < (570−260)/2 = 155) and < 370 ns for the prism windows
// ((1590−850)/2 = 370 < 760/2 = 380). The test evaluates the conditions on
// both sides of each threshold and names which condition breaks first.
func TestPredictedThresholds(t *testing.T) {
	for _, tc := range []struct {
		profile     string
		threshold   float64
		firstBroken string
	}{
		{"1394-1995", 120, "round trip"},
		{"prism", 370, "separation"},
	} {
		p, err := phy.LookupProfile(tc.profile)
		require.NoError(t, err)
		assert.Equal(t, tc.threshold, MaxDelayNs(p.Timing.RootContendFast, p.Timing.RootContendSlow), tc.profile)

		topo, err := bus.Generate("pair")
		require.NoError(t, err)
		base := Base{Topology: topo, Options: bus.Options{Profile: tc.profile}}
		g, err := NewGrid(mustParse(t, "delay=0..400:1"))
		require.NoError(t, err)
		var lastHeld float64 = -1
		for i := range g.Len() {
			pt := g.Point(i)
			pt2, o, err := base.Apply(pt)
			require.NoError(t, err)
			c, err := Evaluate(pt2, o)
			require.NoError(t, err)
			if c.Hold() {
				lastHeld = pt.Values[0]
			}
			if pt.Values[0] == tc.threshold {
				assert.Equal(t, tc.firstBroken == "separation", c.RoundTrip, tc.profile)
				assert.Equal(t, tc.firstBroken == "round trip", c.Separation, tc.profile)
			}
		}
		assert.Equal(t, tc.threshold-1, lastHeld, "%s: the last delay at which the conditions hold", tc.profile)
	}
}

func TestEvaluateDefaultCable(t *testing.T) {
	topo, err := bus.Generate("chain:3")
	require.NoError(t, err)
	c, err := Evaluate(topo, bus.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(23), c.DelayNs, "a 4.5 m cable is 22.725 ns")
	assert.True(t, c.Hold())

	topo.Profile = "bogus"
	_, err = Evaluate(topo, bus.Options{})
	assert.True(t, errors.Is(err, ErrBadParam))
}

// The conditions are sufficient: within them root contention always ends
// with one parent. On a 4-node chain whose reset starts at one end, the two
// middle nodes send PARENT_NOTIFY almost one cable delay apart, the
// worst-case skew of the model, so failures begin just past the predicted
// threshold (docs/timing.md lists the observed thresholds).
func TestFailuresBeginPastThePredictedThreshold(t *testing.T) {
	const runs uint64 = 300
	for _, tc := range []struct {
		profile      string
		within, past float64 // a delay inside the conditions, one past them
	}{
		{"1394-1995", 118, 146},
		{"prism", 368, 420},
	} {
		topo, err := bus.Generate("chain:4")
		require.NoError(t, err)
		base := Base{Topology: topo, Gen: "chain:4", Options: bus.Options{Profile: tc.profile, Initiators: []string{"n0"}}}
		failures := func(delay float64) (n int) {
			pt, o, err := base.Apply(point(t, "delay="+formatValue(delay)))
			require.NoError(t, err)
			for seed := range runs {
				o.Seed = seed
				res, err := bus.Run(pt, o)
				require.NoError(t, err)
				if res.Generations[0].Outcome != bus.OutcomeOK {
					n++
				}
			}
			return n
		}
		assert.Zero(t, failures(tc.within), "%s: failures at %v ns, within the conditions", tc.profile, tc.within)
		assert.Positive(t, failures(tc.past), "%s: no failure at %v ns, past the threshold", tc.profile, tc.past)
	}
}

// TestGapCountSweep: gap_count sets every node's gap count, needs traffic
// to measure anything, and each point names the gap count 1394a's table
// gives for the bus's diameter, as a bus manager sets it.
func TestGapCountSweep(t *testing.T) {
	topo, err := bus.LoadTopology("../../examples/traffic.yaml")
	require.NoError(t, err)
	base := Base{Topology: topo}
	got, _, err := base.Apply(point(t, "gap_count=40"))
	require.NoError(t, err)
	for _, n := range got.Nodes {
		assert.Equal(t, 40, *n.GapCount, n.ID)
	}
	assert.Equal(t, 5, *topo.Nodes[0].GapCount, "the base keeps its gap counts")

	gap, err := ManagerGapCount(topo)
	require.NoError(t, err)
	assert.Equal(t, treeid.GapCountForHops(15), gap, "a chain of 16 nodes is 15 hops across")

	g, err := NewGrid(mustParse(t, "gap_count=5..45:40"))
	require.NoError(t, err)
	require.NoError(t, base.Check(g))
	plain, err := bus.Generate("chain:4")
	require.NoError(t, err)
	assert.ErrorContains(t, Base{Topology: plain}.Check(g), "give --until DUR, or a topology with traffic")
	require.NoError(t, Base{Topology: plain, Options: bus.Options{Until: time.Millisecond}}.Check(g))

	r := &Run{Grid: g, Base: base, Config: analysis.Config{Topology: topo, Runs: 2, Options: bus.Options{Seed: 1, Until: time.Millisecond}}}
	require.NoError(t, r.Execute(context.Background(), nil, nil))
	require.Len(t, r.Points, 2)
	small, table := r.Points[0].Summary, r.Points[1].Summary
	assert.Positive(t, small.Metrics[bus.MetricCollisions].Mean)
	assert.Zero(t, table.Metrics[bus.MetricCollisions].Mean)
	assert.Positive(t, table.Metrics[bus.MetricAcked].Mean)
	for _, p := range r.Points {
		assert.Equal(t, gap, p.ManagerGapCount)
		require.NotNil(t, r.PointJSON(p).ManagerGapCount)
	}
}
