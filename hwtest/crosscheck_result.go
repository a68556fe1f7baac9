package hwtest

import (
	"errors"

	"github.com/fwsim/fwsim/bus"
)

// CrossResult is the cross-check of one generation: a comparison, or why
// there is none.
type CrossResult struct {
	Bus   *Bus
	Check *CrossCheck
	Err   error
}

func (r CrossResult) Match() bool { return r.Err == nil && r.Check.Match() }

func Mismatches(rs []CrossResult) int {
	n := 0
	for _, r := range rs {
		if !r.Match() {
			n++
		}
	}
	return n
}

// CrossAll cross-checks every bus of a capture with o. A bus that cannot be
// compared gets its reason in its CrossResult; an interrupt
// (bus.ErrInterrupted) or options the topology cannot take
// (bus.ErrInvalidOptions, e.g. a ForceRoot it lacks) end it.
func CrossAll(buses []*Bus, o CrossOptions) ([]CrossResult, error) {
	results := make([]CrossResult, len(buses))
	for i, b := range buses {
		if o.Interrupt != nil {
			select {
			case <-o.Interrupt:
				return nil, bus.ErrInterrupted
			default:
			}
		}
		results[i].Bus = b
		results[i].Check, results[i].Err = Cross(b, o)
		if err := results[i].Err; errors.Is(err, bus.ErrInterrupted) || errors.Is(err, bus.ErrInvalidOptions) {
			return nil, err
		}
	}
	return results, nil
}
