package phy

import (
	"fmt"
	"math/bits"
	"time"
)

// Clock is a PHY's local clock. Edge k falls at Phase + k·period ns (rounded
// down to the nanosecond), where the period is that of the nominal frequency
// corrected by the clock's frequency error. A PHY samples its receivers and
// changes its transmitters only on these edges, and its timers count them.
//
// The arithmetic is exact 128-bit integer arithmetic, so every machine
// computes the same edges: no floating point enters virtual time.
type Clock struct {
	hz    int64  // nominal frequency: timers convert durations to cycles with it
	phase int64  // time of edge 0, ns
	den   uint64 // hz·(1e9 + ppb): the edge spacing is edgeNum/den ns
}

const edgeNum = 1e18 // ns·Hz·(1e9 parts per billion)

// NewClock returns a clock of nominal frequency hz whose edge 0 falls at
// phaseNs and whose real frequency is off by ppb parts per billion (positive:
// fast). The period must not drop below 1 ns.
func NewClock(hz, phaseNs, ppb int64) (Clock, error) {
	if hz <= 0 || hz > MaxClockHz {
		return Clock{}, fmt.Errorf("clock frequency %d Hz out of range (1 Hz to 1 GHz)", hz)
	}
	if ppb <= -1e9 || ppb > 1e8 {
		return Clock{}, fmt.Errorf("clock error %d ppb out of range", ppb)
	}
	if phaseNs < 0 {
		return Clock{}, fmt.Errorf("clock phase %d ns is negative", phaseNs)
	}
	den := uint64(hz) * uint64(1e9+ppb)
	if den > edgeNum {
		return Clock{}, fmt.Errorf("clock period below 1 ns (%d Hz, %d ppb)", hz, ppb)
	}
	return Clock{hz: hz, phase: phaseNs, den: den}, nil
}

// IdealClock has an edge every nanosecond from time 0: it removes cycle
// quantisation, for comparison with continuous-time models.
func IdealClock() Clock { return Clock{hz: 1e9, den: edgeNum} }

// Hz is the nominal frequency.
func (c Clock) Hz() int64 { return c.hz }

// Edge is the time in ns of edge k ≥ 0.
func (c Clock) Edge(k int64) int64 {
	hi, lo := bits.Mul64(uint64(k), edgeNum)
	q, _ := bits.Div64(hi, lo, c.den)
	return c.phase + int64(q)
}

// EdgeAtOrAfter is the index of the first edge at or after time t.
func (c Clock) EdgeAtOrAfter(t int64) int64 {
	k, _ := c.FirstEdge(t)
	return k
}

// FirstEdge is the first edge at or after time t: its index k, and its
// time Edge(k), which finding k computes anyway.
func (c Clock) FirstEdge(t int64) (k, at int64) {
	if t <= c.phase {
		return 0, c.phase
	}
	hi, lo := bits.Mul64(uint64(t-c.phase), c.den)
	q, _ := bits.Div64(hi, lo, edgeNum)
	if k, at = int64(q), c.Edge(int64(q)); at >= t {
		return k, at
	}
	return k + 1, c.Edge(k + 1)
}

// Cycles is the number of nominal clock cycles a timer counts to measure at
// least d: the smallest n with n cycles ≥ d (0 for d ≤ 0).
func (c Clock) Cycles(d time.Duration) int64 { return c.cyclesIn(d, true) }

// CycleWindow is the range of whole cycle counts that lie inside w. When w is
// narrower than a cycle and holds no whole count, it is the one count just
// above w.Min: a timer cannot count a fraction of a cycle.
func (c Clock) CycleWindow(w Window) (lo, hi int64) {
	lo = c.Cycles(w.Min)
	hi = c.cyclesIn(w.Max, false)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// cyclesIn is d·hz/1e9 cycles, rounded up or down. The product takes 128
// bits, so the count is exact for any d: with hz ≤ 1 GHz it is at most d
// and fits an int64, whatever a caller's durations are.
func (c Clock) cyclesIn(d time.Duration, roundUp bool) int64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(c.hz))
	if roundUp {
		var carry uint64
		lo, carry = bits.Add64(lo, 1e9-1, 0)
		hi += carry
	}
	n, _ := bits.Div64(hi, lo, 1e9)
	return int64(n)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
