package analysis

import (
	"encoding/json"
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

func histOf(values ...int64) *histogram {
	h := newHistogram()
	for _, v := range values {
		h.add(v)
	}
	return h
}

func TestStatsKnownValues(t *testing.T) {
	// 1..10: mean 5.5, sample variance 55/6; nearest rank: p50 is the 5th
	// value, p90 the 9th, p99 and p999 the 10th.
	m := histOf(7, 3, 10, 1, 2, 9, 4, 8, 6, 5).metric()
	assert.Equal(t, int64(10), m.N)
	assert.InDelta(t, 5.5, m.Mean, 1e-12)
	assert.InDelta(t, math.Sqrt(55.0/6), m.Std, 1e-12)
	assert.Equal(t, []float64{1, 5, 9, 10, 10, 10}, []float64{m.Min, m.P50, m.P90, m.P99, m.P999, m.Max})
	half := 1.959963984540054 * math.Sqrt(55.0/6) / math.Sqrt(10)
	assert.InDelta(t, 5.5-half, m.CI95[0], 1e-12)
	assert.InDelta(t, 5.5+half, m.CI95[1], 1e-12)

	// 1..1000: the percentiles are the 500th, 900th, 990th and 999th values.
	h := newHistogram()
	for v := range int64(1000) {
		h.add(v + 1)
	}
	m = h.metric()
	assert.Equal(t, []float64{500, 900, 990, 999, 1000}, []float64{m.P50, m.P90, m.P99, m.P999, m.Max})

	// One value: no spread; a constant: a zero-width interval.
	m = histOf(42).metric()
	assert.Equal(t, Stats{N: 1, Mean: 42, Min: 42, P50: 42, P90: 42, P99: 42, P999: 42, Max: 42, CI95: [2]float64{42, 42}}, m.Stats)
	// Nothing: all zero.
	assert.Equal(t, Stats{}, newHistogram().metric().Stats)
}

func TestHistogramIsExactAndSorted(t *testing.T) {
	h := histOf(30, 10, 30, 20, 30)
	h.missing = 2
	m := h.metric()
	assert.Equal(t, []Bin{{10, 1}, {20, 1}, {30, 3}}, m.Hist)
	assert.Equal(t, int64(2), m.atOrBelow(20))
	assert.Equal(t, int64(0), m.atOrBelow(9))
	// The CDF counts the missing runs in its denominator: 7 runs in all.
	assert.InDeltaSlice(t, []float64{1.0 / 7, 2.0 / 7, 5.0 / 7}, m.CDF(), 1e-12)

	out, err := json.Marshal(m.Hist)
	require.NoError(t, err)
	assert.JSONEq(t, `[[10,1],[20,1],[30,3]]`, string(out))
	var back []Bin
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, m.Hist, back)
	assert.Error(t, json.Unmarshal([]byte(`[[1,2,3]]`), &back))
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
	for _, n := range []int64{1e6, 1e12, MaxRuns} {
		assert.Zero(t, Wilson(0, n)[0], "0 of %d", n)
		assert.Equal(t, 1.0, Wilson(n, n)[1], "%d of %d", n, n)
		assert.Greater(t, Wilson(1, n)[0], 0.0, "1 of %d", n)
	}
	// One trial: the bound is z²/(1+z²) from the other end.
	z2 := z95 * z95
	assert.Zero(t, Wilson(0, 1)[0])
	assert.InDelta(t, z2/(1+z2), Wilson(0, 1)[1], 1e-12)
	assert.InDelta(t, 1/(1+z2), Wilson(1, 1)[0], 1e-12)
	assert.Equal(t, 1.0, Wilson(1, 1)[1])
}

// The interval of a mean never reaches below 0: every metric is a duration
// or a count. Rounds that are mostly 0, or a handful of runs, once gave
// [-0.0096, 0.0296] and [-0.32, 0.99].
func TestMeanIntervalStaysAtOrAboveZero(t *testing.T) {
	for _, tc := range []struct {
		hist   *histogram
		mean   float64
		sample float64 // the sample variance
	}{
		{histOf(0, 0, 1), 1.0 / 3, 1.0 / 3},
		{func() *histogram { h := histOf(1); h.counts[0] = 99; return h }(), 0.01, 0.99 / 99},
	} {
		m := tc.hist.metric()
		half := z95 * math.Sqrt(tc.sample) / math.Sqrt(float64(m.N))
		require.Less(t, tc.mean-half, 0.0, "the normal interval reaches below 0")
		assert.Equal(t, 0.0, m.CI95[0])
		assert.InDelta(t, tc.mean+half, m.CI95[1], 1e-12)
	}
	assert.Equal(t, [2]float64{0, 0}, histOf(0, 0, 0).metric().CI95)
}
