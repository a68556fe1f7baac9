package mutex

import (
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/netsim"
)

// JSON is the --json output of one mutual-exclusion run. Times are in
// message delays.
type JSON struct {
	bus.VersionJSON
	Algo         string             `json:"algo"`            // central, ricart-agrawala, majority or token-ring
	Topology     string             `json:"topology"`        // the file, "gen SPEC" or "default"
	Seed         uint64             `json:"seed"`            // the seed of the delays, the waits, the losses and the 1394 root
	Requests     int                `json:"requests"`        // entries every node asks for
	CSTime       float64            `json:"cs_time"`         // the stay in the critical section
	Think        float64            `json:"think"`           // waits before requests are drawn from [0, think)
	Notify       bool               `json:"notify"`          // a node that asks tells its predecessor on the ring (NOTE), which then asks too
	Crashes      []netsim.CrashJSON `json:"crashes"`         // the crashes asked for
	LoseTokenAt  *float64           `json:"lose_token_at"`   // the first token sent from then on is lost; null: none
	RequestReply bool               `json:"request_reply"`   // ricart-agrawala's remedy against crashes
	Regenerate   bool               `json:"regenerate"`      // token-ring: a coordinator regenerates a lost token
	Loss         float64            `json:"loss"`            // the probability that a message is lost
	Coordinator  *string            `json:"coordinator"`     // central's coordinator, or token-ring's that regenerates; null otherwise
	ChosenBy     *string            `json:"chosen_by"`       // how the coordinator was chosen, e.g. "1394 root, seed 1"
	Ring         []string           `json:"ring"`            // the token's way round; [] for the others
	Safe         bool               `json:"safe"`            // never two nodes in the critical section
	Violations   []string           `json:"violations"`      // every entry while another node was inside
	Live         bool               `json:"live"`            // every live node made all its entries
	Unserved     []UnservedJSON     `json:"unserved"`        // requests that wait for ever, and why
	Deadlock     *string            `json:"deadlock"`        // who waits for ever and why; null when live
	LossDeadlock bool               `json:"loss_deadlock"`   // requests wait for ever after a message loss: a failure, exit 1
	Lost         []LostJSON         `json:"lost"`            // the messages --loss lost
	Regenerated  []float64          `json:"regenerated"`     // when the coordinator regenerated the token
	GaveUp       *float64           `json:"gave_up"`         // when it stopped regenerating; null if it did not
	Order        OrderJSON          `json:"order"`           // whether entries followed the requests
	Entries      []EntryJSON        `json:"entries"`         // every entry, in order
	Messages     netsim.CountJSON   `json:"messages"`        // every message sent, lost ones included
	PerEntry     float64            `json:"per_entry"`       // the algorithm's messages (not NOTEs) per entry; 0 without entries
	Hops         int64              `json:"hops"`            // the messages' shortest paths on the topology, summed
	MeanWait     float64            `json:"mean_wait"`       // from request to entry, over the entries
	MaxWait      float64            `json:"max_wait"`        // the longest wait of an entry
	Nodes        []NodeJSON         `json:"nodes"`           // every node, in topology order: what it did
	Time         float64            `json:"time"`            // the last delivery or exit from the critical section
	Trace        []netsim.TraceJSON `json:"trace,omitempty"` // with --trace-table only
}

// UnservedJSON is a request that waits for ever.
type UnservedJSON struct {
	Node      string  `json:"node"`       // who asked
	Requested float64 `json:"requested"`  // when
	Reason    string  `json:"reason"`     // what it waits for and why that never comes
	NeverMade int     `json:"never_made"` // the node's later requests, never made
	Waited    float64 `json:"waited"`     // how long it had waited when the run ended
}

// LostJSON is a message --loss lost.
type LostJSON struct {
	Type string  `json:"type"` // its type
	From string  `json:"from"` // its sender
	To   string  `json:"to"`   // its receiver
	At   float64 `json:"at"`   // when it was sent
}

// OrderJSON compares the order of entries with that of requests.
type OrderJSON struct {
	Pairs            int     `json:"pairs"`             // pairs of entries compared
	Inversions       int     `json:"inversions"`        // pairs that entered in the other order than they asked
	Inversion        *string `json:"inversion"`         // the first such pair; null if none
	CausalInversions int     `json:"causal_inversions"` // pairs whose requests happened-before the other way
	CausalInversion  *string `json:"causal_inversion"`  // the first such pair; null if none
}

// EntryJSON is one stay in the critical section.
type EntryJSON struct {
	Node      string   `json:"node"`      // who entered
	Requested float64  `json:"requested"` // when it asked
	Entered   float64  `json:"entered"`   // when it entered
	Left      *float64 `json:"left"`      // when it left; null if it crashed inside
	Wait      float64  `json:"wait"`      // entered − requested
	Timestamp *int64   `json:"timestamp"` // the request's Lamport timestamp (ricart-agrawala, majority); null otherwise
}

// NodeJSON is what one node did.
type NodeJSON struct {
	ID            string   `json:"id"`             // the node's name in the topology
	Role          string   `json:"role"`           // coordinator or client (central), else process
	Requests      int      `json:"requests"`       // requests it made
	Entries       int      `json:"entries"`        // times it entered
	Unserved      int      `json:"unserved"`       // requests it made that were never served
	Sent          int      `json:"sent"`           // messages it sent, lost ones included
	MeanWait      float64  `json:"mean_wait"`      // over its entries; 0 without
	MaxWait       float64  `json:"max_wait"`       // its longest wait
	CrashedAt     *float64 `json:"crashed_at"`     // when it crashed; null if it did not
	CrashedInside bool     `json:"crashed_inside"` // it crashed in the critical section
}

func NewJSON(source string, res *Result) JSON {
	out := JSON{VersionJSON: bus.NewVersionJSON(), Algo: res.Algo, Topology: source, Seed: res.Seed,
		Requests: res.Requests, CSTime: res.CSTime, Think: res.Think, Notify: res.Notify, Crashes: netsim.CrashesJSON(res.Crashes),
		RequestReply: res.RequestReply, Regenerate: res.Regenerate, Loss: res.Loss, Hops: res.Hops,
		Deadlock: jsonout.NullIfEmpty(res.Deadlock), LossDeadlock: res.LossDeadlock(), Lost: []LostJSON{},
		Regenerated: jsonout.List(res.Regenerated), Coordinator: jsonout.NullIfEmpty(res.Coordinator), ChosenBy: jsonout.NullIfEmpty(res.CoordinatorBy),
		Ring: jsonout.List(res.Ring), Safe: len(res.Violations) == 0, Violations: jsonout.List(res.Violations), Live: res.Live,
		Unserved: []UnservedJSON{}, Entries: []EntryJSON{}, PerEntry: res.PerEntry,
		MeanWait: res.MeanWait, MaxWait: res.MaxWait, Nodes: []NodeJSON{}, Time: res.Time}
	if res.LoseToken {
		out.LoseTokenAt = &res.LoseTokenAt
	}
	if res.GaveUp >= 0 {
		out.GaveUp = &res.GaveUp
	}
	for _, l := range res.Lost {
		out.Lost = append(out.Lost, LostJSON{Type: l.Type, From: l.From, To: l.To, At: l.At})
	}
	for _, u := range res.Unserved {
		out.Unserved = append(out.Unserved, UnservedJSON{Node: u.Node, Requested: u.Requested, Reason: u.Reason, NeverMade: u.NeverMade, Waited: u.Waited})
	}
	out.Order = OrderJSON{Pairs: res.Order.Pairs, Inversions: res.Order.Inversions, Inversion: jsonout.NullIfEmpty(res.Order.Inversion),
		CausalInversions: res.Order.CausalInversions, CausalInversion: jsonout.NullIfEmpty(res.Order.CausalInversion)}
	for _, e := range res.Entries {
		ej := EntryJSON{Node: e.Node, Requested: e.Requested, Entered: e.Entered, Wait: e.Wait}
		if !e.CrashedInside {
			ej.Left = &e.Left
		}
		if e.Stamp != 0 {
			ej.Timestamp = &e.Stamp
		}
		out.Entries = append(out.Entries, ej)
	}
	out.Messages = netsim.NewCountJSON(res.Messages.Total, res.Messages.ByType)
	for _, n := range res.Nodes {
		nj := NodeJSON{ID: n.Node, Role: n.Role, Requests: n.Requests, Entries: n.Entries, Unserved: n.Unserved,
			Sent: n.Sent, MeanWait: n.MeanWait, MaxWait: n.MaxWait, CrashedInside: n.CrashedInside}
		if n.CrashedAt >= 0 {
			nj.CrashedAt = &n.CrashedAt
		}
		out.Nodes = append(out.Nodes, nj)
	}
	for _, m := range res.Trace {
		out.Trace = append(out.Trace, netsim.NewTraceJSON(m))
	}
	return out
}

// CompareJSON is the --json output of mutex --compare.
type CompareJSON struct {
	bus.VersionJSON
	Topology     string             `json:"topology"`      // the file, "gen SPEC" or "default"
	Seed         uint64             `json:"seed"`          // the seed of every run
	Requests     int                `json:"requests"`      // entries every node asks for
	CSTime       float64            `json:"cs_time"`       // the stay in the critical section
	Think        float64            `json:"think"`         // waits before requests are drawn from [0, think)
	Notify       bool               `json:"notify"`        // a node that asks tells its predecessor on the ring (NOTE), which then asks too
	Crashes      []netsim.CrashJSON `json:"crashes"`       // the crashes of every run
	LoseTokenAt  *float64           `json:"lose_token_at"` // token-ring's lost token; null: none
	RequestReply bool               `json:"request_reply"` // ricart-agrawala ran with its remedy
	Regenerate   bool               `json:"regenerate"`    // token-ring ran with a coordinator that regenerates a lost token
	Loss         float64            `json:"loss"`          // the probability that a message is lost, in every run
	Results      []CompareRowJSON   `json:"results"`       // one per algorithm
}

// CompareRowJSON is one algorithm's run.
type CompareRowJSON struct {
	Algo       string  `json:"algo"`       // the algorithm
	Entries    int     `json:"entries"`    // entries into the critical section
	Messages   int     `json:"messages"`   // every message sent, lost ones included
	Hops       int64   `json:"hops"`       // the messages' shortest paths on the topology, summed
	Lost       int     `json:"lost"`       // messages --loss lost
	PerEntry   float64 `json:"per_entry"`  // the algorithm's messages (not NOTEs) per entry
	MeanWait   float64 `json:"mean_wait"`  // from request to entry
	MaxWait    float64 `json:"max_wait"`   // the longest wait
	Unserved   int     `json:"unserved"`   // requests that wait for ever
	Inversions int     `json:"inversions"` // pairs of entries not in the order of their requests
	Causal     int     `json:"causal"`     // pairs of entries against happened-before
	Pairs      int     `json:"pairs"`      // pairs of entries compared
	Safe       bool    `json:"safe"`       // never two nodes in the critical section
	Deadlock   *string `json:"deadlock"`   // who waits for ever and why; null when live
}

func NewCompareJSON(source string, o Options, results []*Result) CompareJSON {
	first := NewJSON(source, results[0])
	out := CompareJSON{VersionJSON: first.VersionJSON, Topology: source, Seed: o.Seed, Requests: o.Requests,
		CSTime: first.CSTime, Think: first.Think, Notify: o.Notify, Crashes: first.Crashes, RequestReply: o.RequestReply,
		Regenerate: o.Regenerate, Loss: o.Loss,
		Results: []CompareRowJSON{}}
	if o.LoseToken {
		at := float64(o.LoseTokenAt) / Delay
		out.LoseTokenAt = &at
	}
	for _, r := range results {
		out.Results = append(out.Results, CompareRowJSON{Algo: r.Algo, Entries: len(r.Entries), Messages: r.Messages.Total,
			Hops: r.Hops, Lost: len(r.Lost), Deadlock: jsonout.NullIfEmpty(r.Deadlock),
			PerEntry: r.PerEntry, MeanWait: r.MeanWait, MaxWait: r.MaxWait, Unserved: len(r.Unserved),
			Inversions: r.Order.Inversions, Causal: r.Order.CausalInversions, Pairs: r.Order.Pairs, Safe: len(r.Violations) == 0})
	}
	return out
}
