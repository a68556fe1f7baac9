package election

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// CompareRow is one algorithm of a comparison: its result, or the reason
// it did not run.
type CompareRow struct {
	Algo   string
	Result *Result
	// Reason says why the algorithm did not run: it does not apply to the
	// topology or the mode, or (NotRun) it cannot honour the scenario's
	// crashes or recoveries, which it would ignore and might then elect a
	// crashed node.
	Reason string
	NotRun bool
	// Differs says how the run departs from the scenario, one clause for
	// each thing it could not honour (its initiators, its announcement);
	// empty when it ran the scenario.
	Differs []string
}

// Failed says that the row ran the scenario and did not elect a live
// leader that every live node knows. A row that differs from the scenario
// never fails: anonymous elects nobody by design.
func (r *CompareRow) Failed() bool {
	return r.Result != nil && len(r.Differs) == 0 && (r.Result.Leader == "" || r.Result.Unaware() != "")
}

// CompareScenario is the scenario Compare gives every algorithm, from o:
// the initiators o names (all nodes when it names none), the announcement
// (every node learns the leader, so Announce is set), and o's crashes and
// recoveries, with nobody crashed from the start unless o.Crashed says so.
func CompareScenario(o Options) Options {
	o.Announce = true
	if len(o.Initiators) == 0 && o.InitiatorCount == 0 {
		o.InitiatorCount = AllNodes
	}
	if o.Crashed == nil {
		o.Crashed = []string{}
	}
	return o
}

// Compare runs every algorithm (Algorithms) on topo in one scenario,
// CompareScenario(o): the same initiators, the announcement, the same
// crashes and recoveries. An algorithm that cannot start as the scenario
// says (dfs-token starts from one initiator; sync-ring, anonymous,
// floodmax and virtual-tree from every node) or that does not announce
// runs as near to it as it can and its row says how it differs; one that cannot honour the faults does not run, nor
// does one that does not apply to the topology or the mode, and its row
// says why. Any other error stops the comparison.
func Compare(topo *bus.Topology, o Options) ([]CompareRow, error) {
	// One graph serves every row: a complete graph of 2,048 nodes takes
	// seconds to derive.
	g, err := netsim.NewGraph(topo)
	if err != nil {
		return nil, err
	}
	s := CompareScenario(o)
	if err := checkScenario(g, &s); err != nil {
		return nil, err
	}
	var rows []CompareRow
	for _, a := range algorithms {
		row := CompareRow{Algo: a.name}
		ao := s
		ao.Algo = a.name
		if _, err := a.check(g, s.Mode); err == nil {
			// It applies: the faults decide whether it runs.
			row.Reason = a.unfaulted(&s)
		}
		if row.Reason != "" {
			row.NotRun = true
			rows = append(rows, row)
			continue
		}
		if !a.crashes {
			ao.Crashed = nil
		}
		if d := a.startsOtherwise(&ao, len(g.Nodes)); d != "" {
			row.Differs = append(row.Differs, d)
		}
		if !a.announces(&ao) {
			row.Differs = append(row.Differs, "no announcement: "+a.name+" elects nobody, by design (Angluin 1980)")
		}
		res, err := a.run(topo, g, ao)
		switch {
		case errors.Is(err, ErrUnsupportedTopology), errors.Is(err, ErrUnsupportedMode), errors.Is(err, ErrBadOptions):
			reason := err.Error()
			if _, rest, ok := strings.Cut(reason, ": "+a.name+" "); ok {
				reason = rest // the row names the algorithm
			} else if _, rest, ok := strings.Cut(reason, ErrBadOptions.Error()+": "); ok {
				reason = rest
			}
			rows = append(rows, CompareRow{Algo: a.name, Reason: reason, NotRun: errors.Is(err, ErrBadOptions)})
		case err != nil:
			return nil, err
		default:
			row.Result = res
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// checkScenario says which node the scenario s names is not on g: such a
// scenario is bad input, not a reason for every row that takes faults to
// stay out.
func checkScenario(g *netsim.Graph, s *Options) error {
	type named struct{ what, node string }
	var all []named
	for _, n := range s.Crashed {
		all = append(all, named{"crashed node", n})
	}
	for _, e := range s.Crashes {
		all = append(all, named{"crash of", e.Node})
	}
	for _, e := range s.Recoveries {
		all = append(all, named{"recovery of", e.Node})
	}
	for _, n := range all {
		if !slices.Contains(g.Nodes, n.node) {
			return fmt.Errorf("%w: %s %q: not a node of the bus", ErrBadOptions, n.what, n.node)
		}
	}
	return nil
}

// unfaulted says why a cannot run the faults of the scenario s, "" when it
// can.
func (a *algorithm) unfaulted(s *Options) string {
	switch {
	case len(s.Crashed) > 0 && !a.crashes && a.faults:
		return fmt.Sprintf("no crashed nodes: %s takes crashes during the run only", a.name)
	case len(s.Crashed) > 0 && !a.crashes:
		return fmt.Sprintf("no crashed nodes: %s has no failure handling", a.name)
	case len(s.Crashes) > 0 && !a.faults:
		return fmt.Sprintf("no crashes: %s has no failure handling", a.name)
	case len(s.Recoveries) > 0 && !a.recovers:
		return fmt.Sprintf("no recoveries: %s does not model them", a.name)
	}
	return ""
}

// startsOtherwise sets o's initiators to the nearest a can start from on
// n nodes when it cannot start from the scenario's, and says how they
// differ ("" when they do not).
func (a *algorithm) startsOtherwise(o *Options, n int) string {
	k := o.InitiatorCount
	if len(o.Initiators) > 0 {
		k = len(o.Initiators)
	}
	switch {
	case a.single && k != 1:
		o.Initiators, o.InitiatorCount = nil, 1
		return fmt.Sprintf("one initiator: %s starts from exactly one", a.name)
	case a.allStart && k != AllNodes && k != n:
		o.Initiators, o.InitiatorCount = nil, AllNodes
		when := ""
		if a.mode == Sync {
			when = " in round 1"
		}
		return fmt.Sprintf("every node initiates: %s starts at every node%s", a.name, when)
	}
	return ""
}
