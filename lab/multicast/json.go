package multicast

import (
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// JSON is the --json output of one multicast run. Times are in
// message delays.
type JSON struct {
	bus.VersionJSON
	Algo          string             `json:"algo"`             // ack, nack, srm or vsync
	Topology      string             `json:"topology"`         // the file, "gen SPEC" or "default"
	Seed          uint64             `json:"seed"`             // the seed of the delays and losses
	Messages      int                `json:"messages"`         // the stream's length
	Loss          float64            `json:"loss"`             // the probability that a cable (link, on the mesh) loses a packet crossing it
	Medium        string             `json:"medium"`           // bus or mesh
	CableLosses   []CableLossJSON    `json:"cable_losses"`     // the cables given a loss of their own; [] when none
	Stop          bool               `json:"stop"`             // the sender repeats a stop signal (nack, srm)
	Sender        string             `json:"sender"`           // the node that multicasts
	Crashes       []netsim.CrashJSON `json:"crashes"`          // the crashes asked for
	Joins         []EventJSON        `json:"joins,omitempty"`  // the joins asked for (vsync); absent when there are none
	Leaves        []EventJSON        `json:"leaves,omitempty"` // the leaves asked for (vsync); absent when there are none
	Members       []MemberJSON       `json:"members"`          // every other node, in topology order
	Guarantees    []GuaranteeJSON    `json:"guarantees"`       // each promise and whether it held
	Views         []ViewJSON         `json:"views,omitempty"`  // vsync: every view installed, by number; absent for the other algorithms
	Sent          netsim.CountJSON   `json:"sent"`             // the packets sent, lost ones included (on the bus a multicast is one, on the mesh one per addressee)
	Transmissions netsim.CountJSON   `json:"transmissions"`    // the cables (links) the packets crossed, the crossing a packet was lost on included
	Receptions    int                `json:"receptions"`       // the copies that reached a live addressee
	Lost          int                `json:"lost"`             // the copies that missed their addressee on the way
	LostData      int                `json:"lost_data"`        // the DATA multicasts that missed at least one addressee
	NACKsSpared   int                `json:"nacks_spared"`     // srm: losses repaired without the member's own NACK, on another's; 0 for the others
	RepairsSpared int                `json:"repairs_spared"`   // srm: repairs a holder dropped because another's came first; 0 for the others
	Time          float64            `json:"time"`             // the last delivery
	Trace         []netsim.TraceJSON `json:"trace,omitempty"`  // with --trace-table only
}

// CableLossJSON is a cable given a loss of its own.
type CableLossJSON struct {
	A    string  `json:"a"`    // one end
	B    string  `json:"b"`    // the other end
	Loss float64 `json:"loss"` // the probability that it loses a packet crossing it
}

func cableLossesJSON(cs []CableLoss) []CableLossJSON {
	out := []CableLossJSON{}
	for _, c := range cs {
		out = append(out, CableLossJSON{A: c.A, B: c.B, Loss: c.P})
	}
	return out
}

// MemberJSON is what one member delivered.
type MemberJSON struct {
	Node       string   `json:"node"`            // the member
	Delivered  int      `json:"delivered"`       // messages delivered, in order from 1
	Expected   int      `json:"expected"`        // the stream's length
	Duplicates int      `json:"duplicates"`      // copies that arrived again and were dropped
	Missing    []int    `json:"missing"`         // the numbers not delivered
	GaveUp     bool     `json:"gave_up"`         // ack's sender stopped sending to it, or it stopped asking (nack)
	CrashedAt  *float64 `json:"crashed_at"`      // when it crashed; null if it did not
	Views      []int    `json:"views,omitempty"` // vsync: the numbers of the views it installed, in order; absent when it installed none, as for the other algorithms
}

// EventJSON is a join or a leave asked for (vsync).
type EventJSON struct {
	Node string  `json:"node"` // the node that joins or leaves
	At   float64 `json:"at"`   // when it asks to
}

// ViewJSON is one view of vsync.
type ViewJSON struct {
	Number      int      `json:"number"`       // the view's number, from 1
	Members     []string `json:"members"`      // its members, oldest first; the first coordinates
	Coordinator string   `json:"coordinator"`  // the node that proposed it
	From        int      `json:"from"`         // the first message sent in it
	To          int      `json:"to"`           // the last message sent in it (its cut when a later view follows); below from when none was
	Installed   []string `json:"installed_by"` // the nodes that installed it
}

// GuaranteeJSON is one promise of the algorithm.
type GuaranteeJSON struct {
	Name     string `json:"name"`     // what is promised
	Promised bool   `json:"promised"` // false when a fault puts the run outside the promise
	Held     bool   `json:"held"`     // whether the run kept it
	Detail   string `json:"detail"`   // why it did not hold or was not promised; "" when it held
}

func NewJSON(source string, res *Result) JSON {
	out := JSON{VersionJSON: bus.NewVersionJSON(), Algo: res.Algo, Topology: source, Seed: res.Seed,
		Messages: res.Messages, Loss: res.Loss, Medium: res.Medium, CableLosses: cableLossesJSON(res.CableLosses), Stop: res.Stop, Sender: res.Sender, Crashes: netsim.CrashesJSON(res.Crashes),
		Joins: changesJSON(res.Joins), Leaves: changesJSON(res.Leaves), Members: membersJSON(res.Members),
		Guarantees: guaranteesJSON(res.Guarantees), Sent: netsim.NewCountJSON(res.Sent.Total, res.Sent.ByType),
		Transmissions: netsim.NewCountJSON(res.Transmissions.Total, res.Transmissions.ByType), Receptions: res.Receptions,
		Lost: res.Lost, LostData: res.LostData, NACKsSpared: res.NACKsSpared, RepairsSpared: res.RepairsSpared, Time: res.Time}
	for _, v := range res.Views {
		out.Views = append(out.Views, ViewJSON(v))
	}
	for _, m := range res.Trace {
		out.Trace = append(out.Trace, netsim.NewTraceJSON(m))
	}
	return out
}

// changesJSON lists vsync's joins or leaves in delays; nil, so absent, when
// there are none.
func changesJSON(events []Event) []EventJSON {
	var out []EventJSON
	for _, c := range netsim.CrashesJSON(events) {
		out = append(out, EventJSON(c))
	}
	return out
}

func membersJSON(members []Member) []MemberJSON {
	out := []MemberJSON{}
	for _, m := range members {
		mj := MemberJSON{Node: m.Node, Delivered: m.Delivered, Expected: m.Expected, Duplicates: m.Duplicates,
			Missing: append([]int{}, m.Missing...), GaveUp: m.GaveUp, Views: m.Views}
		if m.CrashedAt >= 0 {
			mj.CrashedAt = &m.CrashedAt
		}
		out = append(out, mj)
	}
	return out
}

func guaranteesJSON(gs []Guarantee) []GuaranteeJSON {
	out := []GuaranteeJSON{}
	for _, g := range gs {
		out = append(out, GuaranteeJSON(g))
	}
	return out
}

// CompareJSON is the --json output of multicast --compare.
type CompareJSON struct {
	bus.VersionJSON
	Topology    string             `json:"topology"`         // the file, "gen SPEC" or "default"
	Seed        uint64             `json:"seed"`             // the seed of every run
	Messages    int                `json:"messages"`         // the stream's length
	Loss        float64            `json:"loss"`             // the probability that a cable (link, on the mesh) loses a packet crossing it
	Medium      string             `json:"medium"`           // bus or mesh
	CableLosses []CableLossJSON    `json:"cable_losses"`     // the cables given a loss of their own; [] when none
	Stop        bool               `json:"stop"`             // nack and srm ran with the stop signal
	Sender      string             `json:"sender"`           // the node that multicasts
	Crashes     []netsim.CrashJSON `json:"crashes"`          // the crashes of every run
	Joins       []EventJSON        `json:"joins,omitempty"`  // vsync's joins; absent when there are none
	Leaves      []EventJSON        `json:"leaves,omitempty"` // vsync's leaves; absent when there are none
	Results     []CompareRowJSON   `json:"results"`          // one per algorithm
}

// CompareRowJSON is one algorithm's run.
type CompareRowJSON struct {
	Algo          string           `json:"algo"`           // the algorithm
	Delivered     int              `json:"delivered"`      // messages delivered, summed over the members
	Expected      int              `json:"expected"`       // messages the members should have delivered, summed
	Duplicates    int              `json:"duplicates"`     // copies dropped, summed over the members
	Members       []MemberJSON     `json:"members"`        // every other node, in topology order
	Guarantees    []GuaranteeJSON  `json:"guarantees"`     // each promise and whether it held
	Sent          netsim.CountJSON `json:"sent"`           // the packets sent, lost ones included
	Transmissions netsim.CountJSON `json:"transmissions"`  // the cables (links) the packets crossed
	Receptions    int              `json:"receptions"`     // the copies that reached a live addressee
	Lost          int              `json:"lost"`           // the copies that missed their addressee on the way
	LostData      int              `json:"lost_data"`      // the DATA multicasts that missed at least one addressee
	NACKsSpared   int              `json:"nacks_spared"`   // srm: losses repaired on another's NACK; 0 for the others
	RepairsSpared int              `json:"repairs_spared"` // srm: repairs dropped because another's came first; 0 for the others
	Time          float64          `json:"time"`           // the last delivery
}

func NewCompareJSON(source string, o Options, results []*Result) CompareJSON {
	out := CompareJSON{VersionJSON: bus.NewVersionJSON(), Topology: source, Seed: o.Seed, Messages: results[0].Messages,
		Loss: o.Loss, Medium: results[0].Medium, CableLosses: cableLossesJSON(o.CableLosses), Stop: o.Stop, Sender: results[0].Sender, Crashes: netsim.CrashesJSON(o.Crashes), Joins: changesJSON(o.Joins),
		Leaves: changesJSON(o.Leaves), Results: []CompareRowJSON{}}
	for _, r := range results {
		row := CompareRowJSON{Algo: r.Algo, Members: membersJSON(r.Members), Guarantees: guaranteesJSON(r.Guarantees),
			Sent: netsim.NewCountJSON(r.Sent.Total, r.Sent.ByType), Transmissions: netsim.NewCountJSON(r.Transmissions.Total, r.Transmissions.ByType),
			Receptions: r.Receptions, Lost: r.Lost, LostData: r.LostData, NACKsSpared: r.NACKsSpared, RepairsSpared: r.RepairsSpared, Time: r.Time}
		for _, m := range r.Members {
			row.Delivered, row.Expected, row.Duplicates = row.Delivered+m.Delivered, row.Expected+m.Expected, row.Duplicates+m.Duplicates
		}
		out.Results = append(out.Results, row)
	}
	return out
}
