package election

import (
	"errors"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// CompareRow is one algorithm of a comparison: its result, or the reason
// it does not apply to the topology or the options.
type CompareRow struct {
	Algo   string
	Result *Result
	Reason string
}

// Compare runs every algorithm (Algorithms) on topo with o, each given the
// faults it takes (--crashed, --crash, --recover). An algorithm that does
// not apply gets a row with its reason; any other error stops it.
func Compare(topo *bus.Topology, o Options) ([]CompareRow, error) {
	var rows []CompareRow
	for _, a := range Algorithms() {
		ao := o
		ao.Algo = a.Name
		if !a.Crashes {
			ao.Crashed = nil
		}
		if !a.Faults {
			ao.Crashes = nil
		}
		if !a.Recovers {
			ao.Recoveries = nil
		}
		res, err := Run(topo, ao)
		switch {
		case errors.Is(err, ErrUnsupportedTopology), errors.Is(err, ErrUnsupportedMode), errors.Is(err, ErrBadOptions):
			reason := err.Error()
			if _, rest, ok := strings.Cut(reason, ": "+a.Name+" "); ok {
				reason = rest // the row names the algorithm
			}
			rows = append(rows, CompareRow{Algo: a.Name, Reason: reason})
		case err != nil:
			return nil, err
		default:
			rows = append(rows, CompareRow{Algo: a.Name, Result: res})
		}
	}
	return rows, nil
}
