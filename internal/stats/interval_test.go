package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWilsonKnownValues checks the Wilson score interval against the values
// published by Newcombe (Statistics in Medicine 17, 1998, Table I, method 3),
// rounded there to four places.
func TestWilsonKnownValues(t *testing.T) {
	for _, tc := range []struct {
		x, n   int64
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
	} {
		ci := Wilson(tc.x, tc.n)
		assert.InDelta(t, tc.lo, ci[0], 0.00005, "%d/%d low", tc.x, tc.n)
		assert.InDelta(t, tc.hi, ci[1], 0.00005, "%d/%d high", tc.x, tc.n)
	}
	assert.Equal(t, [2]float64{0, 1}, Wilson(0, 0))
}

// A proportion's interval stays in [0, 1] and holds the proportion, exactly
// at p = 0 and p = 1 too, where rounding once left 0 of 17 with a low end
// of 1e-17 and 14 of 14 with a high end below 1.
func TestWilsonStaysInItsDomain(t *testing.T) {
	for n := int64(1); n <= 300; n++ {
		for x := int64(0); x <= n; x++ {
			ci, p := Wilson(x, n), float64(x)/float64(n)
			require.True(t, 0 <= ci[0] && ci[0] <= p && p <= ci[1] && ci[1] <= 1, "%d of %d: %v", x, n, ci)
		}
	}
	for _, n := range []int64{1e6, 1e12, 1 << 53} {
		assert.Zero(t, Wilson(0, n)[0], "0 of %d", n)
		assert.Equal(t, 1.0, Wilson(n, n)[1], "%d of %d", n, n)
		assert.Greater(t, Wilson(1, n)[0], 0.0, "1 of %d", n)
	}
	// One trial: the bound is z²/(1+z²) from the other end.
	z2 := Z95 * Z95
	assert.Zero(t, Wilson(0, 1)[0])
	assert.InDelta(t, z2/(1+z2), Wilson(0, 1)[1], 1e-12)
	assert.InDelta(t, 1/(1+z2), Wilson(1, 1)[0], 1e-12)
	assert.Equal(t, 1.0, Wilson(1, 1)[1])
}

// The interval of a mean is mean ± Z95·std/√n, cut at 0 below: 1..10 has
// mean 5.5 and sample variance 55/6.
func TestMeanInterval(t *testing.T) {
	half := 1.959963984540054 * math.Sqrt(55.0/6) / math.Sqrt(10)
	ci := MeanInterval(5.5, math.Sqrt(55.0/6), 10)
	assert.InDelta(t, 5.5-half, ci[0], 1e-12)
	assert.InDelta(t, 5.5+half, ci[1], 1e-12)
	// A spread count of few values: mean 1, std 10, 4 values reach to -8.8.
	assert.Equal(t, 0.0, MeanInterval(1, 10, 4)[0])
	assert.InDelta(t, 1+Z95*5, MeanInterval(1, 10, 4)[1], 1e-12)
	assert.Equal(t, [2]float64{3, 3}, MeanInterval(3, 0, 1))
}
