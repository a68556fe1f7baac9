package mutex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

func run(t *testing.T, spec string, o Options) *Result {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	res, err := Run(topo, o)
	require.NoError(t, err)
	return res
}

// Central: REQUEST, OK and RELEASE once per entry of a client, none for the
// coordinator's own entries (it asks itself): at most three per entry.
func TestCentralThreeMessagesPerClientEntry(t *testing.T) {
	for _, n := range []int{2, 5, 9} {
		for _, k := range []int{1, 3} {
			res := run(t, fmt.Sprintf("ring:%d", n), Options{Algo: "central", Requests: k, CSTime: Delay, Think: 2 * Delay, Seed: uint64(n * k)})
			clients := k * (n - 1)
			assert.Equal(t, map[string]int{"REQUEST": clients, "OK": clients, "RELEASE": clients}, byType(res), "n=%d k=%d", n, k)
			assert.Len(t, res.Entries, k*n)
			assert.True(t, res.Live)
			assert.Empty(t, res.Violations)
			assert.Equal(t, fmt.Sprintf("n%d", n-1), res.Coordinator, "floodmax elects the largest ID, the last node of the ring")
		}
	}
}

// On a tree, a 1394 bus, the coordinator is the root tree identify elects.
func TestCentralCoordinatorIsThe1394Root(t *testing.T) {
	res := run(t, "tree:6:2", Options{Algo: "central", Seed: 1})
	assert.Equal(t, "1394 root, seed 1", res.CoordinatorBy)
	assert.Equal(t, "n0", res.Coordinator, "fwsim elect --algo 1394 --gen tree:6:2 --seed 1 elects n0")
}

// Ricart–Agrawala: n−1 REQUESTs and n−1 REPLYs per entry, 2(n−1).
func TestRicartAgrawalaTwoNMinusOnePerEntry(t *testing.T) {
	for _, n := range []int{2, 3, 6, 10} {
		for _, think := range []int64{0, 3 * Delay} {
			res := run(t, fmt.Sprintf("complete:%d", min(n, 6)), Options{Algo: "ricart-agrawala", Requests: 2, CSTime: Delay / 2, Think: think, Seed: 7})
			n := min(n, 6)
			per := n - 1
			assert.Equal(t, map[string]int{"REQUEST": 2 * n * per, "REPLY": 2 * n * per, "DEFER": 0}, byType(res), "n=%d", n)
			assert.InDelta(t, float64(2*(n-1)), res.PerEntry, 1e-9)
			assert.Zero(t, res.Order.CausalInversions, "entries follow happened-before")
		}
	}
}

// The textbook example (Tanenbaum & van Steen): two processes ask at once,
// n1 with timestamp 8, n0 with 12; n1 wins, and n0's request waits in n1's
// queue until n1 leaves.
func TestRicartAgrawalaExample(t *testing.T) {
	res := run(t, "chain:3", Options{Algo: "ricart-agrawala", Requesters: []string{"n0", "n1"},
		Clocks: map[string]int64{"n0": 11, "n1": 7}, CSTime: Delay, Seed: 1, Trace: true})
	require.Len(t, res.Entries, 2)
	assert.Equal(t, "n1", res.Entries[0].Node)
	assert.Equal(t, int64(8), res.Entries[0].Stamp)
	assert.Equal(t, "n0", res.Entries[1].Node)
	assert.Equal(t, int64(12), res.Entries[1].Stamp)
	assert.GreaterOrEqual(t, res.Entries[1].Entered, res.Entries[0].Left, "P0 enters once P1 has left")
	// n1's REPLY to n0 goes out when n1 leaves, not before.
	for _, m := range netsim.MessagesOnly(res.Trace) {
		if m.From == "n1" && m.To == "n0" && m.Type == "REPLY" {
			assert.Equal(t, res.Entries[0].Left, m.Sent, "the deferred reply is sent on release")
		}
	}
	assert.Equal(t, 8, res.Messages.Total, "two entries of 2(n−1) = 4 messages")
}

// Token ring: when every node always wants, one TOKEN per entry and the
// entries go round the ring, each holder once per visit.
func TestTokenRingOneEntryPerVisit(t *testing.T) {
	const n, k = 6, 3
	res := run(t, fmt.Sprintf("ring:%d", n), Options{Algo: "token-ring", Requests: k, CSTime: Delay, Seed: 4})
	require.Len(t, res.Entries, n*k)
	for i, e := range res.Entries {
		assert.Equal(t, fmt.Sprintf("n%d", i%n), e.Node, "entry %d", i)
	}
	assert.Equal(t, n*k, res.Messages.Total)
}

// A lone requester at ring position p waits for the token's p hops: up to
// n−1 messages before an entry, one after.
func TestTokenRingLoneRequester(t *testing.T) {
	for p := range 5 {
		res := run(t, "ring:5", Options{Algo: "token-ring", Requesters: []string{fmt.Sprintf("n%d", p)}, CSTime: Delay, Seed: 2})
		require.Len(t, res.Entries, 1)
		assert.Equal(t, p+1, res.Messages.Total, "p=%d", p)
	}
}

// On a graph that is not a ring, the logical ring is the topology's node
// order.
func TestTokenRingOrderOffARing(t *testing.T) {
	res := run(t, "tree:5:1", Options{Algo: "token-ring"})
	assert.Equal(t, []string{"n0", "n1", "n2", "n3", "n4"}, res.Ring)
	res = run(t, "ring:4", Options{Algo: "token-ring"})
	assert.Equal(t, []string{"n0", "n1", "n2", "n3"}, res.Ring)
}

func byType(res *Result) map[string]int {
	m := map[string]int{}
	for _, c := range res.Messages.ByType {
		m[c.Type] = c.Count
	}
	return m
}

func unservedNodes(res *Result) []string {
	var names []string
	for _, u := range res.Unserved {
		names = append(names, u.Node)
	}
	return names
}

// A crashed coordinator: every client waits for ever, and the run says why.
func TestCentralCrashedCoordinator(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "central", CSTime: Delay, Think: 3 * Delay, Seed: 1, Crashes: []Crash{{Node: "n4", At: 1500}}})
	assert.False(t, res.Live)
	assert.NotEmpty(t, res.Unserved)
	for _, u := range res.Unserved {
		assert.Contains(t, u.Reason, "the coordinator n4 crashed at 1.500", u.Node)
	}
	assert.Equal(t, 1.5, res.Nodes[4].CrashedAt)
}

// A client that crashes inside the critical section keeps the grant: the
// coordinator waits for its RELEASE, and so does every later client.
func TestCentralClientCrashedInside(t *testing.T) {
	res := run(t, "complete:4", Options{Algo: "central", Coordinator: "n3", Requesters: []string{"n0", "n1", "n2"},
		CSTime: 2 * Delay, Seed: 3, Crashes: []Crash{{Node: "n2", At: 1500}}})
	require.NotEmpty(t, res.Entries)
	first := res.Entries[0]
	require.Equal(t, "n2", first.Node, "n2 must be inside at 1.5 for this test")
	assert.True(t, first.CrashedInside)
	assert.True(t, res.Nodes[2].CrashedInside)
	assert.ElementsMatch(t, []string{"n0", "n1"}, unservedNodes(res))
	for _, u := range res.Unserved {
		assert.Contains(t, u.Reason, "granted n2, which crashed at 1.500 inside the critical section")
	}
}

// A client that neither holds nor wants the grant may crash: the others go
// on.
func TestCentralClientCrashedOutside(t *testing.T) {
	res := run(t, "complete:4", Options{Algo: "central", Coordinator: "n3", Requesters: []string{"n0", "n1", "n2"},
		Requests: 2, CSTime: Delay, Seed: 3, Crashes: []Crash{{Node: "n2", At: 0}}})
	assert.True(t, res.Live)
	assert.Len(t, res.Entries, 4)
}

// Ricart–Agrawala: one crashed process, which never replies, stops every
// node that wants to enter; the request-reply remedy lets the rest go on.
func TestRicartAgrawalaCrash(t *testing.T) {
	crash := []Crash{{Node: "n2", At: 200}}
	res := run(t, "ring:5", Options{Algo: "ricart-agrawala", Requests: 2, CSTime: Delay, Think: 3 * Delay, Seed: 1, Crashes: crash})
	assert.Empty(t, res.Entries, "every node waits for n2's reply")
	assert.ElementsMatch(t, []string{"n0", "n1", "n3", "n4"}, unservedNodes(res))
	for _, u := range res.Unserved {
		assert.Contains(t, u.Reason, "no REPLY from n2, which crashed at 0.200")
	}

	res = run(t, "ring:5", Options{Algo: "ricart-agrawala", Requests: 2, CSTime: Delay, Think: 3 * Delay, Seed: 1, Crashes: crash, RequestReply: true})
	assert.True(t, res.Live)
	assert.Len(t, res.Entries, 8)
	assert.Empty(t, res.Violations)
	assert.Positive(t, byType(res)["DEFER"])
}

// A lost token: every request waits, and the run says where it went.
func TestTokenRingLostToken(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "token-ring", Requests: 2, CSTime: Delay, Think: 3 * Delay, Seed: 1, LoseToken: true, LoseTokenAt: 3 * Delay})
	assert.False(t, res.Live)
	require.NotEmpty(t, res.Unserved)
	for _, u := range res.Unserved {
		assert.Contains(t, u.Reason, "was lost; that looks like a long stay inside")
	}
	lost := 0
	for _, m := range netsim.MessagesOnly(res.Trace) {
		if m.Lost {
			lost++
		}
	}
	assert.Zero(t, lost, "no trace asked for")
}

// A crashed ring node swallows the token.
func TestTokenRingCrash(t *testing.T) {
	res := run(t, "ring:4", Options{Algo: "token-ring", Requesters: []string{"n0", "n3"}, CSTime: Delay, Seed: 1, Crashes: []Crash{{Node: "n1", At: 0}}})
	assert.Equal(t, []string{"n3"}, unservedNodes(res))
	assert.Contains(t, res.Unserved[0].Reason, "the token n0 sent to n1 at")
	assert.True(t, strings.HasSuffix(res.Unserved[0].Reason, "n1 had crashed at 0.000"), res.Unserved[0].Reason)
}

// Central and the token ring serve requests out of the order they were
// made in: a run shows it.
func TestOrderNotFollowed(t *testing.T) {
	for _, algo := range []string{"central", "token-ring"} {
		res := run(t, "ring:5", Options{Algo: algo, Requests: 2, CSTime: Delay, Think: 3 * Delay, Seed: 1})
		assert.Positive(t, res.Order.Inversions, algo)
		assert.Contains(t, res.Order.Inversion, "entered first", algo)
	}
}

// Ordering by happened-before: a node that waits tells another, which then
// asks too. Central and the token ring can let the second in first;
// Ricart–Agrawala, whose NOTE carries the Lamport clock, cannot.
func TestHappenedBefore(t *testing.T) {
	for _, algo := range []string{"central", "token-ring"} {
		res := run(t, "ring:5", Options{Algo: algo, Notify: true, Requests: 2, CSTime: Delay, Think: 4 * Delay, Seed: 1})
		assert.Positive(t, res.Order.CausalInversions, algo)
		assert.Contains(t, res.Order.CausalInversion, "happened before", algo)
		assert.Equal(t, 10, byType(res)["NOTE"], "%s: one NOTE per request", algo)
	}
	for seed := range uint64(40) {
		res := run(t, "ring:5", Options{Algo: "ricart-agrawala", Notify: true, Requests: 2, CSTime: Delay, Think: 4 * Delay, Seed: seed})
		assert.Zero(t, res.Order.CausalInversions, "seed %d: %s", seed, res.Order.CausalInversion)
		assert.InDelta(t, 8.0, res.PerEntry, 1e-9, "NOTEs are not the algorithm's")
	}
}

// The delay before an entry without contention, in message delays
// (Tanenbaum & van Steen: central 2, distributed 2(n−1), token ring 0 to
// n−1): a client of central waits for REQUEST and OK, a Ricart–Agrawala
// node for its REQUESTs and the REPLYs, which travel in parallel, and a
// node of the token ring for the token's hops.
func TestDelayBeforeEntry(t *testing.T) {
	for seed := range uint64(20) {
		for p := 1; p < 6; p++ {
			who := []string{fmt.Sprintf("n%d", p)}
			o := Options{Requesters: who, CSTime: Delay, Seed: seed, Coordinator: "n0"}
			for algo, bound := range map[string]float64{"central": 2, "ricart-agrawala": 2, "token-ring": float64(p)} {
				o.Algo = algo
				res := run(t, "ring:6", o)
				require.Len(t, res.Entries, 1)
				assert.LessOrEqual(t, res.Entries[0].Wait, bound, "%s, n%d, seed %d", algo, p, seed)
				assert.Positive(t, res.Entries[0].Wait, "%s: every hop takes a delay", algo)
			}
		}
	}
}
