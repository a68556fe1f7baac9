package election

import (
	"errors"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
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
	// One graph serves every row: a complete graph of 2,048 nodes takes
	// seconds to derive.
	g, graphErr := netsim.NewGraph(topo)
	var rows []CompareRow
	for _, a := range algorithms {
		ao := o
		ao.Algo = a.name
		if !a.crashes {
			ao.Crashed = nil
		}
		if !a.faults {
			ao.Crashes = nil
		}
		if !a.recovers {
			ao.Recoveries = nil
		}
		err := graphErr
		var res *Result
		if err == nil {
			res, err = a.run(topo, g, ao)
		}
		switch {
		case errors.Is(err, ErrUnsupportedTopology), errors.Is(err, ErrUnsupportedMode), errors.Is(err, ErrBadOptions):
			reason := err.Error()
			if _, rest, ok := strings.Cut(reason, ": "+a.name+" "); ok {
				reason = rest // the row names the algorithm
			}
			rows = append(rows, CompareRow{Algo: a.name, Reason: reason})
		case err != nil:
			return nil, err
		default:
			rows = append(rows, CompareRow{Algo: a.name, Result: res})
		}
	}
	return rows, nil
}
