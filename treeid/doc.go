// Package treeid is the tree-identify election of IEEE 1394 and the tree it
// produces.
//
// # The election
//
// Election runs phases T0–T3 of one PHY (docs/protocol.md §4): a node that has heard
// PARENT_NOTIFY ("be my parent") on every connected port but one acknowledges
// its children with CHILD_NOTIFY and sends PARENT_NOTIFY on the last port; a
// node that hears it on every port is the root. When two neighbours send each
// other PARENT_NOTIFY they are in root contention: both fall silent for a
// random FAST or SLOW back-off (Policy Coin, with a bias) and try again,
// until one hears the other first and becomes its parent. LargerIDWins
// replaces the coin by the lecture notes' deterministic rule. Election
// implements phy.TreeIdentifier; like the PHY around it, it is a pure state
// machine that is handed time and randomness.
//
// # The tree
//
// Build reads a self-ID sequence back into a Tree with the checks Linux's
// firewire core makes (docs/protocol.md §9.3): extended packets in order, phy_IDs in
// sequence, exactly one parent port per non-root node, child ports matching
// the subtrees waiting below. Each failure is its own error, and every one of
// them matches phy.ErrMalformedSelfID. Hops, IRM, GapCount and
// GapCountForHops give what a bus manager derives from the tree.
package treeid
