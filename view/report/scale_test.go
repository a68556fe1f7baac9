package report

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTicksKnownRanges(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 10, 5, []float64{0, 2, 4, 6, 8, 10}},
		{760, 2990, 8, []float64{500, 1000, 1500, 2000, 2500, 3000}},
		{0.1, 0.3, 4, []float64{0.1, 0.15, 0.2, 0.25, 0.3}},
		// A step of 2 would need 7 ticks from -4 to 8, more than 5+1.
		{-3, 7, 5, []float64{-5, 0, 5, 10}},
		{5, 5, 5, []float64{4, 4.5, 5, 5.5, 6}},
	} {
		assert.Equal(t, tc.want, Ticks(tc.lo, tc.hi, tc.n), "%v..%v", tc.lo, tc.hi)
	}
}

// The tick properties every axis relies on, over random ranges of every
// magnitude.
func TestTicksProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		scale := math.Pow(10, float64(rng.IntN(19)-9))
		lo := (rng.Float64()*2 - 1) * scale * 10
		hi := lo + rng.Float64()*scale*float64(rng.IntN(100))
		n := 2 + rng.IntN(9)
		ticks := Ticks(lo, hi, n)
		require.GreaterOrEqual(t, len(ticks), 2, "%v..%v", lo, hi)
		require.LessOrEqual(t, len(ticks), n+1, "%v..%v by %d: %v", lo, hi, n, ticks)
		assert.LessOrEqual(t, ticks[0], lo, "%v..%v: %v", lo, hi, ticks)
		if hi > lo {
			assert.GreaterOrEqual(t, ticks[len(ticks)-1], hi, "%v..%v: %v", lo, hi, ticks)
		}
		step := ticks[1] - ticks[0]
		mantissa := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		assert.True(t, near(mantissa, 1) || near(mantissa, 2) || near(mantissa, 5) || near(mantissa, 10), "step %v is not 1, 2 or 5 times a power of ten", step)
		for i := 1; i < len(ticks); i++ {
			assert.InDelta(t, step, ticks[i]-ticks[i-1], step*1e-6, "uneven ticks %v", ticks)
		}
		labels := tickLabels(ticks, 1)
		seen := map[string]bool{}
		for _, l := range labels {
			assert.False(t, seen[l], "label %q twice in %v", l, labels)
			seen[l] = true
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestLinearIsMonotoneAndHitsEnds(t *testing.T) {
	s := linear{d0: 500, d1: 3000, p0: 308, p1: 44} // a y axis: up is smaller
	assert.Equal(t, 308.0, s.at(500))
	assert.Equal(t, 44.0, s.at(3000))
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		a, b := 500+rng.Float64()*2500, 500+rng.Float64()*2500
		if a < b {
			assert.Greater(t, s.at(a), s.at(b))
		}
	}
}

func TestUnitScaleAndLabels(t *testing.T) {
	for _, tc := range []struct {
		ticks []float64
		unit  string
		label string
		want  []string
	}{
		{[]float64{0, 200, 400}, "ns", "ns", []string{"0", "200", "400"}},
		{[]float64{1000, 1500, 2000}, "ns", "µs", []string{"1.0", "1.5", "2.0"}},
		{[]float64{0, 2e6, 4e6}, "ns", "ms", []string{"0", "2", "4"}},
		{[]float64{0, 0.25, 0.5}, "", "", []string{"0.00", "0.25", "0.50"}},
		{[]float64{-0.2, 0, 0.2}, "m", "m", []string{"-0.2", "0.0", "0.2"}},
	} {
		div, label := unitScale(tc.unit, tc.ticks[len(tc.ticks)-1])
		assert.Equal(t, tc.label, label)
		assert.Equal(t, tc.want, tickLabels(tc.ticks, div))
	}
	assert.Equal(t, "2.99 µs", FormatValue(2990, "ns"))
	assert.Equal(t, "120 ns", FormatValue(120, "ns"))
	assert.Equal(t, "0.78125", FormatValue(0.78125, ""))
	assert.Equal(t, "4.5 m", FormatValue(4.5, "m"))
	assert.Equal(t, "–", FormatValue(math.NaN(), "ns"))
	assert.Equal(t, "0.0", formatNumber(-0.01, 1), "no negative zero")
}

func TestFormatColumn(t *testing.T) {
	for _, c := range []struct {
		values []float64
		unit   string
		label  string
		cells  []string
	}{
		{[]float64{169234, 590, math.NaN()}, "ns", "µs", []string{"169.234", "0.590", "–"}},
		{[]float64{2990.6, 250}, "ns", "µs", []string{"2.991", "0.250"}},
		{[]float64{590, 12}, "ns", "ns", []string{"590", "12"}},
		{[]float64{1.25, 0.5}, "", "", []string{"1.2500", "0.5000"}},
	} {
		label, cells := FormatColumn(c.values, c.unit)
		assert.Equal(t, c.label, label, "%v", c.values)
		assert.Equal(t, c.cells, cells, "%v", c.values)
	}
}
