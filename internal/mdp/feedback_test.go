package mdp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomChain is a chain of n states with up to deg successors each,
// some of them outside (-1).
func randomChain(rng *rand.Rand, n, deg int) [][]arc {
	succ := make([][]arc, n)
	for k := range succ {
		for range 1 + rng.IntN(deg) {
			to := rng.IntN(n+1) - 1
			succ[k] = append(succ[k], arc{to: to})
		}
	}
	return succ
}

// checkFeedback requires ch to be what evaluate relies on: F and order
// partition the states, order is topological once F is taken out, and
// every state of F closes a cycle that the rest of F leaves open.
func checkFeedback(t *testing.T, succ [][]arc, ch chain) {
	t.Helper()
	n := len(succ)
	require.Equal(t, n, len(ch.fs)+len(ch.order))
	at := make([]int, n)
	for k := range at {
		at[k] = -1
	}
	for h, k := range ch.order {
		require.False(t, ch.inF[k], "state %d in F and in order", k)
		at[k] = h
	}
	for _, f := range ch.fs {
		require.True(t, ch.inF[f])
	}
	for k, arcs := range succ {
		for _, o := range arcs {
			if o.to >= 0 && !ch.inF[k] && !ch.inF[o.to] {
				require.Less(t, at[k], at[o.to], "edge %d → %d against the order", k, o.to)
			}
		}
	}
	for _, f := range ch.fs {
		inF := slices.Clone(ch.inF)
		pruneFeedback(succ, inF)
		require.True(t, inF[f], "state %d of F closes no cycle", f)
	}
}

func TestFeedbackBreaksEveryCycle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		n := 1 + rng.IntN(40)
		succ := randomChain(rng, n, 1+rng.IntN(4))
		ch := feedback(succ)
		checkFeedback(t, succ, ch)
		require.Equal(t, ch.fs, feedback(succ).fs, "chain %d: F depends on map order", i)
	}
}

// Rounds that all pass through a few hubs, as repeated root contention
// passes through the states where contention is detected: each hub fans
// out into layers whose states merge and cross, and the last layer
// returns to any hub. F needs no state but the hubs, though every layer
// state lies on a cycle.
func TestFeedbackFindsTheHubs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const hubs, layers, width = 3, 6, 5
	state := func(h, l, w int) int { return hubs + (h*layers+l)*width + w }
	succ := make([][]arc, hubs+hubs*layers*width)
	for h := range hubs {
		for w := range width {
			succ[h] = append(succ[h], arc{to: state(h, 0, w)})
		}
		for l := range layers {
			for w := range width {
				k := state(h, l, w)
				for range 2 {
					if l == layers-1 {
						succ[k] = append(succ[k], arc{to: rng.IntN(hubs)}, arc{to: -1})
					} else {
						succ[k] = append(succ[k], arc{to: state(h, l+1, rng.IntN(width))})
					}
				}
			}
		}
	}
	ch := feedback(succ)
	checkFeedback(t, succ, ch)
	require.LessOrEqual(t, len(ch.fs), hubs, "F = %v", ch.fs)
}

func BenchmarkFeedback(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	succ := randomChain(rng, 20_000, 3)
	for b.Loop() {
		ch := feedback(succ)
		b.ReportMetric(float64(len(ch.fs)), "F")
	}
}
