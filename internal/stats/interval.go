package stats

import "math"

// Z95 is the standard normal quantile of 0.975: two-sided 95% intervals.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval at 95% for a proportion of successes
// out of n trials, 0 ≤ successes ≤ n. Unlike the normal approximation it
// stays inside [0, 1] and is sound for proportions near 0 or 1, which
// deadline probabilities often are. With n = 0 it is [0, 1].
func Wilson(successes, n int64) [2]float64 {
	if n == 0 {
		return [2]float64{0, 1}
	}
	nf := float64(n)
	p := float64(successes) / nf
	z2 := Z95 * Z95
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := Z95 / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	// The interval holds p and lies in [0, 1], as it does in exact
	// arithmetic; rounding alone leaves the low end of 0 of n a hair off 0
	// (above for some n, below for others) and the high end of n of n a
	// hair below 1: a probability outside its own interval.
	return [2]float64{max(min(center-half, p), 0), min(max(center+half, p), 1)}
}

// MeanInterval is the normal 95% interval of a mean of n values of sample
// standard deviation std: mean ± Z95·std/√n, cut at 0 below. Every
// quantity fwsim averages (a time, a count of rounds or messages) is at
// least 0, and a skewed count, mostly 0, or a handful of runs would
// otherwise give an interval reaching below where any mean can be.
func MeanInterval(mean, std float64, n int64) [2]float64 {
	if n == 0 {
		return [2]float64{mean, mean}
	}
	half := Z95 * std / math.Sqrt(float64(n))
	return [2]float64{max(mean-half, 0), mean + half}
}
