package mdp

import (
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
			lo, hi := sol.Lo[i], sol.Hi[i]
			if limit == 0 && (!sol.Exact(i) || lo.Cmp(want[i]) != 0) {
				t.Fatalf("state %d: %v..%v, want %s exactly", i, lo, hi, want[i].RatString())
			}
			if lo == nil || lo.Cmp(want[i]) > 0 || hi != nil && hi.Cmp(want[i]) < 0 {
				t.Fatalf("state %d: [%v, %v] misses %s", i, lo, hi, want[i].RatString())
			}
		}
	})
}
