package election

import (
	"errors"
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

// randomCase draws a topology, an ID layout, initiators, a mode and a seed.
func randomCase(rng *rand.Rand) (spec string, o Options) {
	n := 2 + rng.IntN(14)
	switch rng.IntN(5) {
	case 0:
		spec = fmt.Sprintf("ring:%d", n)
	case 1:
		spec = fmt.Sprintf("tree:%d:%d", n, rng.IntN(100))
	case 2:
		n = min(n, 9)
		spec = fmt.Sprintf("complete:%d", n)
	case 3:
		spec = fmt.Sprintf("chain:%d", n)
	default:
		spec = fmt.Sprintf("star:%d", n)
	}
	o = Options{IDOrder: IDOrder(rng.IntN(3)), Seed: rng.Uint64(), UnitDelays: rng.IntN(4) == 0,
		Suppress: rng.IntN(2) == 0, Announce: rng.IntN(2) == 0}
	switch rng.IntN(3) {
	case 0:
		o.InitiatorCount = 1 + rng.IntN(n)
	case 1:
		o.InitiatorCount = AllNodes
	}
	if rng.IntN(3) == 0 {
		o.Mode = Sync
	}
	return spec, o
}

// expectedLeader is the ID the algorithm must elect: the largest or smallest
// among the nodes that stand (all of them, or the initiators, or the live
// ones).
func expectedLeader(res *Result) int64 {
	var candidates []int64
	for _, n := range res.Nodes {
		switch {
		case n.State == Crashed:
		case res.Algo == "lelann" || res.Algo == "adoption" || res.Algo == "chang-roberts-min":
			if slices.Contains(res.Initiators, n.Node) {
				candidates = append(candidates, n.ID)
			}
		default:
			candidates = append(candidates, n.ID)
		}
	}
	if res.Algo == "sync-ring" || res.Algo == "tree-min" || res.Algo == "chang-roberts-min" {
		return slices.Min(candidates)
	}
	return slices.Max(candidates)
}

// Uniqueness, termination and agreement on many random cases for every
// algorithm: exactly one leader, the right one, and where the algorithm
// announces, every live node knows it.
func TestElectionProperties(t *testing.T) {
	cases := testenv.Size(60, 400, 4000)
	for _, a := range Algorithms() {
		if a.Name == "anonymous" {
			continue // elects nobody, on purpose: TestAnonymousRing
		}
		t.Run(a.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(a.Name)), 7))
			ran := 0
			for range cases {
				spec, o := randomCase(rng)
				o.Algo = a.Name
				topo, err := bus.Generate(spec)
				require.NoError(t, err)
				if a.Crashes && rng.IntN(2) == 0 {
					// Any nodes but one may have crashed, not only the
					// coordinator.
					for _, v := range rng.Perm(len(topo.Nodes))[:rng.IntN(len(topo.Nodes))] {
						o.Crashed = append(o.Crashed, topo.Nodes[v].ID)
					}
				}
				res, err := Run(topo, o)
				if errors.Is(err, ErrUnsupportedTopology) || errors.Is(err, ErrUnsupportedMode) || errors.Is(err, ErrBadOptions) {
					continue
				}
				require.NoError(t, err, "%s %+v", spec, o) // ErrNoTermination would be a bug
				ran++
				where := fmt.Sprintf("%s on %s, options %+v", a.Name, spec, o)
				leaders := 0
				for _, n := range res.Nodes {
					if n.State == Leader {
						leaders++
					}
				}
				require.Equal(t, 1, leaders, where)
				require.NotEmpty(t, res.Leader, where)
				if a.Name != "1394" {
					assert.Equal(t, expectedLeader(res), res.LeaderID, where)
				}
				if res.Announced {
					for _, n := range res.Nodes {
						if n.State != Crashed {
							assert.Equal(t, res.Leader, n.Leader, "%s: node %s", where, n.Node)
						}
					}
				}
				again, err := Run(topo, o)
				require.NoError(t, err)
				assert.Equal(t, res, again, "%s: not deterministic", where)
			}
			assert.Greater(t, ran, cases/10, "too few cases applied to %s", a.Name)
		})
	}
}

// The anonymous ring never elects anyone and every node stays in the same
// state; the run stops once the common state repeats (after n rounds, the
// period of the rule).
func TestAnonymousRing(t *testing.T) {
	for _, n := range ringSizes {
		res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "anonymous"})
		assert.Empty(t, res.Leader)
		assert.Equal(t, fmt.Sprintf("all nodes alike (undecided, value 0) in rounds 1 and %d: repeats forever", n+1), res.NoLeader)
		for _, node := range res.Nodes {
			assert.Equal(t, res.Nodes[0].State, node.State)
			assert.Equal(t, res.Nodes[0].Leader, node.Leader)
		}
		assert.Equal(t, n+1, res.Rounds, "n=%d", n)
		// Every node sends in rounds 1…n+1; the check after round n+1 sees
		// the state of round 1 again and stops the run.
		assert.Equal(t, n*(n+1), res.Messages.Total, "n=%d", n)
		assert.False(t, res.Announced)
	}
}

func TestDeterminismAndSeeds(t *testing.T) {
	a := elect(t, "ring:9", Options{Algo: "chang-roberts-bidi", IDOrder: Random, Seed: 1, Trace: true})
	b := elect(t, "ring:9", Options{Algo: "chang-roberts-bidi", IDOrder: Random, Seed: 1, Trace: true})
	assert.Equal(t, a, b)
	differs := false
	for seed := uint64(2); seed < 10 && !differs; seed++ {
		c := elect(t, "ring:9", Options{Algo: "chang-roberts-bidi", IDOrder: Random, Seed: seed, Trace: true})
		differs = !assert.ObjectsAreEqual(a.Trace, c.Trace)
	}
	assert.True(t, differs, "seeds 1 to 9 give the same run")
}

func TestTraceListsEveryMessage(t *testing.T) {
	res := elect(t, "complete:5", Options{Algo: "bully", InitiatorCount: 1, UnitDelays: true, Trace: true})
	require.Len(t, netsim.MessagesOnly(res.Trace), res.Messages.Total)
	lost := 0
	for _, m := range netsim.MessagesOnly(res.Trace) {
		if m.Lost {
			lost++
			assert.Equal(t, "n4", m.To, "only the crashed coordinator loses messages")
			continue
		}
		assert.InDelta(t, m.Sent+1, m.Arrived, 1e-9, "unit delays")
	}
	assert.Equal(t, 4, lost, "each of the four live nodes sends one ELECTION to n4")
	assert.Equal(t, []string{"n4"}, res.Crashed)
}
