package multicast

import "github.com/fwsim/fwsim/bus"

// Compare runs every algorithm (Algorithms) on topo with o, each given the
// options it takes: the stop signal to nack and srm, joins and leaves to
// vsync, crashes to all. It stops at the first error.
func Compare(topo *bus.Topology, o Options) ([]*Result, error) {
	var results []*Result
	for _, a := range Algorithms() {
		ao := o
		ao.Algo = a.Name
		ao.Stop = o.Stop && (a.Name == "nack" || a.Name == "srm")
		if a.Name != "vsync" {
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
