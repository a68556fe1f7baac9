package hwtest

import (
	"errors"
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
// (named by NodeName) with the self-ID fields, its port count up to its
// highest present port, and one cable per parent–child link, the observed
// root with force_root set so that the file alone gives back the same tree.
// Cable lengths are unknown and left at the default. It also returns the
// observed root and the nodes whose i bit is set, the reset's initiators,
// which the file format cannot hold: Cross takes them from the capture.
func (b *Bus) Topology() (t *bus.Topology, root string, initiators []string, err error) {
	if b.Tree == nil {
		return nil, "", nil, ErrNoTree
	}
	t = &bus.Topology{Profile: "1394-1995"}
	for _, n := range b.Nodes {
		ports := 1
		for p, st := range n.Ports {
			if st != phy.PortAbsent {
				ports = p + 1
			}
		}
		node := bus.Node{
			ID: NodeName(n.PhyID), Ports: ports, Speed: n.Speed.String(),
			Contender: n.Contender, PowerClass: n.PowerClass, ForceRoot: n.PhyID == b.Root,
		}
		if !n.LinkActive {
			node.Link = new(bool)
		}
		if n.GapCount != 63 {
			node.GapCount = new(n.GapCount)
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
