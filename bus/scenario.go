package bus

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/phy"
)

// scenario carries out scripted event idx. Cable changes reset the bus from
// both ends, as PHYs do when they see a port connect or disconnect; a PHY
// configuration packet changes registers only, and takes effect at the next
// reset.
func (w *world) scenario(idx int) {
	ev := w.runEvents[idx]
	now := w.k.Now()
	switch ev.kind {
	case eventConnect:
		desc := fmt.Sprintf("connect %s (%s)", w.cableName(w.cables[ev.cable].resolvedCable), w.eventName(idx))
		// Each end debounces its port; the ports see each other once both
		// have (a 1394-1995 PHY at once).
		c := w.cables[ev.cable]
		if d := int64(max(w.nodes[c.a.node].phy.Timing.ConnectTimeout, w.nodes[c.b.node].phy.Timing.ConnectTimeout)); d > 0 {
			w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: fmt.Sprintf("%s: the ports see each other after CONNECT_TIMEOUT, at %d ns", desc, now+d)})
			w.k.Schedule(now+d, simEvent{kind: evConnected, arg: int64(idx)})
			return
		}
		w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc})
		w.cableChanged(ev.cable, idx, desc)
	case eventDisconnect:
		desc := fmt.Sprintf("disconnect %s (%s)", w.cableName(w.cables[ev.cable].resolvedCable), w.eventName(idx))
		w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc})
		w.cableChanged(ev.cable, idx, desc)
	case eventReset:
		if ev.short {
			w.arbitrate(idx)
			return
		}
		w.reset(idx, false, "")
	case eventPhyConfig:
		w.arbitrate(idx)
	}
}

// reset has the node of scripted reset idx initiate it, short or long; why
// says why a long reset was scripted short, "" when it was not.
func (w *world) reset(idx int, short bool, why string) {
	ev := w.runEvents[idx]
	n := &w.nodes[ev.node]
	kind := "long"
	if short {
		kind = "short"
	}
	desc := fmt.Sprintf("%s reset from %s (%s)%s", kind, n.cfg.id, w.eventName(idx), why)
	w.observe(TraceEvent{Kind: TraceScenario, Node: n.cfg.id, Port: -1, Detail: desc})
	n.cause = Cause{Kind: CauseEvent, Node: n.cfg.id, Event: idx, Text: desc}
	if idx >= len(w.topo.events) {
		n.cause.Kind, n.cause.Event = CauseManager, -1
	}
	if !short {
		w.overtakeShortResets(ev.node)
	}
	w.scheduleInitiate(ev.node, w.k.Now(), short)
}

// overtakeShortResets drops the short resets of node i's bus that were won
// but not yet begun, and every PHY's mark that its next BUS_RESET is short:
// a long reset of that bus comes first, scripted or begun at the same
// time, and a PHY takes a long reset over a short one (1394a's IBR over
// ISBR), so every PHY's next reset is long.
func (w *world) overtakeShortResets(i int) {
	for j := range w.nodes {
		if w.comp[j] != w.comp[i] {
			continue
		}
		if w.nodes[j].shortPending {
			w.nodes[j].shortPending = false
			w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[j].cfg.id, Port: -1,
				Detail: fmt.Sprintf("the short reset from %s waiting for its clock edge gives way to a long reset", w.nodes[j].cfg.id)})
		}
		w.nodes[j].m.ForgetShortReset()
	}
}

// arbitrate sends scripted event idx, a PHY configuration packet or a short
// reset, which a PHY sends only once it has won the bus: at once on an idle
// bus, else once the bus is idle (sendWaiting). A 1394a PHY that cannot win
// the bus for a short reset within MAX_ARB_STATE_TIME of idling in A0
// initiates a long reset instead (arbTimeout).
func (w *world) arbitrate(idx int) {
	ev := w.runEvents[idx]
	if w.busIdle(ev.node) {
		w.win(idx)
		return
	}
	what := "PHY config"
	if ev.kind == eventReset {
		what = "short reset"
	}
	w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[ev.node].cfg.id, Port: -1,
		Detail: fmt.Sprintf("%s from %s (%s) waits: the bus is not idle", what, w.nodes[ev.node].cfg.id, w.eventName(idx))})
	w.waiting = append(w.waiting, idx)
	w.armShortReset(idx)
}

// win sends scripted event idx, whose PHY has won the idle bus. A short
// reset tells every other PHY of the bus, all idle, that the BUS_RESET it
// sees next is short.
func (w *world) win(idx int) {
	ev := w.runEvents[idx]
	if ev.kind == eventPhyConfig {
		w.sendPhyConfig(idx)
		return
	}
	for j := range w.nodes {
		if w.comp[j] == w.comp[ev.node] {
			w.nodes[j].m.ExpectShortReset()
		}
	}
	w.reset(idx, true, "")
}

// armShortResets arms the fallback of every short reset waiting for node
// i's bus that node i sends, now that it idles in A0.
func (w *world) armShortResets(i int) {
	for _, idx := range w.waiting {
		if w.runEvents[idx].node == i {
			w.armShortReset(idx)
		}
	}
}

// armShortReset schedules the fallback of waiting short reset idx for
// MAX_ARB_STATE_TIME after its PHY last entered A0, when it is idle there
// (a 1394-1995 PHY, which has no short reset, has no watchdog either).
func (w *world) armShortReset(idx int) {
	ev := w.runEvents[idx]
	n := &w.nodes[ev.node]
	if d := int64(n.phy.Timing.MaxArbStateTime); ev.kind == eventReset && d > 0 && n.state == phy.A0Idle {
		w.k.Schedule(max(n.a0At+d, w.k.Now()), simEvent{kind: evArbTimeout, node: int32(ev.node), arg: int64(idx)})
	}
}

// arbTimeout is the fallback of waiting short reset idx: its PHY has idled
// in A0 for MAX_ARB_STATE_TIME without winning the bus, and initiates a
// long reset instead, as the state machine's timeout from A0 does. A PHY
// that left A0 since re-arms it when it returns.
func (w *world) arbTimeout(idx int) {
	k := slices.Index(w.waiting, idx)
	ev := w.runEvents[idx]
	n := &w.nodes[ev.node]
	if k < 0 || n.state != phy.A0Idle || w.k.Now()-n.a0At < int64(n.phy.Timing.MaxArbStateTime) {
		return
	}
	w.lastActive = w.k.Now()
	w.waiting = slices.Delete(w.waiting, k, k+1)
	w.reset(idx, false, ": its short reset won no arbitration within MAX_ARB_STATE_TIME")
}

// busIdle reports whether node i's bus is in normal arbitration, where a
// link can send a packet: its last initialisation finished self identify
// and every PHY on it is idle in A0.
func (w *world) busIdle(i int) bool {
	g := w.nodes[i].gen
	if g == nil || !g.done || (g.outcome != OutcomeOK && g.outcome != OutcomeInconsistent) || w.openGen[w.comp[i]] != nil {
		return false
	}
	for j := range w.nodes {
		if w.comp[j] == w.comp[i] && w.nodes[j].state != phy.A0Idle {
			return false
		}
	}
	return true
}

// sendPhyConfig sends the PHY configuration packet of scripted event idx on
// its sender's idle bus: every PHY there applies it (R = 1: the named
// root's PHY, by its phy_ID, sets RHB and every other clears it; T = 1:
// every PHY writes the gap count). It resets nothing.
func (w *world) sendPhyConfig(idx int) {
	ev := w.runEvents[idx]
	sender := w.nodes[ev.node].cfg.id
	root, note := 0, ""
	if ev.root >= 0 {
		if w.comp[ev.root] == w.comp[ev.node] {
			root = w.nodes[ev.root].m.PhyID()
		} else {
			note = fmt.Sprintf("; %s is not on the sender's bus, so no node is forced root", w.nodes[ev.root].cfg.id)
		}
	}
	// resolve checked the gap count, and a phy_ID has 6 bits.
	pc, _ := phy.NewPhyConfig(root, ev.root >= 0 && note == "", ev.gapCount >= 0, max(ev.gapCount, 0))
	if pc == 0 { // R = T = 0 would be an extended packet: nothing is left to send
		w.observe(TraceEvent{Kind: TraceScenario, Node: sender, Port: -1, Detail: fmt.Sprintf("PHY config from %s (%s) not sent%s", sender, w.eventName(idx), note)})
		return
	}
	w.observe(TraceEvent{Kind: TraceScenario, Node: sender, Port: -1,
		Detail: fmt.Sprintf("PHY config %08x from %s (%s): %s%s", uint32(pc), sender, w.eventName(idx), pc, note)})
	for j := range w.nodes {
		switch {
		case j == ev.node:
			w.nodes[j].m.SendPhyConfig(pc)
		case w.comp[j] == w.comp[ev.node]:
			w.nodes[j].m.ApplyPhyConfig(pc)
		}
	}
}

// sendWaiting sends, in scripted order, the PHY configuration packets and
// short resets waiting for the bus of generation g, which has just become
// idle. A short reset takes the bus: what comes after it waits for the
// next idle bus.
func (w *world) sendWaiting(g *generation) {
	kept := w.waiting[:0]
	busy := false
	for _, idx := range w.waiting {
		ev := w.runEvents[idx]
		if sender := ev.node; busy || w.comp[sender] != g.comp || !w.busIdle(sender) {
			kept = append(kept, idx)
			continue
		}
		w.win(idx)
		busy = ev.kind == eventReset
	}
	w.waiting = kept
}

// connected completes the connect of scripted event idx once its debounce
// (CONNECT_TIMEOUT) has passed.
func (w *world) connected(idx int) {
	desc := fmt.Sprintf("connect %s (%s)", w.cableName(w.cables[w.runEvents[idx].cable].resolvedCable), w.eventName(idx))
	w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc + ": connection detected"})
	w.cableChanged(w.runEvents[idx].cable, idx, desc)
}

// cableChanged plugs or unplugs cable c, as scripted event idx says, and has
// the PHYs at both ends initiate a bus reset, as a PHY does when a port
// connects or disconnects.
func (w *world) cableChanged(c, idx int, desc string) {
	cs := &w.cables[c]
	// The change itself ends the generation running at each end, as it
	// stood with the cable: a packet on its way across the cable is cut
	// off, whether or not the PHYs have reset yet.
	w.interruptAt([]int{cs.a.node, cs.b.node}, desc, true)
	if cs.connected {
		w.unplug(c)
	} else {
		w.plug(c)
	}
	w.recomputeComponents()
	w.startCables = false
	for j := range w.nodes {
		if w.comp[j] == w.comp[cs.a.node] || w.comp[j] == w.comp[cs.b.node] {
			w.nodes[j].m.ForgetShortReset() // the resets that come are long
		}
	}
	for _, end := range []portRef{cs.a, cs.b} {
		w.nodes[end.node].cause = Cause{Kind: CauseEvent, Node: w.nodes[end.node].cfg.id, Event: idx, Text: desc}
		w.scheduleInitiate(end.node, w.k.Now(), false)
	}
}

// interruptAt ends, interrupted by why at this instant, the generation
// running at each of nodes; scripted marks it as the scenario's doing.
func (w *world) interruptAt(nodes []int, why string, scripted bool) {
	for _, i := range nodes {
		if g := w.nodes[i].gen; g != nil && !g.done {
			g.scripted = g.scripted || scripted
			w.close(g, OutcomeInterrupted, fmt.Sprintf("%s at %d ns", why, w.k.Now()))
		}
	}
}
