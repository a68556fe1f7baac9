package election

// The tree algorithm from the leaves: a starter's WAKEUP reaches every
// node; each node waits for a PROPOSAL from all its neighbours but one,
// picks the smallest ID among them and its own, and proposes it to the
// remaining neighbour (a leaf proposes at once). A node that then hears
// from that last neighbour too knows the winner, the smallest ID, and sends
// WINNER to all its other neighbours, who pass it on. It is the echo
// algorithm's saturation looking for the minimum; IEEE 1394 tree identify
// is the same algorithm without IDs.
var treeMin = &algorithm{
	name:      "tree-min",
	summary:   "tree: proposals from the leaves in, the smallest ID wins",
	needs:     needTree,
	mode:      Async,
	types:     []string{"WAKEUP", "PROPOSAL", "WINNER"},
	init:      initFirst,
	announces: always,
	newProc:   func(n *net, v int) process { return newSaturation(n, v, func(a, b int64) bool { return a < b }) },
}
