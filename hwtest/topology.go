package hwtest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// ErrNoTree reports a bus whose self-IDs the Linux checks reject: there is
// no topology to build from it.
var ErrNoTree = errors.New("the self-IDs do not form a tree (see the problems decode reports)")

// NodeName is the topology id of the node with phy_ID id: node-a for 0,
// node-z for 25, node-aa for 26, and so on. Letters, not the number, so
// that a diff never shows a name that reads as a different emulated phy_ID.
func NodeName(id int) string {
	var s []byte
	for n := id + 1; n > 0; n = (n - 1) / 26 {
		s = append([]byte{byte('a' + (n-1)%26)}, s...)
	}
	return "node-" + string(s)
}

// Topology turns the bus into a topology file's content: one node per phy_ID
// (named by NodeName) with the self-ID fields and the PHY generation its
// self-IDs show (PHYs), its port count up to its highest present port, and
// one cable per parent–child link. No node has force_root: which node wins
// tree identify is left to the emulation, as it was to the real bus. Cable
// lengths are unknown and left at the default. It also returns the
// observed root and the nodes whose i bit is set, the reset's initiators,
// which the file format cannot hold: Cross takes them from the capture.
func (b *Bus) Topology() (t *bus.Topology, root string, initiators []string, err error) {
	if b.Tree == nil {
		return nil, "", nil, ErrNoTree
	}
	phys := b.PHYs()
	t = &bus.Topology{Profile: busProfile(phys)}
	for k, n := range b.Nodes {
		ports := 1
		for p, st := range n.Ports {
			if st != phy.PortAbsent {
				ports = p + 1
			}
		}
		node := bus.Node{
			ID: NodeName(n.PhyID), Ports: ports, Speed: n.Speed.String(),
			Contender: n.Contender, PowerClass: n.PowerClass,
		}
		if !n.LinkActive {
			node.Link = new(bool)
		}
		if n.GapCount != 63 {
			node.GapCount = new(n.GapCount)
		}
		if g := phys[k].Generation; g != t.Profile {
			node.PHY = g
		}
		t.Nodes = append(t.Nodes, node)
		for _, l := range n.Children {
			t.Cables = append(t.Cables, bus.Cable{
				From: NodeName(n.PhyID) + ":" + strconv.Itoa(l.Port),
				To:   NodeName(l.Child) + ":" + strconv.Itoa(l.ChildPort),
			})
		}
		if n.InitiatedReset {
			initiators = append(initiators, NodeName(n.PhyID))
		}
	}
	return t, NodeName(b.Root), initiators, nil
}

// The PHY generations a capture can show, by the names of bus.Node.PHY,
// from the oldest.
const (
	PHY1995  = "1394-1995"
	PHY1394a = "1394a-2000"
	PHY1394b = "1394b-2002"
)

var phyRank = []string{PHY1995, PHY1394a, PHY1394b}

// PHYGeneration is the generation of a node's PHY, as far as its self-IDs
// tell.
type PHYGeneration struct {
	Generation string // PHY1995, PHY1394a or PHY1394b
	// Evidence is the self-ID field that shows it; "" when none does and
	// the generation is the one PHYs gives such nodes.
	Evidence string
}

// PHYs gives each node's PHY generation, in phy_ID order. A self-ID shows
// two things (docs/hardware.md says on what they rest): sp = 11, the
// S800 "beta" code, which only a 1394b PHY sends; and a 1394-1995 PHY by
// a del field other than 0 (1394a and 1394b reserve those bits as 0) or a
// port numbered 16 or more (1394a and 1394b PHYs have at most 16). No field
// tells a 1394a PHY from a 1394-1995 one otherwise, nor a 1394b PHY that
// reports S400 or less. A node that shows nothing is taken as 1394a-2000
// when the bus has a 1394b PHY (a bus of 1394a's time or later), as
// 1394-1995, the emulator's default, otherwise.
func (b *Bus) PHYs() []PHYGeneration {
	out := make([]PHYGeneration, len(b.Nodes))
	newest := -1
	for k, n := range b.Nodes {
		out[k] = phyEvidence(n)
		newest = max(newest, slices.Index(phyRank, out[k].Generation))
	}
	unknown := PHY1995
	if newest == slices.Index(phyRank, PHY1394b) {
		unknown = PHY1394a
	}
	for k := range out {
		if out[k].Generation == "" {
			out[k].Generation = unknown
		}
	}
	return out
}

// phyEvidence is what n's self-IDs show of its PHY's generation; an empty
// Generation when they show nothing.
func phyEvidence(n Node) PHYGeneration {
	if n.Speed == phy.S800 {
		return PHYGeneration{PHY1394b, "sp = 11 (S800, the 1394b beta code)"}
	}
	if n.Delay != 0 {
		return PHYGeneration{PHY1995, fmt.Sprintf("del = %d (1394a and 1394b reserve it as 0)", n.Delay)}
	}
	for p := len(n.Ports) - 1; p >= 16; p-- {
		if n.Ports[p] != phy.PortAbsent {
			return PHYGeneration{PHY1995, fmt.Sprintf("port %d (1394a and 1394b PHYs have 16 at most)", p)}
		}
	}
	return PHYGeneration{}
}

// busProfile is the most common generation of phys that fwsim has a
// timing profile of (the newer on a tie), 1394-1995 when none has one:
// the nodes of another generation carry theirs in bus.Node.PHY.
func busProfile(phys []PHYGeneration) string {
	votes := map[string]int{}
	best := ""
	for _, g := range phys {
		if _, err := phy.LookupProfile(g.Generation); err != nil {
			continue
		}
		votes[g.Generation]++
		if v := votes[g.Generation]; best == "" || v > votes[best] ||
			v == votes[best] && slices.Index(phyRank, g.Generation) > slices.Index(phyRank, best) {
			best = g.Generation
		}
	}
	if best == "" {
		return PHY1995
	}
	return best
}
