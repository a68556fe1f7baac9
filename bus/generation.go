package bus

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// generation tracks one bus initialisation of one connected part of the bus
// while it runs; close turns it into a Generation.
type generation struct {
	index   int
	comp    int
	members []int // node indices, ascending
	startNs int64
	cause   Cause
	// reachedT0 counts the members that entered T0 in this generation
	// since their last R0 entry: once all have, the bus has left its reset,
	// and an R0 entry starts a new generation. Before, it is part of this
	// one: a node in R0 or R1 absorbs BUS_RESET, so the reset need not
	// reach every node again.
	reachedT0 int
	// reachedS0 counts the members that entered S0 in this generation
	// since their last R0 entry: once all have, tree identify is done.
	reachedS0 int
	// resetDone and treeIDDone say every member has finished the reset and
	// tree identify in this generation: only then are resetEnd and
	// treeDone phase times (a generation cut short reports only the phases
	// it finished).
	resetDone, treeIDDone bool
	done                  bool
	outcome               Outcome
	// scripted reports an interruption the scenario caused: a scripted
	// connect, disconnect or reset began the next bus reset.
	scripted     bool
	problems     []string
	resetEnd     int64 // absolute times, -1 until reached: the last T0 entry so far
	treeDone     int64 // the last S0 entry so far
	selfIDEnd    int64
	lastPacketNs int64
	endNs        int64 // when close decided the outcome
	inflight     int   // packet deliveries still scheduled
	selfIDs      []phy.SelfID
	packet0s     int // how many of selfIDs begin a packet #0
	// configTimeouts are the CONFIG_TIMEOUTs the members signalled.
	configTimeouts []ConfigTimeout
	warnings       []string // findings that do not fail it (Generation.Warnings)
	cables         []int    // the cables joining the members when it began
	links          []Link   // the same, named; not kept by a Simulator, which reports no Generation
	tree           *treeid.Tree
	result         Generation
}

// onState does the bookkeeping for node i entering state s at time now.
func (w *world) onState(i int, s phy.State, now int64) {
	n := &w.nodes[i]
	switch s {
	case phy.R0ResetStart:
		n.countFrom(nil) // the PHY cleared its buffer
		n.timeoutSeen = false
		n.notified = n.notified[:0]
		w.onReset(i, now)
	case phy.T0TreeIDStart:
		if g := n.gen; g != nil {
			if !n.reachedT0 && !g.done { // an ended generation's count stays
				n.reachedT0 = true
				g.reachedT0++
			}
			g.resetEnd = max(g.resetEnd, now)
			g.resetDone = g.resetDone || g.pastReset()
		}
	case phy.T3RootContention:
		if rounds := n.election.Rounds(); !w.lean && len(rounds) > 0 {
			p := rounds[len(rounds)-1].Port
			n.notified = append(n.notified, notifyPulse{port: p, from: n.notifyFrom[p], to: now})
		}
	case phy.S0SelfIDStart:
		n.countFrom(n.gen)
		n.s0At = now
		if g := n.gen; g != nil && !g.done {
			if !n.reachedS0 {
				n.reachedS0 = true
				g.reachedS0++
			}
			g.treeDone = max(g.treeDone, now)
			g.treeIDDone = g.treeIDDone || g.reachedS0 == len(g.members)
		}
	case phy.A0Idle:
		n.a0At = now
		w.armShortResets(i)
		w.checkComplete(n.gen)
	}
}

// configTimedOut takes note of the CONFIG_TIMEOUT node i's PHY has just
// signalled to its link in T0 (docs/protocol.md §4). It is a flag, not a
// stop: the PHY stays in T0 with its exits live. On a loop the bus can
// never configure, so the generation ends config-timeout at once; on a tree
// the late PARENT_NOTIFYs still come, and the generation only records the
// signal.
func (w *world) configTimedOut(i int) {
	n := &w.nodes[i]
	w.observe(TraceEvent{Kind: TraceLink, Node: n.cfg.id, Port: -1, Detail: "CONFIG_TIMEOUT"})
	g := n.gen
	if g == nil || g.done {
		return
	}
	g.configTimeouts = append(g.configTimeouts, ConfigTimeout{Node: n.cfg.id, AtNs: w.k.Now() - g.startNs})
	if w.forest.looped[w.comp[i]] {
		w.close(g, OutcomeConfigTimeout, w.configTimeoutProblem(i))
	}
}

// configTimeoutProblem explains node i's CONFIG_TIMEOUT in T0. On a loop it
// is the standard's loop detection. On a tree it means the neighbours on its
// ports that are not children had not sent PARENT_NOTIFY in time: they left
// their reset late (a reset restarted while the others were still in theirs
// keeps a node in R0 up to RESET_TIME longer) or wait for a subtree that
// did, possibly held further by force root; the message names them and their
// states.
func (w *world) configTimeoutProblem(i int) string {
	n := &w.nodes[i]
	if w.forest.looped[w.comp[i]] {
		return fmt.Sprintf("%s: CONFIG_TIMEOUT in T0: the cable graph has a loop", n.cfg.id)
	}
	var waiting []string
	for p, c := range n.cable {
		if c < 0 || n.m.Ports().Status[p] == phy.PortChild {
			continue
		}
		far := w.cables[c].peer(portRef{i, p})
		waiting = append(waiting, fmt.Sprintf("%s (%s)", w.nodes[far.node].cfg.id, w.nodes[far.node].state))
	}
	return fmt.Sprintf("%s: CONFIG_TIMEOUT in T0 without a loop: no PARENT_NOTIFY yet from %s, whose reset ended late or whose subtree is late (a reset restarted during another, force root)",
		n.cfg.id, strings.Join(waiting, ", "))
}

// onReset puts node i, which just entered R0, into the generation of its
// part of the bus: the one still in its reset phase, or a new one. A reset
// that arrives after the bus left the reset phase interrupts that
// generation.
func (w *world) onReset(i int, now int64) {
	n := &w.nodes[i]
	g := w.openGen[w.comp[i]]
	if g == nil || g.done || g.pastReset() {
		cause := n.cause
		switch {
		case n.m.WatchdogReset():
			cause = Cause{Kind: CauseWatchdog, Node: n.cfg.id, Event: -1, Text: "reset from " + n.cfg.id + ": MAX_ARB_STATE_TIME ran out"}
		case w.initiating != i || cause.Kind == "":
			cause = Cause{Kind: CauseSeen, Node: n.cfg.id, Event: -1, Text: "bus reset first seen by " + n.cfg.id}
		}
		if g != nil && !g.done {
			g.scripted = cause.Kind == CauseEvent
			w.close(g, OutcomeInterrupted, fmt.Sprintf("a new bus reset from %s at %d ns", n.cfg.id, now))
		}
		g = w.open(w.comp[i], now, cause)
	}
	w.join(i, g, now)
	// Back in its reset: the node has to reach T0 again before its
	// generation is past the reset.
	n.leftT0()
	if w.initiating == i {
		n.cause = Cause{}
	}
}

// resetEndNs is when the last member left its reset, -1 until every one
// has; treeIDDoneNs when the last finished tree identify, likewise.
func (g *generation) resetEndNs() int64 {
	if !g.resetDone {
		return -1
	}
	return g.resetEnd
}

func (g *generation) treeIDDoneNs() int64 {
	if !g.treeIDDone {
		return -1
	}
	return g.treeDone
}

// pastReset reports that every member has entered T0 in g since its last
// R0 entry: every PHY has left its reset, so tree identify is under way.
func (g *generation) pastReset() bool { return g.reachedT0 == len(g.members) }

// leftT0 takes node n's entries to T0 and S0 back from its generation's
// counts. The count of a generation that has ended stays as it was then:
// whether it had left its reset decides whether its remaining members join
// the next one.
func (n *node) leftT0() {
	if g := n.gen; g != nil && !g.done {
		if n.reachedT0 {
			g.reachedT0--
		}
		if n.reachedS0 {
			g.reachedS0--
		}
	}
	n.reachedT0, n.reachedS0 = false, false
}

// join makes node i a member of g from time now, ending the generation it
// leaves.
func (w *world) join(i int, g *generation, now int64) {
	n := &w.nodes[i]
	if n.gen == g {
		return
	}
	if old := n.gen; old != nil && !old.done {
		old.scripted = g.cause.Kind == CauseEvent
		w.close(old, OutcomeInterrupted, fmt.Sprintf("a new bus reset reached %s at %d ns", n.cfg.id, now))
	}
	n.leftT0()
	n.gen = g
	if n.rxGen != nil {
		// Counting, so in S0 or later: the link keeps g's packets now.
		w.catchUp(i)
		n.countFrom(g)
	}
	// Carried over past its reset (T0 or later), or past tree identify (S0
	// or later): it counts as having reached them, when it joins.
	if n.state != phy.R0ResetStart && n.state != phy.R1ResetWait {
		n.reachedT0 = true
		g.reachedT0++
		g.resetEnd = max(g.resetEnd, now)
		g.resetDone = g.resetDone || g.pastReset()
	}
	if n.state >= phy.S0SelfIDStart {
		n.reachedS0 = true
		g.reachedS0++
		g.treeDone = max(g.treeDone, now)
		g.treeIDDone = g.treeIDDone || g.reachedS0 == len(g.members)
	}
}

func (w *world) open(comp int, now int64, cause Cause) *generation {
	var g *generation
	switch {
	case !w.lean:
		g = &generation{}
	case len(w.gens) < len(w.genPool):
		// Nothing outlives a Simulator's run: recycle the generation and
		// its buffers.
		g = w.genPool[len(w.gens)]
		*g = generation{members: g.members[:0], cables: g.cables[:0], selfIDs: g.selfIDs[:0], problems: g.problems[:0],
			configTimeouts: g.configTimeouts[:0], warnings: g.warnings[:0]}
	default:
		g = &generation{}
		w.genPool = append(w.genPool, g)
	}
	g.index, g.comp, g.startNs, g.cause = len(w.gens), comp, now, cause
	g.resetEnd, g.treeDone, g.selfIDEnd, g.lastPacketNs = -1, -1, -1, -1
	for j, c := range w.comp {
		if c == comp {
			g.members = append(g.members, j)
		}
	}
	for i, c := range w.cables {
		if !c.connected || w.comp[c.a.node] != comp {
			continue
		}
		g.cables = append(g.cables, i)
		if !w.lean {
			g.links = append(g.links, Link{
				Nodes: [2]string{w.nodes[c.a.node].cfg.id, w.nodes[c.b.node].cfg.id},
				Ports: [2]int{c.a.port, c.b.port},
			})
		}
	}
	w.gens = append(w.gens, g)
	w.openGen[comp] = g
	// Members whose own generation has not left its reset are part of this
	// one, whatever state they are in: a cable event changes the parts of
	// the bus under them, and a neighbour in R0 or R1 absorbs BUS_RESET, so
	// no new R0 entry need reach them. Members of a generation past its
	// reset will see the new BUS_RESET and join on entering R0.
	for _, j := range g.members {
		if n := &w.nodes[j]; n.gen == nil || !n.gen.pastReset() || n.state == phy.R0ResetStart || n.state == phy.R1ResetWait {
			w.join(j, g, now)
		}
	}
	return g
}

// checkComplete finishes g once every member is idle and every self-ID
// packet has arrived everywhere.
func (w *world) checkComplete(g *generation) {
	if g == nil || g.done || g.inflight > 0 {
		return
	}
	for _, i := range g.members {
		if w.nodes[i].state != phy.A0Idle || w.nodes[i].gen != g {
			return
		}
	}
	g.selfIDEnd = g.lastPacketNs
	problems := w.verify(g)
	if !w.lean {
		g.warnings = w.gapCountWarning(g, g.warnings)
	}
	if len(problems) == 0 {
		w.close(g, OutcomeOK)
		return
	}
	w.close(g, OutcomeInconsistent, problems...)
}

func (w *world) close(g *generation, o Outcome, problems ...string) {
	g.done, g.outcome, g.endNs = true, o, w.k.Now()
	g.problems = append(g.problems, problems...)
	if w.openGen[g.comp] == g {
		delete(w.openGen, g.comp)
	}
	if !w.lean {
		g.result = w.snapshot(g)
	} else if g.index == 0 {
		w.first = w.readFirstMarks(g)
		w.metrics = w.firstMetrics(g, w.first)
		if w.follower != nil {
			w.follower.firstClosed(g)
		}
	}
	if len(w.waiting) > 0 && (o == OutcomeOK || o == OutcomeInconsistent) {
		w.sendWaiting(g)
	}
	if o == OutcomeOK || o == OutcomeInconsistent {
		w.managerClosed(g)
	}
}

// closeAll ends every generation still running when the run stops.
func (w *world) closeAll(o Outcome, why string) {
	for _, g := range w.gens {
		if g.done {
			continue
		}
		if o == OutcomeStalled && w.allIdle(g) {
			// Nobody waits for anything: the bus finished, whatever the
			// bookkeeping missed. Judge it like any finished generation.
			g.selfIDEnd = g.lastPacketNs
			if problems := w.verify(g); len(problems) > 0 {
				w.close(g, OutcomeInconsistent, problems...)
			} else {
				w.close(g, OutcomeOK)
			}
			continue
		}
		problems := []string{why}
		if o == OutcomeStalled {
			// A PHY that signalled CONFIG_TIMEOUT and still waits in T0
			// with nothing left to happen: the bus never configures.
			for _, i := range g.members {
				if n := &w.nodes[i]; n.timeoutSeen && n.state == phy.T0TreeIDStart {
					o, problems = OutcomeConfigTimeout, []string{w.configTimeoutProblem(i), why}
					break
				}
			}
		}
		if roots := w.rootClaims(g); len(roots) > 1 {
			problems = append(problems, fmt.Sprintf("%d roots (%s), not one", len(roots), strings.Join(roots, ", ")))
		}
		for _, i := range g.members {
			if n := &w.nodes[i]; n.state != phy.A0Idle {
				problems = append(problems, fmt.Sprintf("%s stopped in %s (%s)", n.cfg.id, n.state, n.state.LongName()))
			}
		}
		w.close(g, o, problems...)
	}
}

// allIdle reports whether every member of g is idle in A0 with no packet on
// its way.
func (w *world) allIdle(g *generation) bool {
	for _, i := range g.members {
		if w.nodes[i].state != phy.A0Idle {
			return false
		}
	}
	return g.inflight == 0
}

// rootClaims lists the members of g that finished tree identify as root.
// The slice is scratch, valid until the next call.
func (w *world) rootClaims(g *generation) []string {
	w.roots = w.roots[:0]
	for _, i := range g.members {
		if n := &w.nodes[i]; n.m.Root() && n.s0At >= g.startNs {
			w.roots = append(w.roots, n.cfg.id)
		}
	}
	return w.roots
}

// verify checks a finished generation against what the protocol guarantees,
// and builds the tree the self-IDs describe.
func (w *world) verify(g *generation) []string {
	var problems []string
	roots := w.rootClaims(g)
	// A PHY's ID counts the packet #0s it received, so only a fault takes
	// one past the nodes: those share the last slot.
	w.owner = resize(w.owner, len(w.nodes)+1)
	clear(w.owner)
	for _, i := range g.members {
		w.catchUp(i)
		n := &w.nodes[i]
		id := min(n.m.PhyID(), len(w.nodes))
		if other := w.owner[id]; other > 0 {
			problems = append(problems, fmt.Sprintf("%s and %s both took phy_ID %d", w.nodes[other-1].cfg.id, n.cfg.id, id))
		}
		w.owner[id] = int32(i) + 1
		if got := n.m.ReceivedSelfIDs(); got != len(g.selfIDs) {
			problems = append(problems, fmt.Sprintf("%s received %d self-ID quadlets, not the bus's %d", n.cfg.id, got, len(g.selfIDs)))
		}
	}
	if len(roots) != 1 {
		problems = append(problems, fmt.Sprintf("%d roots (%s), not one", len(roots), strings.Join(roots, ", ")))
	}
	// The cables as they were when g began: one plugged in since has not
	// yet taken part (its reset comes next).
	for _, ci := range g.cables {
		c := w.cables[ci]
		sa := w.nodes[c.a.node].m.Ports().Status[c.a.port]
		sb := w.nodes[c.b.node].m.Ports().Status[c.b.port]
		if !(sa == phy.PortParent && sb == phy.PortChild) && !(sa == phy.PortChild && sb == phy.PortParent) {
			problems = append(problems, fmt.Sprintf("cable %s: the ends disagree (%s, %s)", w.cableName(c.resolvedCable), sa, sb))
		}
	}
	if len(g.members) > phy.MaxNodes {
		// No stream describes more than 63 nodes (phy_ID has six bits), so
		// there is no tree to read back: the PHYs' parent ports, whose
		// cable ends agree, are the tree, and the IDs must number them.
		for _, i := range g.members {
			if id := w.nodes[i].m.PhyID(); id >= len(g.members) {
				problems = append(problems, fmt.Sprintf("%s took phy_ID %d on a bus of %d nodes", w.nodes[i].cfg.id, id, len(g.members)))
			}
		}
		return problems
	}
	tree, err := w.buildTree(g.selfIDs)
	if err != nil {
		return append(problems, "the self-IDs fail the consumer checks: "+err.Error())
	}
	g.tree = tree
	for _, i := range g.members {
		n := &w.nodes[i]
		id := n.m.PhyID()
		if id >= len(tree.Nodes) {
			continue // already reported as a phy_ID problem
		}
		if tree.Nodes[id].ParentPort != n.m.ParentPort() {
			problems = append(problems, fmt.Sprintf("%s: the self-IDs give parent port %d, the PHY %d", n.cfg.id, tree.Nodes[id].ParentPort, n.m.ParentPort()))
		}
	}
	return problems
}

// gapCountWarning appends to warnings, when the members of g carry more
// than one gap count, what each carries, and when one is below what
// 1394a's gap-count table gives for the bus's hops, which nodes carry it.
// Every PHY must use the same gap count; a bus manager that sees them
// differ sends a PHY configuration packet and resets the bus again (Linux:
// a long reset, docs/protocol.md §9.2). One too small for the bus lets a
// far node take the gap after a packet for the end of the subaction while
// the acknowledgement is still on its way.
func (w *world) gapCountWarning(g *generation, warnings []string) []string {
	byGap := map[int][]string{}
	var gaps []int
	for _, i := range g.members {
		n := &w.nodes[i]
		gap := n.m.GapCount()
		if byGap[gap] == nil {
			gaps = append(gaps, gap)
		}
		byGap[gap] = append(byGap[gap], n.cfg.id)
	}
	slices.Sort(gaps)
	on := func(gap int) string { return fmt.Sprintf("%d on %s", gap, strings.Join(byGap[gap], ", ")) }
	if len(gaps) > 1 {
		var parts []string
		for k := len(gaps) - 1; k >= 0; k-- {
			parts = append(parts, on(gaps[k]))
		}
		warnings = append(warnings, "gap counts disagree: "+strings.Join(parts, "; ")+
			" (every PHY needs the same one: a bus manager sends a PHY configuration packet and resets the bus again)")
	}
	if g.tree == nil {
		return warnings
	}
	hops := g.tree.Hops()
	want := treeid.GapCountForHops(hops)
	if hops == 0 || len(gaps) == 0 || gaps[0] >= want {
		return warnings
	}
	low := fmt.Sprintf("gap count %d, on every node,", gaps[0])
	if len(gaps) > 1 {
		var parts []string
		for _, gap := range gaps {
			if gap < want {
				parts = append(parts, on(gap))
			}
		}
		low = "gap count " + strings.Join(parts, "; ") + ","
	}
	return append(warnings, fmt.Sprintf("%s is below %d, what 1394a's gap-count table gives for this bus's %d cable hops "+
		"(4.5 m cables, 144 ns PHY delays): a far node may take the gap after a packet for the subaction's end while "+
		"the acknowledgement is still on its way, and collide with it; a bus manager sets %d", low, want, hops, want))
}

func (w *world) cableName(c resolvedCable) string {
	return fmt.Sprintf("%s:%d–%s:%d", w.nodes[c.a.node].cfg.id, c.a.port, w.nodes[c.b.node].cfg.id, c.b.port)
}

func relative(t, start int64) int64 {
	if t < 0 {
		return -1
	}
	return t - start
}

// snapshot freezes a generation's outcome into its public form.
func (w *world) snapshot(g *generation) Generation {
	out := Generation{
		Index: g.index, StartNs: g.startNs, EndNs: g.endNs, Cause: g.cause, Outcome: g.outcome, Scripted: g.scripted,
		Problems: g.problems, Warnings: g.warnings, SelfIDs: g.selfIDs, Tree: g.tree, Links: g.links, ConfigTimeouts: g.configTimeouts,
		Timing: PhaseTiming{
			ResetEnd:   relative(g.resetEndNs(), g.startNs),
			TreeIDDone: relative(g.treeIDDoneNs(), g.startNs),
			SelfIDDone: relative(g.selfIDEnd, g.startNs),
		},
	}
	if roots := w.rootClaims(g); len(roots) == 1 {
		out.Root = roots[0]
	}
	for _, i := range g.members {
		n := &w.nodes[i]
		r := NodeResult{
			ID: n.cfg.id, PhyID: -1, ParentPort: -1,
			Ports:            slices.Clone(n.m.Ports().Status),
			ContentionRounds: w.roundsSince(n, g.startNs),
			Initiated:        n.m.Initiated(),
			State:            n.state,
		}
		r.PhyID = n.phyID()
		if n.s0At >= g.startNs {
			r.Root, r.ParentPort = n.m.Root(), n.m.ParentPort()
		}
		out.Nodes = append(out.Nodes, r)
	}
	slices.SortStableFunc(out.Nodes, func(a, b NodeResult) int {
		if (a.PhyID < 0) != (b.PhyID < 0) {
			return cmp.Compare(b.PhyID, a.PhyID) // nodes with a phy_ID first
		}
		return cmp.Compare(a.PhyID, b.PhyID)
	})
	out.Contention = w.contentions(g)
	return out
}

// phyID is the phy_ID n took in its generation, -1 before it took one:
// a PHY numbers itself in S4 and keeps the number in A0.
func (n *node) phyID() int {
	if n.state == phy.S4SelfIDTransmit || n.state == phy.A0Idle {
		return n.m.PhyID()
	}
	return -1
}

// appendPhyOrder appends the ids of g's members that took a phy_ID, in
// phy_ID order (members in order where two took the same), as snapshot
// lists them.
func (w *world) appendPhyOrder(dst []string, g *generation) []string {
	type numbered struct {
		phyID int
		id    string
	}
	var ns []numbered
	for _, i := range g.members {
		if n := &w.nodes[i]; n.phyID() >= 0 {
			ns = append(ns, numbered{n.phyID(), n.cfg.id})
		}
	}
	slices.SortStableFunc(ns, func(a, b numbered) int { return cmp.Compare(a.phyID, b.phyID) })
	for _, n := range ns {
		dst = append(dst, n.id)
	}
	return dst
}

// roundsSince counts n's root-contention rounds that began at or after
// startNs: a node that carried on from an interrupted generation keeps the
// rounds it had before this one began.
func (w *world) roundsSince(n *node, startNs int64) int {
	count := 0
	for _, r := range n.election.Rounds() {
		if n.clock.Edge(r.Start) >= startNs {
			count++
		}
	}
	return count
}

// contentions groups the members' root-contention rounds by contended cable.
func (w *world) contentions(g *generation) []Contention {
	byCable := map[int]*Contention{}
	var order []int
	for _, i := range g.members {
		n := &w.nodes[i]
		for _, r := range n.election.Rounds() {
			c := n.cable[r.Port]
			if c < 0 || n.clock.Edge(r.Start) < g.startNs {
				continue // unplugged since, or a round of an earlier generation
			}
			ct := byCable[c]
			if ct == nil {
				cs := w.cables[c]
				ct = &Contention{
					Nodes: [2]string{w.nodes[cs.a.node].cfg.id, w.nodes[cs.b.node].cfg.id},
					Ports: [2]int{cs.a.port, cs.b.port}, StartNs: -1, EndNs: -1,
				}
				byCable[c] = ct
				order = append(order, c)
			}
			start := n.clock.Edge(r.Start) - g.startNs
			ct.Backoffs = append(ct.Backoffs, Backoff{
				Node: n.cfg.id, StartNs: start, Fast: r.Fast,
				WaitNs: n.clock.Edge(r.Start+r.Wait) - n.clock.Edge(r.Start),
			})
			if ct.StartNs < 0 || start < ct.StartNs {
				ct.StartNs = start
			}
		}
	}
	slices.Sort(order)
	var out []Contention
	for _, c := range order {
		ct := byCable[c]
		rounds := map[string]int{}
		for _, b := range ct.Backoffs {
			rounds[b.Node]++
			ct.Rounds = max(ct.Rounds, rounds[b.Node])
		}
		slices.SortStableFunc(ct.Backoffs, func(a, b Backoff) int { return cmp.Compare(a.StartNs, b.StartNs) })
		if parent, endNs := w.contentionEnd(c, g); parent >= 0 {
			ct.Parent, ct.EndNs = w.nodes[parent].cfg.id, endNs
		}
		if len(rounds) == 1 {
			ct.OneSided = w.oneSided(c, ct.Backoffs[0].Node, g)
		}
		out = append(out, *ct)
	}
	return out
}

// notifyPulse is a PARENT_NOTIFY a PHY drove on port from from to to (ns),
// when it saw the other end's and entered root contention.
type notifyPulse struct {
	port     int
	from, to int64
}

// oneSided says why only waiter waited in the root contention on cable c
// in generation g: the other end never sampled both PARENT_NOTIFYs at
// once. Waiter's had already stopped, on its way into the contention, when
// the other end's next clock edge came: either it arrived just after an
// edge, or the other end began its own on an edge (entering T2), sampling
// only at the next. A PHY decides on its clock edges (docs/protocol.md
// §3), and an overlap shorter than a clock period can fall between two.
// "" when that is not what happened.
func (w *world) oneSided(c int, waiter string, g *generation) string {
	cs := w.cables[c]
	x, y := cs.a, cs.b
	if w.nodes[x.node].cfg.id != waiter {
		x, y = y, x
	}
	nx, ny := &w.nodes[x.node], &w.nodes[y.node]
	for _, pulse := range nx.notified {
		if pulse.port != x.port || pulse.from < g.startNs {
			continue
		}
		from, to := pulse.from+cs.delayNs, pulse.to+cs.delayNs // on y's port
		if own := ny.notifyFrom[y.port]; own >= from && own < to {
			// y began its own while waiter's was there: it drove from
			// that edge on and sampled next at the edge after.
			next := ny.clock.Edge(ny.clock.EdgeAtOrAfter(own + 1))
			if next < to {
				return ""
			}
			return fmt.Sprintf("%s did not wait: it began its own PARENT_NOTIFY on %s:%d on its clock edge at %d ns, while %s's, there from %d ns, lasted to %d ns only; its next edge, at %d ns, found it gone: %s never sampled both at once",
				ny.cfg.id, ny.cfg.id, y.port, own, nx.cfg.id, from, to, next, ny.cfg.id)
		}
		k := ny.clock.EdgeAtOrAfter(from)
		if ny.clock.Edge(k) < to {
			return ""
		}
		return fmt.Sprintf("%s did not wait: %s's PARENT_NOTIFY was on %s:%d for %d ns only, from %d ns, just after %s's clock edge at %d ns, to %d ns, its next edge, which found it gone: %s never sampled it",
			ny.cfg.id, nx.cfg.id, ny.cfg.id, y.port, to-from, from, ny.cfg.id, ny.clock.Edge(k-1), to, ny.cfg.id)
	}
	return ""
}

// contentionEnd finds how the root contention on cable c ended in
// generation g: the node that became the parent, and when the child saw its
// handshake (it entered S0), relative to g's start. The parent's end of the
// cable is a child port and the other a parent port. parent is -1 when the
// contention did not resolve.
func (w *world) contentionEnd(c int, g *generation) (parent int, endNs int64) {
	cs := w.cables[c]
	for _, pair := range [2][2]portRef{{cs.a, cs.b}, {cs.b, cs.a}} {
		p, child := &w.nodes[pair[0].node], &w.nodes[pair[1].node]
		if p.m.Ports().Status[pair[0].port] == phy.PortChild &&
			child.m.Ports().Status[pair[1].port] == phy.PortParent && child.s0At >= g.startNs {
			return pair[0].node, child.s0At - g.startNs
		}
	}
	return -1, -1
}
