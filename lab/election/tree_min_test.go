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

// randomTree draws a tree topology: random, a chain or a star.
func randomTree(rng *rand.Rand) string {
	n := 1 + rng.IntN(20)
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("chain:%d", n)
	case 1:
		return fmt.Sprintf("star:%d", max(n, 2))
	}
	return fmt.Sprintf("tree:%d:%d", n, rng.IntN(1000))
}

// treeMinRun runs tree-min and derives its graph.
func treeMinRun(t *testing.T, spec string, o Options) (*Result, *netsim.Graph) {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	g, err := netsim.NewGraph(topo)
	require.NoError(t, err)
	o.Algo = "tree-min"
	res, err := Run(topo, o)
	require.NoError(t, err, "%s %+v", spec, o)
	return res, g
}

// eccentricity is the most cables from the nearest of from to any vertex.
func eccentricity(g *netsim.Graph, from ...int) int {
	far := 0
	for v := range g.Nodes {
		d := len(g.Nodes)
		for _, s := range from {
			d = min(d, g.Hops(s)[v])
		}
		far = max(far, d)
	}
	return far
}

// The notes' delay: h·RTT once every node is awake. Without crashes, on
// random trees, starters, IDs and delays (unit or random, each at most one
// unit), the run ends by the wake-up (the most cables from a starter) plus
// h round trips of 2 delays, h the height of the tree from its core; the
// core is the two ends of the cable where the last proposals cross, and h
// is at least the tree's radius.
func TestTreeMinHeightBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for i := range testenv.Size(200, 1000, 10000) {
		spec := randomTree(rng)
		o := Options{IDOrder: Random, Seed: rng.Uint64(), UnitDelays: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			o.InitiatorCount = AllNodes
		}
		res, g := treeMinRun(t, spec, o)
		where := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		tb := res.Tree
		require.NotNil(t, tb, where)
		var starters []int
		for _, name := range res.Initiators {
			starters = append(starters, slices.Index(g.Nodes, name))
		}
		assert.Equal(t, eccentricity(g, starters...), tb.Wakeup, where)
		h := 0
		for _, name := range tb.Core {
			h = max(h, eccentricity(g, slices.Index(g.Nodes, name)))
		}
		assert.Equal(t, h, tb.Height, where)
		if len(g.Nodes) > 1 {
			require.Len(t, tb.Core, 2, where)
			u, w := slices.Index(g.Nodes, tb.Core[0]), slices.Index(g.Nodes, tb.Core[1])
			assert.Equal(t, 1, g.Hops(u)[w], "%s: the core is one cable", where)
		}
		radius := len(g.Nodes)
		for v := range g.Nodes {
			radius = min(radius, eccentricity(g, v))
		}
		assert.GreaterOrEqual(t, tb.Height, radius, where)
		assert.InDelta(t, float64(tb.Wakeup+RTT*tb.Height), tb.Bound, 1e-9, where)
		assert.LessOrEqual(t, res.Time, tb.Bound+1e-9, where)
		assert.Zero(t, tb.Repairs, where)
	}
}

// parts are the live vertices of g grouped by what connects them without
// the crashed ones.
func parts(g *netsim.Graph, res *Result) [][]int {
	seen := make([]bool, len(g.Nodes))
	var out [][]int
	for v := range g.Nodes {
		if seen[v] || res.Nodes[v].State == Crashed {
			continue
		}
		part, queue := []int{}, []int{v}
		seen[v] = true
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			part = append(part, u)
			for _, h := range g.Adj[u] {
				if !seen[h.Peer] && res.Nodes[h.Peer].State != Crashed {
					seen[h.Peer] = true
					queue = append(queue, h.Peer)
				}
			}
		}
		out = append(out, part)
	}
	return out
}

// Crashes during the run, the repair the notes describe: every live node
// that took part knows the smallest live ID of its part of the tree, whose
// node leads, and a crashed node is never elected. A leaf's crash leaves
// one part: the live nodes agree on the smallest live ID. A part cut off
// before the wake-up reached it stays asleep. Crash times are random, up to
// after the fault-free run ended.
func TestTreeMinCrashRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 4))
	leaves, repaired := 0, 0
	for i := range testenv.Size(300, 2000, 20000) {
		spec := randomTree(rng)
		o := Options{IDOrder: Random, Seed: rng.Uint64(), UnitDelays: rng.IntN(2) == 0}
		clean, g := treeMinRun(t, spec, o)
		if len(g.Nodes) < 3 {
			continue
		}
		starter := slices.Index(g.Nodes, clean.Initiators[0])
		for _, v := range rng.Perm(len(g.Nodes))[:1+rng.IntN(2)] {
			if v != starter {
				at := 1 + rng.Int64N(int64(clean.Time*netsim.TicksPerDelay)+2*netsim.TicksPerDelay)
				o.Crashes = append(o.Crashes, NodeEvent{Node: g.Nodes[v], At: at})
			}
		}
		if len(o.Crashes) == 0 {
			continue
		}
		res, _ := treeMinRun(t, spec, o)
		where := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		for _, part := range parts(g, res) {
			best := part[0]
			awake := false
			for _, v := range part {
				if res.Nodes[v].ID < res.Nodes[best].ID {
					best = v
				}
				awake = awake || res.Nodes[v].State != Asleep
			}
			for _, v := range part {
				switch {
				case !awake:
					assert.Equal(t, Asleep, res.Nodes[v].State, where)
				case v == best:
					assert.Equal(t, Leader, res.Nodes[v].State, "%s: %s leads its part", where, g.Nodes[v])
				default:
					assert.Equal(t, Follower, res.Nodes[v].State, "%s: %s", where, g.Nodes[v])
					assert.Equal(t, g.Nodes[best], res.Nodes[v].Leader, "%s: %s knows its part's smallest ID", where, g.Nodes[v])
				}
			}
		}
		if len(o.Crashes) == 1 && len(g.Adj[slices.Index(g.Nodes, o.Crashes[0].Node)]) == 1 {
			leaves++
			require.NotEmpty(t, res.Leader, where)
			live := []int64{}
			for _, n := range res.Nodes {
				if n.State != Crashed {
					live = append(live, n.ID)
				}
			}
			assert.Equal(t, slices.Min(live), res.LeaderID, "%s: a leaf's crash leaves one part", where)
			assert.Empty(t, res.Unaware(), where)
			if res.Tree.Repairs > 0 {
				repaired++
			}
		}
	}
	assert.Positive(t, leaves, "no leaf crashed")
	assert.Positive(t, repaired, "no crash made a node resend")
}

// The winner crashes after the election (star:4, IDs descending: the leaf
// n3 has ID 1): the hub, whose proposal went to n3, is left the core and
// tells the two live leaves the new winner, n2 (ID 2): two WINNER messages
// sent again, and the time is the crash plus one delay. Crashed before it
// proposed, the leaf is simply no longer waited for: no repair.
func TestTreeMinWinnerCrashes(t *testing.T) {
	res, _ := treeMinRun(t, "star:4", Options{IDOrder: Descending, UnitDelays: true, Crashes: []NodeEvent{{Node: "n3", At: 4 * netsim.TicksPerDelay}}})
	assert.Equal(t, "n2", res.Leader)
	assert.Equal(t, 2, res.Tree.Repairs)
	assert.Equal(t, 3+4+(2+2), res.Messages.Total, "3 WAKEUP, 4 PROPOSAL, 2 WINNER and 2 again")
	assert.InDelta(t, 5, res.Time, 1e-9)
	assert.Equal(t, []string{"n0"}, res.Tree.Core)

	res, _ = treeMinRun(t, "star:4", Options{IDOrder: Descending, UnitDelays: true, Crashes: []NodeEvent{{Node: "n3", At: 500}}})
	assert.Equal(t, "n2", res.Leader)
	assert.Zero(t, res.Tree.Repairs)
	assert.Equal(t, Crashed, res.Nodes[3].State)
}
