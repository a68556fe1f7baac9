package hwtest

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// CrossOptions say what to emulate for a cross-check. The zero value
// emulates the topology read from the capture, with the observed
// initiators and no root forced, at seed 0, and computes no odds.
type CrossOptions struct {
	Seed uint64
	// Topology is the bus to emulate; nil builds it from the capture
	// (Bus.Topology).
	Topology *bus.Topology
	// ForceRoot and Initiators are passed to the emulator. With a topology
	// that names the captured nodes, the initiators default to the nodes
	// whose i bit is set.
	ForceRoot  string
	Initiators []string
	// Odds, when not nil, asks for the odds of the captured root and
	// self-ID order (CrossCheck.Likelihood).
	Odds *OddsOptions
	// Interrupt, when not nil, stops the emulations and the odds soon
	// after it closes: Cross returns bus.ErrInterrupted.
	Interrupt <-chan struct{}
}

// CrossCheck is the comparison of a captured bus with its emulation.
type CrossCheck struct {
	Seed       uint64
	Profile    string
	ForceRoot  string
	Initiators []string
	// Notes say what the comparison could not take from the capture.
	Notes []string
	// Outcome is how the emulated bus initialisation ended; Problems its
	// findings when not ok.
	Outcome  bus.Outcome
	Problems []string
	Real     []phy.SelfID
	Emulated []phy.SelfID
	// Root is set when the emulation elected or forced another root than
	// the capture shows; Emulated and Diffs then come from a second
	// emulation with the captured root forced.
	Root *RootDiff
	// Likelihood is, with CrossOptions.Odds and a topology that names the
	// captured nodes, how likely the emulator makes the captured root and
	// self-ID order.
	Likelihood *Likelihood
	// Diffs lists every difference, node by node.
	Diffs []Diff
}

// RootDiff is a captured root the emulation at the seed did not elect.
// Which node wins tree identify, or a root contention, depends on timers
// and random back-offs, not on anything a capture shows: the nodes are
// compared with the captured root forced, so that a different root is one
// finding (with its odds in Likelihood) rather than a difference in every
// node whose ports point the other way.
type RootDiff struct {
	Real, Emulated string // topology node ids
	// Contention: a root contention decided the emulated root.
	Contention bool
	// Forced: the emulation forced a root (CrossOptions.ForceRoot, or
	// force_root in the topology), a prediction the capture contradicts:
	// a mismatch.
	Forced bool
}

func (r *RootDiff) String() string {
	how := "elected by tree identify"
	switch {
	case r.Forced:
		how = "forced"
	case r.Contention:
		how = "elected by a root contention"
	}
	return fmt.Sprintf("real %s, emulated %s (%s)", r.Real, r.Emulated, how)
}

// Likelihood is how likely the emulator makes the captured root and
// self-ID order: their chances in the Odds of the bus with the
// cross-check's topology, initiators and seed, and no root forced.
type Likelihood struct {
	Root  string   // the captured root, as a topology node
	Order []string // the captured nodes in phy_ID order, as topology nodes
	// PRoot and POrder are the chances that the emulation's first
	// generation elects Root and numbers its nodes in Order.
	PRoot, POrder Chance
	*Odds
}

// LikelierRoot is the likeliest root when it is likelier than the captured
// one, and false when none is.
func (l *Likelihood) LikelierRoot() (RootOdds, bool) {
	if len(l.Roots) == 0 || l.Roots[0].Root == l.Root || l.Roots[0].P.P() <= l.PRoot.P() {
		return RootOdds{}, false
	}
	return l.Roots[0], true
}

// LikelierOrder is the likeliest self-ID order when it is likelier than
// the captured one, and false when none is.
func (l *Likelihood) LikelierOrder() (OrderOdds, bool) {
	best := l.LikeliestOrder()
	if best.Order == nil || slices.Equal(best.Order, l.Order) || best.P.P() <= l.POrder.P() {
		return OrderOdds{}, false
	}
	return best, true
}

// Diff is one difference between the captured and the emulated self-IDs.
type Diff struct {
	// Node is the captured phy_ID, -1 for an emulated node the capture
	// does not have.
	Node int
	// Name is the emulated topology node compared, "" when none is known.
	Name string
	// Index is the stream position of the captured quadlet that differs,
	// -1 when the captured bus has no such quadlet.
	Index int
	// Field is a self-ID field (phy_id, link_active, gap_count, speed,
	// delay, contender, power_class, initiated_reset, "port N"), or
	// "packets", "reserved bits", "node" or "quadlet" when whole packets
	// differ.
	Field    string
	Real     string
	Emulated string
}

func (d Diff) String() string {
	return fmt.Sprintf("%s %s: real %s, emulated %s", d.Where(), d.Field, d.Real, d.Emulated)
}

// Where names the node of a difference: its captured phy_ID and, when
// known, the topology node it was compared with.
func (d Diff) Where() string {
	switch {
	case d.Node < 0:
		return "node " + d.Name
	case d.Name == "":
		return "phy " + strconv.Itoa(d.Node)
	}
	return "phy " + strconv.Itoa(d.Node) + " (node " + d.Name + ")"
}

// Match reports an emulation that ended ok with the captured self-IDs,
// given the captured root when the emulator elects another: which root
// wins is chance, and only a root the emulation forced elsewhere is a
// mismatch.
func (c *CrossCheck) Match() bool {
	return c.Outcome == bus.OutcomeOK && len(c.Diffs) == 0 && (c.Root == nil || !c.Root.Forced)
}

// Cross emulates the bus a capture shows and compares the self-IDs quadlet
// by quadlet. An error means the emulation could not run (a bus without a
// tree, a topology the emulator rejects) or was interrupted; a mismatch is
// in the result.
//
// Nodes are aligned by topology node: when the topology names every
// captured node as Topology does (it was built from this capture, or
// emitted by decode and read back), captured phy_ID n is compared with the
// emulated node NodeName(n), whatever phy_ID the emulation gave it, and
// the initiators default to the nodes whose i bit is set. Otherwise nodes
// are aligned by phy_ID, and there are no odds of the captured root.
func Cross(b *Bus, o CrossOptions) (*CrossCheck, error) {
	c := &CrossCheck{Seed: o.Seed, ForceRoot: o.ForceRoot, Initiators: o.Initiators, Real: b.SelfIDs}
	t := o.Topology
	named := t == nil
	var root string
	var initiators []string
	if b.Tree != nil {
		var own *bus.Topology
		own, root, initiators, _ = b.Topology() // a bus with a tree always has one
		if t == nil {
			t = own
		} else {
			named = namesCaptured(t, own)
		}
	} else if t == nil {
		return nil, ErrNoTree
	}
	// The emulator's power-up is never relied on: the initiators are
	// always named.
	ignoreInitiated := false
	switch {
	case c.Initiators != nil:
	case named && len(initiators) > 0:
		c.Initiators = initiators
	case named:
		// Starting from the root is what the capture leaves least to
		// guess; i is then not compared.
		c.Initiators = []string{root}
		ignoreInitiated = true
		c.Notes = append(c.Notes, "no node has i set in the capture: the emulated reset starts at the root and i is not compared")
	default:
		// The captured initiator cannot be matched to a node: one PHY
		// starts the reset, as on a real bus, drawn from the seed.
		ignoreInitiated = true
		c.Notes = append(c.Notes, "the topology does not name the captured nodes (node-a, node-b, …): one PHY drawn from the seed starts the emulated reset, i is not compared, and the nodes are compared by phy_ID")
	}
	if c.ForceRoot == "" {
		c.ForceRoot = forcedRoot(t)
	}
	if len(b.Problems) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("the capture itself has %d problem(s); fwsim decode lists them", len(b.Problems)))
	}
	if pc := b.PhyConfig; pc != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("before this reset the bus manager forced root phy %d (line %d): a forced root is not elected, and the odds are an election's; a topology with force_root on it emulates it", pc.Root, pc.Line))
	}
	opts := bus.Options{Seed: o.Seed, ForceRoot: o.ForceRoot, Initiators: c.Initiators, PowerUp: bus.PowerUpOne, AllowOutOfSpec: true, Interrupt: o.Interrupt}
	res, err := bus.Run(t, opts)
	if err != nil {
		return nil, err
	}
	c.Profile = res.Profile
	if c.Initiators == nil {
		c.Initiators = res.Initiators // the one drawn
	}
	for _, why := range res.OutOfSpec {
		c.Notes = append(c.Notes, "out of spec: "+why)
	}
	g := res.Generations[0]
	if named && o.Odds != nil {
		odds, err := oddsOf(t, opts, *o.Odds)
		if err != nil {
			return nil, err
		}
		order := make([]string, len(b.Nodes))
		for k := range order {
			order[k] = NodeName(k)
		}
		c.Likelihood = &Likelihood{Root: root, Order: order, PRoot: odds.OfRoot(root), POrder: odds.OfOrder(order), Odds: odds}
	}
	if named && g.Root != "" && g.Root != root {
		c.Root = &RootDiff{Real: root, Emulated: g.Root, Forced: c.ForceRoot != ""}
		for _, ct := range g.Contention {
			c.Root.Contention = c.Root.Contention || ct.Parent == g.Root
		}
		if t, g, err = withRoot(t, opts, root); err != nil {
			return nil, err
		}
		c.ForceRoot = root
	}
	c.Outcome, c.Problems, c.Emulated = g.Outcome, g.Problems, g.SelfIDs
	ids := make([]string, len(g.Nodes))
	for k, n := range g.Nodes {
		ids[k] = n.ID
	}
	c.Diffs = compareSelfIDs(c.Real, c.Emulated, ids, named, ignoreInitiated)
	return c, nil
}

// withRoot emulates t again with root forced, and only root: a force_root
// the file sets elsewhere is cleared.
func withRoot(t *bus.Topology, o bus.Options, root string) (*bus.Topology, bus.Generation, error) {
	forced := withoutForceRoot(t)
	o.ForceRoot = root
	res, err := bus.Run(forced, o)
	if err != nil {
		return nil, bus.Generation{}, err
	}
	return forced, res.Generations[0], nil
}

// withoutForceRoot is t with force_root cleared on every node.
func withoutForceRoot(t *bus.Topology) *bus.Topology {
	free := *t
	free.Nodes = slices.Clone(t.Nodes)
	for i := range free.Nodes {
		free.Nodes[i].ForceRoot = false
	}
	return &free
}

// namesCaptured reports whether t has a node of every name own, the
// capture's own topology, has.
func namesCaptured(t, own *bus.Topology) bool {
	for _, n := range own.Nodes {
		if !slices.ContainsFunc(t.Nodes, func(m bus.Node) bool { return m.ID == n.ID }) {
			return false
		}
	}
	return true
}

// forcedRoot is the node of t with force_root set, "" if none.
func forcedRoot(t *bus.Topology) string {
	for _, n := range t.Nodes {
		if n.ForceRoot {
			return n.ID
		}
	}
	return ""
}

// compareSelfIDs lists the differences node by node and field by field;
// when either stream does not split into nodes, quadlet by quadlet. ids
// are the emulated nodes' topology ids by phy_ID; named pairs captured
// phy_ID n with the emulated node NodeName(n), and otherwise with emulated
// phy_ID n.
func compareSelfIDs(real, emulated []phy.SelfID, ids []string, named, ignoreInitiated bool) []Diff {
	rg, err1 := phy.SplitSelfIDs(slices.Clone(real))
	eg, err2 := phy.SplitSelfIDs(slices.Clone(emulated))
	if err1 != nil || err2 != nil {
		return compareQuadlets(real, emulated)
	}
	idOf := func(k int) string {
		if k < len(ids) {
			return ids[k]
		}
		return ""
	}
	paired := make([]bool, len(eg))
	var diffs []Diff
	index := 0
	for id, r := range rg {
		k := id
		if named {
			k = slices.Index(ids, NodeName(id))
		}
		if k < 0 || k >= len(eg) {
			name := ""
			if named {
				name = NodeName(id)
			}
			diffs = append(diffs, Diff{Node: id, Name: name, Index: index, Field: "node", Real: "present", Emulated: "absent"})
		} else {
			paired[k] = true
			diffs = append(diffs, compareNode(id, idOf(k), index, r, eg[k], ignoreInitiated)...)
		}
		index += len(r)
	}
	for k := range eg {
		if !paired[k] {
			node := k
			if named {
				node = -1 // no captured node has this name
			}
			diffs = append(diffs, Diff{Node: node, Name: idOf(k), Index: -1, Field: "node", Real: "absent", Emulated: "present"})
		}
	}
	return diffs
}

// compareNode compares one node's packets, which both passed SplitSelfIDs.
func compareNode(id int, name string, index int, real, emulated []phy.SelfID, ignoreInitiated bool) []Diff {
	r, _ := phy.DecodeSelfIDInfo(real) // a split group always decodes
	e, _ := phy.DecodeSelfIDInfo(emulated)
	var diffs []Diff
	add := func(field string, rv, ev any) {
		if rv != ev {
			diffs = append(diffs, Diff{Node: id, Name: name, Index: index, Field: field, Real: fmt.Sprint(rv), Emulated: fmt.Sprint(ev)})
		}
	}
	add("phy_id", r.PhyID, e.PhyID)
	add("link_active", r.LinkActive, e.LinkActive)
	add("gap_count", r.GapCount, e.GapCount)
	add("speed", r.Speed, e.Speed)
	add("delay", r.Delay, e.Delay)
	add("contender", r.Contender, e.Contender)
	add("power_class", r.PowerClass, e.PowerClass)
	if !ignoreInitiated {
		add("initiated_reset", r.InitiatedReset, e.InitiatedReset)
	}
	for p := range max(len(r.Ports), len(e.Ports)) {
		rp, ep := portAt(r.Ports, p), portAt(e.Ports, p)
		if rp != ep {
			// Packet #0 holds ports 0–2, packet #k ports 8k−5 to 8k+2.
			at := index + min((p+5)/8, len(real)-1)
			diffs = append(diffs, Diff{Node: id, Name: name, Index: at, Field: "port " + strconv.Itoa(p), Real: rp.String(), Emulated: ep.String()})
		}
	}
	if len(real) != len(emulated) {
		diffs = append(diffs, Diff{Node: id, Name: name, Index: index, Field: "packets", Real: strconv.Itoa(len(real)), Emulated: strconv.Itoa(len(emulated))})
	}
	if len(diffs) == 0 {
		for k := range real {
			if real[k] != emulated[k] && !(ignoreInitiated && k == 0 && real[k]^emulated[k] == 2) {
				diffs = append(diffs, Diff{Node: id, Name: name, Index: index + k, Field: "reserved bits",
					Real: fmt.Sprintf("0x%08x", uint32(real[k])), Emulated: fmt.Sprintf("0x%08x", uint32(emulated[k]))})
			}
		}
	}
	return diffs
}

func portAt(ports []phy.PortStatus, p int) phy.PortStatus {
	if p < len(ports) {
		return ports[p]
	}
	return phy.PortAbsent
}

// compareQuadlets is the fallback for streams that do not split into nodes.
func compareQuadlets(real, emulated []phy.SelfID) []Diff {
	var diffs []Diff
	show := func(s []phy.SelfID, i int) string {
		if i < len(s) {
			return fmt.Sprintf("0x%08x", uint32(s[i]))
		}
		return "none"
	}
	for i := range max(len(real), len(emulated)) {
		if i < len(real) && i < len(emulated) && real[i] == emulated[i] {
			continue
		}
		node, index := -1, i
		switch {
		case i < len(real):
			node = phyIDOf(uint32(real[i]))
		default:
			node, index = phyIDOf(uint32(emulated[i])), -1
		}
		diffs = append(diffs, Diff{Node: node, Index: index, Field: "quadlet", Real: show(real, i), Emulated: show(emulated, i)})
	}
	return diffs
}
