package election

import "slices"

// The tree algorithm from the leaves: a starter's WAKEUP reaches every
// node; each node waits for a PROPOSAL from all its neighbours but one,
// picks the smallest ID among them and its own, and proposes it to the
// remaining neighbour (a leaf proposes at once). A node that then hears
// from that last neighbour too knows the winner, the smallest ID, and sends
// WINNER to all its other neighbours, who pass it on. It is the echo
// algorithm's saturation looking for the minimum; IEEE 1394 tree identify
// is the same algorithm without IDs.
//
// Under failures the notes adapt the tree and resend proposals. A node
// holds a connection to each neighbour and learns at once when one breaks
// (netsim.LinkWatcher), and takes the crashed neighbour out of its tree:
// it no longer waits for its proposal, and drops the proposal it had from
// it. A node that has proposed and whose side's best ID changed so resends
// its proposal; a node whose proposal port broke heard from every other
// live neighbour, and knows the winner of what remains (it is a core). A
// core whose winner changed tells its neighbours again. A crash cuts a
// tree of cables in parts, each of which elects its own smallest ID; the
// live nodes agree on one when the crashed node was a leaf.
var treeMin = &algorithm{
	name:      "tree-min",
	summary:   "tree: proposals from the leaves in, the smallest ID wins; --crash repairs",
	needs:     needTree,
	mode:      Async,
	types:     []string{"WAKEUP", "PROPOSAL", "WINNER"},
	init:      initFirst,
	faults:    true,
	announces: always,
	newProc:   func(n *net, v int) process { return newSaturation(n, v, func(a, b int64) bool { return a < b }) },
	report:    treeReport,
}

// linkDown takes the crashed neighbour on port out of the node's tree.
func (s *saturation) linkDown(n *net, v, port int) {
	s.ports[port].down = true
	switch {
	case !s.awake: // it will count its live ports when woken
	case s.sentOn < 0: // one proposal fewer to wait for
		s.propose(n, v)
	case port != s.sentOn: // a neighbour that proposed: its part is gone
		s.repair(n, v)
	case !s.known: // every other live neighbour proposed: a core now
		s.decide(n, v)
	default: // its winner came from beyond the crashed node
		s.core = true
		s.repair(n, v)
	}
}

// repair follows a change of the proposals a node holds: once it proposed,
// it resends its proposal if its side's best ID changed, and a
// core tells its other neighbours again if the winner changed.
func (s *saturation) repair(n *net, v int) {
	if s.sentOn >= 0 && !s.ports[s.sentOn].down {
		if best, _ := s.bestBut(n, v, s.sentOn); best != s.proposed {
			s.sendProposal(n, v)
			n.repairs++
		}
	}
	if best, _ := s.bestBut(n, v, -1); s.core && best != s.best {
		n.repairs += s.decide(n, v)
	}
}

// TreeBound is tree-min's time against the notes' h·RTT: the election
// proper takes at most h round trips, h the height of the tree hung from
// the core (where the last proposals meet), once the wake-up has reached
// every node.
type TreeBound struct {
	// Core are the nodes that learnt the winner from proposals rather than
	// from a WINNER, in the leader's part of the tree.
	Core []string
	// Height is h: the most cables from a core node to a live node.
	Height int
	// Wakeup is the most cables from the starters to a node: the wake-up
	// phase, in delays.
	Wakeup int
	// Bound is Wakeup + h·RTT, RTT = 2 delays, in delays.
	Bound float64
	// Repairs counts the proposals and winners sent again after crashes.
	Repairs int
}

// RTT is a round trip in delays: the longest a message takes, there and
// back.
const RTT = 2

// treeReport fills res.Tree for an asynchronous run that elected a leader.
func treeReport(n *net, res *Result) {
	if n.Sync() || res.Leader == "" {
		return
	}
	live := func(v int) bool { return !n.Crashed(v) }
	var starters []int
	for _, name := range res.Initiators {
		starters = append(starters, slices.Index(n.g.Nodes, name))
	}
	part := hops(n, []int{slices.Index(n.g.Nodes, res.Leader)}, live)
	tb := &TreeBound{Wakeup: slices.Max(hops(n, starters, func(int) bool { return true })), Repairs: n.repairs}
	for v, p := range n.procs {
		if s := p.(*saturation); s.core && live(v) && part[v] >= 0 {
			tb.Core = append(tb.Core, n.g.Nodes[v])
			tb.Height = max(tb.Height, slices.Max(hops(n, []int{v}, live)))
		}
	}
	tb.Bound = float64(tb.Wakeup + tb.Height*RTT)
	res.Tree = tb
}

// hops is the distance in cables from the nearest of from to every vertex,
// through vertices that pass ok; -1 for those it cannot reach.
func hops(n *net, from []int, ok func(v int) bool) []int {
	dist := make([]int, len(n.g.Nodes))
	for v := range dist {
		dist[v] = -1
	}
	queue := append(make([]int, 0, len(dist)), from...)
	for _, v := range from {
		dist[v] = 0
	}
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		for _, h := range n.g.Adj[v] {
			if dist[h.Peer] < 0 && ok(h.Peer) {
				dist[h.Peer] = dist[v] + 1
				queue = append(queue, h.Peer)
			}
		}
	}
	return dist
}
