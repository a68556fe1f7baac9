package report

import (
	"math"
	"strconv"
)

// Ticks returns evenly spaced round values (1, 2 or 5 times a power of ten
// apart) that cover [lo, hi]: the first is at most lo, the last at least hi,
// and there are at most maxTicks+1 of them (at least two). An empty or
// inverted range is widened around lo so that a constant still gets an axis.
func Ticks(lo, hi float64, maxTicks int) []float64 {
	maxTicks = max(maxTicks, 2)
	if !(hi > lo) {
		pad := math.Max(math.Abs(lo)*0.1, 1)
		lo, hi = lo-pad, lo+pad
	}
	step := niceStep((hi - lo) / float64(maxTicks))
	// Rounding lo and hi outward to whole steps can add a step at each end;
	// widen the step until the ticks fit.
	for {
		first, last := math.Floor(lo/step), math.Ceil(hi/step)
		if n := int(last-first) + 1; n <= maxTicks+1 {
			ticks := make([]float64, n)
			for i := range ticks {
				// Whole multiples of step, computed rather than accumulated,
				// so that 0.1 steps give 0.3, not 0.30000000000000004.
				ticks[i] = roundTo((first+float64(i))*step, step)
			}
			return ticks
		}
		step = niceStep(step * 1.5)
	}
}

// niceStep rounds x > 0 up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	exp := math.Floor(math.Log10(x))
	pow := math.Pow(10, exp)
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= x*(1-1e-12) {
			return m * pow
		}
	}
	return 10 * pow
}

// roundTo removes floating-point noise below a hundredth of step.
func roundTo(v, step float64) float64 {
	q := math.Pow(10, math.Floor(math.Log10(step))-2)
	r := math.Round(v/q) * q
	if r == 0 {
		return 0 // not -0
	}
	return r
}

// unitScale picks how to write values of unit whose largest magnitude is
// maxAbs: nanoseconds become µs or ms when they are large, so that an axis
// reads "2.5 µs" rather than "2500 ns". Other units are kept as they are.
func unitScale(unit string, maxAbs float64) (divisor float64, label string) {
	if unit != "ns" {
		return 1, unit
	}
	switch {
	case maxAbs >= 1e6:
		return 1e6, "ms"
	case maxAbs >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// tickLabels formats ticks (as Ticks returns them) divided by divisor with
// just enough decimals to tell neighbours apart.
func tickLabels(ticks []float64, divisor float64) []string {
	// As many decimals as the step needs to be written exactly: a step of
	// 0.2 needs one, 0.25 two.
	decimals := 0
	if len(ticks) > 1 {
		step := (ticks[1] - ticks[0]) / divisor
		for ; decimals < 15; decimals++ {
			scaled := step * math.Pow(10, float64(decimals))
			if math.Abs(scaled-math.Round(scaled)) <= 1e-6*scaled {
				break
			}
		}
	}
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		labels[i] = formatNumber(t/divisor, decimals)
	}
	return labels
}

// formatNumber writes v with decimals digits after the point, never "-0".
func formatNumber(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if r, _ := strconv.ParseFloat(s, 64); r == 0 {
		return strconv.FormatFloat(0, 'f', decimals, 64)
	}
	return s
}

// FormatValue writes one value of unit for tables and annotations, scaled
// like an axis would be: 2990 ns is "2.99 µs", 0.5 is "0.5".
func FormatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "–"
	}
	divisor, label := unitScale(unit, math.Abs(v))
	s := strconv.FormatFloat(v/divisor, 'g', 6, 64)
	if label != "" {
		s += " " + label
	}
	return s
}

// linear maps the data interval [d0, d1] onto the pixel interval [p0, p1].
type linear struct{ d0, d1, p0, p1 float64 }

func (s linear) at(v float64) float64 {
	return s.p0 + (v-s.d0)/(s.d1-s.d0)*(s.p1-s.p0)
}

// FormatColumn writes values of unit for one table column (or table) in a
// single unit, the one an axis over them would use, with the same number of
// decimals: a time in ns to the nanosecond, anything else to about five
// significant digits of the largest. label names the unit ("µs"; unit
// itself if it is not a time in ns); NaN values are "–".
func FormatColumn(values []float64, unit string) (label string, cells []string) {
	maxAbs := 0.0
	for _, v := range values {
		if !math.IsNaN(v) {
			maxAbs = math.Max(maxAbs, math.Abs(v))
		}
	}
	divisor, label := unitScale(unit, maxAbs)
	decimals := 0
	switch {
	case unit == "ns":
		decimals = int(math.Round(math.Log10(divisor))) // to the nanosecond
	case maxAbs > 0:
		decimals = max(0, 4-int(math.Floor(math.Log10(maxAbs))))
	}
	for _, v := range values {
		if math.IsNaN(v) {
			cells = append(cells, "–")
			continue
		}
		cells = append(cells, formatNumber(v/divisor, decimals))
	}
	return label, cells
}
