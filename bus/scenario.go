package bus

import (
	"fmt"

	"github.com/fwsim/fwsim/phy"
)

// scenario carries out scripted event idx. Cable changes reset the bus from
// both ends, as PHYs do when they see a port connect or disconnect; a PHY
// configuration packet changes registers only, and takes effect at the next
// reset.
func (w *world) scenario(idx int) {
	ev := w.topo.events[idx]
	now := w.k.Now()
	switch ev.kind {
	case eventConnect:
		desc := fmt.Sprintf("connect %s (event %d)", w.cableName(w.cables[ev.cable].resolvedCable), idx)
		if d := int64(w.timing.ConnectTimeout); d > 0 {
			w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: fmt.Sprintf("%s: the ports see each other after CONNECT_TIMEOUT, at %d ns", desc, now+d)})
			w.k.Schedule(now+d, simEvent{kind: evConnected, arg: int64(idx)})
			return
		}
		w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc})
		w.cableChanged(ev.cable, idx, desc)
	case eventDisconnect:
		desc := fmt.Sprintf("disconnect %s (event %d)", w.cableName(w.cables[ev.cable].resolvedCable), idx)
		w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc})
		w.cableChanged(ev.cable, idx, desc)
	case eventReset:
		kind := "long"
		if ev.short {
			kind = "short"
		}
		desc := fmt.Sprintf("%s reset from %s (event %d)", kind, w.nodes[ev.node].cfg.id, idx)
		w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[ev.node].cfg.id, Port: -1, Detail: desc})
		w.nodes[ev.node].cause = Cause{Kind: CauseEvent, Node: w.nodes[ev.node].cfg.id, Event: idx, Text: desc}
		if ev.short {
			for j := range w.nodes {
				if w.comp[j] == w.comp[ev.node] {
					w.nodes[j].m.ExpectShortReset()
				}
			}
		}
		w.scheduleInitiate(ev.node, now, ev.short)
	case eventPhyConfig:
		if w.busIdle(ev.node) {
			w.sendPhyConfig(idx)
			return
		}
		w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[ev.node].cfg.id, Port: -1,
			Detail: fmt.Sprintf("PHY config from %s (event %d) waits: the bus is not idle", w.nodes[ev.node].cfg.id, idx)})
		w.waitingConfigs = append(w.waitingConfigs, idx)
	}
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
	ev := w.topo.events[idx]
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
		w.observe(TraceEvent{Kind: TraceScenario, Node: sender, Port: -1, Detail: fmt.Sprintf("PHY config from %s (event %d) not sent%s", sender, idx, note)})
		return
	}
	w.observe(TraceEvent{Kind: TraceScenario, Node: sender, Port: -1,
		Detail: fmt.Sprintf("PHY config %08x from %s (event %d): %s%s", uint32(pc), sender, idx, pc, note)})
	for j := range w.nodes {
		if w.comp[j] == w.comp[ev.node] {
			w.nodes[j].m.ApplyPhyConfig(pc)
		}
	}
}

// sendWaitingConfigs sends, in scripted order, the PHY configuration
// packets waiting for the bus of generation g, which has just become idle.
func (w *world) sendWaitingConfigs(g *generation) {
	kept := w.waitingConfigs[:0]
	for _, idx := range w.waitingConfigs {
		if sender := w.topo.events[idx].node; w.comp[sender] == g.comp && w.busIdle(sender) {
			w.sendPhyConfig(idx)
			continue
		}
		kept = append(kept, idx)
	}
	w.waitingConfigs = kept
}

// connected completes the connect of scripted event idx once its debounce
// (CONNECT_TIMEOUT) has passed.
func (w *world) connected(idx int) {
	desc := fmt.Sprintf("connect %s (event %d)", w.cableName(w.cables[w.topo.events[idx].cable].resolvedCable), idx)
	w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc + ": connection detected"})
	w.cableChanged(w.topo.events[idx].cable, idx, desc)
}

// cableChanged plugs or unplugs cable c, as scripted event idx says, and has
// the PHYs at both ends initiate a bus reset, as a PHY does when a port
// connects or disconnects.
func (w *world) cableChanged(c, idx int, desc string) {
	cs := &w.cables[c]
	if cs.connected {
		w.unplug(c)
	} else {
		w.plug(c)
	}
	w.recomputeComponents()
	w.startCables = false
	for _, end := range []portRef{cs.a, cs.b} {
		// The change itself ends the generation running at each end: a
		// packet on its way across the cable is cut off, whether or not the
		// PHYs have reset yet.
		if g := w.nodes[end.node].gen; g != nil && !g.done {
			g.scripted = true
			w.close(g, OutcomeInterrupted, desc+" at "+fmt.Sprint(w.k.Now())+" ns")
		}
		w.nodes[end.node].cause = Cause{Kind: CauseEvent, Node: w.nodes[end.node].cfg.id, Event: idx, Text: desc}
		w.scheduleInitiate(end.node, w.k.Now(), false)
	}
}
