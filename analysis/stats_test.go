package analysis

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/internal/stats"
)

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
		half := stats.Z95 * math.Sqrt(tc.sample) / math.Sqrt(float64(m.N))
		require.Less(t, tc.mean-half, 0.0, "the normal interval reaches below 0")
		assert.Equal(t, 0.0, m.CI95[0])
		assert.InDelta(t, tc.mean+half, m.CI95[1], 1e-12)
	}
	assert.Equal(t, [2]float64{0, 0}, histOf(0, 0, 0).metric().CI95)
}
