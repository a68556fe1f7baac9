package main

import (
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/mutex"
)

// multicastJSON is the --json output of one multicast run. Times are in
// message delays.
type multicastJSON struct {
	bus.VersionJSON
	Algo          string                `json:"algo"`             // ack, nack, srm or vsync
	Topology      string                `json:"topology"`         // the file, "gen SPEC" or "default"
	Seed          uint64                `json:"seed"`             // the seed of the delays and losses
	Messages      int                   `json:"messages"`         // the stream's length
	Loss          float64               `json:"loss"`             // the probability that a sending is lost
	Stop          bool                  `json:"stop"`             // the sender repeats a stop signal (nack, srm)
	Sender        string                `json:"sender"`           // the node that multicasts
	Crashes       []mutexCrashJSON      `json:"crashes"`          // the crashes asked for
	Joins         []multicastEventJSON  `json:"joins,omitempty"`  // the joins asked for (vsync); absent when there are none
	Leaves        []multicastEventJSON  `json:"leaves,omitempty"` // the leaves asked for (vsync); absent when there are none
	Members       []multicastMemberJSON `json:"members"`          // every other node, in topology order
	Guarantees    []multicastGuarantee  `json:"guarantees"`       // each promise and whether it held
	Views         []multicastViewJSON   `json:"views,omitempty"`  // vsync: every view installed, by number; absent for the other algorithms
	Sent          electCountJSON        `json:"sent"`             // every message sent, lost ones included
	Lost          int                   `json:"lost"`             // the messages the links lost
	NACKsSpared   int                   `json:"nacks_spared"`     // srm: losses repaired without the member's own NACK, on another's; 0 for the others
	RepairsSpared int                   `json:"repairs_spared"`   // srm: repairs a holder dropped because another's came first; 0 for the others
	Time          float64               `json:"time"`             // the last delivery
	Trace         []electTraceJSON      `json:"trace,omitempty"`  // with --trace only
}

// multicastMemberJSON is what one member delivered.
type multicastMemberJSON struct {
	Node       string   `json:"node"`            // the member
	Delivered  int      `json:"delivered"`       // messages delivered, in order from 1
	Expected   int      `json:"expected"`        // the stream's length
	Duplicates int      `json:"duplicates"`      // copies that arrived again and were dropped
	Missing    []int    `json:"missing"`         // the numbers not delivered
	GaveUp     bool     `json:"gave_up"`         // ack's sender stopped sending to it, or it stopped asking (nack)
	CrashedAt  *float64 `json:"crashed_at"`      // when it crashed; null if it did not
	Views      []int    `json:"views,omitempty"` // vsync: the numbers of the views it installed, in order; absent when it installed none, as for the other algorithms
}

// multicastEventJSON is a join or a leave asked for (vsync).
type multicastEventJSON struct {
	Node string  `json:"node"` // the node that joins or leaves
	At   float64 `json:"at"`   // when it asks to
}

// multicastViewJSON is one view of vsync.
type multicastViewJSON struct {
	Number      int      `json:"number"`       // the view's number, from 1
	Members     []string `json:"members"`      // its members, oldest first; the first coordinates
	Coordinator string   `json:"coordinator"`  // the node that proposed it
	From        int      `json:"from"`         // the first message sent in it
	To          int      `json:"to"`           // the last message sent in it (its cut when a later view follows); below from when none was
	Installed   []string `json:"installed_by"` // the nodes that installed it
}

// multicastGuarantee is one promise of the algorithm.
type multicastGuarantee struct {
	Name     string `json:"name"`     // what is promised
	Promised bool   `json:"promised"` // false when a fault puts the run outside the promise
	Held     bool   `json:"held"`     // whether the run kept it
	Detail   string `json:"detail"`   // why it did not hold or was not promised; "" when it held
}

func newMulticastJSON(source string, res *multicast.Result) multicastJSON {
	out := multicastJSON{VersionJSON: bus.NewVersionJSON(), Algo: res.Algo, Topology: source, Seed: res.Seed,
		Messages: res.Messages, Loss: res.Loss, Stop: res.Stop, Sender: res.Sender, Crashes: crashesJSON(res.Crashes),
		Joins: changesJSON(res.Joins), Leaves: changesJSON(res.Leaves), Members: membersJSON(res.Members),
		Guarantees: guaranteesJSON(res.Guarantees), Sent: countJSON(res.Sent.Total, res.Sent.ByType), Lost: res.Lost,
		NACKsSpared: res.NACKsSpared, RepairsSpared: res.RepairsSpared, Time: res.Time}
	for _, v := range res.Views {
		out.Views = append(out.Views, multicastViewJSON(v))
	}
	for _, m := range res.Trace {
		out.Trace = append(out.Trace, newTraceJSON(m))
	}
	return out
}

// crashesJSON lists crashes in delays; [] when there are none.
func crashesJSON(crashes []mutex.Crash) []mutexCrashJSON {
	out := []mutexCrashJSON{}
	for _, c := range crashes {
		out = append(out, mutexCrashJSON{Node: c.Node, At: float64(c.At) / mutex.Delay})
	}
	return out
}

// changesJSON lists vsync's joins or leaves in delays; nil, so absent, when
// there are none.
func changesJSON(events []multicast.Event) []multicastEventJSON {
	var out []multicastEventJSON
	for _, c := range crashesJSON(events) {
		out = append(out, multicastEventJSON(c))
	}
	return out
}

func membersJSON(members []multicast.Member) []multicastMemberJSON {
	out := []multicastMemberJSON{}
	for _, m := range members {
		mj := multicastMemberJSON{Node: m.Node, Delivered: m.Delivered, Expected: m.Expected, Duplicates: m.Duplicates,
			Missing: append([]int{}, m.Missing...), GaveUp: m.GaveUp, Views: m.Views}
		if m.CrashedAt >= 0 {
			mj.CrashedAt = &m.CrashedAt
		}
		out = append(out, mj)
	}
	return out
}

func guaranteesJSON(gs []multicast.Guarantee) []multicastGuarantee {
	out := []multicastGuarantee{}
	for _, g := range gs {
		out = append(out, multicastGuarantee(g))
	}
	return out
}

// multicastCompareJSON is the --json output of multicast --compare.
type multicastCompareJSON struct {
	bus.VersionJSON
	Topology string                    `json:"topology"`         // the file, "gen SPEC" or "default"
	Seed     uint64                    `json:"seed"`             // the seed of every run
	Messages int                       `json:"messages"`         // the stream's length
	Loss     float64                   `json:"loss"`             // the probability that a sending is lost
	Stop     bool                      `json:"stop"`             // nack and srm ran with the stop signal
	Sender   string                    `json:"sender"`           // the node that multicasts
	Crashes  []mutexCrashJSON          `json:"crashes"`          // the crashes of every run
	Joins    []multicastEventJSON      `json:"joins,omitempty"`  // vsync's joins; absent when there are none
	Leaves   []multicastEventJSON      `json:"leaves,omitempty"` // vsync's leaves; absent when there are none
	Results  []multicastCompareRowJSON `json:"results"`          // one per algorithm
}

// multicastCompareRowJSON is one algorithm's run.
type multicastCompareRowJSON struct {
	Algo          string                `json:"algo"`           // the algorithm
	Delivered     int                   `json:"delivered"`      // messages delivered, summed over the members
	Expected      int                   `json:"expected"`       // messages the members should have delivered, summed
	Duplicates    int                   `json:"duplicates"`     // copies dropped, summed over the members
	Members       []multicastMemberJSON `json:"members"`        // every other node, in topology order
	Guarantees    []multicastGuarantee  `json:"guarantees"`     // each promise and whether it held
	Sent          electCountJSON        `json:"sent"`           // every message sent, lost ones included
	Lost          int                   `json:"lost"`           // the messages the links lost
	NACKsSpared   int                   `json:"nacks_spared"`   // srm: losses repaired on another's NACK; 0 for the others
	RepairsSpared int                   `json:"repairs_spared"` // srm: repairs dropped because another's came first; 0 for the others
	Time          float64               `json:"time"`           // the last delivery
}

func newMulticastCompareJSON(source string, o multicast.Options, results []*multicast.Result) multicastCompareJSON {
	out := multicastCompareJSON{VersionJSON: bus.NewVersionJSON(), Topology: source, Seed: o.Seed, Messages: results[0].Messages,
		Loss: o.Loss, Stop: o.Stop, Sender: results[0].Sender, Crashes: crashesJSON(o.Crashes), Joins: changesJSON(o.Joins),
		Leaves: changesJSON(o.Leaves), Results: []multicastCompareRowJSON{}}
	for _, r := range results {
		row := multicastCompareRowJSON{Algo: r.Algo, Members: membersJSON(r.Members), Guarantees: guaranteesJSON(r.Guarantees),
			Sent: countJSON(r.Sent.Total, r.Sent.ByType), Lost: r.Lost, NACKsSpared: r.NACKsSpared, RepairsSpared: r.RepairsSpared, Time: r.Time}
		for _, m := range r.Members {
			row.Delivered, row.Expected, row.Duplicates = row.Delivered+m.Delivered, row.Expected+m.Expected, row.Duplicates+m.Duplicates
		}
		out.Results = append(out.Results, row)
	}
	return out
}
