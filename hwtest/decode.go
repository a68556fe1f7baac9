package hwtest

import (
	"errors"
	"fmt"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// maxHops is the standard's limit on cable hops between two nodes (docs/protocol.md §9.4).
const maxHops = 16

// Bus is what one generation of a capture says about the bus, with every
// problem the checks of a consumer find (docs/protocol.md §9.3).
type Bus struct {
	Generation
	// Nodes are the decoded nodes in phy_ID order; empty when the packets
	// do not even split into nodes (an inconsistent extended sequence).
	Nodes []Node
	// Tree is the bus read back with the Linux checks; nil when they
	// reject the self-IDs, and then Root, Hops, IRM and GapForHops are -1.
	Tree       *treeid.Tree
	Root       int
	Hops       int
	IRM        int
	GapForHops int // the gap count a bus manager would set for Hops
	// GapCount is the gap count all nodes report; GapConsistent is false
	// when they differ (GapCount is then 0, Linux's convention).
	GapCount      int
	GapConsistent bool
	// Problems lists what reading the capture and the checks found, in
	// that order. A bus without problems is consistent.
	Problems []Problem
}

// Node is one node of a decoded bus.
type Node struct {
	phy.SelfIDInfo
	Packets []phy.SelfID
	Index   int // stream index of the node's packet #0
	// Parent and ParentPort are -1 for the root or when there is no tree;
	// Children are in ascending port order.
	Parent     int
	ParentPort int
	Children   []treeid.Link
}

// Consistent reports a bus with no problems.
func (b *Bus) Consistent() bool { return len(b.Problems) == 0 }

// Decode checks one generation: the self-IDs split into nodes, the tree the
// Linux checks build from them, hops, IRM and gap counts. The nodes share
// the tree's decoded fields and packets, and without a tree the
// generation's packets: a capture's buses are kept for its report, and a
// second copy of each would double what they take.
func Decode(g Generation) *Bus {
	b := &Bus{Generation: g, Root: -1, Hops: -1, IRM: -1, GapForHops: -1}
	b.Problems = append([]Problem(nil), g.Problems...)
	tree, err := treeid.Build(g.SelfIDs)
	switch {
	case err == nil:
		b.Nodes = make([]Node, len(tree.Nodes))
		index := 0
		for id, n := range tree.Nodes {
			b.Nodes[id] = Node{SelfIDInfo: n.Info, Packets: n.Packets, Index: index, Parent: n.Parent, ParentPort: n.ParentPort, Children: n.Children}
			index += len(n.Packets)
		}
	default:
		b.Problems = append(b.Problems, buildProblem(err))
		// The groups are capped slices of g.SelfIDs: appending to one
		// cannot overwrite the next.
		if groups, err := phy.SplitSelfIDs(g.SelfIDs); err == nil {
			index := 0
			for _, packets := range groups {
				info, _ := phy.DecodeSelfIDInfo(packets) // SplitSelfIDs checked the group
				b.Nodes = append(b.Nodes, Node{SelfIDInfo: info, Packets: packets, Index: index, Parent: -1, ParentPort: -1})
				index += len(packets)
			}
		}
	}
	b.checkGapCounts()
	if tree == nil {
		return b
	}
	b.Tree = tree
	b.Root, b.Hops, b.IRM = tree.Root, tree.Hops(), tree.IRM()
	b.GapForHops = treeid.GapCountForHops(b.Hops)
	if b.Hops > maxHops {
		b.Problems = append(b.Problems, Problem{Check: "hops", Node: -1, Index: -1,
			Message: fmt.Sprintf("%d cable hops between the farthest nodes; the standard allows %d", b.Hops, maxHops)})
	}
	return b
}

// buildProblem turns an error of treeid.Build into a Problem.
func buildProblem(err error) Problem {
	var se *phy.SelfIDError
	if errors.As(err, &se) {
		return Problem{Check: se.Err.Error(), Node: se.Node, Index: se.Index, Quadlet: uint32(se.Quadlet), Message: se.Detail}
	}
	return Problem{Check: err.Error(), Node: -1, Index: -1, Message: "the capture has no self-ID packets"}
}

// checkGapCounts sets GapCount and flags every node whose gap count differs
// from the most common one: mismatched gap counts are illegal (docs/protocol.md §9.2).
func (b *Bus) checkGapCounts() {
	if len(b.Nodes) == 0 {
		return
	}
	votes := map[int]int{}
	common := b.Nodes[0].GapCount
	for _, n := range b.Nodes {
		votes[n.GapCount]++
		if v := votes[n.GapCount]; v > votes[common] || (v == votes[common] && n.GapCount < common) {
			common = n.GapCount
		}
	}
	if len(votes) == 1 {
		b.GapCount, b.GapConsistent = common, true
		return
	}
	for _, n := range b.Nodes {
		if n.GapCount != common {
			b.Problems = append(b.Problems, Problem{Check: "gap count", Node: n.PhyID, Index: n.Index, Quadlet: uint32(n.Packets[0]),
				Message: fmt.Sprintf("phy %d has gap count %d; the most common one is %d (%d of %d nodes)", n.PhyID, n.GapCount, common, votes[common], len(b.Nodes))})
		}
	}
}
