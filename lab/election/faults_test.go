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

// Bully's waits in ticks: T, the wait for an ANSWER (two delays and a tick),
// and T', the second wait, for COORDINATOR (three delays and a tick).
const (
	bullyT      = bullyTimeout*netsim.TicksPerDelay + 1
	bullyTPrime = bullyCoordinatorWait*netsim.TicksPerDelay + 1
)

// bullyAt names node n<v> crashing or recovering at t delays.
func bullyAt(v int, t float64) []NodeEvent {
	return []NodeEvent{{Node: fmt.Sprintf("n%d", v), At: int64(t * netsim.TicksPerDelay)}}
}

// bullyRun runs the fault-free election the fault tests start from, the
// coordinator n(N−1) crashed and the smallest ID, n0, noticing, every delay
// one unit (TestBullyWorstAndBestCase counts it), with crashes and
// recoveries added. It returns the topology's spec too, to name failures.
func bullyRun(t *testing.T, n int, crashes, recoveries []NodeEvent) (string, *Result) {
	t.Helper()
	spec := fmt.Sprintf("complete:%d", n)
	return spec, elect(t, spec, Options{Algo: "bully", InitiatorCount: 1, UnitDelays: true, Trace: true,
		Crashes: crashes, Recoveries: recoveries})
}

// A node that crashes after answering, while the largest live node is up:
// the election goes on without it. n2 answers n0's ELECTION at time 1 and
// crashes at 1.5, before n1's ELECTION reaches it: the one ANSWER it would
// have sent n1 is missing, and the ANSWERs to its own ELECTIONs and the
// COORDINATOR sent to it are lost.
func TestBullyCrashAfterAnswering(t *testing.T) {
	for _, n := range []int{5, 6, 8, 16} {
		spec, res := bullyRun(t, n, bullyAt(2, 1.5), nil)
		assert.Equal(t, fmt.Sprintf("n%d", n-2), res.Leader, spec)
		assert.Equal(t, n*(n-1)/2, res.Messages.Count("ELECTION"), spec)
		assert.Equal(t, (n-1)*(n-2)/2-1, res.Messages.Count("ANSWER"), spec)
		assert.Equal(t, n-2, res.Messages.Count("COORDINATOR"), spec)
		assert.InDelta(t, 4.001, res.Time, 1e-9, spec, "2·T, as without the crash")
		var lostToN2 []string
		for _, m := range netsim.MessagesOnly(res.Trace) {
			if m.Lost && m.To == "n2" {
				lostToN2 = append(lostToN2, m.From+" "+m.Type)
			}
		}
		// n1's ELECTION was on its way when n2 crashed, and is lost on
		// arrival, as are the ANSWERs of n3…n(N−2).
		want := []string{"n1 ELECTION"}
		for v := 3; v <= n-2; v++ {
			want = append(want, fmt.Sprintf("n%d ANSWER", v))
		}
		assert.Equal(t, append(want, fmt.Sprintf("n%d COORDINATOR", n-2)), lostToN2, spec)
		assert.Equal(t, Crashed, res.Nodes[2].State)
	}
}

// The would-be coordinator n(N−2) answers n(N−3) at time 2 and crashes at
// 2.5, before its timeout (3.001) would make it announce. The nodes it
// answered wait out the second timeout T' and hold new elections: n0 at
// T+T' = 5.002, the others at 1+T+T' = 6.002, and n(N−3), the largest left,
// announces at 6.002+T and its COORDINATOR arrives at 9.003 = 2T + (T+T').
func TestBullyCoordinatorCrashesBeforeAnnouncing(t *testing.T) {
	for _, n := range []int{4, 5, 8, 16} {
		spec, res := bullyRun(t, n, bullyAt(n-2, 2.5), nil)
		assert.Equal(t, fmt.Sprintf("n%d", n-3), res.Leader, spec)
		// The first election as without the crash, then n0's second
		// (N−1 ELECTION, answered by the N−3 live nodes above it), then
		// the second elections of n1…n(N−3): n_j sends N−1−j ELECTIONs
		// and is answered by the N−3−j live nodes above it.
		second, answers := 0, 0
		for j := 1; j <= n-3; j++ {
			second += n - 1 - j
			answers += n - 3 - j
		}
		assert.Equal(t, n*(n-1)/2+(n-1)+second, res.Messages.Count("ELECTION"), spec)
		assert.Equal(t, (n-1)*(n-2)/2+(n-3)+answers, res.Messages.Count("ANSWER"), spec)
		assert.Equal(t, n-3, res.Messages.Count("COORDINATOR"), spec)
		assert.Equal(t, float64(2*bullyT-1+bullyT+bullyTPrime)/netsim.TicksPerDelay, res.Time, spec)
	}
}

// The old coordinator n(N−1) recovers at time 10, after n(N−2) won: it
// holds an election with nobody above it, waits out T and bullies the
// N−1 others with COORDINATOR.
func TestBullyRecoveredCoordinatorBullies(t *testing.T) {
	for _, n := range []int{3, 4, 8, 16} {
		spec, res := bullyRun(t, n, nil, bullyAt(n-1, 10))
		assert.Equal(t, fmt.Sprintf("n%d", n-1), res.Leader, spec)
		assert.Equal(t, n*n-n-1+n-1, res.Messages.Total, spec)
		assert.Equal(t, n-2+n-1, res.Messages.Count("COORDINATOR"), spec)
		assert.Equal(t, 10+float64(bullyT)/netsim.TicksPerDelay+1, res.Time, spec)
		for _, node := range res.Nodes {
			assert.Equal(t, res.Leader, node.Leader, spec)
		}
	}
}

// n1 crashes at 10, after the election, and recovers at 20: it holds an
// election, which every live node above it takes up; the nodes n1…n(N−1)
// run the worst case among themselves again, and n(N−2) tells the N−2
// nodes below it once more. Time: 2T after the recovery. (With N = 3, n1
// is the leader that crashes: TestBullyRecoveredCoordinatorBullies.)
func TestBullyRecoveredNodeRejoins(t *testing.T) {
	for _, n := range []int{4, 5, 8, 16} {
		spec, res := bullyRun(t, n, bullyAt(1, 10), bullyAt(1, 20))
		m := n - 1 // the nodes from n1 up
		assert.Equal(t, fmt.Sprintf("n%d", n-2), res.Leader, spec)
		assert.Equal(t, n*(n-1)/2+m*(m-1)/2, res.Messages.Count("ELECTION"), spec)
		assert.Equal(t, (n-1)*(n-2)/2+(m-1)*(m-2)/2, res.Messages.Count("ANSWER"), spec)
		assert.Equal(t, 2*(n-2), res.Messages.Count("COORDINATOR"), spec)
		assert.Equal(t, 20+float64(2*bullyT-1)/netsim.TicksPerDelay, res.Time, spec)
		assert.Equal(t, Follower, res.Nodes[1].State, spec)
	}
}

// The notes bound Bully's time by N·Tmax, or 2·Tmax with a link between
// every two nodes. Without faults during the election it takes 2·T
// (TestBullyWorstAndBestCase). Each node that crashes during it costs at
// most one more round of the waits T and T' (an answer, then no
// COORDINATOR, then a new election): the run ends by 2·T + f·(T+T') for f
// crashes, within N·Tmax with Tmax = T+T', the longest one election makes
// a node wait, as at most N−2 nodes can fail this way and leave a leader.
// With recoveries, the live node with the largest ID ends as the only
// leader, known to every live node; a leader that crashes after winning
// leaves none, as nobody watches it.
func TestBullyFaultsTerminationAndAgreement(t *testing.T) {
	cases := testenv.Size(50, 400, 10000)
	rng := rand.New(rand.NewPCG(14, 1))
	for range cases {
		n := 2 + rng.IntN(11)
		spec := fmt.Sprintf("complete:%d", n)
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		o := Options{Algo: "bully", IDOrder: IDOrder(rng.IntN(3)), Seed: rng.Uint64(), UnitDelays: rng.IntN(3) == 0,
			InitiatorCount: 1 + rng.IntN(n-1)}
		recovers := rng.IntN(2) == 0
		horizon := int64(n) * (bullyT + bullyTPrime)
		first := rng.IntN(n) // crashed from the start
		o.Crashed = []string{topo.Nodes[first].ID}
		for v, node := range topo.Nodes {
			down := rng.Int64N(horizon)
			switch {
			case v == first:
				down = 0
			case rng.IntN(3) == 0:
				o.Crashes = append(o.Crashes, NodeEvent{Node: node.ID, At: down})
			default:
				continue
			}
			if recovers && rng.IntN(2) == 0 {
				o.Recoveries = append(o.Recoveries, NodeEvent{Node: node.ID, At: down + 1 + rng.Int64N(horizon)})
			}
		}
		res, err := Run(topo, o)
		require.NoError(t, err, "%s %+v", spec, o)
		where := fmt.Sprintf("%s, options %+v", spec, o)
		var leaders []string
		live := []int64{}
		for _, node := range res.Nodes {
			if node.State != Crashed {
				live = append(live, node.ID)
			}
			if node.State == Leader {
				leaders = append(leaders, node.Node)
			}
		}
		require.LessOrEqual(t, len(leaders), 1, where)
		if res.Leader != "" {
			assert.Equal(t, slices.Max(live), res.LeaderID, where)
			for _, node := range res.Nodes {
				if node.State != Crashed {
					assert.Equal(t, res.Leader, node.Leader, "%s: node %s", where, node.Node)
				}
			}
			if !recovers {
				f := 0
				for _, c := range res.Crashes {
					if float64(c.At) < res.Time*netsim.TicksPerDelay {
						f++
					}
				}
				assert.LessOrEqual(t, res.Time*netsim.TicksPerDelay, float64(2*bullyT-1+f*(bullyT+bullyTPrime))+1e-6, where)
				assert.LessOrEqual(t, res.Time*netsim.TicksPerDelay, float64(n*(bullyT+bullyTPrime)), where)
			}
		}
		again, err := Run(topo, o)
		require.NoError(t, err)
		assert.Equal(t, res, again, "%s: not deterministic", where)
	}
}

// Chang–Roberts and LeLann under a crash (the notes: termination is not
// guaranteed): a crashed node swallows what reaches it and an ID must go
// all the way round, so a node down from the first instant leaves no
// leader and says why; a crash after the election changes nothing.
func TestRingAlgorithmsDoNotSurviveACrash(t *testing.T) {
	topo, err := bus.Generate("ring:6")
	require.NoError(t, err)
	for _, algo := range []string{"chang-roberts", "chang-roberts-bidi", "chang-roberts-min", "lelann"} {
		res, err := Run(topo, Options{Algo: algo, Crashes: []NodeEvent{{"n2", 0}}})
		require.NoError(t, err, algo)
		assert.Empty(t, res.Leader, algo)
		assert.Contains(t, res.NoLeader, "the ring is broken at n2", algo)
		late, err := Run(topo, Options{Algo: algo, Crashes: []NodeEvent{{"n2", 100_000}}})
		require.NoError(t, err, algo)
		alone, err := Run(topo, Options{Algo: algo})
		require.NoError(t, err, algo)
		assert.Equal(t, alone.Leader, late.Leader, algo)
	}
}

// A trace bounded by MaxTrace stops the run once it passes the bound; the
// same run without the bound, or untraced, ends with its leader.
func TestMaxTraceStopsTheRun(t *testing.T) {
	topo, err := bus.Generate("ring:8")
	require.NoError(t, err)
	full, err := Run(topo, Options{Algo: "lelann", Trace: true})
	require.NoError(t, err)
	_, err = Run(topo, Options{Algo: "lelann", Trace: true, MaxTrace: len(full.Trace) - 1})
	require.ErrorIs(t, err, netsim.ErrTraceFull)
	assert.Contains(t, err.Error(), fmt.Sprintf("traced more than %d entries", len(full.Trace)-1))
	res, err := Run(topo, Options{Algo: "lelann", Trace: true, MaxTrace: len(full.Trace)})
	require.NoError(t, err, "a trace of exactly the bound")
	assert.Equal(t, full.Leader, res.Leader)
	res, err = Run(topo, Options{Algo: "lelann", MaxTrace: 1})
	require.NoError(t, err, "no trace, nothing to bound")
	assert.Equal(t, full.Leader, res.Leader)
}
