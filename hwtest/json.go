package hwtest

import (
	"fmt"
	"math"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
)

// DecodeJSON is the --json output of decode. The first generation's fields
// appear at the top level too, for the common one-reset capture.
type DecodeJSON struct {
	bus.VersionJSON
	Source string `json:"source"` // the capture file, "stdin" or the device
	Format string `json:"format"` // the capture's format, as --format names it
	BusJSON
	Generations []BusJSON `json:"generations"` // every generation of the capture, in order
}

// BusJSON is one generation of a capture.
type BusJSON struct {
	Line          *int          `json:"line"`               // null when not from a text line
	Generation    *int          `json:"generation"`         // the bus generation, null when unknown
	LocalPhyID    *int          `json:"local_phy_id"`       // the capturing node, null when unknown
	Consistent    bool          `json:"consistent"`         // no check found a problem: errors is []
	Nodes         []BusNodeJSON `json:"nodes"`              // in phy_ID order; [] when the packets do not split into nodes
	Root          *int          `json:"root"`               // null without a tree
	Hops          *int          `json:"hops"`               // null without a tree
	IRM           *int          `json:"irm"`                // null when no node qualifies
	GapCount      int           `json:"gap_count"`          // 0 when mismatched
	GapConsistent bool          `json:"gap_consistent"`     // every node reports the same gap count
	GapForHops    *int          `json:"gap_count_for_hops"` // null without a tree
	Errors        []ProblemJSON `json:"errors"`             // what reading the capture and the checks found
	SelfIDs       []string      `json:"self_ids"`           // "0x%08x", no inverses
	// CycleStart: a cycle start (0xffff008f) came where a self-ID was
	// due, after self_ids (what came after it is ignored, as Linux does):
	// the cycle master's gap count is too small for the bus.
	CycleStart bool `json:"cycle_start"`
}

// BusNodeJSON is one node as its self-ID packets describe it.
type BusNodeJSON struct {
	PhyID          int         `json:"phy_id"`          // the self-ID's phy_ID
	LinkActive     bool        `json:"link_active"`     // the L bit: the link layer is active
	GapCount       int         `json:"gap_count"`       // the node's gap_cnt
	Speed          string      `json:"speed"`           // S100, S200, S400 or S800
	Delay          int         `json:"delay"`           // the del field (1394-1995 only, 0 in 1394a)
	Contender      bool        `json:"contender"`       // the c bit: an IRM and bus manager contender
	PowerClass     int         `json:"power_class"`     // the pwr field, 0 to 7
	InitiatedReset bool        `json:"initiated_reset"` // the i bit: the node initiated the reset
	Ports          []string    `json:"ports"`           // port p at index p: child, parent, ncon or absent
	Parent         *int        `json:"parent"`          // null for the root or without a tree
	ParentPort     *int        `json:"parent_port"`     // null for the root or without a tree
	Children       []ChildJSON `json:"children"`        // in ascending port order; [] without a tree
	SelfIDs        []string    `json:"self_ids"`        // the node's packets, "0x%08x", no inverses
}

// ChildJSON is the cable from a node's port to a child.
type ChildJSON struct {
	Port      int `json:"port"`       // the node's port
	Child     int `json:"child"`      // the child's phy_ID
	ChildPort int `json:"child_port"` // the child's port, toward this node
}

// ProblemJSON is what one check of the capture found.
type ProblemJSON struct {
	Check   string  `json:"check"`   // the check, e.g. "inverse", "PHY ID mismatch" or "gap count"
	Node    *int    `json:"node"`    // null for the whole bus
	Index   *int    `json:"index"`   // null when no quadlet is to blame
	Quadlet *string `json:"quadlet"` // null when no quadlet is to blame
	Message string  `json:"message"` // what is wrong, in words
}

func NewDecodeJSON(c *Capture) DecodeJSON {
	out := DecodeJSON{VersionJSON: bus.NewVersionJSON(), Source: c.Source, Format: string(c.Format), Generations: []BusJSON{}}
	for _, b := range c.Buses {
		out.Generations = append(out.Generations, newBusJSON(b))
	}
	if len(out.Generations) > 0 {
		out.BusJSON = out.Generations[0]
	}
	return out
}

func newBusJSON(b *Bus) BusJSON {
	out := BusJSON{
		Line: jsonout.NullIfNegative(b.Line), Generation: jsonout.NullIfNegative(b.Number), LocalPhyID: jsonout.NullIfNegative(b.LocalPhyID),
		Consistent: b.Consistent(), Nodes: []BusNodeJSON{},
		Root: jsonout.NullIfNegative(b.Root), Hops: jsonout.NullIfNegative(b.Hops), IRM: jsonout.NullIfNegative(b.IRM),
		GapCount: b.GapCount, GapConsistent: b.GapConsistent, GapForHops: jsonout.NullIfNegative(b.GapForHops),
		Errors: []ProblemJSON{}, SelfIDs: quadletStrings(b.SelfIDs), CycleStart: b.CycleStart,
	}
	if b.Line == 0 {
		out.Line = nil // not read from a text line
	}
	for _, n := range b.Nodes {
		ports := make([]string, len(n.Ports))
		for i, p := range n.Ports {
			ports[i] = p.String()
		}
		nj := BusNodeJSON{
			PhyID: n.PhyID, LinkActive: n.LinkActive, GapCount: n.GapCount, Speed: n.Speed.String(), Delay: n.Delay,
			Contender: n.Contender, PowerClass: n.PowerClass, InitiatedReset: n.InitiatedReset, Ports: ports,
			Parent: jsonout.NullIfNegative(n.Parent), ParentPort: jsonout.NullIfNegative(n.ParentPort), Children: []ChildJSON{},
			SelfIDs: quadletStrings(n.Packets),
		}
		for _, l := range n.Children {
			nj.Children = append(nj.Children, ChildJSON{Port: l.Port, Child: l.Child, ChildPort: l.ChildPort})
		}
		out.Nodes = append(out.Nodes, nj)
	}
	for _, p := range b.Problems {
		pj := ProblemJSON{Check: p.Check, Node: jsonout.NullIfNegative(p.Node), Index: jsonout.NullIfNegative(p.Index), Message: p.Message}
		if p.Index >= 0 {
			q := fmt.Sprintf("0x%08x", p.Quadlet)
			pj.Quadlet = &q
		}
		out.Errors = append(out.Errors, pj)
	}
	return out
}

func quadletStrings[T ~uint32](qs []T) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = fmt.Sprintf("0x%08x", uint32(q))
	}
	return out
}

// CrosscheckJSON is the --json output of crosscheck.
type CrosscheckJSON struct {
	bus.VersionJSON
	Source      string                `json:"source"`      // the capture file, "stdin" or the probed device
	Format      string                `json:"format"`      // the capture's format, as decode --format names it
	Seed        uint64                `json:"seed"`        // the seed of the emulations
	Generations []CrossGenerationJSON `json:"generations"` // one per generation of the capture
}

// CrossGenerationJSON is one captured generation against its emulation.
type CrossGenerationJSON struct {
	Match      bool      `json:"match"`      // the emulation ended ok and its self-IDs equal the capture's
	Error      *string   `json:"error"`      // why there was no emulation, null otherwise
	Profile    string    `json:"profile"`    // the PHY timing profile of the emulation, "" without one
	ForceRoot  *string   `json:"force_root"` // the node given RHB in the emulation (the captured root when the emulation elected another), null if none
	Initiators []string  `json:"initiators"` // the nodes that started the emulated reset: by default those whose i bit is set, else the root, or the one PHY drawn from the seed
	Outcome    string    `json:"outcome"`    // how the emulation ended, as run's outcome; "" without one
	Notes      []string  `json:"notes"`      // what the comparison could not take from the capture
	Problems   []string  `json:"problems"`   // why the emulation's outcome failed, one finding each
	Root       *RootJSON `json:"root"`       // the emulation elected or forced another root than the capture shows, null otherwise
	// Likelihood is the odds of the captured root and self-ID order; null
	// when the topology does not name the captured nodes or there is no
	// emulation.
	Likelihood *LikelihoodJSON `json:"likelihood"`
	Diffs      []DiffJSON      `json:"diffs"`             // every difference between the captured and the emulated self-IDs
	Real       []string        `json:"real_self_ids"`     // the captured self-IDs, "0x%08x", no inverses
	Emulated   []string        `json:"emulated_self_ids"` // the emulated self-IDs, "0x%08x"; [] without an emulation
}

// RootJSON is a captured root the emulation at the seed did not elect;
// the diffs then come from an emulation with the captured root forced.
type RootJSON struct {
	Real       string `json:"real"`       // the captured root, as a topology node
	Emulated   string `json:"emulated"`   // the root the emulation at the seed elected or forced
	Contention bool   `json:"contention"` // a root contention decided the emulated root
	Forced     bool   `json:"forced"`     // the emulation forced its root (--force-root or force_root): a mismatch
}

// LikelihoodJSON is how likely the emulator makes the captured root and
// self-ID order, with the same topology, initiators and seed and no root
// forced: over the coins and waits of root contention, with the timer
// lengths and clock phases the seed draws.
type LikelihoodJSON struct {
	Method string `json:"method"` // "exact" (every run explored) or "monte-carlo"
	States *int   `json:"states"` // the states explored; null for Monte Carlo
	// Runs is how many Monte Carlo runs, at seeds seed to seed+runs-1,
	// estimate the odds; null when exact.
	Runs           *int           `json:"runs"`
	Why            *string        `json:"why"`             // why the odds are not exact; null when they are
	Root           string         `json:"root"`            // the captured root, as a topology node
	Order          []string       `json:"order"`           // the captured nodes in phy_ID order, as topology nodes
	PRoot          ChanceJSON     `json:"p_root"`          // the chance that the emulation elects root
	POrder         ChanceJSON     `json:"p_order"`         // the chance that it numbers the nodes in order
	LikeliestRoot  *RootOddsJSON  `json:"likeliest_root"`  // the likeliest root when likelier than the captured one, else null
	LikeliestOrder *OrderOddsJSON `json:"likeliest_order"` // the likeliest order when likelier than the captured one, else null
	Roots          []RootOddsJSON `json:"roots"`           // every root some run elects, likeliest first
}

// ChanceJSON is a probability: exact, or a Monte Carlo estimate.
type ChanceJSON struct {
	P        float64    `json:"p"`        // the probability, or the estimate
	Interval [2]float64 `json:"interval"` // the exact bounds, or the estimate's 95% Wilson interval
	Exact    *string    `json:"exact"`    // the exact probability as a fraction ("1/2"), or its bounds ("[a, b]"); null for Monte Carlo
	Count    *int       `json:"count"`    // how many Monte Carlo runs showed it; null when exact
}

// RootOddsJSON is the chance of one root and of the orders of its runs.
type RootOddsJSON struct {
	Root   string          `json:"root"`   // a topology node; "" for none or several
	P      ChanceJSON      `json:"p"`      // its chance
	Orders []OrderOddsJSON `json:"orders"` // the self-ID orders of the runs that elect it, likeliest first
}

// OrderOddsJSON is the chance of one self-ID order.
type OrderOddsJSON struct {
	Order []string   `json:"order"` // the nodes that took a phy_ID, in phy_ID order
	P     ChanceJSON `json:"p"`     // its chance
}

func newChanceJSON(c Chance) ChanceJSON {
	out := ChanceJSON{P: c.P(), Interval: c.Interval()}
	if exact := c.Exact(); exact != "" {
		out.Exact = &exact
	} else {
		out.Count = new(c.Count)
	}
	return out
}

func newOrderOddsJSON(o OrderOdds) OrderOddsJSON {
	return OrderOddsJSON{Order: jsonout.List(o.Order), P: newChanceJSON(o.P)}
}

func newRootOddsJSON(r RootOdds) RootOddsJSON {
	out := RootOddsJSON{Root: r.Root, P: newChanceJSON(r.P), Orders: []OrderOddsJSON{}}
	for _, o := range r.Orders {
		out.Orders = append(out.Orders, newOrderOddsJSON(o))
	}
	return out
}

func newLikelihoodJSON(l *Likelihood) *LikelihoodJSON {
	out := &LikelihoodJSON{Method: "exact", Root: l.Root, Order: l.Order,
		PRoot: newChanceJSON(l.PRoot), POrder: newChanceJSON(l.POrder), Roots: []RootOddsJSON{}}
	if l.Exact {
		out.States = new(l.States)
	} else {
		out.Method, out.Runs, out.Why = "monte-carlo", new(l.Runs), new(l.Why)
	}
	if r, ok := l.LikelierRoot(); ok {
		out.LikeliestRoot = new(newRootOddsJSON(r))
	}
	if o, ok := l.LikelierOrder(); ok {
		out.LikeliestOrder = new(newOrderOddsJSON(o))
	}
	for _, r := range l.Roots {
		out.Roots = append(out.Roots, newRootOddsJSON(r))
	}
	return out
}

// DiffJSON is one difference of a captured self-ID from the emulated one.
type DiffJSON struct {
	Node   *int   `json:"node"`    // the captured phy_ID, null for an emulated node the capture lacks
	NodeID string `json:"node_id"` // the emulated topology node compared, "" when none
	// Field is the self-ID field (phy_id, link_active, gap_count, speed,
	// delay, contender, power_class, initiated_reset, "port N"), or
	// "packets", "reserved bits", "node" or "quadlet" when whole packets
	// differ.
	Field    string  `json:"field"`
	Real     string  `json:"real"`     // the captured value
	Emulated string  `json:"emulated"` // the emulated value
	Index    *int    `json:"index"`    // the real quadlet's position, null when it has none
	Quadlet  *string `json:"quadlet"`  // the real quadlet, null when it has none
}

func NewCrosscheckJSON(c *Capture, seed uint64, rs []CrossResult) CrosscheckJSON {
	out := CrosscheckJSON{VersionJSON: bus.NewVersionJSON(), Source: c.Source, Format: string(c.Format), Seed: seed, Generations: []CrossGenerationJSON{}}
	for _, r := range rs {
		g := CrossGenerationJSON{Match: r.Match(), Initiators: []string{}, Notes: []string{}, Problems: []string{},
			Diffs: []DiffJSON{}, Real: quadletStrings(r.Bus.SelfIDs), Emulated: []string{}}
		if r.Err != nil {
			msg := r.Err.Error()
			g.Error = &msg
			out.Generations = append(out.Generations, g)
			continue
		}
		ch := r.Check
		g.Profile, g.ForceRoot, g.Initiators = ch.Profile, jsonout.NullIfEmpty(ch.ForceRoot), jsonout.List(ch.Initiators)
		g.Outcome, g.Notes, g.Problems = string(ch.Outcome), jsonout.List(ch.Notes), jsonout.List(ch.Problems)
		g.Emulated = quadletStrings(ch.Emulated)
		if r := ch.Root; r != nil {
			g.Root = &RootJSON{Real: r.Real, Emulated: r.Emulated, Contention: r.Contention, Forced: r.Forced}
		}
		if l := ch.Likelihood; l != nil {
			g.Likelihood = newLikelihoodJSON(l)
		}
		for _, d := range ch.Diffs {
			dj := DiffJSON{Node: jsonout.NullIfNegative(d.Node), NodeID: d.Name, Field: d.Field, Real: d.Real, Emulated: d.Emulated, Index: jsonout.NullIfNegative(d.Index)}
			if d.Index >= 0 && d.Index < len(ch.Real) {
				q := fmt.Sprintf("0x%08x", uint32(ch.Real[d.Index]))
				dj.Quadlet = &q
			}
			g.Diffs = append(g.Diffs, dj)
		}
		out.Generations = append(out.Generations, g)
	}
	return out
}

// ProbeJSON is the --json output of probe: what the kernel says of the
// bus, then the bus its self-IDs describe, as decode writes it.
type ProbeJSON struct {
	bus.VersionJSON
	Device      string  `json:"device"`        // the /dev/fw* device read
	Generation  uint32  `json:"generation"`    // the kernel's bus generation (GET_INFO), modulo 256
	LocalNodeID uint32  `json:"local_node_id"` // this machine's node ID (bus number and phy_ID)
	RootNodeID  uint32  `json:"root_node_id"`  // the root's node ID
	IRMNodeID   uint32  `json:"irm_node_id"`   // the isochronous resource manager's node ID
	BMNodeID    *uint32 `json:"bm_node_id"`    // null while no bus manager is elected
	BusJSON
}

func NewProbeJSON(s *Snapshot, b *Bus) ProbeJSON {
	out := ProbeJSON{VersionJSON: bus.NewVersionJSON(), Device: s.Path, Generation: s.Info.Generation, LocalNodeID: s.Info.LocalNodeID,
		RootNodeID: s.Info.RootNodeID, IRMNodeID: s.Info.IRMNodeID, BusJSON: newBusJSON(b)}
	if s.Info.BMNodeID&0xffff != 0xffff {
		out.BMNodeID = &s.Info.BMNodeID
	}
	return out
}

// USBListJSON is the --json output of probe --usb list.
type USBListJSON struct {
	bus.VersionJSON
	Devices []USBDeviceJSON `json:"devices"` // every USB device seen
}

// USBDeviceJSON is one USB device.
type USBDeviceJSON struct {
	Bus     int    `json:"bus"`     // the USB bus number
	Address int    `json:"address"` // the device's address on that bus
	VID     string `json:"vid"`     // the vendor ID, four hex digits
	PID     string `json:"pid"`     // the product ID, four hex digits
	Class   string `json:"class"`   // the device class
}

// LinestatesJSON is the --json output of linestates.
type LinestatesJSON struct {
	bus.VersionJSON
	Source string `json:"source"` // the capture file, or "stdin"
	Format string `json:"format"` // sigrok-vcd or sigrok-csv
	// SamplePeriodPs is the time between two samples, in ps: the
	// resolution of every time of the capture.
	SamplePeriodPs int64          `json:"sample_period_ps"`
	EndNs          int64          `json:"end_ns"`     // the last instant the capture covers, ns from its start
	Ports          []LinePortJSON `json:"ports"`      // every port the channels record, in node then port order
	Comparison     *LineCompJSON  `json:"comparison"` // against the emulation; null without --topology or --gen
}

// LinePortJSON is one port's line states, as episodes.
type LinePortJSON struct {
	Port     string        `json:"port"`     // NODE.pPORT
	Episodes []EpisodeJSON `json:"episodes"` // in time order
}

// EpisodeJSON is a stretch of a port's line states between idle lines.
type EpisodeJSON struct {
	Kind    string `json:"kind"`     // reset, contention, handshake or self-id
	Reset   int    `json:"reset"`    // the resets the port has received up to it, its own included; 0 before the first
	StartNs int64  `json:"start_ns"` // ns from the capture's start
	EndNs   int64  `json:"end_ns"`   // ns from the capture's start: the next idle line, or the capture's end
	// HighNs is when a pair is first driven to 1 in the episode (in a
	// handshake, the parent's CHILD_NOTIFY), ns from the capture's start;
	// null if never.
	HighNs *int64 `json:"high_ns"`
	Begun  bool   `json:"begun"` // the capture begins during the episode: start_ns is its start
	Cut    bool   `json:"cut"`   // the capture ends during the episode: end_ns is its end
}

// LineCompJSON is a capture against the emulation of its bus.
type LineCompJSON struct {
	Emulated string `json:"emulated"` // the bus emulated: the topology file, or gen SPEC
	Seed     uint64 `json:"seed"`     // the emulation's seed
	// Match: every captured port is emulated, and every quantity the
	// emulator predicts is within the tolerance.
	Match       bool  `json:"match"`
	TolerancePs int64 `json:"tolerance_ps"` // the capture's sample period, in ps
	// RealOriginNs is the start of the capture's first reset, ns from the
	// capture's start, which the starts of its resets count from; null
	// without a reset.
	RealOriginNs *int64 `json:"real_origin_ns"`
	// EmulatedOriginNs is the start of the emulation's first reset, ns
	// from power-up; null without a reset.
	EmulatedOriginNs *int64        `json:"emulated_origin_ns"`
	Missing          []string      `json:"missing_ports"` // captured ports the emulated bus does not have
	Rows             []LineRowJSON `json:"rows"`          // every quantity compared
}

// LineRowJSON is one quantity compared.
type LineRowJSON struct {
	Port  string `json:"port"`  // NODE.pPORT
	Reset int    `json:"reset"` // the reset it follows, 1 for the first the port receives; 0 for the count of resets
	// Event is reset, handshake, "contention N" or "back-off N" (the Nth
	// round), resets or "contention rounds".
	Event string `json:"event"`
	// Measure is start (since the first reset's start, or for a handshake
	// since its reset's end), duration, count, or answer (from the
	// child's PARENT_NOTIFY to the parent's CHILD_NOTIFY).
	Measure  string `json:"measure"`
	Real     *int64 `json:"real"`     // ns, or a count; null when the capture has no such event
	Emulated *int64 `json:"emulated"` // ns, or a count; null when the emulation has no such event
	Chance   bool   `json:"chance"`   // the emulator draws it at random: a difference is no mismatch
	Within   bool   `json:"within"`   // equal counts, times within the tolerance, or absent on both sides
}

// NewLinestatesJSON is r as fwsim linestates --json writes it.
func NewLinestatesJSON(r LineReport) LinestatesJSON {
	lc := r.Capture
	out := LinestatesJSON{VersionJSON: bus.NewVersionJSON(), Source: r.Source, Format: string(lc.Format),
		SamplePeriodPs: int64(math.Round(lc.SamplePeriodNs * 1000)), EndNs: lc.EndNs, Ports: []LinePortJSON{}}
	for _, pl := range lc.Ports {
		p := LinePortJSON{Port: pl.Port.String(), Episodes: []EpisodeJSON{}}
		for _, ep := range Episodes(pl, lc.EndNs) {
			p.Episodes = append(p.Episodes, EpisodeJSON{Kind: string(ep.Kind), Reset: ep.Reset, StartNs: ep.StartNs, EndNs: ep.EndNs,
				HighNs: jsonout.NullIfNegative(ep.HighNs), Begun: ep.Begun, Cut: ep.Cut})
		}
		out.Ports = append(out.Ports, p)
	}
	if c := r.Comparison; c != nil {
		cj := &LineCompJSON{Emulated: r.Emulated, Seed: r.Seed, Match: c.Match(), TolerancePs: int64(math.Round(c.ToleranceNs * 1000)),
			RealOriginNs: jsonout.NullIfNegative(c.RealOriginNs), EmulatedOriginNs: jsonout.NullIfNegative(c.EmulatedOriginNs), Missing: []string{}, Rows: []LineRowJSON{}}
		for _, p := range c.Missing {
			cj.Missing = append(cj.Missing, p.String())
		}
		for _, row := range c.Rows {
			cj.Rows = append(cj.Rows, LineRowJSON{Port: row.Port.String(), Reset: row.Reset, Event: row.Event, Measure: row.Measure,
				Real: jsonout.NullIfNegative(row.Real), Emulated: jsonout.NullIfNegative(row.Emulated), Chance: row.Chance, Within: row.Within})
		}
		out.Comparison = cj
	}
	return out
}

// NewUSBListJSON is the USB devices devs as fwsim probe --usb list --json
// writes them.
func NewUSBListJSON(devs []USBDeviceInfo) USBListJSON {
	out := USBListJSON{VersionJSON: bus.NewVersionJSON(), Devices: []USBDeviceJSON{}}
	for _, d := range devs {
		out.Devices = append(out.Devices, USBDeviceJSON{Bus: d.Bus, Address: d.Address, VID: fmt.Sprintf("%04x", d.VID), PID: fmt.Sprintf("%04x", d.PID), Class: d.Class})
	}
	return out
}
