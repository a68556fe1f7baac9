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

// The notes' four cases of an explorer x arriving over an edge marked m at
// a node whose largest initiator ID is IDi.
const (
	caseNonTree = iota // IDx = IDm
	caseIgnore         // IDx < IDm
	caseBack           // IDm < IDx ≤ IDi
	caseAdopt          // IDm ≤ IDi < IDx
)

var caseNames = []string{"x = m: not a tree edge", "x < m: ignored", "m < x ≤ IDi: sent back", "IDi < x: adoption"}

// adoptRun is an adoption run seen from inside: every node's state at the
// end, the cases its explorers met, and the LEADER decisions in time order.
type adoptRun struct {
	res     *Result
	g       *netsim.Graph
	nodes   []*adoptNode
	cases   [4]int
	leaders []string
}

// caseSpy classifies every explorer by the node's state before the node
// handles it.
type caseSpy struct {
	*adoptNode
	cases *[4]int
}

func (s caseSpy) receive(n *net, v, port int, m netsim.Message) {
	if m.Type == adoptExplorer {
		x, mark := m.Value, s.mark[port]
		switch {
		case x == mark:
			s.cases[caseNonTree]++
		case x < mark:
			s.cases[caseIgnore]++
		case x <= s.wave:
			s.cases[caseBack]++
		default:
			s.cases[caseAdopt]++
		}
	}
	s.adoptNode.receive(n, v, port, m)
}

func runAdoption(t *testing.T, topo *bus.Topology, o Options) *adoptRun {
	t.Helper()
	g, err := netsim.NewGraph(topo)
	require.NoError(t, err)
	r := &adoptRun{g: g, nodes: make([]*adoptNode, len(g.Nodes))}
	spied := *adoption
	spied.newProc = func(n *net, v int) process {
		r.nodes[v] = newAdoptNode(n, v).(*adoptNode)
		return caseSpy{r.nodes[v], &r.cases}
	}
	o.Algo, o.Trace = "adoption", true
	r.res, err = spied.run(topo, g, o)
	require.NoError(t, err)
	for _, e := range r.res.Trace {
		if e.Event == netsim.EventDecide && e.Type == "LEADER" {
			r.leaders = append(r.leaders, e.From)
		}
	}
	return r
}

// check holds the run to the notes' outcome: one LEADER decision in the
// whole run (never one taken back), by the initiator with the largest ID,
// and every node's parent edge on a path to it: a spanning tree rooted at
// the leader.
func (r *adoptRun) check(t *testing.T, where string) {
	t.Helper()
	require.Len(t, r.leaders, 1, "%s: LEADER decisions", where)
	var want int64 = -1
	for _, name := range r.res.Initiators {
		want = max(want, r.res.Nodes[slices.Index(r.g.Nodes, name)].ID)
	}
	require.Equal(t, want, r.res.LeaderID, "%s: the largest initiator", where)
	root := slices.Index(r.g.Nodes, r.res.Leader)
	for v, a := range r.nodes {
		if v == root {
			assert.Equal(t, -1, a.parent, "%s: the leader has no parent", where)
			continue
		}
		u, hops := v, 0
		for u != root {
			p := r.nodes[u].parent
			require.GreaterOrEqual(t, p, 0, "%s: %s's path to the leader ends at %s", where, r.g.Nodes[v], r.g.Nodes[u])
			u = r.g.Adj[u][p].Peer
			hops++
			require.Less(t, hops, len(r.nodes), "%s: %s's parent edges close a loop", where, r.g.Nodes[v])
		}
		assert.Equal(t, Follower, r.res.Nodes[v].State, "%s: %s", where, r.g.Nodes[v])
	}
}

// randomGraph is a random connected graph of n nodes: a random tree and
// extra cables between random pairs not yet cabled.
func randomGraph(rng *rand.Rand, n, extra int) *bus.Topology {
	ports := make([]int, n)
	linked := map[[2]int]bool{}
	var cables [][2]int
	link := func(u, v int) {
		linked[[2]int{u, v}], linked[[2]int{v, u}] = true, true
		cables = append(cables, [2]int{u, v})
	}
	for v := 1; v < n; v++ {
		link(rng.IntN(v), v)
	}
	for range extra {
		u, v := rng.IntN(n), rng.IntN(n)
		if u != v && !linked[[2]int{u, v}] {
			link(u, v)
		}
	}
	t := &bus.Topology{}
	for _, c := range cables {
		from, to := fmt.Sprintf("n%d:%d", c[0], ports[c[0]]), fmt.Sprintf("n%d:%d", c[1], ports[c[1]])
		ports[c[0]]++
		ports[c[1]]++
		t.Cables = append(t.Cables, bus.Cable{From: from, To: to})
	}
	for v := range n {
		t.Nodes = append(t.Nodes, bus.Node{ID: fmt.Sprintf("n%d", v), Ports: ports[v]})
	}
	return t
}

// One leader, the largest initiator, a spanning tree under it: on random
// graphs with loops, random IDs, initiators and delays; and across them
// every one of the notes' four cases occurs.
func TestAdoptionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	var cases [4]int
	for i := range testenv.Size(300, 2000, 20000) {
		n := 2 + rng.IntN(15)
		topo := randomGraph(rng, n, rng.IntN(2*n))
		o := Options{IDOrder: Random, Seed: rng.Uint64(), UnitDelays: rng.IntN(4) == 0, InitiatorCount: 1 + rng.IntN(n),
			Announce: rng.IntN(2) == 0}
		r := runAdoption(t, topo, o)
		where := fmt.Sprintf("case %d: %d nodes, %d cables, options %+v", i, n, len(topo.Cables), o)
		r.check(t, where)
		if o.Announce {
			for _, node := range r.res.Nodes {
				assert.Equal(t, r.res.Leader, node.Leader, "%s: %s knows the leader", where, node.Node)
			}
			assert.Equal(t, n-1, r.res.Messages.Count("LEADER"), "%s: LEADER down the tree", where)
		}
		for c, k := range r.cases {
			cases[c] += k
		}
	}
	for c, k := range cases {
		assert.Positive(t, k, "case %q never occurred", caseNames[c])
	}
}

// parents names every node's parent, "-" for none.
func (r *adoptRun) parents() map[string]string {
	out := map[string]string{}
	for v, a := range r.nodes {
		out[r.g.Nodes[v]] = "-"
		if a.parent >= 0 {
			out[r.g.Nodes[v]] = r.g.Nodes[r.g.Adj[v][a.parent].Peer]
		}
	}
	return out
}

func scripted(t *testing.T, spec string, ids map[string]int64, initiators ...string) *adoptRun {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	r := runAdoption(t, topo, Options{IDs: ids, Initiators: initiators, UnitDelays: true})
	r.check(t, spec)
	return r
}

// The first case alone: one wave on a triangle. n0's explorers wake n1
// and n2 (adoption of a node with no wave, which passes x on), whose
// explorers cross on the cable n1–n2: x = m at both ends, so it is not a
// tree edge (at 2). Both echo to n0, which leads at 3: 2E messages.
func TestAdoptionCaseNotTreeEdge(t *testing.T) {
	r := scripted(t, "ring:3", map[string]int64{"n0": 1, "n1": 2, "n2": 3}, "n0")
	assert.Equal(t, [4]int{caseNonTree: 2, caseAdopt: 2}, r.cases)
	assert.Equal(t, map[string]string{"n0": "-", "n1": "n0", "n2": "n0"}, r.parents())
	assert.Equal(t, 4, r.res.Messages.Count("EXPLORER"))
	assert.Equal(t, 2, r.res.Messages.Count("ECHO"))
	assert.InDelta(t, 3, r.res.Time, 1e-9)
}

// The second case and an old root's adoption: a and b both initiate on
// their one cable. a (ID 1) meets b's 2 with its edge marked 1: adoption,
// and a, the root of its own wave, has no old parent edge to pass 2 on.
// b meets 1 with its edge marked 2 and ignores it. a echoes, b leads.
func TestAdoptionCaseIgnored(t *testing.T) {
	r := scripted(t, "pair", map[string]int64{"a": 1, "b": 2}, "a", "b")
	assert.Equal(t, [4]int{caseIgnore: 1, caseAdopt: 1}, r.cases)
	assert.Equal(t, map[string]string{"a": "b", "b": "-"}, r.parents())
	assert.Equal(t, 3, r.res.Messages.Total, "two explorers and a's echo")
}

// All four cases on a triangle, every node initiating, IDs 1, 2, 3
// ascending (n0, n1, n2), unit delays: docs/election.md shows its trace.
// At 1 every node has every neighbour's explorer. n1 and n2 ignore the
// smaller ones (their edges are marked with their own larger IDs: three
// times x < m). n0 is adopted by 2 from n1, an old root with nothing to
// pass on; n1 by 3 from n2, likewise; n0 again, by 3 from n2, and 3 goes
// on over its old parent edge to n1. At 2, n1 meets that 3 over its edge
// to n0, marked 2, while its IDi is 3: it sends 3 back, and echoes to n2.
// At 3 the 3 is back at n0 over the edge it marked 3: not a tree edge, and
// n0 echoes to n2, which leads at 4. The tree is n0–n2 and n1–n2.
func TestAdoptionFourCases(t *testing.T) {
	r := scripted(t, "ring:3", map[string]int64{"n0": 1, "n1": 2, "n2": 3}, "n0", "n1", "n2")
	assert.Equal(t, [4]int{caseNonTree: 1, caseIgnore: 3, caseBack: 1, caseAdopt: 3}, r.cases)
	assert.Equal(t, map[string]string{"n0": "n2", "n1": "n2", "n2": "-"}, r.parents())
	assert.Equal(t, 6+1+1, r.res.Messages.Count("EXPLORER"), "every node's 2, n0's 3 to n1 and n1's back")
	assert.Equal(t, 2, r.res.Messages.Count("ECHO"))
	assert.InDelta(t, 4, r.res.Time, 1e-9)
}
