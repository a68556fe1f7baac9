package bus

import (
	"fmt"
	"slices"
	"time"

	"github.com/fwsim/fwsim/treeid"
)

// A bus manager acts after each initialisation of its bus, as an operating
// system's FireWire stack does: it checks that the root can be cycle
// master and that the gap count suits the bus, and where either must
// change it sends a PHY configuration packet and resets the bus again: the
// reason a real bus often resets twice after a plug-in. The policies
// follow Linux's firewire-core (drivers/firewire/core-card.c, bm_work);
// docs/protocol.md §9.5 gives every step and its source.

// ManagerPolicy is how a bus manager manages.
type ManagerPolicy string

const (
	// ManagerLinux is Linux's firewire-core since 2024: after gap counts
	// that disagreed it stands for root and resets long, whatever its
	// turns, since on a mixed bus a short reset can be doubled and leave
	// them disagreeing again.
	ManagerLinux ManagerPolicy = "linux"
	// ManagerLinuxShort is Linux before that change: no rule for gap
	// counts that disagree, and every reset it asks for is short.
	ManagerLinuxShort ManagerPolicy = "linux-short"
)

// managerPolicies lists the policies in the order the docs give them.
var managerPolicies = []ManagerPolicy{ManagerLinux, ManagerLinuxShort}

const (
	// managerGrace is how long after a reset a node that was not bus
	// manager in the generation before waits before it tries to become
	// one (Linux: DIV_ROUND_UP(HZ, 8), 125 ms).
	managerGrace = int64(125 * time.Millisecond)
	// managerRetries is how many times a bus manager acts on one bus
	// before it lets it be (Linux: bm_retries, "less than 5 resets with
	// the same physical topology").
	managerRetries = 5
)

// resolvedManager is Topology.BusManager resolved: node -1 when none.
type resolvedManager struct {
	node   int
	policy ManagerPolicy
}

// busManager resolves Topology.BusManager.
func (r *resolver) busManager() error {
	r.rt.manager = resolvedManager{node: -1}
	bm := r.t.BusManager
	if bm == nil {
		return nil
	}
	node, ok := r.nodeByID[bm.Node]
	if !ok {
		return r.fail(ErrBadBusManager, "bus_manager.node", "no node %q on the bus", bm.Node)
	}
	policy := ManagerPolicy(bm.Policy)
	if policy == "" {
		policy = ManagerLinux
	}
	if !slices.Contains(managerPolicies, policy) {
		return r.fail(ErrBadBusManager, "bus_manager.policy", "unknown policy %q, want %q or %q", bm.Policy, ManagerLinux, ManagerLinuxShort)
	}
	if !r.rt.nodes[node].link {
		return r.fail(ErrBadBusManager, "bus_manager.node", "node %q has its link off (link: false): a bus manager runs on a link", bm.Node)
	}
	r.rt.manager = resolvedManager{node: node, policy: policy}
	return nil
}

// ManagerDecision is what the bus manager did after a generation.
type ManagerDecision struct {
	// Node is the bus manager; AtNs when it acted.
	Node string
	AtNs int64
	// Root is the generation's root; NewRoot the one the manager wants:
	// the root when it can be cycle master, else the manager itself.
	Root, NewRoot string
	// GapCount is the generation's gap count, 0 when the nodes' disagree
	// (Linux's convention); NewGapCount the one for the bus's Hops.
	GapCount, NewGapCount, Hops int
	// Reset is "short" or "long" when the manager sent a PHY configuration
	// packet and reset the bus, "" when it left the bus as it is; Turn
	// counts its turns on this bus, this one included (Linux's
	// bm_retries): past 5 it resets no more.
	Reset string
	Turn  int
	// Why says in words why it did what it did.
	Why string
}

// managerState is a run's bus manager: what it has done so far.
type managerState struct {
	// turns counts the generations it acted on (Linux's bm_retries).
	turns int
	// seen is the index of the last generation of its bus that closed,
	// managed that of the last one it managed (-1: none).
	seen, managed int
	// members are the nodes of the last generation it managed.
	members []int
}

// managerClosed is told that generation g closed ok or inconsistent: if g
// is the manager's bus, the manager acts on it, at once where it managed
// the generation before, else once the grace after the reset has passed.
func (w *world) managerClosed(g *generation) {
	bm := w.topo.manager.node
	if bm < 0 || w.nodes[bm].gen != g {
		return
	}
	at := w.k.Now()
	if prev := w.manager.seen; prev < 0 || w.manager.managed != prev {
		at = max(at, g.startNs+managerGrace)
	}
	w.manager.seen = g.index
	w.k.Schedule(at, simEvent{kind: evManager, arg: int64(g.index)})
}

// manage is the bus manager's turn after generation index: what Linux's
// bm_work does once it holds the BUS_MANAGER_ID lock.
func (w *world) manage(index int) {
	bm := w.topo.manager.node
	g := w.gens[index]
	if w.nodes[bm].gen != g || w.openGen[g.comp] != nil || g.tree == nil {
		return // the bus reset again since, or its self-IDs built no tree
	}
	w.manager.managed = index
	t := g.tree
	byPhy := make([]int, len(t.Nodes)) // the node that took each phy_ID
	for _, i := range g.members {
		if p := w.nodes[i].m.PhyID(); p < len(byPhy) {
			byPhy[p] = i
		}
	}
	id := func(phyID int) string { return w.nodes[byPhy[phyID]].cfg.id }
	if !slices.Equal(w.manager.members, g.members) {
		// A node found or lost: the topology changed, and the turns
		// count again (Linux: report_found_node, report_lost_node).
		w.manager.turns, w.manager.members = 0, append(w.manager.members[:0], g.members...)
	}
	d := ManagerDecision{Node: w.nodes[bm].cfg.id, AtNs: w.k.Now(), Root: id(t.Root), Hops: t.Hops()}
	gap, consistent := t.GapCount()
	d.GapCount, d.NewGapCount = gap, treeid.GapCountForHops(d.Hops)
	// The isochronous resource manager is the contender with an active
	// link of the highest phy_ID (docs/protocol.md §9.2); the root should
	// be able to be cycle master. Where it cannot be relied on, the bus
	// manager stands for root itself.
	root := t.Nodes[t.Root].Info
	stand := true
	switch {
	case t.IRM() < 0:
		d.Why = "no contender with an active link can be IRM: the bus manager stands for root"
	case !consistent && w.topo.manager.policy == ManagerLinux:
		// Linux since 2024: reset at once, whatever the turns.
		d.Why = "the gap counts disagree: the bus manager stands for root and resets long, whatever its turns"
		w.manager.turns = 0
	case !root.LinkActive:
		d.Why = fmt.Sprintf("root %s has its link off: the bus manager stands for root", d.Root)
	case !root.Contender:
		d.Why = fmt.Sprintf("root %s cannot be cycle master (c = 0): the bus manager stands for root", d.Root)
	default:
		stand = false
		d.Why = fmt.Sprintf("root %s can be cycle master", d.Root)
	}
	newRoot := t.Root
	if stand {
		newRoot = w.nodes[bm].m.PhyID()
	}
	d.NewRoot = id(newRoot)
	w.manager.turns++
	d.Turn = w.manager.turns
	hops := fmt.Sprintf("%d hop%s", d.Hops, pluralSuffix(d.Hops))
	switch {
	case !consistent:
		d.Why += fmt.Sprintf("; 1394a's table gives gap count %d for %s", d.NewGapCount, hops)
	case d.GapCount != d.NewGapCount:
		d.Why += fmt.Sprintf("; gap count %d, where 1394a's table gives %d for %s", d.GapCount, d.NewGapCount, hops)
	default:
		d.Why += fmt.Sprintf("; gap count %d suits %s", d.GapCount, hops)
	}
	switch {
	case d.GapCount == d.NewGapCount && newRoot == t.Root:
		d.Why += ": nothing to do"
	case d.Turn > managerRetries:
		d.Why += fmt.Sprintf(": but after %d turns on this bus it lets the bus be", managerRetries)
	default:
		// A short reset, the least disruptive; Linux since 2024 resets long
		// after gap counts that disagreed, since on a mixed bus a short one
		// can be doubled and leave them disagreeing again (1394a 8.4.6.2).
		// A 1394-1995 PHY has no short reset to ask for.
		short := (consistent || w.topo.manager.policy == ManagerLinuxShort) && w.nodes[bm].phy.Timing.ShortResetTime > 0
		d.Reset = "long"
		if short {
			d.Reset = "short"
		}
		d.Why += fmt.Sprintf(": PHY configuration packet (root %s, gap count %d) and a %s reset", d.NewRoot, d.NewGapCount, d.Reset)
		w.managerSends(bm, byPhy[newRoot], d.NewGapCount, short)
	}
	w.observe(TraceEvent{Kind: TraceScenario, Node: d.Node, Port: -1, Detail: "bus manager " + d.Node + ": " + d.Why})
	if !w.lean {
		g.result.Manager = &d
	}
}

// managerSends has the bus manager bm send a PHY configuration packet
// (node root forced root, gap count gap) and then reset the bus: events of
// the run's own, after the scripted ones, that go through the same
// arbitration as those.
func (w *world) managerSends(bm, root, gap int, short bool) {
	w.runEvents = append(w.runEvents[:len(w.runEvents):len(w.runEvents)],
		resolvedEvent{at: w.k.Now(), kind: eventPhyConfig, cable: -1, node: bm, root: root, gapCount: gap},
		resolvedEvent{at: w.k.Now(), kind: eventReset, cable: -1, node: bm, short: short, root: -1, gapCount: -1})
	w.scenario(len(w.runEvents) - 2)
	w.scenario(len(w.runEvents) - 1)
}

// eventName names event idx in the trace: a scripted one by its index, one
// of the bus manager's as such.
func (w *world) eventName(idx int) string {
	if idx >= len(w.topo.events) {
		return "bus manager"
	}
	return fmt.Sprintf("event %d", idx)
}
