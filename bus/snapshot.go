package bus

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"unsafe"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// Snapshot is a Follower's bus where a run stopped at a choice point,
// between the two events where its key was taken: what FollowFrom goes on
// from, instead of running again from power-up. An explorer keeps one for
// each choice point it has still to expand, and its options' runs then take
// the few events from there to the next choice point, where a run from
// power-up replays every choice before (hundreds of events a run).
//
// It holds a copy of everything a run changes and shares nothing with the
// Follower that took it, so any Follower of the same bus (NewFollower with
// the same topology, options and space) may go on from it, several at
// once: FollowFrom only reads it.
type Snapshot struct {
	w *world // the run's state; its kernel's events are kept in pending
	// The kernel: its time, counts and events, in the order they pop.
	now            int64
	seq, processed uint64
	pending        []kernelEntry[simEvent]
	// The Follower's record of the first generation, once closed.
	firstRoot  string
	firstOrder []string
	bytes      int64 // see Bytes
}

// Bytes is about the memory the snapshot holds.
func (s *Snapshot) Bytes() int64 { return s.bytes }

// size estimates Bytes.
func (s *Snapshot) size() int64 {
	w := s.w
	b := int64(unsafe.Sizeof(*s)+unsafe.Sizeof(*w)) + int64(len(s.pending))*int64(unsafe.Sizeof(kernelEntry[simEvent]{}))
	for i := range w.nodes {
		n := &w.nodes[i]
		ports := int64(len(n.cable))
		b += int64(unsafe.Sizeof(*n)+unsafe.Sizeof(*n.m)+unsafe.Sizeof(*n.election)) + 64*ports +
			int64(len(n.inbox))*int64(unsafe.Sizeof(arrival{})) + 8*int64(len(n.owed))
	}
	for _, g := range w.gens {
		b += int64(unsafe.Sizeof(*g)) + 4*int64(len(g.selfIDs)) + 8*int64(len(g.members)+len(g.cables))
	}
	b += 4*int64(len(w.txData)) + 16*int64(len(w.tx)) + 64*int64(len(w.nodes)) // tx, forest, comp
	return b
}

// Snapshot saves the state where the last Follow or FollowFrom stopped at
// a choice point, for FollowFrom. It is nil unless the run stopped at a
// choice point it reached through its events (not one of the setup's: a
// clock phase, an event shift).
func (f *Follower) Snapshot() *Snapshot {
	if !f.atCheckpoint {
		return nil
	}
	src := f.w
	s := &Snapshot{w: &world{topo: src.topo, opts: src.opts, phys: src.phys, lean: src.lean, openGen: map[int]*generation{}},
		now: src.k.now, seq: src.k.seq, processed: src.k.processed,
		firstRoot: f.firstRoot, firstOrder: slices.Clone(f.firstOrder)}
	s.pending = src.k.appendPending(nil)
	slices.SortFunc(s.pending, popOrder)
	w := s.w
	w.nodes = make([]node, len(src.nodes))
	for i := range w.nodes {
		n := &w.nodes[i]
		n.m, n.election, n.coins = new(phy.Machine), new(treeid.Election), rand.NewPCG(0, 0)
		n.peerUIDs = make([]uint64, len(src.nodes[i].peerUIDs)) // copied into, as an election's are
	}
	w.choices = &chooser{w: w, space: src.choices.space, follow: true}
	w.copyRun(src)
	s.bytes = s.size()
	return s
}

// FollowFrom goes on from snapshot s, taken by a Follower of the same bus,
// along choices: the path of the run that took it and then the options
// past it, exactly as Follow along choices from power-up would, in the same
// stop (its Events count only the events after s). A nil s is Follow.
func (f *Follower) FollowFrom(s *Snapshot, choices []int) (FollowStop, error) {
	return f.follow(s, choices)
}

// restore sets the Follower's bus to snapshot s.
func (f *Follower) restore(s *Snapshot) error {
	w := f.w
	if !w.sameBus(s.w) {
		return fmt.Errorf("%w: a snapshot of another bus: %d nodes and %d cable(s), where this one has %d and %d",
			ErrInvalidOptions, len(s.w.topo.nodes), len(s.w.topo.cables), len(w.topo.nodes), len(w.topo.cables))
	}
	for i, rn := range w.topo.nodes {
		// A bus not run yet has no PHYs to copy into. Their clocks are the
		// snapshot's.
		if w.nodes[i].m == nil {
			if err := w.buildNode(i, rn, phy.IdealClock()); err != nil {
				return err
			}
		}
	}
	w.copyRun(s.w)
	w.k.restore(s.now, s.seq, s.processed, s.pending)
	w.interrupted = false
	f.firstRoot, f.firstOrder = s.firstRoot, append(f.firstOrder[:0], s.firstOrder...)
	return nil
}

// sameBus reports whether src runs the bus w runs, as far as copyRun
// relies on it: the same nodes, ports and cables.
func (w *world) sameBus(src *world) bool {
	if len(w.topo.nodes) != len(src.topo.nodes) || len(w.topo.cables) != len(src.topo.cables) {
		return false
	}
	for i, n := range w.topo.nodes {
		if n.id != src.topo.nodes[i].id || n.ports != src.topo.nodes[i].ports {
			return false
		}
	}
	return true
}

// copyRun sets w's run to src's: everything a run changes, copied into
// w's own buffers, generations and PHYs, but the kernel (see Snapshot and
// Kernel.restore). The configuration, the same for both, stays w's, and so
// do its scratch and caches.
func (w *world) copyRun(src *world) {
	// Generations by index: w.gens[k] for src.gens[k], from w's pool.
	for len(w.genPool) < len(src.gens) {
		w.genPool = append(w.genPool, &generation{})
	}
	w.gens = w.gens[:0]
	for k, sg := range src.gens {
		g := w.genPool[k]
		members, cables, selfIDs, problems, configTimeouts, warnings := g.members, g.cables, g.selfIDs, g.problems, g.configTimeouts, g.warnings
		*g = *sg
		g.members = append(members[:0], sg.members...)
		g.cables = append(cables[:0], sg.cables...)
		g.selfIDs = append(selfIDs[:0], sg.selfIDs...)
		g.problems = append(problems[:0], sg.problems...)
		g.configTimeouts = append(configTimeouts[:0], sg.configTimeouts...)
		g.warnings = append(warnings[:0], sg.warnings...)
		g.links = slices.Clone(sg.links)
		w.gens = append(w.gens, g)
	}
	gen := func(g *generation) *generation {
		if g == nil {
			return nil
		}
		if g.index >= len(src.gens) || src.gens[g.index] != g {
			panic(fmt.Sprintf("bus: a generation %d that is not the run's", g.index))
		}
		return w.gens[g.index]
	}
	clear(w.openGen)
	for comp, g := range src.openGen {
		w.openGen[comp] = gen(g)
	}
	w.txGen = w.txGen[:0]
	for _, g := range src.txGen {
		w.txGen = append(w.txGen, gen(g))
	}
	for i := range src.nodes {
		n, sn := &w.nodes[i], &src.nodes[i]
		profile, m, election, coins, peers := n.phy, n.m, n.election, n.coins, n.peerUIDs
		cable, remote, sent, busyUntil, inbox, owed := n.cable, n.remote, n.sent, n.busyUntil, n.inbox, n.owed
		notifyFrom, notified := n.notifyFrom, n.notified
		*n = *sn
		n.phy, n.m, n.election, n.coins, n.peerUIDs = profile, m, election, coins, peers
		n.m.CopyFrom(sn.m)
		n.election.CopyFrom(sn.election)
		*n.coins = *sn.coins
		copy(n.peerUIDs, sn.peerUIDs)
		n.cable = append(cable[:0], sn.cable...)
		n.remote = append(remote[:0], sn.remote...)
		n.sent = append(sent[:0], sn.sent...)
		n.busyUntil = append(busyUntil[:0], sn.busyUntil...)
		n.inbox = append(inbox[:0], sn.inbox...)
		n.owed = append(owed[:0], sn.owed...)
		n.notifyFrom = append(notifyFrom[:0], sn.notifyFrom...)
		n.notified = append(notified[:0], sn.notified...)
		n.gen, n.rxGen = gen(sn.gen), gen(sn.rxGen)
	}
	w.cables = append(w.cables[:0], src.cables...)
	w.comp = append(w.comp[:0], src.comp...)
	w.tx = append(w.tx[:0], src.tx...)
	w.txData = append(w.txData[:0], src.txData...)
	w.forest.copyFrom(&src.forest)
	w.startCables = src.startCables
	w.inFlight = append(w.inFlight[:0], src.inFlight...)
	w.staleTimers, w.discardedAt = src.staleTimers, src.discardedAt
	w.traceOnly, w.evaluations, w.idle, w.lastActive = src.traceOnly, src.evaluations, src.idle, src.lastActive
	w.initiating = src.initiating
	w.waiting = append(w.waiting[:0], src.waiting...)
	w.runEvents = src.runEvents // scripted, or the bus manager's copy, which it appends to by copying
	members := w.manager.members
	w.manager = src.manager
	w.manager.members = append(members[:0], src.manager.members...)
	w.initiators = append(w.initiators[:0], src.initiators...)
	w.powerUp, w.powerUpEvery = src.powerUp, src.powerUpEvery
	w.arrivals = append(w.arrivals[:0], src.arrivals...)
	w.cabled = append(w.cabled[:0], src.cabled...)
	w.lastCauses = append(w.lastCauses[:0], src.lastCauses...)
	w.awaiting = append(w.awaiting[:0], src.awaiting...)
	w.cause, w.shiftNs = src.cause, src.shiftNs
	w.metrics, w.first = src.metrics, src.first
	ch, sch := w.choices, src.choices
	ch.next, ch.pending, ch.err = sch.next, nil, nil
	ch.made, ch.madeBefore = ch.made[:0], sch.madeBefore+len(sch.made)
}

// copyFrom sets f to src, in f's own buffers.
func (f *cableForest) copyFrom(src *cableForest) {
	f.parent = append(f.parent[:0], src.parent...)
	f.jump = append(f.jump[:0], src.jump...)
	f.depth = append(f.depth[:0], src.depth...)
	f.upPort = append(f.upPort[:0], src.upPort...)
	f.dist = append(f.dist[:0], src.dist...)
	f.far = append(f.far[:0], src.far...)
	f.reach = append(f.reach[:0], src.reach...)
	f.looped = append(f.looped[:0], src.looped...)
	f.mixed = append(f.mixed[:0], src.mixed...)
	f.repeat = append(f.repeat[:0], src.repeat...)
}
