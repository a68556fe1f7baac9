package phy

import (
	"encoding/binary"
	"math"
)

// A state key lets an explorer merge two states of a bus that behave alike
// from now on, whatever their past: the same key must mean the same future.
// So a key holds what the state machine will read, with every cycle
// relative to the present cycle, and leaves out what only reports the past
// (histories, per-step scratch) and what cannot change during a run
// (configuration, drawn timer lengths). A field a state does not read is
// left out too: an idle node's entry cycle recedes forever and would keep
// otherwise equal states apart.

// AppendCycleKey appends cycle c relative to now, the present cycle; NoWake
// stays distinct from every cycle.
func AppendCycleKey(b []byte, c, now int64) []byte {
	if c == NoWake {
		return binary.AppendVarint(b, math.MinInt64)
	}
	return binary.AppendVarint(b, c-now)
}

// AppendKey appends the key of the machine's state at cycle now: the first
// clock edge at or after the present instant. The tree identifier's state
// is not included: the bus appends it itself.
func (m *Machine) AppendKey(b []byte, now int64) []byte {
	b = append(b, byte(m.state))
	// S2 alone reads which child it granted and whether that child began
	// its data; elsewhere they are what an earlier S2 left.
	receiving := m.state == S2SelfIDReceive
	flags := []bool{m.rhb, m.gapSet, m.short, m.expectShort, m.initiated, m.configTimeout,
		m.root, m.grantAcked && receiving, m.identSent, m.watchdog}
	var bits uint64
	for i, f := range flags {
		if f {
			bits |= 1 << i
		}
	}
	b = binary.AppendUvarint(b, bits)
	b = binary.AppendVarint(b, int64(m.gapCount))
	b = binary.AppendVarint(b, int64(m.parentPort))
	b = binary.AppendVarint(b, int64(m.phyID))
	b = binary.AppendVarint(b, int64(m.zeros))
	if receiving {
		b = binary.AppendVarint(b, int64(m.granted))
	}
	for i := range m.ports.Connected {
		c := byte(0)
		if m.ports.Connected[i] {
			c = 1
		}
		if m.identified[i] {
			c |= 2
		}
		b = append(b, c, byte(m.ports.Rx[i]), byte(m.ports.Tx[i]), byte(m.ports.Status[i]))
	}
	b = binary.AppendUvarint(b, uint64(m.received))
	b = binary.AppendUvarint(b, uint64(len(m.transmit)))
	b = AppendCycleKey(b, m.wake, now)
	// The timers each state reads, and nothing else.
	switch m.state {
	case R0ResetStart, R1ResetWait, S3SendSpeedCapabilities:
		b = AppendCycleKey(b, m.entry, now)
	case S4SelfIDTransmit:
		if !m.identSent {
			b = AppendCycleKey(b, m.txEnd, now)
			b = appendSelfIDs(b, m.selfIDBuf)
		}
	}
	if m.watched() {
		// Only how far the watchdog is from firing matters, and it fires
		// MAX_ARB_STATE_TIME after since.
		b = AppendCycleKey(b, max(m.since, now-m.cyc.maxArbState), now)
	}
	return b
}

func appendSelfIDs(b []byte, qs []SelfID) []byte {
	b = binary.AppendUvarint(b, uint64(len(qs)))
	for _, q := range qs {
		b = binary.LittleEndian.AppendUint32(b, uint32(q))
	}
	return b
}

// KeyRepeat is the number of cycles after which the clock's edges repeat
// their spacing exactly: Edge(k+KeyRepeat) − Edge(k) is the same for every
// k. With edges rounded to whole ns, two instants a whole number of cycles
// apart see the same future edges only when that number is a multiple of
// it (768 for a 49.152 MHz clock, 1 for the ideal clock).
func (c Clock) KeyRepeat() int64 {
	g := gcd(edgeNum, c.den)
	return int64(c.den / g)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
