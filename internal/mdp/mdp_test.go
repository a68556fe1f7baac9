package mdp

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func r(a, b int64) *big.Rat { return big.NewRat(a, b) }

func solve(t *testing.T, m *Model, opt Opt, lim Limits) *Solution {
	t.Helper()
	sol, err := Solve(m, opt, lim)
	require.NoError(t, err)
	return sol
}

// exactValue returns state i's value, which must be exact and finite.
func exactValue(t *testing.T, sol *Solution, i int) string {
	t.Helper()
	require.True(t, sol.Exact(i), "state %d: [%v, %v]", i, sol.Lo(i), sol.Hi(i))
	require.NotNil(t, sol.Lo(i), "state %d is infinite", i)
	return sol.Lo(i).RatString()
}

// The two-node root contention with waits at their bounds: coins differ
// with probability 1/2 (1700 ns), agree FAST (880 ns) or SLOW (1700 ns)
// with 1/4 each and start over. Expected total: 2990 ns.
func TestContentionLoop(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Random, Edges: []Edge{{To: 1, P: r(1, 2), Reward: r(1700, 1)}, {To: 0, P: r(1, 4), Reward: r(880, 1)}, {To: 0, P: r(1, 4), Reward: r(1700, 1)}}},
		{Kind: Terminal},
	}}
	sol := solve(t, m, Min, Limits{})
	assert.Equal(t, "2990", exactValue(t, sol, 0))
	assert.Same(t, sol.Lo(0), sol.Hi(0))
}

// A choice between stopping and gambling; staying forever collects
// nothing, and a positive reward on a loop the maximiser keeps is infinite.
func TestChoices(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Choice, Edges: []Edge{{To: 1}, {To: 2}}},
		{Kind: Terminal},
		{Kind: Random, Edges: []Edge{{To: 3, P: r(1, 2)}, {To: 0, P: r(1, 2)}}},
		{Kind: Terminal, Value: r(1, 1)},
	}}
	lo := solve(t, m, Min, Limits{})
	hi := solve(t, m, Max, Limits{})
	assert.Equal(t, "0", exactValue(t, lo, 0))
	assert.Equal(t, "1", exactValue(t, hi, 0))
	assert.Equal(t, 1, hi.Decision[0])

	loop := &Model{States: []State{
		{Kind: Choice, Edges: []Edge{{To: 0, Reward: r(1, 1)}, {To: 1}}},
		{Kind: Terminal, Value: r(5, 1)},
	}}
	sol := solve(t, loop, Max, Limits{})
	assert.Nil(t, sol.Lo(0), "+infinity")
	assert.Nil(t, sol.Hi(0), "+infinity")
	assert.True(t, sol.Exact(0))
	assert.Equal(t, -1, sol.Decision[0])
	sol = solve(t, loop, Min, Limits{})
	assert.Equal(t, "5", exactValue(t, sol, 0))
	assert.Equal(t, 1, sol.Decision[0])
}

// Policy iteration inside a component: from 0 the scheduler goes round
// the loop 0 → 1 → 0 (10 per lap, an exit of 1/2 to 100 at 1) or leaves
// at once for 60 (0's edge 1), and 2 picks between 1 (edge 0) and 40.
func TestChoicesInComponent(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Choice, Edges: []Edge{{To: 1, Reward: r(10, 1)}, {To: 3}}},
		{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 2)}, {To: 4, P: r(1, 2)}, {To: 2, P: r(0, 1)}}},
		{Kind: Choice, Edges: []Edge{{To: 1}, {To: 5}}},
		{Kind: Terminal, Value: r(60, 1)},
		{Kind: Terminal, Value: r(100, 1)},
		{Kind: Terminal, Value: r(40, 1)},
	}}
	// Round the loop: v0 = 10 + v1, v1 = v0/2 + 50, so v0 = 120, v1 = 110.
	hi := solve(t, m, Max, Limits{})
	assert.Equal(t, "120", exactValue(t, hi, 0))
	assert.Equal(t, "110", exactValue(t, hi, 1))
	assert.Equal(t, "110", exactValue(t, hi, 2))
	assert.Equal(t, []int{0, -1, 0, -1, -1, -1}, hi.Decision)
	lo := solve(t, m, Min, Limits{})
	assert.Equal(t, "60", exactValue(t, lo, 0))
	assert.Equal(t, "80", exactValue(t, lo, 1))
	assert.Equal(t, "40", exactValue(t, lo, 2))
	assert.Equal(t, []int{1, -1, 1, -1, -1, -1}, lo.Decision)
}

func TestCheck(t *testing.T) {
	m := &Model{States: []State{{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 3)}}}}}
	assert.ErrorContains(t, m.Check(), "state 0: probabilities sum to 1/3, not 1")
	_, err := Solve(&Model{}, Min, Limits{Precision: 1})
	assert.ErrorContains(t, err, "precision")
}

// TestCheckSumsProbabilities holds Check's sum to the exact one: in a
// word with one denominator, across denominators and past a word.
func TestCheckSumsProbabilities(t *testing.T) {
	u := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	top := u(1<<64 - 1)
	for _, c := range []struct {
		ps  []*big.Rat
		sum string // "" for 1
	}{
		{[]*big.Rat{r(1, 3), r(1, 3), r(1, 3)}, ""},
		{[]*big.Rat{r(1, 2), r(1, 3), r(1, 6)}, ""},
		{[]*big.Rat{r(0, 1), r(1, 2), r(1, 2)}, ""},
		{[]*big.Rat{r(1, 2), r(1, 2), r(1, 2)}, "3/2"},
		{[]*big.Rat{r(1, 4), r(1, 4), r(1, 3)}, "5/6"},
		{[]*big.Rat{new(big.Rat).SetFrac(u(1<<64-2), top), new(big.Rat).SetFrac(big.NewInt(1), top)}, ""},
		{[]*big.Rat{new(big.Rat).SetFrac(u(1<<64-2), top), new(big.Rat).SetFrac(u(1<<64-2), top)}, "36893488147419103228/18446744073709551615"},
		{[]*big.Rat{new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 70)), new(big.Rat).SetFrac(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 70), big.NewInt(1)), new(big.Int).Lsh(big.NewInt(1), 70))}, ""},
	} {
		m := &Model{States: []State{{Kind: Terminal}}}
		st := State{Kind: Random}
		for _, p := range c.ps {
			st.Edges = append(st.Edges, Edge{To: 1, P: p})
		}
		m.States = append([]State{st}, m.States...)
		if c.sum == "" {
			assert.NoError(t, m.Check(), "%v", c.ps)
		} else {
			assert.ErrorContains(t, m.Check(), "probabilities sum to "+c.sum+", not 1", "%v", c.ps)
		}
	}
}

// walk is a model of repeated contention rounds: offsets Z_n, each round
// `phases` Random states whose coins of 1/2 move the offset by -1 or +1,
// each edge earning reward(offset) (nil: none), and at the round's end an
// exit of 1/2 to terminal exit(offset) (one terminal per distinct value)
// or a new round at that offset. State o·phases + p is offset o, phase p.
func walk(n, phases int, reward func(o int) *big.Rat, exit func(o int) *big.Rat) *Model {
	m := &Model{States: make([]State, n*phases)}
	terminal := map[string]int{}
	id := func(o, p int) int { return (o%n)*phases + p }
	half := r(1, 2)
	for o := range n {
		w := reward(o)
		for p := range phases - 1 {
			m.States[id(o, p)] = State{Kind: Random, Edges: []Edge{
				{To: id(o+n-1, p+1), P: half, Reward: w}, {To: id(o+1, p+1), P: half, Reward: w}}}
		}
		v := exit(o)
		t, ok := terminal[v.RatString()]
		if !ok {
			t = len(m.States)
			terminal[v.RatString()] = t
			m.States = append(m.States, State{Kind: Terminal, Value: v})
		}
		m.States[id(o, phases-1)] = State{Kind: Random, Edges: []Edge{
			{To: t, P: half, Reward: w}, {To: id(o, 0), P: half, Reward: w}}}
	}
	return m
}

func noReward(int) *big.Rat    { return nil }
func exitOne(int) *big.Rat     { return r(1, 1) }
func exitZero(int) *big.Rat    { return r(0, 1) }
func ns(o int) *big.Rat        { return r(244+int64(o%3%2), 1) }
func exitMixed(o int) *big.Rat { return indicator(o%3 == 0) }

// A large loop whose exits are all worth 1 is worth exactly 1 everywhere
// at once, even where value iteration would otherwise bound it.
func TestUniformExits(t *testing.T) {
	m := walk(768, 8, noReward, exitOne)
	for i := range m.States {
		// Coins of 1/3 and 2/3: value iteration could not be exact.
		if e := m.States[i].Edges; len(e) == 2 {
			e[0].P, e[1].P = r(1, 3), r(2, 3)
		}
	}
	for _, opt := range []Opt{Min, Max} {
		start := time.Now()
		sol := solve(t, m, opt, Limits{MaxExactFeedback: -1})
		for i := range m.States {
			require.Equal(t, "1", exactValue(t, sol, i), "state %d", i)
		}
		assert.Less(t, time.Since(start), 2*time.Second)
	}
}

// Exits to 0 and to 1 are no shortcut: 0 → 1 with 1/3, 0 with 1/3, 1
// with 1/3; 1 → 0 with 1/2, 1 with 1/2. So v0 = 3/5, v1 = 4/5.
func TestMixedExits(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Random, Edges: []Edge{{To: 1, P: r(1, 3)}, {To: 2, P: r(1, 3)}, {To: 3, P: r(1, 3)}}},
		{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 2)}, {To: 3, P: r(1, 2)}}},
		{Kind: Terminal},
		{Kind: Terminal, Value: r(1, 1)},
	}}
	for _, opt := range []Opt{Min, Max} {
		sol := solve(t, m, opt, Limits{})
		assert.Equal(t, "3/5", exactValue(t, sol, 0))
		assert.Equal(t, "4/5", exactValue(t, sol, 1))
	}
	// The same on a walk: exits alternate between 0 and 1, so values lie
	// strictly between and differ.
	w := walk(12, 8, noReward, exitMixed)
	sol := solve(t, w, Min, Limits{})
	v0, v8 := exactValue(t, sol, 0), exactValue(t, sol, 8)
	assert.NotEqual(t, v0, v8)
	for i := range 12 * 8 {
		assert.Equal(t, 1, sol.Lo(i).Cmp(zero))
		assert.Equal(t, -1, sol.Lo(i).Cmp(one))
	}
	// A reward inside the loop is no shortcut either: exits all 0.
	w = walk(12, 8, ns, exitZero)
	sol = solve(t, w, Min, Limits{})
	assert.Equal(t, 1, sol.Lo(0).Cmp(r(244*16, 1)), "at least 2 rounds on average")
}

// A Choice component with exits all 1: the maximiser leaves (value 1),
// the minimiser can stay at 0 forever in the loop 0 ↔ 2.
func TestUniformChoices(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Choice, Edges: []Edge{{To: 1}, {To: 2}}},
		{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 2)}, {To: 3, P: r(1, 2)}}},
		{Kind: Choice, Edges: []Edge{{To: 0}, {To: 3}}},
		{Kind: Terminal, Value: r(1, 1)},
	}}
	hi := solve(t, m, Max, Limits{})
	for i := range 3 {
		assert.Equal(t, "1", exactValue(t, hi, i))
	}
	assert.Equal(t, 1, hi.Decision[2], "leave, not loop")
	lo := solve(t, m, Min, Limits{})
	assert.Equal(t, "0", exactValue(t, lo, 0))
	assert.Equal(t, "1/2", exactValue(t, lo, 1))
	assert.Equal(t, "0", exactValue(t, lo, 2))
	assert.Equal(t, []int{1, -1, 0, -1}, lo.Decision)
}

// within asserts lo ≤ v ≤ hi, and returns hi - lo relative to lo.
func within(t *testing.T, v, lo, hi *big.Rat) *big.Rat {
	t.Helper()
	require.NotNil(t, lo)
	require.NotNil(t, hi)
	assert.LessOrEqual(t, lo.Cmp(v), 0, "lo %s > v %s", lo.FloatString(30), v.FloatString(30))
	assert.LessOrEqual(t, v.Cmp(hi), 0, "hi %s < v %s", hi.FloatString(30), v.FloatString(30))
	w := new(big.Rat).Sub(hi, lo)
	return w.Quo(w, lo)
}

// Value iteration's bounds hold the exact value, as narrow as asked.
func TestValueIteration(t *testing.T) {
	m := walk(12, 8, ns, exitMixed)
	exactSol := solve(t, m, Min, Limits{})
	for _, p := range []float64{0, 0x1p-20} {
		sol := solve(t, m, Min, Limits{MaxExactFeedback: -1, Precision: p})
		bound := DefaultPrecision
		if p != 0 {
			bound = p
		}
		for i := range 12 * 8 {
			v := exactValue(t, exactSol, i)
			require.False(t, sol.Exact(i), "state %d: value iteration is not exact", i)
			w := within(t, exactSol.Lo(i), sol.Lo(i), sol.Hi(i))
			assert.LessOrEqual(t, w.Cmp(new(big.Rat).SetFloat64(bound)), 0, "state %d (%s): width %s", i, v, w.FloatString(30))
			if p != 0 {
				// Not needlessly narrow either: the sweeps stopped.
				assert.Equal(t, 1, w.Cmp(new(big.Rat).SetFloat64(p/1e6)))
			}
		}
	}
	// At the cap the bounds hold, only wider.
	sol := solve(t, m, Min, Limits{MaxExactFeedback: -1, MaxIterations: 1})
	for i := range 12 * 8 {
		w := within(t, exactSol.Lo(i), sol.Lo(i), sol.Hi(i))
		assert.Equal(t, 1, w.Cmp(r(1, 1000)), "state %d", i)
	}
	// Below the limit, exact.
	sol = solve(t, m, Min, Limits{MaxExactFeedback: 1000})
	assert.True(t, sol.Exact(0))
}

// Inexact values flow upstream as intervals: each component upstream is
// solved with its successors' lower bounds, then their upper ones.
func TestIntervalsDownstream(t *testing.T) {
	w := walk(12, 8, ns, exitZero)
	n := len(w.States)
	vi := solve(t, w, Min, Limits{MaxExactFeedback: 1, Precision: 0x1p-30})
	lo, hi := vi.Lo(0), vi.Hi(0)
	require.False(t, vi.Exact(0))
	mid := new(big.Rat).Add(lo, hi)
	mid.Quo(mid, r(2, 1))
	// n: Random, 1/2 back to itself earning 10, 1/2 into the walk: v = v0 + 10.
	// n+1: Max choice between the walk and mid.
	// n+2: Min choice between the walk and mid.
	// n+3: Terminal mid. n+4: Random to n+1 and n+2 with 1/2 each, on no cycle.
	w.States = append(w.States,
		State{Kind: Random, Edges: []Edge{{To: n, P: r(1, 2), Reward: r(10, 1)}, {To: 0, P: r(1, 2)}}},
		State{Kind: Choice, Edges: []Edge{{To: 0}, {To: n + 3}}},
		State{Kind: Choice, Edges: []Edge{{To: 0}, {To: n + 3}}},
		State{Kind: Terminal, Value: mid},
		State{Kind: Random, Edges: []Edge{{To: n + 1, P: r(1, 2)}, {To: n + 2, P: r(1, 2)}}},
	)
	plus := func(a *big.Rat, b int64) string { return new(big.Rat).Add(a, r(b, 1)).RatString() }
	half := func(a, b *big.Rat) string { x := new(big.Rat).Add(a, b); return x.Quo(x, r(2, 1)).RatString() }
	for _, opt := range []Opt{Min, Max} {
		sol := solve(t, w, opt, Limits{MaxExactFeedback: 1, Precision: 0x1p-30})
		assert.Equal(t, lo.RatString(), sol.Lo(0).RatString())
		assert.Equal(t, hi.RatString(), sol.Hi(0).RatString())
		assert.Equal(t, plus(lo, 10), sol.Lo(n).RatString())
		assert.Equal(t, plus(hi, 10), sol.Hi(n).RatString())
		assert.False(t, sol.Exact(n))
		assert.True(t, sol.Exact(n+3))
		if opt == Max {
			assert.Equal(t, mid.RatString(), sol.Lo(n+1).RatString())
			assert.Equal(t, hi.RatString(), sol.Hi(n+1).RatString())
			assert.Equal(t, 1, sol.Decision[n+1], "best at the lower bounds")
		} else {
			assert.Equal(t, lo.RatString(), sol.Lo(n+1).RatString())
			assert.Equal(t, mid.RatString(), sol.Hi(n+1).RatString())
		}
		if opt == Min {
			assert.Equal(t, lo.RatString(), sol.Lo(n+2).RatString())
			assert.Equal(t, mid.RatString(), sol.Hi(n+2).RatString())
			assert.Equal(t, 0, sol.Decision[n+2], "best at the lower bounds")
		}
		assert.Equal(t, half(sol.Lo(n+1), sol.Lo(n+2)), sol.Lo(n+4).RatString())
		assert.Equal(t, half(sol.Hi(n+1), sol.Hi(n+2)), sol.Hi(n+4).RatString())
	}
}

func BenchmarkSolveWalk(b *testing.B) {
	for _, c := range []struct {
		name   string
		reward func(int) *big.Rat
		exit   func(int) *big.Rat
	}{{"reach", noReward, exitOne}, {"reward", ns, exitZero}} {
		m := walk(768, 8, c.reward, c.exit)
		b.Run(c.name, func(b *testing.B) {
			var sol *Solution
			for b.Loop() {
				var err error
				if sol, err = Solve(m, Min, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			w := new(big.Rat).Sub(sol.Hi(0), sol.Lo(0))
			b.Logf("v0 in [%s, %s], width %s", sol.Lo(0).FloatString(22), sol.Hi(0).FloatString(22), w.FloatString(30))
		})
	}
}

func indicator(b bool) *big.Rat {
	if b {
		return r(1, 1)
	}
	return r(0, 1)
}
