package mdp

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomMarkovChain is n Random states with random successors among
// themselves (self-loops included), probabilities with denominators up to
// 7, rewards up to 300, and an exit of at least 1/7 to one of three
// terminals.
func randomMarkovChain(rng *rand.Rand, n int) *Model {
	m := &Model{}
	for range n {
		k := 1 + rng.IntN(3)
		den := int64(k + 1 + rng.IntN(5))
		var edges []Edge
		left := den - 1 // the exit takes at least 1/den
		for range k {
			num := rng.Int64N(left + 1)
			left -= num
			edges = append(edges, Edge{To: rng.IntN(n), P: r(num, den), Reward: r(rng.Int64N(301), 1)})
		}
		edges = append(edges, Edge{To: n + rng.IntN(3), P: r(left+1, den), Reward: r(rng.Int64N(301), 1)})
		m.States = append(m.States, State{Kind: Random, Edges: edges})
	}
	for v := range 3 {
		m.States = append(m.States, State{Kind: Terminal, Value: r(int64(v), 2)})
	}
	return m
}

// referenceValues solves the Random states of m, v = P·(reward + v), by
// Gauss-Jordan elimination in fractions on the whole system.
func referenceValues(m *Model, n int) []*big.Rat {
	a := make([][]*big.Rat, n) // [I − P | c]
	for i := range n {
		a[i] = make([]*big.Rat, n+1)
		for j := range a[i] {
			a[i][j] = new(big.Rat)
		}
		a[i][i].SetInt64(1)
		for _, e := range m.States[i].Edges {
			a[i][n].Add(a[i][n], new(big.Rat).Mul(e.P, reward(&e)))
			if e.To < n {
				a[i][e.To].Sub(a[i][e.To], e.P)
			} else if v := m.States[e.To].Value; v != nil {
				a[i][n].Add(a[i][n], new(big.Rat).Mul(e.P, v))
			}
		}
	}
	t := new(big.Rat)
	for k := range n {
		p := k
		for a[p][k].Sign() == 0 {
			p++
		}
		a[k], a[p] = a[p], a[k]
		for i := range n {
			if i == k || a[i][k].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(a[i][k], a[k][k])
			for j := k; j <= n; j++ {
				a[i][j].Sub(a[i][j], t.Mul(f, a[k][j]))
			}
		}
	}
	v := make([]*big.Rat, n)
	for i := range n {
		v[i] = new(big.Rat).Quo(a[i][n], a[i][i])
	}
	return v
}

// The p-adic solution is every state's exact value, whatever the chain's
// shape: compared with plain elimination in fractions.
func TestEvaluateMatchesEliminationInFractions(t *testing.T) {
	eachRandomChain(1, 60, 40, func(trial, n int, m *Model, want []*big.Rat) {
		sol := solve(t, m, Min, Limits{})
		for i := range n {
			require.True(t, sol.Exact(i), "trial %d, state %d", trial, i)
			require.Equal(t, want[i].RatString(), sol.Lo(i).RatString(), "trial %d, state %d", trial, i)
		}
	})
}

// eachRandomChain calls check on trials random chains (randomMarkovChain)
// of 2 to maxN+1 states, with their values by referenceValues.
func eachRandomChain(seed uint64, trials, maxN int, check func(trial, n int, m *Model, want []*big.Rat)) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for trial := range trials {
		n := 2 + rng.IntN(maxN)
		m := randomMarkovChain(rng, n)
		check(trial, n, m, referenceValues(m, n))
	}
}

// A state off the feedback set whose diagonal is 0 modulo the first prime
// sends the lifting to the next one, with the same exact answer.
func TestEvaluateTriesTheNextPrime(t *testing.T) {
	p0 := new(big.Int).SetUint64(liftPrimes[0])
	b := new(big.Rat).SetFrac(big.NewInt(1), p0)
	rest := new(big.Rat).Sub(one, b)
	// 0 loops to itself, so it is F; 1 is not, and its row's
	// denominator is p0.
	m := &Model{States: []State{
		{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 4), Reward: r(3, 1)}, {To: 1, P: r(1, 2), Reward: r(5, 1)}, {To: 2, P: r(1, 4)}}},
		{Kind: Random, Edges: []Edge{{To: 0, P: b, Reward: r(7, 1)}, {To: 2, P: rest, Reward: r(1, 1)}}},
		{Kind: Terminal, Value: r(1, 1)},
	}}
	succ := [][]arc{
		{{0, m.States[0].Edges[0].P, &m.States[0].Edges[0]}, {1, m.States[0].Edges[1].P, &m.States[0].Edges[1]}, {-1, m.States[0].Edges[2].P, &m.States[0].Edges[2]}},
		{{0, b, &m.States[1].Edges[0]}, {-1, rest, &m.States[1].Edges[1]}},
	}
	ch := feedback(succ)
	require.Equal(t, []int{0}, ch.fs)
	s := &solver{m: m, val: []*big.Rat{nil, nil, one}}
	_, err := s.integerChain(succ).lift(ch, liftPrimes[0])
	require.ErrorIs(t, err, errSingularModP)
	want := referenceValues(m, 2)
	sol := solve(t, m, Min, Limits{})
	for i := range 2 {
		assert.Equal(t, want[i].RatString(), exactValue(t, sol, i))
	}
}

// A cycle whose feedback set is larger than the elimination in fractions
// could afford (96 states, the old limit) is solved exactly, and the
// exact values lie within value iteration's bounds.
func TestLargeCyclesAreSolvedExactly(t *testing.T) {
	w := walk(400, 8, ns, exitZero) // a feedback set of 200
	sol := solve(t, w, Min, Limits{})
	vi := solve(t, w, Min, Limits{MaxExactFeedback: -1})
	for _, i := range []int{0, 1, 7, 8*200 + 3} {
		require.True(t, sol.Exact(i), "state %d", i)
		assert.True(t, sol.Lo(i).Cmp(vi.Lo(i)) >= 0 && sol.Lo(i).Cmp(vi.Hi(i)) <= 0, "state %d: %s outside value iteration's [%s, %s]",
			i, sol.Lo(i).FloatString(20), vi.Lo(i).FloatString(20), vi.Hi(i).FloatString(20))
	}
}

// Hadamard's bound, which caps the lifting's steps, holds every value's
// numerator and denominator (of y = l·v, the integer system's solution).
func TestHadamardBitsBoundTheSolution(t *testing.T) {
	eachRandomChain(7, 40, 30, func(trial, n int, m *Model, want []*big.Rat) {
		s := &solver{m: m, val: make([]*big.Rat, len(m.States))}
		for i := n; i < len(m.States); i++ {
			s.val[i] = m.States[i].Value
		}
		succ := make([][]arc, n)
		for i := range n {
			for j := range m.States[i].Edges {
				e := &m.States[i].Edges[j]
				to := e.To
				if to >= n {
					to = -1
				}
				succ[i] = append(succ[i], arc{to, e.P, e})
			}
		}
		c := s.integerChain(succ)
		bound := c.hadamardBits()
		l := new(big.Rat).SetInt(c.l)
		for k := range n {
			y := new(big.Rat).Mul(want[k], l)
			require.LessOrEqual(t, y.Num().BitLen(), bound, "trial %d, state %d", trial, k)
			require.LessOrEqual(t, y.Denom().BitLen(), bound, "trial %d, state %d", trial, k)
		}
	})
}
