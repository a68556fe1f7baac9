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
// textbook's. 1394 runs the bus, which numbers more than 63 nodes out of
// spec and refuses hubs of more than 27 ports, precisely.
func TestBeyondTheBus(t *testing.T) {
	star, err := bus.Generate("star:40") // a 39-port hub
	require.NoError(t, err)
	res, err := Run(star, Options{Algo: "echo", Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, 3*39, res.Messages.Total) // explorer, echo and info on each cable

	tree, err := bus.Generate("tree:64")
	require.NoError(t, err)
	res, err = Run(tree, Options{Algo: "1394", Seed: 1})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Leader, res.NoLeader)
	_, err = Run(star, Options{Algo: "1394", Seed: 1})
	assert.ErrorIs(t, err, bus.ErrBadPortCount)
}

// Large rings and trees give the textbook's counts, in time linear in the
// nodes: the virtual tree's registry order, once computed for every node,
// took 30 s and 5 GB at 20,000 nodes.
func TestLargeGraphs(t *testing.T) {
	n := testenv.Size(2_000, 20_000, 200_000)
	for _, tc := range []struct {
		kind, algo string
		messages   int
	}{
		// Ascending IDs along the ring: the largest ID's message goes
		// round once, every other is swallowed by its successor.
		{"ring", "chang-roberts", 2*n - 1},
		// N REGISTER and NODES, E = N−1 CONNECT and ACCEPT, N−1 CHILD,
		// EXPLORER, ECHO and LEADER.
		{"tree", "virtual-tree", 8*n - 6},
	} {
		topo, err := bus.Generate(tc.kind + ":" + strconv.Itoa(n))
		require.NoError(t, err)
		res, err := Run(topo, Options{Algo: tc.algo, Seed: 1})
		require.NoError(t, err)
		assert.Equal(t, tc.messages, res.Messages.Total, tc.algo)
		assert.Equal(t, "n"+strconv.Itoa(n-1), res.Leader, tc.algo)
	}
}
