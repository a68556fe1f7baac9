package multicast

import "github.com/fwsim/fwsim/bus"

// Compare runs every algorithm (Algorithms) on topo with o, each given the
// options it takes (Info.Stop, Info.Groups); crashes go to all. It stops at the first error.
func Compare(topo *bus.Topology, o Options) ([]*Result, error) {
	var results []*Result
	for _, a := range Algorithms() {
		ao := o
		ao.Algo = a.Name
		ao.Stop = o.Stop && a.Stop
		if !a.Groups {
			ao.Joins, ao.Leaves = nil, nil
		}
		res, err := Run(topo, ao)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}
