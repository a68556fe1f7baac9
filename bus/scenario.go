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
	case eventConnect, eventDisconnect:
		cs := w.cables[ev.cable]
		verb, after := "connect", now+int64(w.timing.ConnectTimeout)
		if ev.kind == eventConnect {
			w.plug(ev.cable)
		} else {
			verb, after = "disconnect", now
			w.unplug(ev.cable)
		}
		w.recomputeComponents()
		desc := fmt.Sprintf("%s %s (event %d)", verb, w.cableName(cs.resolvedCable), idx)
		w.observe(TraceEvent{Kind: TraceScenario, Port: -1, Detail: desc})
		for _, end := range []portRef{cs.a, cs.b} {
			w.nodes[end.node].cause = desc
			w.scheduleInitiate(end.node, after, false)
		}
	case eventReset:
		kind := "long"
		if ev.short {
			kind = "short"
		}
		desc := fmt.Sprintf("%s reset from %s (event %d)", kind, w.nodes[ev.node].cfg.id, idx)
		w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[ev.node].cfg.id, Port: -1, Detail: desc})
		w.nodes[ev.node].cause = desc
		if ev.short {
			for j := range w.nodes {
				if w.comp[j] == w.comp[ev.node] {
					w.nodes[j].m.ExpectShortReset()
				}
			}
		}
		w.scheduleInitiate(ev.node, now, ev.short)
	case eventPhyConfig:
		root := 0
		if ev.root >= 0 {
			root = w.nodes[ev.root].m.PhyID()
		}
		pc, err := phy.NewPhyConfig(root, ev.root >= 0, ev.gapCount >= 0, max(ev.gapCount, 0))
		if err != nil {
			// resolve checked the gap count and phy_IDs are 6-bit: unreachable.
			panic(fmt.Sprintf("bus: PHY config of event %d: %v", idx, err))
		}
		w.observe(TraceEvent{Kind: TraceScenario, Node: w.nodes[ev.node].cfg.id, Port: -1,
			Detail: fmt.Sprintf("PHY config %08x from %s (event %d): %s", uint32(pc), w.nodes[ev.node].cfg.id, idx, pc)})
		for j := range w.nodes {
			if w.comp[j] == w.comp[ev.node] {
				w.nodes[j].m.ApplyPhyConfig(pc)
			}
		}
	}
}
