package mdp

import (
	"math/rand/v2"
	"testing"
)

// ReachedSurely says, for every state of random models with adversary
// choices, what the exact minimum probability of reaching a terminal of
// positive value says: whether it is 1.
func TestReachedSurelyIsMinimumOne(t *testing.T) {
	sure, unsure := 0, 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 2 + rng.IntN(25)
		m := randomMarkovChain(rng, n)
		for i := range n {
			st := &m.States[i]
			for j := range st.Edges {
				st.Edges[j].Reward = nil
			}
			if rng.IntN(3) == 0 {
				st.Kind = Choice
				for j := range st.Edges {
					st.Edges[j].P = nil
				}
			}
		}
		// The first terminal misses; the last reaches; the second, either.
		m.States[n+1].Value, m.States[n+2].Value = r(rng.Int64N(2), 1), r(1, 1)
		got := ReachedSurely(m)
		sol, err := Solve(m, Min, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.States {
			if !sol.Exact(i) {
				t.Fatalf("seed %d, state %d: not solved exactly", seed, i)
			}
			want := sol.Lo(i).Cmp(r(1, 1)) == 0
			if got[i] != want {
				t.Fatalf("seed %d, state %d: ReachedSurely says %v, the minimum probability is %v", seed, i, got[i], sol.Lo(i))
			}
			if want {
				sure++
			} else {
				unsure++
			}
		}
	}
	if sure < 100 || unsure < 100 {
		t.Fatalf("the models tell too little apart: %d states reached surely, %d not", sure, unsure)
	}
}
