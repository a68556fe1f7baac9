package treeid

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/phy"
)

// Tree is a bus topology read back from its self-ID packets.
type Tree struct {
	Nodes []Node // indexed by phy_ID, so children come before their parents
	Root  int    // phy_ID of the root, the highest
}

// Node is one PHY of a Tree.
type Node struct {
	Info       phy.SelfIDInfo
	Packets    []phy.SelfID // the node's self-ID packets, as received
	Parent     int          // phy_ID of the parent, -1 for the root
	ParentPort int          // this node's port toward its parent, -1 for the root
	Children   []Link       // in ascending port order
}

// Link is a cable from a parent to a child.
type Link struct {
	Port      int // the parent's port
	Child     int // the child's phy_ID
	ChildPort int // the child's port toward the parent
}

// maxNodes is the 63 nodes a bus can hold (phy_ID 63 is broadcast).
const maxNodes = 63

// Build reads a tree from a self-ID stream (inverse quadlets removed) the way
// Linux's build_tree does (docs/protocol.md §9.3): nodes come in phy_ID order, each subtree
// waits on a stack until its parent claims it, and a node's child ports take
// the waiting subtrees in order, the most recent on the highest port. A
// stream Linux would reject is an error: a *phy.SelfIDError wrapping one of
// this package's Err values (checked in Linux's order) or
// phy.ErrInconsistentExtended. Mismatched gap counts are not an error; see
// GapCount.
func Build(quadlets []phy.SelfID) (*Tree, error) {
	if len(quadlets) == 0 {
		return nil, ErrNoSelfIDs
	}
	// Copied so the tree does not alias the caller's buffer.
	groups, err := phy.SplitSelfIDs(slices.Clone(quadlets))
	if err != nil {
		return nil, err
	}
	size := min(len(groups), maxNodes) // a longer stream fails at node 63
	t := &Tree{Nodes: make([]Node, 0, size), Root: len(groups) - 1}
	// Each child port pops one subtree and each subtree is popped once, so
	// the links fit in one array of nodes−1.
	links := make([]Link, size-1)
	var stack []int // roots of subtrees waiting for a parent, oldest first
	index := 0      // stream index of the current node's packet #0
	for id, g := range groups {
		if id == maxNodes {
			return nil, nodeError(ErrTooManyNodes, id, index, g, "%d nodes", len(groups))
		}
		info, err := phy.DecodeSelfIDInfo(g)
		if err != nil {
			return nil, err
		}
		if info.PhyID != id {
			return nil, nodeError(ErrPhyIDMismatch, id, index, g, "phy_ID %d, want %d", info.PhyID, id)
		}
		t.Nodes = append(t.Nodes, Node{Info: info, Packets: g, Parent: -1, ParentPort: -1})
		n := &t.Nodes[id]
		children, parents := 0, 0
		for p, st := range info.Ports {
			switch st {
			case phy.PortChild:
				children++
			case phy.PortParent:
				parents++
				n.ParentPort = p
			}
		}
		if children > len(stack) {
			return nil, nodeError(ErrStackUnderflow, id, index, g, "%d child ports, %d subtrees waiting", children, len(stack))
		}
		if want := min(t.Root-id, 1); parents != want { // the root has none
			return nil, nodeError(ErrParentPortInconsistency, id, index, g, "%d parent ports, want %d", parents, want)
		}
		waiting := stack[len(stack)-children:]
		if children > 0 {
			n.Children, links = links[:0:children], links[children:]
		}
		for p, st := range info.Ports {
			if st == phy.PortChild {
				c := waiting[0]
				waiting = waiting[1:]
				t.Nodes[c].Parent = id
				n.Children = append(n.Children, Link{Port: p, Child: c, ChildPort: t.Nodes[c].ParentPort})
			}
		}
		stack = append(stack[:len(stack)-children], id)
		index += len(g)
	}
	if len(stack) > 1 {
		root := t.Nodes[t.Root].Packets
		return nil, nodeError(ErrUnattachedSubtrees, t.Root, index-len(root), root,
			"subtrees rooted at phy %v have no parent", stack[:len(stack)-1])
	}
	return t, nil
}

// nodeError is Build's error for node id, whose packets g start at stream
// index.
func nodeError(kind error, id, index int, g []phy.SelfID, format string, args ...any) error {
	return &phy.SelfIDError{Index: index, Quadlet: g[0], Node: id, Err: kind, Detail: fmt.Sprintf(format, args...)}
}

// Hops is the bus diameter: the most cable hops between any two nodes, which
// sets the gap count (GapCountForHops). It relies on children having lower
// phy_IDs than their parents, as in every tree Build returns.
func (t *Tree) Hops() int {
	depth := make([]int, len(t.Nodes)) // hops from a node down to its deepest leaf
	hops := 0
	for id, n := range t.Nodes {
		d1, d2 := -1, -1 // the two deepest child subtrees
		for _, l := range n.Children {
			switch d := depth[l.Child]; {
			case d > d1:
				d1, d2 = d, d1
			case d > d2:
				d2 = d
			}
		}
		depth[id] = d1 + 1
		hops = max(hops, d1+d2+2)
	}
	return hops
}

// IRM is the isochronous resource manager: the contender (c) with the
// highest phy_ID among those whose link is active (L), or -1 if none. Linux
// takes c alone, then has to recover when the chosen node's link is off; we
// follow Apple and FreeBSD in also requiring L (docs/protocol.md §9.2), because the IRM's
// registers live in the link and a node with its link off cannot answer.
func (t *Tree) IRM() int {
	for id := len(t.Nodes) - 1; id >= 0; id-- {
		if info := t.Nodes[id].Info; info.Contender && info.LinkActive {
			return id
		}
	}
	return -1
}

// GapCount is the gap count all nodes report, and true. When they differ
// (illegal, and a cause of real field failures, docs/protocol.md §9.2) it is 0 and false:
// Linux's convention, since 0 is no usable gap count and prompts a bus manager
// to send a PHY configuration packet.
func (t *Tree) GapCount() (gap int, consistent bool) {
	if len(t.Nodes) == 0 {
		return 0, false
	}
	gap = t.Nodes[0].Info.GapCount
	for _, n := range t.Nodes[1:] {
		if n.Info.GapCount != gap {
			return 0, false
		}
	}
	return gap, true
}
