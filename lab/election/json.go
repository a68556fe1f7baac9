package election

import (
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/netsim"
)

// JSON is the --json output of one election. Field order is the order
// of the struct fields; names are stable.
type JSON struct {
	bus.VersionJSON
	Algo       string             `json:"algo"`                 // the algorithm, as --algo names it
	Mode       string             `json:"mode"`                 // async, sync or timed (1394, on the PHY's clock)
	Topology   string             `json:"topology"`             // the file, "gen SPEC" or "default"
	Seed       uint64             `json:"seed"`                 // the seed of the delays, random IDs and directions
	IDs        string             `json:"ids"`                  // ascending, descending, random, explicit or none
	Delays     *string            `json:"delays"`               // random or unit; null unless the mode is async
	Suppress   bool               `json:"suppress"`             // --suppress: chang-roberts sends no ID of its own once woken by a larger one
	Announce   bool               `json:"announce"`             // --announce: the optional leader announcement was added
	Initiators []string           `json:"initiators"`           // [] for every node
	Crashed    []string           `json:"crashed"`              // the crashed nodes (bully)
	Crashes    []NodeEventJSON    `json:"crashes,omitempty"`    // crashes during the run (--crash), in time order
	Recoveries []NodeEventJSON    `json:"recoveries,omitempty"` // bully's recoveries (--recover), in time order
	Leader     *string            `json:"leader"`               // null when none was elected
	LeaderID   *int64             `json:"leader_id"`            // null when there is no leader or no IDs
	NoLeader   *string            `json:"no_leader"`            // why there is none; null when there is one
	Announced  bool               `json:"announced"`            // every node learns the leader
	Messages   netsim.CountJSON   `json:"messages"`             // every message sent, lost ones included
	Time       float64            `json:"time"`                 // the last delivery or decision, in time_unit
	TimeUnit   string             `json:"time_unit"`            // delays or rounds
	TimeNs     *int64             `json:"time_ns"`              // 1394: time in ns on the PHY model's clock; null otherwise
	NsPerDelay *float64           `json:"ns_per_delay"`         // 1394: one delay in ns (the longest cable's propagation + a PHY's repeat delay); null otherwise
	Rounds     *int               `json:"rounds"`               // null unless the mode is sync
	Nodes      []NodeJSON         `json:"nodes"`                // every node, in topology order
	Tree       *TreeJSON          `json:"tree"`                 // tree-min's height and h·RTT bound; null for the others, in sync mode or with no leader
	Trace      []netsim.TraceJSON `json:"trace,omitempty"`      // with --trace-table only
}

// TreeJSON is tree-min's time against the notes' h·RTT bound.
type TreeJSON struct {
	Core    []string `json:"core"`    // the nodes that learnt the winner from the last proposals
	Height  int      `json:"height"`  // h: the most cables from a core node to a live node
	Wakeup  int      `json:"wakeup"`  // the most cables from the starters to a node: the wake-up's delays
	RTT     int      `json:"rtt"`     // a round trip, in delays: 2
	Bound   float64  `json:"bound"`   // wakeup + height·rtt, in delays; the run's time is at most this without crashes
	Repairs int      `json:"repairs"` // proposals and winners sent again after crashes
}

// NodeEventJSON is a crash or a recovery during the run.
type NodeEventJSON struct {
	Node string  `json:"node"` // the node
	At   float64 `json:"at"`   // when, in delays
}

// NodeEventsJSON is the JSON of crashes or recoveries.
func NodeEventsJSON(events []NodeEvent) []NodeEventJSON {
	var out []NodeEventJSON
	for _, e := range events {
		out = append(out, NodeEventJSON{Node: e.Node, At: float64(e.At) / netsim.TicksPerDelay})
	}
	return out
}

// NodeJSON is one node at the end of an election.
type NodeJSON struct {
	ID         string  `json:"id"`          // the node's name in the topology
	ElectionID *int64  `json:"election_id"` // null when the algorithm has no IDs
	State      string  `json:"state"`       // leader, follower, undecided, asleep or crashed
	Leader     *string `json:"leader"`      // whom it knows as leader, null if nobody
}

// NewJSON is res as fwsim elect --json writes it; source names the
// topology.
func NewJSON(source string, res *Result) JSON {
	out := JSON{
		VersionJSON: bus.NewVersionJSON(),
		Algo:        res.Algo, Mode: res.Mode.String(), Topology: source, Seed: res.Seed, IDs: res.IDOrder,
		Suppress: res.Suppress, Announce: res.Announce,
		Initiators: jsonout.List(res.Initiators), Crashed: jsonout.List(res.Crashed),
		Crashes: NodeEventsJSON(res.Crashes), Recoveries: NodeEventsJSON(res.Recoveries),
		Leader: jsonout.NullIfEmpty(res.Leader), NoLeader: jsonout.NullIfEmpty(res.NoLeader), Announced: res.Announced,
		Time: res.Time, TimeUnit: res.TimeUnit, Nodes: []NodeJSON{},
	}
	if res.Mode == Async {
		d := DelayName(res.UnitDelays)
		out.Delays = &d
	}
	hasIDs := res.IDOrder != "none"
	if res.Leader != "" && hasIDs {
		out.LeaderID = &res.LeaderID
	}
	out.Messages = netsim.NewCountJSON(res.Messages.Total, res.Messages.ByType)
	if res.Mode == Sync {
		out.Rounds = &res.Rounds
	}
	if res.Mode == Timed {
		out.TimeNs, out.NsPerDelay = &res.TimeNs, &res.NsPerDelay
	}
	for _, n := range res.Nodes {
		nj := NodeJSON{ID: n.Node, State: string(n.State), Leader: jsonout.NullIfEmpty(n.Leader)}
		if hasIDs {
			nj.ElectionID = &n.ID
		}
		out.Nodes = append(out.Nodes, nj)
	}
	if t := res.Tree; t != nil {
		out.Tree = &TreeJSON{Core: jsonout.List(t.Core), Height: t.Height, Wakeup: t.Wakeup, RTT: RTT, Bound: t.Bound, Repairs: t.Repairs}
	}
	for _, m := range res.Trace {
		out.Trace = append(out.Trace, netsim.NewTraceJSON(m))
	}
	return out
}

// CompareJSON is the --json output of elect --compare.
type CompareJSON struct {
	bus.VersionJSON
	Topology   string           `json:"topology"`             // the file, "gen SPEC" or "default"
	Seed       uint64           `json:"seed"`                 // the seed of every algorithm's run
	IDs        string           `json:"ids"`                  // ascending, descending, random, or "from FILE" for --ids FILE
	Delays     string           `json:"delays"`               // random or unit, for the asynchronous runs
	Initiators string           `json:"initiators"`           // the scenario's initiators, as --initiator (names joined by commas) or --initiators gives them (all by default)
	Suppress   bool             `json:"suppress"`             // --suppress was given
	Announce   bool             `json:"announce"`             // the scenario announces the leader: always true
	Crashed    []string         `json:"crashed"`              // the nodes crashed from the start (--crash NODE); [] for none
	Crashes    []NodeEventJSON  `json:"crashes,omitempty"`    // crashes during the run (--crash), as given
	Recoveries []NodeEventJSON  `json:"recoveries,omitempty"` // recoveries (--recover), as given
	Results    []CompareRowJSON `json:"results"`              // one per algorithm
}

// CompareRowJSON is one algorithm's election; every field but algo,
// applicable, ran, reason and differs is null when it did not run.
type CompareRowJSON struct {
	Algo       string            `json:"algo"`         // the algorithm, as --algo names it
	Applicable bool              `json:"applicable"`   // it runs on this topology and in this mode
	Ran        bool              `json:"ran"`          // it ran: it applies and can honour the scenario's faults
	Reason     *string           `json:"reason"`       // why it did not run; null when it ran
	Differs    []string          `json:"differs"`      // how the run departs from the scenario; [] when it ran the scenario
	Failed     bool              `json:"failed"`       // it ran the scenario and elected no live leader that every live node knows
	Mode       *string           `json:"mode"`         // async, sync or timed
	Initiators []string          `json:"initiators"`   // the nodes that started, each named (1394's power-up: every node); [] when it did not run
	Crashed    []string          `json:"crashed"`      // the nodes crashed from the start; [] when it did not run
	Announced  *bool             `json:"announced"`    // every node learns the leader
	Messages   *netsim.CountJSON `json:"messages"`     // every message sent, lost ones included, and by type
	Time       *float64          `json:"time"`         // the last delivery or decision, in time_unit
	TimeUnit   *string           `json:"time_unit"`    // delays or rounds
	TimeNs     *int64            `json:"time_ns"`      // 1394: time in ns on the PHY model's clock; null otherwise
	NsPerDelay *float64          `json:"ns_per_delay"` // 1394: one delay in ns (the longest cable's propagation + a PHY's repeat delay); null otherwise
	Rounds     *int              `json:"rounds"`       // null unless the mode is sync
	Leader     *string           `json:"leader"`       // null when none was elected
	LeaderID   *int64            `json:"leader_id"`    // null when there is no leader or no IDs
	NoLeader   *string           `json:"no_leader"`    // why there is none; null when there is one or the row did not run
	Unaware    *string           `json:"unaware"`      // the live nodes that never learnt the announced leader; null when none
}

// SweepJSON is the --json output of elect --sweep.
type SweepJSON struct {
	bus.VersionJSON
	Sweep       string         `json:"sweep"`        // --sweep as given
	Sizes       []int          `json:"sizes"`        // the sizes run, in order
	Seed        uint64         `json:"seed"`         // the seed of every run (random IDs: seed, seed+1, …)
	Delays      string         `json:"delays"`       // random or unit
	Runs        int            `json:"runs"`         // seeds averaged for random IDs
	MaxMessages uint64         `json:"max_messages"` // sizes whose formula gives more are skipped
	Rows        []SweepRowJSON `json:"rows"`         // one per case and size
}

// SweepRowJSON is one case at one size.
type SweepRowJSON struct {
	Algo         string      `json:"algo"`          // chang-roberts, echo or floodmax
	Case         *string     `json:"case"`          // best, average or worst; null when the IDs do not change the count
	Graph        string      `json:"graph"`         // ring or tree
	N            int         `json:"n"`             // nodes
	Runs         int         `json:"runs"`          // runs averaged; 0 when skipped
	Messages     *float64    `json:"messages"`      // mean over the runs; null when skipped
	MessagesCI95 *[2]float64 `json:"messages_ci95"` // null unless runs > 1
	Time         *float64    `json:"time"`          // mean, in time_unit; null when skipped
	TimeUnit     *string     `json:"time_unit"`     // delays or rounds; null when skipped
	Formula      string      `json:"formula"`       // the textbook count, e.g. n(n+1)/2
	FormulaValue float64     `json:"formula_value"` // its value at n
	Skipped      *string     `json:"skipped"`       // why it was not run; null when it was
}

// NewCompareJSON is the rows of Compare with o as fwsim elect --compare
// --json writes them; ids and initiators name the ID order and the
// initiators as the command line gave them ("" for all).
func NewCompareJSON(source string, o Options, ids, initiators string, rows []CompareRow) CompareJSON {
	s := CompareScenario(o)
	if initiators == "" {
		initiators = "all"
	}
	out := CompareJSON{VersionJSON: bus.NewVersionJSON(), Topology: source, Seed: o.Seed, IDs: ids, Delays: DelayName(o.UnitDelays),
		Initiators: initiators, Suppress: o.Suppress, Announce: s.Announce,
		Crashed: jsonout.List(s.Crashed), Crashes: NodeEventsJSON(o.Crashes), Recoveries: NodeEventsJSON(o.Recoveries),
		Results: []CompareRowJSON{}}
	for _, r := range rows {
		rj := CompareRowJSON{Algo: r.Algo, Applicable: r.Result != nil || r.NotRun, Ran: r.Result != nil,
			Reason: jsonout.NullIfEmpty(r.Reason), Differs: jsonout.List(r.Differs), Failed: r.Failed(),
			Initiators: []string{}, Crashed: []string{}}
		if res := r.Result; res != nil {
			mode := res.Mode.String()
			messages := netsim.NewCountJSON(res.Messages.Total, res.Messages.ByType)
			rj.Mode, rj.Messages, rj.Time, rj.TimeUnit, rj.Announced = &mode, &messages, &res.Time, &res.TimeUnit, &res.Announced
			rj.Initiators, rj.Crashed = jsonout.List(res.Initiators), jsonout.List(res.Crashed)
			if res.Initiators == nil { // 1394's power-up
				for _, n := range res.Nodes {
					rj.Initiators = append(rj.Initiators, n.Node)
				}
			}
			rj.Leader, rj.NoLeader = jsonout.NullIfEmpty(res.Leader), jsonout.NullIfEmpty(res.NoLeader)
			rj.Unaware = jsonout.NullIfEmpty(res.Unaware())
			if res.Leader != "" && res.IDOrder != "none" {
				rj.LeaderID = &res.LeaderID
			}
			if res.Mode == Timed {
				rj.TimeNs, rj.NsPerDelay = &res.TimeNs, &res.NsPerDelay
			}
			if res.Mode == Sync {
				rj.Rounds = &res.Rounds
			}
		}
		out.Results = append(out.Results, rj)
	}
	return out
}

// NewSweepJSON is the rows of the sweep o, asked for as spec (n=FROM..TO),
// as fwsim elect --sweep --json writes them.
func NewSweepJSON(spec string, o SweepOptions, rows []SweepRow) SweepJSON {
	out := SweepJSON{VersionJSON: bus.NewVersionJSON(), Sweep: spec, Sizes: o.Sizes, Seed: o.Seed,
		Delays: DelayName(o.UnitDelays), Runs: o.Runs, MaxMessages: o.MaxMessages, Rows: []SweepRowJSON{}}
	for _, r := range rows {
		rj := SweepRowJSON{Algo: r.Case.Algo, Case: jsonout.NullIfEmpty(r.Case.Name), Graph: r.Case.Graph, N: r.N,
			Formula: r.Case.Formula, FormulaValue: r.Formula, Skipped: jsonout.NullIfEmpty(r.Skipped)}
		if r.Skipped == "" {
			rj.Runs, rj.Messages, rj.Time, rj.TimeUnit = r.Runs, &r.Messages, &r.Time, &r.Unit
			if r.Runs > 1 {
				rj.MessagesCI95 = &[2]float64{r.Lo, r.Hi}
			}
		}
		out.Rows = append(out.Rows, rj)
	}
	return out
}
