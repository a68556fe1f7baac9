package election

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// The ring algorithm with a list on a logical ring (a complete graph in
// node order) skips a successor that is down when a node sends, as the
// notes' nodes know the ring beyond their successor. With any one node
// crashing at the start, at any ID order and with one or every node
// initiating, a run either ends with every live node knowing the largest
// live ID as leader, or elects nobody, and says so, only when a message
// was already on its way to the node as it crashed; and the skip happens.
func TestRingListSkipsACrashedSuccessor(t *testing.T) {
	skipped := 0
	for _, n := range []int{3, 4, 6, 9} {
		topo, err := bus.Generate(fmt.Sprintf("complete:%d", n))
		require.NoError(t, err)
		for down := range n {
			for seed := range uint64(4) {
				for _, count := range []int{1, AllNodes} {
					name := fmt.Sprintf("n%d", down)
					what := fmt.Sprintf("complete:%d, %s down, seed %d, %d initiators", n, name, seed, count)
					res, err := Run(topo, Options{Algo: "ring-list", IDOrder: Random, Seed: seed, InitiatorCount: count,
						Crashes: []NodeEvent{{Node: name, At: 0}}, Trace: true})
					require.NoError(t, err)
					lostOnTheWay := false
					for _, m := range netsim.MessagesOnly(res.Trace) {
						var from, to int
						_, err := fmt.Sscanf(m.From+" "+m.To, "n%d n%d", &from, &to)
						require.NoError(t, err)
						lostOnTheWay = lostOnTheWay || m.Lost
						if to != (from+1)%n {
							assert.Equal(t, down, (from+1)%n, "%s: %s skips only the crashed node", what, m.From)
							skipped++
						}
					}
					if res.Leader == "" {
						assert.True(t, lostOnTheWay, "%s: no leader, though nothing was lost on its way", what)
						assert.Contains(t, res.NoLeader, name+" crashed while a message was on its way to it", what)
						continue
					}
					want, wantID := "", int64(-1)
					for _, node := range res.Nodes {
						if node.Node != name && node.ID > wantID {
							want, wantID = node.Node, node.ID
						}
					}
					assert.Equal(t, want, res.Leader, what)
					for _, node := range res.Nodes {
						if node.Node != name {
							assert.Equal(t, want, node.Leader, "%s: %s", what, node.Node)
						}
					}
				}
			}
		}
	}
	assert.Positive(t, skipped, "some node skipped its crashed successor")
}

// On a ring of cables no cable leads past a crashed successor: the list is
// lost there, and the run says so and where a skip would have worked.
func TestRingListOnCablesCannotSkip(t *testing.T) {
	topo, err := bus.Generate("ring:6")
	require.NoError(t, err)
	res, err := Run(topo, Options{Algo: "ring-list", Crashes: []NodeEvent{{Node: "n2", At: 0}}})
	require.NoError(t, err)
	assert.Empty(t, res.Leader)
	assert.Contains(t, res.NoLeader, "the ring is broken at n2")
	assert.Contains(t, res.NoLeader, "on a complete graph (a logical ring) ring-list skips a crashed successor")
}

// Without faults, the logical ring of a complete graph gives the notes'
// counts from one initiator: n ELECTION round the ring back to it and n−1
// COORDINATOR; and every hop goes from a node to the next in order.
func TestRingListOnACompleteGraph(t *testing.T) {
	for _, n := range []int{3, 5, 8} {
		topo, err := bus.Generate(fmt.Sprintf("complete:%d", n))
		require.NoError(t, err)
		res, err := Run(topo, Options{Algo: "ring-list", InitiatorCount: 1, Trace: true})
		require.NoError(t, err)
		assert.Equal(t, n, res.Messages.Count("ELECTION"), "complete:%d", n)
		assert.Equal(t, n-1, res.Messages.Count("COORDINATOR"), "complete:%d", n)
		for _, m := range netsim.MessagesOnly(res.Trace) {
			var from, to int
			_, err := fmt.Sscanf(m.From+" "+m.To, "n%d n%d", &from, &to)
			require.NoError(t, err)
			assert.Equal(t, (from+1)%n, to, "complete:%d: %s to %s", n, m.From, m.To)
		}
	}
}
