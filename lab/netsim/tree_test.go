package netsim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// A spanning tree holds every vertex at its distance from the root, with
// one cable fewer than vertices; on a tree it is the tree itself.
func TestSpanningTree(t *testing.T) {
	for _, spec := range []string{"ring:7", "complete:6", "tree:20:4", "chain:5"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		g, err := NewGraph(topo)
		require.NoError(t, err)
		tr := g.SpanningTree(0)
		assert.Equal(t, g.Hops(0), tr.Depth, spec)
		edges := 0
		for v, adj := range tr.Adj {
			edges += len(adj)
			if p := tr.Parent[v]; p >= 0 {
				assert.Equal(t, tr.Depth[p]+1, tr.Depth[v], spec)
				assert.Contains(t, tr.Adj[p], v, spec)
			}
		}
		assert.Equal(t, 2*(len(g.Nodes)-1), edges, spec)
	}
}

// A path goes up to the nearest common ancestor and down, each cable from
// the end that reaches it.
func TestTreePath(t *testing.T) {
	topo, err := bus.Generate("ring:6") // the tree, port 0 first: n0-n5-n4-n3 and n0-n1-n2
	require.NoError(t, err)
	g, err := NewGraph(topo)
	require.NoError(t, err)
	tr := g.SpanningTree(0)
	assert.Equal(t, [][2]int{{2, 1}, {1, 0}, {0, 5}, {5, 4}}, tr.Path(nil, 2, 4))
	assert.Equal(t, [][2]int{{0, 5}, {5, 4}, {4, 3}}, tr.Path(nil, 0, 3))
	assert.Empty(t, tr.Path(nil, 3, 3))
	assert.Equal(t, [][2]int{{9, 9}, {4, 5}, {5, 0}}, tr.Path([][2]int{{9, 9}}, 4, 0), "appended")
}
