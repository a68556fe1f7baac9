package bus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTopologyIsTheExample(t *testing.T) {
	example, err := LoadTopology("../examples/default.yaml")
	require.NoError(t, err)
	def := DefaultTopology()
	example.Profile = "" // the example names the default profile; the Go value leaves it implied
	assert.Equal(t, def, withoutSource(example))
}

func TestDefaultTopologyResolves(t *testing.T) {
	rt := mustResolve(t, DefaultTopology(), ResolveOptions{})
	assert.Len(t, rt.nodes, 6)
	assert.Len(t, rt.cables, 5)
	assert.False(t, rt.hasLoop)
	assert.False(t, rt.nodes[1].link, "the hub is a repeater")
	changed := DefaultTopology()
	*changed.Nodes[1].Link = true
	changed.Cables[0].From = "pc:2"
	assert.False(t, *DefaultTopology().Nodes[1].Link, "each call returns a fresh value")
	assert.Equal(t, "pc:0", DefaultTopology().Cables[0].From)
}
