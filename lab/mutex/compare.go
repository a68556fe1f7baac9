package mutex

import "github.com/fwsim/fwsim/bus"

// Compare runs every algorithm (Algorithms) on topo with o, each given the
// options it takes (Info.Token, Info.RequestReply); crashes go to all. It stops at the first error.
func Compare(topo *bus.Topology, o Options) ([]*Result, error) {
	var results []*Result
	for _, a := range Algorithms() {
		ao := o
		ao.Algo = a.Name
		ao.LoseToken = o.LoseToken && a.Token
		ao.RequestReply = o.RequestReply && a.RequestReply
		res, err := Run(topo, ao)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// Faulty reports whether the run had a fault injected: a crash or a lost
// token.
func (r *Result) Faulty() bool { return len(r.Crashes) > 0 || r.LoseToken }

// Failed reports whether the run broke what the algorithm promises: mutual
// exclusion, or, without a fault to blame, serving every request. It is
// what makes fwsim mutex exit 1.
func (r *Result) Failed() bool { return len(r.Violations) > 0 || (!r.Live && !r.Faulty()) }
