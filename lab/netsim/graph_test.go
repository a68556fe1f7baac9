package netsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

func ringOf(t *testing.T, topo *bus.Topology) (*Graph, *Ring) {
	t.Helper()
	g, err := NewGraph(topo)
	require.NoError(t, err)
	r, err := g.Ring()
	require.NoError(t, err)
	return g, r
}

// graphOf is the graph of the generated topology spec.
func graphOf(t *testing.T, spec string) *Graph {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	g, err := NewGraph(topo)
	require.NoError(t, err)
	return g
}

func TestRingFollowsTheFirstCable(t *testing.T) {
	topo, err := bus.Generate("ring:4")
	require.NoError(t, err)
	g, r := ringOf(t, topo)
	assert.Equal(t, []int{0, 1, 2, 3}, r.Order, "ring:4 cables n0→n1→n2→n3→n0")
	for v := range 4 {
		assert.Equal(t, (v+1)%4, g.Adj[v][r.Next[v]].Peer)
		assert.Equal(t, (v+3)%4, g.Adj[v][r.Prev[v]].Peer)
	}

	// The same ring written from c: the first cable c:0→a:1 points the
	// other way round.
	topo = &bus.Topology{
		Nodes: []bus.Node{{ID: "a", Ports: 2}, {ID: "b", Ports: 2}, {ID: "c", Ports: 2}},
		Cables: []bus.Cable{
			{From: "c:0", To: "a:1"}, {From: "a:0", To: "b:1"}, {From: "b:0", To: "c:1"},
		},
	}
	_, r = ringOf(t, topo)
	assert.Equal(t, []int{2, 0, 1}, r.Order)
}

// Two nodes joined by two cables are a ring: each direction is a cable.
func TestTwoNodeRing(t *testing.T) {
	topo, err := bus.Generate("ring:2")
	require.NoError(t, err)
	g, r := ringOf(t, topo)
	assert.Equal(t, []int{0, 1}, r.Order)
	assert.Equal(t, 0, g.Adj[0][r.Next[0]].Cable, "n0 sends on the first cable")
	assert.Equal(t, 1, g.Adj[1][r.Next[1]].Cable, "n1 sends on the closing cable")
	assert.False(t, g.IsTree())
	assert.False(t, g.IsComplete(), "two cables between one pair")
}

func TestGraphShapes(t *testing.T) {
	for _, tc := range []struct {
		spec               string
		tree, complete     bool
		ring               bool
		diameter, maxPorts int
	}{
		{"chain:1", true, true, false, 0, 0},
		{"pair", true, true, false, 1, 1},
		{"chain:5", true, false, false, 4, 2},
		{"star:5", true, false, false, 2, 4},
		{"ring:6", false, false, true, 3, 2},
		{"complete:5", false, true, false, 1, 4},
	} {
		topo, err := bus.Generate(tc.spec)
		require.NoError(t, err)
		g, err := NewGraph(topo)
		require.NoError(t, err)
		_, ringErr := g.Ring()
		assert.Equal(t, tc.tree, g.IsTree(), tc.spec)
		assert.Equal(t, tc.complete, g.IsComplete(), tc.spec)
		assert.Equal(t, tc.ring, ringErr == nil, tc.spec)
		d, err := g.Diameter(nil)
		require.NoError(t, err)
		assert.Equal(t, tc.diameter, d, tc.spec)
		ports := 0
		for v, adj := range g.Adj {
			ports = max(ports, len(adj))
			for p, h := range adj {
				assert.Equal(t, v, g.Adj[h.Peer][h.PeerPort].Peer, "%s: cable %d ends disagree", tc.spec, h.Cable)
				assert.Equal(t, p, g.Adj[h.Peer][h.PeerPort].PeerPort, tc.spec)
			}
		}
		assert.Equal(t, tc.maxPorts, ports, tc.spec)
	}
}

// Trees and rings take a shortcut to their diameter; it is the longest
// shortest path all the same.
func TestDiameterShortcuts(t *testing.T) {
	for _, spec := range []string{"tree:2:1", "tree:7:2", "tree:40:3", "tree:200:4", "ring:2", "ring:3", "ring:9", "ring:10", "star:6", "chain:9"} {
		g := graphOf(t, spec)
		longest := 0
		for v := range g.Nodes {
			for _, d := range g.Hops(v) {
				longest = max(longest, d)
			}
		}
		d, err := g.Diameter(nil)
		require.NoError(t, err)
		assert.Equal(t, longest, d, spec)
	}
}

// A dense graph's diameter is a search from every node, seconds at
// complete:2048: an interrupt stops it between two searches.
func TestDiameterStopsOnInterrupt(t *testing.T) {
	g := graphOf(t, "complete:300")
	stop := make(chan struct{})
	close(stop)
	start := time.Now()
	_, err := g.Diameter(stop)
	assert.ErrorIs(t, err, ErrInterrupted)
	// One search at the most, not three hundred.
	assert.Less(t, time.Since(start), 100*time.Millisecond)
	d, err := g.Diameter(make(chan struct{}))
	require.NoError(t, err)
	assert.Equal(t, 1, d)
}
