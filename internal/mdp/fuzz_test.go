package mdp

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// FuzzSolveMarkovChain solves random Markov chains of up to 60 states,
// cycles, self-loops and all, and requires every value exact and equal to
// plain elimination in fractions on the whole system; an exact-feedback
// limit below the chain's sends it to value iteration, whose bounds must
// hold the exact values.
func FuzzSolveMarkovChain(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(10), int8(0))
	f.Add(uint64(7), uint64(0), uint8(59), int8(3))
	f.Add(uint64(3), uint64(9), uint8(2), int8(-1))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, size uint8, limit int8) {
		n := 2 + int(size)%59
		m := randomMarkovChain(rand.New(rand.NewPCG(s1, s2)), n)
		want := referenceValues(m, n)
		sol, err := Solve(m, Min, Limits{MaxExactFeedback: int(limit), Precision: 0x1p-40})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			lo, hi := sol.Lo(i), sol.Hi(i)
			if limit == 0 && (!sol.Exact(i) || lo.Cmp(want[i]) != 0) {
				t.Fatalf("state %d: %v..%v, want %s exactly", i, lo, hi, want[i].RatString())
			}
			if lo == nil || lo.Cmp(want[i]) > 0 || hi != nil && hi.Cmp(want[i]) < 0 {
				t.Fatalf("state %d: [%v, %v] misses %s", i, lo, hi, want[i].RatString())
			}
		}
	})
}

// FuzzWarmStart solves random Markov decision processes, a random chain of
// up to 40 states in which some states are an adversary's choice among two
// or three edges, under Min and Max, with and without warmPolicy's float
// iteration: the exact values must be the same, since floats only choose
// where the exact iteration starts.
func FuzzWarmStart(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(10), uint8(3))
	f.Add(uint64(5), uint64(8), uint8(39), uint8(1))
	f.Add(uint64(9), uint64(4), uint8(20), uint8(2))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, size, every uint8) {
		n := 2 + int(size)%39
		rng := rand.New(rand.NewPCG(s1, s2))
		m := randomMarkovChain(rng, n)
		for i := 0; i < n; i += 1 + int(every)%4 {
			st := &m.States[i]
			st.Kind = Choice
			for j := range st.Edges {
				st.Edges[j].P = nil
			}
		}
		for _, opt := range []Opt{Min, Max} {
			warmStart = true
			warm, errWarm := Solve(m, opt, Limits{})
			warmStart = false
			cold, errCold := Solve(m, opt, Limits{})
			warmStart = true
			if errWarm != nil || errCold != nil {
				t.Fatalf("%v: with the warm start: %v; without: %v", opt, errWarm, errCold)
			}
			for i := range n {
				if !sameBound(warm.Lo(i), cold.Lo(i)) || !sameBound(warm.Hi(i), cold.Hi(i)) {
					t.Fatalf("%v: state %d: [%v, %v] with the warm start, [%v, %v] without", opt, i, warm.Lo(i), warm.Hi(i), cold.Lo(i), cold.Hi(i))
				}
			}
		}
	})
}

// sameBound reports whether a and b are the same value, nil (infinite)
// included.
func sameBound(a, b *big.Rat) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}
