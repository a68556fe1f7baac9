package mdp

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func r(a, b int64) *big.Rat { return big.NewRat(a, b) }

// The two-node root contention with waits at their bounds: coins differ
// with probability 1/2 (1700 ns), agree FAST (880 ns) or SLOW (1700 ns)
// with 1/4 each and start over. Expected total: 2990 ns.
func TestContentionLoop(t *testing.T) {
	m := &Model{States: []State{
		{Kind: Random, Edges: []Edge{{To: 1, P: r(1, 2), Reward: r(1700, 1)}, {To: 0, P: r(1, 4), Reward: r(880, 1)}, {To: 0, P: r(1, 4), Reward: r(1700, 1)}}},
		{Kind: Terminal},
	}}
	v, _, err := Solve(m, Min)
	require.NoError(t, err)
	assert.Equal(t, "2990", v[0].RatString())
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
	lo, _, err := Solve(m, Min)
	require.NoError(t, err)
	hi, dec, err := Solve(m, Max)
	require.NoError(t, err)
	assert.Equal(t, "0", lo[0].RatString())
	assert.Equal(t, "1", hi[0].RatString())
	assert.Equal(t, 1, dec[0])

	loop := &Model{States: []State{
		{Kind: Choice, Edges: []Edge{{To: 0, Reward: r(1, 1)}, {To: 1}}},
		{Kind: Terminal, Value: r(5, 1)},
	}}
	hi, _, err = Solve(loop, Max)
	require.NoError(t, err)
	assert.Nil(t, hi[0], "+infinity")
	lo, _, err = Solve(loop, Min)
	require.NoError(t, err)
	assert.Equal(t, "5", lo[0].RatString())
}

func TestCheck(t *testing.T) {
	m := &Model{States: []State{{Kind: Random, Edges: []Edge{{To: 0, P: r(1, 3)}}}}}
	assert.ErrorContains(t, m.Check(), "state 0: probabilities sum to 1/3, not 1")
}
