package election

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/testenv"
	"github.com/fwsim/fwsim/lab/netsim"
)

// The start-up costs every node a REGISTER and the registry's NODES, every
// cable one CONNECT and one ACCEPT (the later of its two nodes connects),
// and every node but the root one CHILD; the echo on the tree then sends
// EXPLORER, ECHO and LEADER once down or up each of its N−1 edges:
// 2N + 2E + 4(N−1). Every node's level is its distance from the root, and
// its parent one cable nearer: the nodes join in breadth-first order.
func TestVirtualTreeStartUp(t *testing.T) {
	for _, spec := range []string{"chain:1", "pair", "ring:2", "ring:7", "chain:6", "star:6", "tree:20:4", "complete:6", "tree:63:1"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		g, err := netsim.NewGraph(topo)
		require.NoError(t, err)
		hops := g.Hops(0)
		n, e := len(topo.Nodes), len(topo.Cables)
		for seed := range uint64(3) {
			res := elect(t, spec, Options{Algo: "virtual-tree", IDOrder: Random, Seed: seed, UnitDelays: seed == 0, Trace: true})
			where := fmt.Sprintf("%s seed %d", spec, seed)
			assert.Equal(t, n, res.Messages.Count("REGISTER"), where)
			assert.Equal(t, n, res.Messages.Count("NODES"), where)
			assert.Equal(t, e, res.Messages.Count("CONNECT"), where)
			assert.Equal(t, e, res.Messages.Count("ACCEPT"), where)
			for _, typ := range []string{"CHILD", "EXPLORER", "ECHO", "LEADER"} {
				assert.Equal(t, n-1, res.Messages.Count(typ), "%s: %s", where, typ)
			}
			assert.Equal(t, 2*n+2*e+4*(n-1), res.Messages.Total, where)
			assert.Equal(t, int64(n), res.LeaderID, where)
			for _, m := range netsim.MessagesOnly(res.Trace) {
				if m.Type == "CHILD" {
					from, to := slices.Index(g.Nodes, m.From), slices.Index(g.Nodes, m.To)
					assert.Equal(t, fmt.Sprint(hops[from]), m.Payload, "%s: level of %s", where, m.From)
					assert.Equal(t, hops[from]-1, hops[to], "%s: parent of %s", where, m.From)
				}
			}
		}
	}
}

// On ring:6 n3 joins last and takes n4 as parent (both neighbours are at
// level 2, and n4 answers last). n4 crashes at 36, after the start-up and
// before the election: n3 turns to n2, also at level 2, with one more
// CHILD, and n5 stops waiting for n4. The election then runs on the five
// live nodes. On chain:4 n1's crash at 20 leaves n2 with no neighbour
// nearer the root than itself: n2 and n3 are cut off, and the root elects
// itself alone.
func TestVirtualTreeReparenting(t *testing.T) {
	res := elect(t, "ring:6", Options{Algo: "virtual-tree", UnitDelays: true, Trace: true, Crashes: []NodeEvent{{"n4", 36000}}})
	var children []string
	for _, m := range netsim.MessagesOnly(res.Trace) {
		if m.Type == "CHILD" && m.From == "n3" {
			children = append(children, m.To+" "+m.Payload)
		}
	}
	assert.Equal(t, []string{"n4 3", "n2 3"}, children)
	assert.Equal(t, 6, res.Messages.Count("CHILD"))
	for _, typ := range []string{"EXPLORER", "ECHO", "LEADER"} {
		assert.Equal(t, 4, res.Messages.Count(typ), typ)
	}
	assert.Equal(t, "n5", res.Leader)
	for _, node := range res.Nodes {
		if node.Node != "n4" {
			assert.Equal(t, "n5", node.Leader, node.Node)
		}
	}

	cut := elect(t, "chain:4", Options{Algo: "virtual-tree", UnitDelays: true, Crashes: []NodeEvent{{"n1", 20000}}})
	assert.Equal(t, "n0", cut.Leader)
	assert.Equal(t, []NodeState{Leader, Crashed, Undecided, Undecided},
		[]NodeState{cut.Nodes[0].State, cut.Nodes[1].State, cut.Nodes[2].State, cut.Nodes[3].State})
	assert.Equal(t, 0, cut.Messages.Count("EXPLORER"))
}

// Crashes at random times during the start-up never close a loop: the run
// ends (a loop would send EXPLORER round it for ever), at most one node
// leads, and every node the election reached knows it, with the largest ID
// among them.
func TestVirtualTreeCrashesNeverLoop(t *testing.T) {
	cases := testenv.Size(30, 200, 4000)
	rng := rand.New(rand.NewPCG(14, 2))
	specs := []string{"ring:%d", "complete:%d", "tree:%d:7", "chain:%d", "star:%d"}
	for range cases {
		n := 2 + rng.IntN(12)
		spec := fmt.Sprintf(specs[rng.IntN(len(specs))], n)
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		o := Options{Algo: "virtual-tree", IDOrder: IDOrder(rng.IntN(3)), Seed: rng.Uint64(), UnitDelays: rng.IntN(3) == 0}
		for _, node := range topo.Nodes {
			if rng.IntN(4) == 0 {
				o.Crashes = append(o.Crashes, NodeEvent{Node: node.ID, At: rng.Int64N(int64(n) * vtSlot * netsim.TicksPerDelay)})
			}
		}
		res, err := Run(topo, o)
		require.NoError(t, err, "%s %+v", spec, o)
		where := fmt.Sprintf("%s %+v", spec, o)
		leaders := 0
		var best int64 = -1
		for _, node := range res.Nodes {
			if node.State == Leader {
				leaders++
			}
			if node.State == Leader || node.State == Follower {
				best = max(best, node.ID)
				assert.Equal(t, res.Leader, node.Leader, "%s: node %s", where, node.Node)
			}
		}
		require.LessOrEqual(t, leaders, 1, where)
		if res.Leader != "" {
			assert.Equal(t, best, res.LeaderID, where)
		}
		again, err := Run(topo, o)
		require.NoError(t, err)
		assert.Equal(t, res, again, "%s: not deterministic", where)
	}
}
