package phy

import "time"

// After self identify a PHY takes the bus as free only once it has seen it
// idle for long enough: the gaps. The gap count (register 1, 6 bits) sets
// the two long ones, so that on a bus of a given diameter no node decides
// the bus is idle while an acknowledgement is still on its way to it
// (docs/protocol.md §9.6).

// GapRule is a gap's detection time as a linear function of the gap count,
// in ticks of the PHY's 49.152 MHz clock: Offset + PerCount × gap_count.
type GapRule struct {
	Offset, PerCount int64
}

// At is the gap's detection time for gapCount on a clock of clockHz.
func (r GapRule) At(gapCount int, clockHz int64) time.Duration {
	ticks := r.Offset + r.PerCount*int64(gapCount)
	return time.Duration(ticks * int64(time.Second) / clockHz)
}

// Gaps are the idle times a PHY tells apart after self identify.
type Gaps struct {
	// Ack is how long a node waits after a packet addressed to it ends
	// before it sends the acknowledgement, without arbitration.
	Ack time.Duration
	// Iso is the isochronous gap: after a cycle start or an isochronous
	// packet, talkers arbitrate once the bus has been idle this long.
	Iso time.Duration
	// Subaction is the subaction gap: asynchronous requests wait for it.
	Subaction time.Duration
	// ArbReset is the arbitration reset gap: it ends a fairness interval
	// and enables every node's arbitration again.
	ArbReset time.Duration
}

// Gaps returns the gaps of a PHY with gapCount in its register.
func (t Timing) Gaps(gapCount int) Gaps {
	return Gaps{
		Ack:       t.AckGap,
		Iso:       t.IsoGap,
		Subaction: t.SubactionGap.At(gapCount, t.ClockHz),
		ArbReset:  t.ArbResetGap.At(gapCount, t.ClockHz),
	}
}

// CycleTime is the isochronous cycle: the cycle master sends a cycle start
// every 125 µs [C].
const CycleTime = 125 * time.Microsecond

// BitsPerSecond is the data rate of a speed: S100 is the base rate,
// 98.304 Mbit/s [C], and each code above doubles it.
func (s Speed) BitsPerSecond(baseRate int64) int64 { return baseRate << s }

// MaxAsyncPayload is the largest asynchronous payload at a speed, in
// bytes: 512 at S100, doubling with each speed [C].
func (s Speed) MaxAsyncPayload() int { return 512 << s }

// MaxIsoPayload is the largest isochronous payload at a speed, in bytes:
// 1024 at S100, doubling with each speed [C].
func (s Speed) MaxIsoPayload() int { return 1024 << s }

// maxGapTicks bounds a GapRule's terms: 2^20 ticks, about 21 ms at
// 49.152 MHz, far beyond any PHY's gaps, keeps every product in range.
const maxGapTicks = 1 << 20
