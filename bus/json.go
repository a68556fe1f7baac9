package bus

import (
	"fmt"

	"github.com/fwsim/fwsim/internal/jsonout"
)

// ResultJSON is the --json output of "fwsim run". Field order is the order of
// the struct fields; names are stable. The first generation's fields appear
// at the top level as well as in generations, for the common one-reset case.
type ResultJSON struct {
	VersionJSON
	Topology string  `json:"topology"`  // the file, "gen SPEC" or "default"
	Seed     uint64  `json:"seed"`      // the seed of the run's random choices
	Profile  string  `json:"profile"`   // the PHY timing profile, e.g. 1394a-2000
	Policy   string  `json:"policy"`    // how a node in root contention picks its wait: coin or larger-id-wins
	CoinBias float64 `json:"coin_bias"` // the probability of FAST
	// ForceRoot is the node given RHB before the first reset, null if none;
	// PowerUp is how the PHYs came up: one (the bus is up but for one PHY,
	// which starts the first reset), all (every PHY at once) or staggered
	// (one by one); Initiators are the nodes that started the first reset.
	ForceRoot  *string  `json:"force_root"`
	PowerUp    string   `json:"power_up"`
	Initiators []string `json:"initiators"`
	// AwaitingConnect are the nodes with no cable at power-up that a
	// scripted connect plugs in later: they join the bus then.
	AwaitingConnect []string `json:"awaiting_connect"`
	Timing          string   `json:"timing"`      // the corner of the back-off windows: random, min or max
	Clock           string   `json:"clock"`       // cycle or ideal
	OutOfSpec       []string `json:"out_of_spec"` // why the configuration is outside the standard's limits; [] when within
	// The first generation (a run always has one: the power-up reset).
	GenerationJSON
	// Generations lists every bus initialisation in the order they began,
	// one per part when a disconnect splits the bus.
	Generations []IndexedGenerationJSON `json:"generations"`
	// Events counts the emulator's events; EndNs is the instant in ns from
	// power-up of the last one that changed anything.
	Events uint64 `json:"events"`
	EndNs  int64  `json:"end_ns"`
	// Traffic is what the bus carried after initialisation (--until, or a
	// topology with traffic); absent when it ran no traffic phase.
	Traffic *TrafficJSON `json:"traffic,omitempty"`
}

// IndexedGenerationJSON is one element of "generations".
type IndexedGenerationJSON struct {
	Index   int   `json:"index"`    // the position in generations, from 0
	StartNs int64 `json:"start_ns"` // the first node's entry into R0, in ns from power-up
	EndNs   int64 `json:"end_ns"`   // when the outcome was decided, in ns from power-up
	// Cause says in words what began the generation; CauseKind is
	// power-up, initiators, event, watchdog, seen (a reset of unknown
	// origin) or bus-manager; CauseNode the node whose reset began it and CauseEvent the
	// index of the scripted event, each null when there is none.
	Cause      string  `json:"cause"`
	CauseKind  string  `json:"cause_kind"`
	CauseNode  *string `json:"cause_node"`
	CauseEvent *int    `json:"cause_event"`
	GenerationJSON
	// BusManager is what the bus manager did after the generation; null
	// without one, or when the bus reset again before its turn.
	BusManager *ManagerJSON `json:"bus_manager"`
}

// ManagerJSON is a bus manager's turn after a generation (docs/protocol.md
// §9.5).
type ManagerJSON struct {
	Node        string  `json:"node"`          // the bus manager
	AtNs        int64   `json:"at_ns"`         // when it acted, in ns from power-up
	Root        string  `json:"root"`          // the generation's root
	NewRoot     string  `json:"new_root"`      // the root it wants: the root if it can be cycle master, else itself
	GapCount    int     `json:"gap_count"`     // the generation's gap count, 0 when the nodes' disagree
	NewGapCount int     `json:"new_gap_count"` // the gap count for hops, from 1394a's table
	Hops        int     `json:"hops"`          // the bus's diameter in cable hops
	Reset       *string `json:"reset"`         // short or long when it sent a PHY configuration packet and reset the bus; null when it did not
	Turn        int     `json:"turn"`          // its turns on this bus so far, this one included; past 5 it resets no more
	Why         string  `json:"why"`           // its reasons in words
}

// GenerationJSON is what one generation produced.
type GenerationJSON struct {
	Outcome    string           `json:"outcome"`    // ok, config-timeout, inconsistent, interrupted, stalled or budget-exhausted
	Problems   []string         `json:"problems"`   // why a failed outcome failed, one finding each; [] when ok
	Warnings   []string         `json:"warnings"`   // findings that do not fail it, such as gap counts that disagree or are too small for the bus; [] when none
	Root       *string          `json:"root"`       // null when none was elected
	Nodes      []NodeJSON       `json:"nodes"`      // in phy_ID order, then the nodes that took none
	SelfIDs    []string         `json:"self_ids"`   // "0x%08x", bus order, no inverses
	TimingNs   TimingJSON       `json:"timing_ns"`  // when each phase ended
	Contention []ContentionJSON `json:"contention"` // every root contention, one per contended cable
	Links      []LinkJSON       `json:"links"`      // the cables as wired when the generation began
	// ConfigTimeouts are the CONFIG_TIMEOUTs PHYs signalled to their links
	// in tree identify, in time order; a bus without a loop can configure
	// after them.
	ConfigTimeouts []ConfigTimeoutJSON `json:"config_timeouts"`
}

// ConfigTimeoutJSON is one PHY's CONFIG_TIMEOUT in T0.
type ConfigTimeoutJSON struct {
	Node string `json:"node"`  // the node whose PHY signalled it
	AtNs int64  `json:"at_ns"` // when, in ns from the generation's start
}

type LinkJSON struct {
	Nodes [2]string `json:"nodes"` // the nodes at the two ends
	Ports [2]int    `json:"ports"` // the port of each end, from 0
}

type NodeJSON struct {
	ID               string   `json:"id"`                // the node's name in the topology
	PhyID            *int     `json:"phy_id"`            // null when the node took none
	Root             bool     `json:"root"`              // the node ended as root
	ParentPort       *int     `json:"parent_port"`       // null for the root or when unknown
	Ports            []string `json:"ports"`             // child, parent, ncon or absent
	ContentionRounds int      `json:"contention_rounds"` // its entries into root contention
	Initiated        bool     `json:"initiated"`         // the self-ID i bit: it initiated the reset
	State            string   `json:"state"`             // the PHY state at the end, "A0" when idle
}

// TimingJSON holds phase ends in ns from the generation's start; null for a
// phase not reached.
type TimingJSON struct {
	ResetEnd   *int64 `json:"reset_end"`    // the last node left R1 for T0, in ns from the generation's start
	TreeIDDone *int64 `json:"tree_id_done"` // the last node left tree identify, in ns from the generation's start
	SelfIDDone *int64 `json:"self_id_done"` // the last node received the last self-ID, in ns from the generation's start
}

// ContentionJSON is the root contention on one cable.
type ContentionJSON struct {
	Nodes    [2]string     `json:"nodes"`     // the two nodes that sent each other PARENT_NOTIFY
	Ports    [2]int        `json:"ports"`     // their ports on the cable
	Parent   *string       `json:"parent"`    // the node that became parent; null when unresolved
	Rounds   int           `json:"rounds"`    // the most rounds either node entered
	StartNs  int64         `json:"start_ns"`  // the first ROOT_CONTENTION, in ns from the generation's start
	EndNs    *int64        `json:"end_ns"`    // the child saw the parent's handshake, in ns from the generation's start; null when unresolved
	Backoffs []BackoffJSON `json:"backoffs"`  // every wait of both nodes, in time order
	OneSided *string       `json:"one_sided"` // when only one node waited, why the other did not; null when both did
}

// BackoffJSON is one node's wait in one round of root contention.
type BackoffJSON struct {
	Node    string `json:"node"`     // the node that waited
	StartNs int64  `json:"start_ns"` // the wait began, in ns from the generation's start
	Fast    bool   `json:"fast"`     // the node drew FAST (the short wait), not SLOW
	WaitNs  int64  `json:"wait_ns"`  // the wait's length in ns
}

// NewResultJSON is the JSON form of res, fwsim run --json's output;
// source names the topology as the output's "topology" says.
func NewResultJSON(source string, res *Result) ResultJSON {
	out := ResultJSON{
		VersionJSON:     NewVersionJSON(),
		Topology:        source,
		Seed:            res.Seed,
		Profile:         res.Profile,
		Policy:          res.Policy.String(),
		CoinBias:        res.CoinBias,
		PowerUp:         res.PowerUp.String(),
		Initiators:      jsonout.List(res.Initiators),
		AwaitingConnect: jsonout.List(res.AwaitingConnect),
		Timing:          res.Corner.String(),
		Clock:           res.Clock(),
		OutOfSpec:       jsonout.List(res.OutOfSpec),
		Generations:     []IndexedGenerationJSON{},
		Events:          res.Events,
		EndNs:           res.EndNs,
		Traffic:         NewTrafficJSON(res.Traffic),
	}
	if res.ForceRoot != "" {
		out.ForceRoot = &res.ForceRoot
	}
	for _, g := range res.Generations {
		ig := IndexedGenerationJSON{
			Index: g.Index, StartNs: g.StartNs, EndNs: g.EndNs, Cause: g.Cause.String(), CauseKind: string(g.Cause.Kind),
			GenerationJSON: NewGenerationJSON(&g),
		}
		if g.Cause.Node != "" {
			ig.CauseNode = &g.Cause.Node
		}
		if g.Cause.Event >= 0 {
			ig.CauseEvent = &g.Cause.Event
		}
		if d := g.Manager; d != nil {
			ig.BusManager = &ManagerJSON{Node: d.Node, AtNs: d.AtNs, Root: d.Root, NewRoot: d.NewRoot, GapCount: d.GapCount,
				NewGapCount: d.NewGapCount, Hops: d.Hops, Reset: jsonout.NullIfEmpty(d.Reset), Turn: d.Turn, Why: d.Why}
		}
		out.Generations = append(out.Generations, ig)
	}
	if len(out.Generations) > 0 {
		out.GenerationJSON = out.Generations[0].GenerationJSON
	}
	return out
}

func NewGenerationJSON(g *Generation) GenerationJSON {
	out := GenerationJSON{
		Outcome:        string(g.Outcome),
		Problems:       jsonout.List(g.Problems),
		Warnings:       jsonout.List(g.Warnings),
		Root:           jsonout.NullIfEmpty(g.Root),
		Nodes:          []NodeJSON{},
		SelfIDs:        []string{},
		Contention:     []ContentionJSON{},
		Links:          []LinkJSON{},
		ConfigTimeouts: []ConfigTimeoutJSON{},
		TimingNs: TimingJSON{
			ResetEnd:   jsonout.NullIfNegative(g.Timing.ResetEnd),
			TreeIDDone: jsonout.NullIfNegative(g.Timing.TreeIDDone),
			SelfIDDone: jsonout.NullIfNegative(g.Timing.SelfIDDone),
		},
	}
	for _, n := range g.Nodes {
		ports := make([]string, len(n.Ports))
		for i, p := range n.Ports {
			ports[i] = p.String()
		}
		out.Nodes = append(out.Nodes, NodeJSON{
			ID:               n.ID,
			PhyID:            jsonout.NullIfNegative(n.PhyID),
			Root:             n.Root,
			ParentPort:       jsonout.NullIfNegative(n.ParentPort),
			Ports:            ports,
			ContentionRounds: n.ContentionRounds,
			Initiated:        n.Initiated,
			State:            n.State.String(),
		})
	}
	for _, q := range g.SelfIDs {
		out.SelfIDs = append(out.SelfIDs, fmt.Sprintf("0x%08x", uint32(q)))
	}
	for _, l := range g.Links {
		out.Links = append(out.Links, LinkJSON(l))
	}
	for _, c := range g.ConfigTimeouts {
		out.ConfigTimeouts = append(out.ConfigTimeouts, ConfigTimeoutJSON(c))
	}
	for _, c := range g.Contention {
		cj := ContentionJSON{
			Nodes: c.Nodes, Ports: c.Ports, Parent: jsonout.NullIfEmpty(c.Parent), Rounds: c.Rounds, OneSided: jsonout.NullIfEmpty(c.OneSided),
			StartNs: c.StartNs, EndNs: jsonout.NullIfNegative(c.EndNs), Backoffs: []BackoffJSON{},
		}
		for _, b := range c.Backoffs {
			cj.Backoffs = append(cj.Backoffs, BackoffJSON{Node: b.Node, StartNs: b.StartNs, Fast: b.Fast, WaitNs: b.WaitNs})
		}
		out.Contention = append(out.Contention, cj)
	}
	return out
}
