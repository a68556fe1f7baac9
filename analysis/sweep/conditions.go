package sweep

import (
	"math"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// Conditions are the correctness conditions of root contention (docs/protocol.md §5,
// from the IMITATOR synthesis of the Stoelinga–Vaandrager model) evaluated
// for one bus: with delay the one-way cable delay,
//
//	RoundTrip:  2·delay < FAST.min          a node's shortest wait outlasts the
//	                                        time its IDLE takes to reach the
//	                                        peer and the peer's to come back
//	Separation: 2·delay + FAST.max < SLOW.min  a FAST node's new PARENT_NOTIFY
//	                                        reaches a SLOW peer before the
//	                                        peer's wait ends
//
// Beyond them root contention may need more rounds, never resolve, or elect
// two roots.
type Conditions struct {
	// DelayNs is the largest one-way cable delay of the bus, in whole
	// nanoseconds as the emulator rounds it: contention can happen on any
	// cable, so the slowest one decides.
	DelayNs    int64
	Fast, Slow phy.Window
	RoundTrip  bool
	Separation bool
}

// Hold reports whether both conditions hold.
func (c Conditions) Hold() bool { return c.RoundTrip && c.Separation }

// MaxDelayNs is the predicted threshold in ns: the conditions hold exactly
// for delays below it, half the smaller of FAST.min and SLOW.min − FAST.max.
func MaxDelayNs(fast, slow phy.Window) float64 {
	return float64(min(fast.Min, slow.Min-fast.Max)) / 2
}

// Evaluate computes the conditions for a run of t with o.
func Evaluate(t *bus.Topology, o bus.Options) (Conditions, error) {
	fast, slow, err := windows(t, o)
	if err != nil {
		return Conditions{}, err
	}
	var delay int64
	for _, c := range t.Cables {
		delay = max(delay, cableDelayNs(c))
	}
	twice := 2 * time.Duration(delay)
	return Conditions{
		DelayNs: delay, Fast: fast, Slow: slow,
		RoundTrip:  twice < fast.Min,
		Separation: twice+fast.Max < slow.Min,
	}, nil
}

// cableDelayNs is a cable's one-way delay as bus resolves it: from its length
// at 5.05 ns/m, its delay, or the 4.5 m default, rounded to the nearest ns.
func cableDelayNs(c bus.Cable) int64 {
	ns := phy.MaxCableLengthM * phy.CableNsPerMetre
	switch {
	case c.DelayNs != nil:
		ns = *c.DelayNs
	case c.LengthM != nil:
		ns = *c.LengthM * phy.CableNsPerMetre
	}
	return int64(math.Round(ns))
}
