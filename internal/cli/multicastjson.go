package cli

import "github.com/fwsim/fwsim/multicast"

// multicastJSON is the --json output of one multicast run. Times are in
// message delays.
type multicastJSON struct {
	versionJSON
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
	out := multicastJSON{versionJSON: newVersionJSON(), Algo: res.Algo, Topology: source, Seed: res.Seed,
		Messages: res.Messages, Loss: res.Loss, Stop: res.Stop, Sender: res.Sender, Crashes: []mutexCrashJSON{},
		Members: []multicastMemberJSON{}, Sent: countJSON(res.Sent.Total, res.Sent.ByType), Lost: res.Lost,
		NACKsSpared: res.NACKsSpared, RepairsSpared: res.RepairsSpared, Time: res.Time}
	for _, c := range res.Crashes {
		out.Crashes = append(out.Crashes, mutexCrashJSON{Node: c.Node, At: float64(c.At) / multicast.Delay})
	}
	for _, c := range res.Joins {
		out.Joins = append(out.Joins, multicastEventJSON{Node: c.Node, At: float64(c.At) / multicast.Delay})
	}
	for _, c := range res.Leaves {
		out.Leaves = append(out.Leaves, multicastEventJSON{Node: c.Node, At: float64(c.At) / multicast.Delay})
	}
	for _, v := range res.Views {
		out.Views = append(out.Views, multicastViewJSON(v))
	}
	for _, m := range res.Members {
		mj := multicastMemberJSON{Node: m.Node, Delivered: m.Delivered, Expected: m.Expected, Duplicates: m.Duplicates,
			Missing: append([]int{}, m.Missing...), GaveUp: m.GaveUp, Views: m.Views}
		if m.CrashedAt >= 0 {
			mj.CrashedAt = &m.CrashedAt
		}
		out.Members = append(out.Members, mj)
	}
	for _, g := range res.Guarantees {
		out.Guarantees = append(out.Guarantees, multicastGuarantee(g))
	}
	for _, m := range res.Trace {
		out.Trace = append(out.Trace, newTraceJSON(m))
	}
	return out
}
