package analysis

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/fwsim/fwsim/internal/stats"
)

// Bin is one distinct value of a metric and how many runs had it. It is
// written in JSON as [value, count].
type Bin struct {
	Value, Count int64
}

func (b Bin) MarshalJSON() ([]byte, error) { return json.Marshal([2]int64{b.Value, b.Count}) }

func (b *Bin) UnmarshalJSON(data []byte) error {
	var pair []int64
	if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("histogram bin %s: want [value, count]", data)
	}
	b.Value, b.Count = pair[0], pair[1]
	return nil
}

// Stats summarise the values of one metric. With N = 0 every other field is
// zero.
type Stats struct {
	// N is the number of values.
	N int64 `json:"n"`
	// Mean and Std are the sample mean and standard deviation (N−1 in the
	// denominator; 0 for one value).
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	// Min, the percentiles and Max are values that occurred: the
	// nearest-rank percentile q is the smallest value with at least ⌈q·N⌉
	// values at or below it.
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	// CI95 is the 95% confidence interval of the mean, mean ± 1.96·Std/√N
	// (the normal approximation, sound for the large N Monte Carlo runs),
	// its low end raised to 0 when below: every metric is a duration or a
	// count, never negative, and neither is its mean.
	CI95 [2]float64 `json:"ci95"`
}

// Metric is one metric over every run it applies to.
type Metric struct {
	Stats
	// Missing counts the runs the metric applies to that never reached it
	// (a failed initialisation, an unresolved contention): they miss every
	// deadline and are not in Stats.
	Missing int64 `json:"missing"`
	// Hist is the exact distribution: every distinct value, ascending, with
	// its count.
	Hist []Bin `json:"histogram"`
}

// CDF returns, for each bin of the histogram, the fraction of the runs the
// metric applies to (Missing included) with a value at or below it.
func (m *Metric) CDF() []float64 {
	total := m.N + m.Missing
	out := make([]float64, len(m.Hist))
	var below int64
	for i, b := range m.Hist {
		below += b.Count
		out[i] = float64(below) / float64(total)
	}
	return out
}

// atOrBelow counts the values ≤ limit.
func (m *Metric) atOrBelow(limit int64) int64 {
	var n int64
	for _, b := range m.Hist {
		if b.Value > limit {
			break
		}
		n += b.Count
	}
	return n
}

// histogram accumulates a metric's values.
type histogram struct {
	counts  map[int64]int64
	missing int64
}

func newHistogram() *histogram { return &histogram{counts: map[int64]int64{}} }

func (h *histogram) add(v int64) { h.counts[v]++ }

// metric freezes the histogram into a Metric with its Stats.
func (h *histogram) metric() *Metric {
	m := &Metric{Missing: h.missing, Hist: make([]Bin, 0, len(h.counts))}
	for v, c := range h.counts {
		m.Hist = append(m.Hist, Bin{v, c})
	}
	slices.SortFunc(m.Hist, func(a, b Bin) int { return cmp.Compare(a.Value, b.Value) })
	m.Stats = statsOf(m.Hist)
	return m
}

// statsOf computes Stats from an ascending histogram. The sums run in
// ascending order of value, so equal histograms give equal bits however
// they were accumulated.
func statsOf(hist []Bin) Stats {
	var s Stats
	var sum float64
	for _, b := range hist {
		s.N += b.Count
		sum += float64(b.Value) * float64(b.Count)
	}
	if s.N == 0 {
		return s
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		var sq float64
		for _, b := range hist {
			d := float64(b.Value) - s.Mean
			sq += d * d * float64(b.Count)
		}
		s.Std = math.Sqrt(sq / float64(s.N-1))
	}
	// Cut at 0, where the values themselves stop (ReadSummary refuses a
	// negative one).
	s.CI95 = stats.MeanInterval(s.Mean, s.Std, s.N)
	s.Min, s.Max = float64(hist[0].Value), float64(hist[len(hist)-1].Value)
	for _, p := range []struct {
		perMille int64
		into     *float64
	}{{500, &s.P50}, {900, &s.P90}, {990, &s.P99}, {999, &s.P999}} {
		*p.into = float64(nearestRank(hist, s.N, p.perMille))
	}
	return s
}

// nearestRank is the smallest value with at least ⌈n·perMille/1000⌉ of the n
// values at or below it; integer arithmetic keeps it exact.
func nearestRank(hist []Bin, n, perMille int64) int64 {
	rank := max((n*perMille+999)/1000, 1)
	var below int64
	for _, b := range hist {
		below += b.Count
		if below >= rank {
			return b.Value
		}
	}
	return hist[len(hist)-1].Value
}
