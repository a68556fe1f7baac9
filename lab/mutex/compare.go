package mutex

import "github.com/fwsim/fwsim/bus"

// Compare runs every algorithm (Algorithms) on topo with o, each given the
// options it takes (Info.Token: LoseToken and Regenerate; Info.RequestReply);
// crashes and Loss go to all. It stops at the first error.
func Compare(topo *bus.Topology, o Options) ([]*Result, error) {
	var results []*Result
	for _, a := range Algorithms() {
		ao := o
		ao.Algo = a.Name
		ao.LoseToken = o.LoseToken && a.Token
		ao.Regenerate = o.Regenerate && a.Token
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

// LossDeadlock reports whether requests wait for ever in a run that lost
// messages (Options.Loss): the deadlock the notes predict for every
// algorithm that does not resend, which a run reports as a failure.
func (r *Result) LossDeadlock() bool { return !r.Live && len(r.Lost) > 0 }

// Failed reports whether the run broke what the algorithm promises: mutual
// exclusion, or serving every request, whatever was to blame (a crash, a
// lost token or a lost message: none of the algorithms here survives
// them, and the run says it did not). It is what makes fwsim mutex exit 1.
func (r *Result) Failed() bool { return len(r.Violations) > 0 || !r.Live }
