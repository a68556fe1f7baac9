package treeid

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePolicyReadsString(t *testing.T) {
	for _, p := range []Policy{Coin, LargerIDWins} {
		got, err := ParsePolicy(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	_, err := ParsePolicy("smaller-id-wins")
	assert.EqualError(t, err, `policy "smaller-id-wins": want coin or larger-id-wins`)
}

func TestParseCornerReadsString(t *testing.T) {
	for _, c := range []Corner{CornerRandom, CornerMin, CornerMax} {
		got, err := ParseCorner(c.String())
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	_, err := ParseCorner("nondet")
	assert.EqualError(t, err, `corner "nondet": want random, min or max`)
}
