package election

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/testenv"
)

// The lab has no limit of 1394's own: more than 63 nodes and hubs of more
// than 27 ports are graphs like any other, and the counts are the
// textbook's. 1394 itself still refuses them, precisely.
func TestBeyondTheBus(t *testing.T) {
	n := testenv.Size(2_000, 20_000, 200_000)
	ring, err := bus.Generate("ring:" + strconv.Itoa(n))
	require.NoError(t, err)
	res, err := Run(ring, Options{Algo: "chang-roberts", Seed: 1})
	require.NoError(t, err)
	// Ascending IDs along the ring: the largest ID's message goes round
	// once, every other is swallowed by its successor.
	assert.Equal(t, 2*n-1, res.Messages.Total)
	assert.Equal(t, "n"+strconv.Itoa(n-1), res.Leader)

	star, err := bus.Generate("star:40") // a 39-port hub
	require.NoError(t, err)
	res, err = Run(star, Options{Algo: "echo", Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, 3*39, res.Messages.Total) // explorer, echo and info on each cable

	tree, err := bus.Generate("tree:64")
	require.NoError(t, err)
	_, err = Run(tree, Options{Algo: "1394", Seed: 1})
	assert.ErrorIs(t, err, bus.ErrTooManyNodes)
}

// The virtual tree's registry order is computed once per run: once per node
// it was quadratic, 30 s and 5 GB at 20,000 nodes.
func TestVirtualTreeAtScale(t *testing.T) {
	n := testenv.Size(2_000, 20_000, 200_000)
	tree, err := bus.Generate("tree:" + strconv.Itoa(n))
	require.NoError(t, err)
	res, err := Run(tree, Options{Algo: "virtual-tree", Seed: 1})
	require.NoError(t, err)
	// N REGISTER and NODES, E = N−1 CONNECT and ACCEPT, N−1 CHILD, EXPLORER,
	// ECHO and LEADER.
	assert.Equal(t, 8*n-6, res.Messages.Total)
	assert.Equal(t, "n"+strconv.Itoa(n-1), res.Leader)
}
