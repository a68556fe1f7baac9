package mutex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// cases is how many random runs a property test makes: more with
// FWSIM_LONG=1.
func cases() int {
	if os.Getenv("FWSIM_LONG") != "" {
		return 3000
	}
	return 150
}

var specs = []string{"pair", "ring:3", "ring:7", "tree:9:2", "complete:5", "chain:4", "star:6", "tree:16:5"}

// Without faults every algorithm is safe and live on every topology, seed
// and workload, and Ricart–Agrawala follows happened-before.
func TestNoFaultRunsAreSafeAndLive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range cases() {
		spec, topo := randomTopology(t, rng)
		o := randomWorkload(rng)
		res, err := Run(topo, o)
		require.NoError(t, err, "case %d: %s %+v", i, spec, o)
		name := fmt.Sprintf("case %d: %s %s seed %d notify %t", i, spec, o.Algo, o.Seed, o.Notify)
		assert.Empty(t, res.Violations, name)
		assert.True(t, res.Live, name)
		assert.Empty(t, res.Unserved, name)
		assert.Len(t, res.Entries, len(topo.Nodes)*o.Requests, name)
		for j := 1; j < len(res.Entries); j++ {
			assert.GreaterOrEqual(t, res.Entries[j].Entered, res.Entries[j-1].Left, "%s: entry %d", name, j)
		}
		if o.Algo == "ricart-agrawala" {
			assert.Zero(t, res.Order.CausalInversions, name)
		}
		if o.Algo == "token-ring" {
			// A waiting node lets each other node in at most once, and the
			// token takes at most n hops of at most a delay each.
			n := len(topo.Nodes)
			bound := delays(int64(n-1)*o.CSTime + int64(n)*Delay)
			assert.LessOrEqual(t, res.MaxWait, bound, name)
		}
	}
}

// Under random crashes and token losses no run breaks safety, every run
// ends, and every request that waits for ever has a reason.
func TestFaultyRunsAreSafeAndEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range cases() {
		spec, topo := randomTopology(t, rng)
		o := randomFaults(rng, topo)
		res, err := Run(topo, o)
		require.NoError(t, err, "case %d: %s %+v", i, spec, o)
		name := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		assert.Empty(t, res.Violations, name)
		for _, u := range res.Unserved {
			assert.NotContains(t, u.Reason, "a bug", name)
		}
	}
}

// randomTopology draws one of specs.
func randomTopology(t testing.TB, rng *rand.Rand) (string, *bus.Topology) {
	spec := specs[rng.IntN(len(specs))]
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	return spec, topo
}

// randomWorkload draws an algorithm, a workload and a seed: half of them
// busy (a fraction of a delay to think and to stay inside), where chains of
// messages between requests are common.
func randomWorkload(rng *rand.Rand) Options {
	scale := int64(4)
	if rng.IntN(2) == 0 {
		scale = 1
	}
	return Options{Algo: algorithms[rng.IntN(len(algorithms))].Name, Requests: 1 + rng.IntN(4),
		CSTime: rng.Int64N(scale * Delay * 3 / 4), Think: rng.Int64N(scale * Delay), Seed: rng.Uint64(), Notify: rng.IntN(2) == 0}
}

// randomFaults draws a workload with crashes, a lost token (regenerated or
// not) or the remedy.
func randomFaults(rng *rand.Rand, topo *bus.Topology) Options {
	n := len(topo.Nodes)
	o := randomWorkload(rng)
	for v := range n {
		if rng.IntN(4) == 0 && len(o.Crashes) < n-1 {
			o.Crashes = append(o.Crashes, Crash{Node: topo.Nodes[v].ID, At: rng.Int64N(8 * Delay)})
		}
	}
	switch o.Algo {
	case "token-ring":
		o.LoseToken, o.LoseTokenAt = rng.IntN(2) == 0, rng.Int64N(8*Delay)
		o.Regenerate = rng.IntN(2) == 0
	case "ricart-agrawala":
		o.RequestReply = rng.IntN(2) == 0
	}
	return o
}

// With the remedy, Ricart–Agrawala serves every live node whatever crashes.
func TestRequestReplyRemedyIsLive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range cases() {
		_, topo := randomTopology(t, rng)
		o := randomFaults(rng, topo)
		o.Algo, o.RequestReply, o.LoseToken, o.Regenerate = "ricart-agrawala", true, false, false
		res, err := Run(topo, o)
		require.NoError(t, err)
		assert.True(t, res.Live, "case %d: %+v: %v", i, o, res.Unserved)
		assert.Empty(t, res.Violations)
	}
}

func TestSameSeedSameResult(t *testing.T) {
	topo, err := bus.Generate("tree:9:2")
	require.NoError(t, err)
	for _, a := range Algorithms() {
		o := Options{Algo: a.Name, Requests: 2, CSTime: Delay, Think: 2 * Delay, Seed: 9, Trace: true, Crashes: []Crash{{Node: "n3", At: 4 * Delay}}}
		first, err := Run(topo, o)
		require.NoError(t, err)
		again, err := Run(topo, o)
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(first, again), a.Name)
		o.Seed = 10
		other, err := Run(topo, o)
		require.NoError(t, err)
		assert.False(t, reflect.DeepEqual(first.Trace, other.Trace), "%s: the seed draws the delays", a.Name)
	}
}

// The monitor itself: an algorithm that lets every node in at once breaks
// safety, and the run says who was inside.
func TestSafetyViolationIsReported(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	algorithms = append(algorithms, algorithm{Info: Info{Name: "everyone", Types: []string{"NONE"}},
		newMachine: func(w *world, v int) machine { return &everyone{w: w, v: v} }})
	defer func() { algorithms = algorithms[:len(algorithms)-1] }()
	res, err := Run(topo, Options{Algo: "everyone", CSTime: Delay})
	require.NoError(t, err)
	assert.Equal(t, []string{"b entered at 0.000 while a was inside (since 0.000)"}, res.Violations)
}

// everyone enters the moment it wants to.
type everyone struct {
	w *world
	v int
}

func (e *everyone) start(*netsim.Net)                        {}
func (e *everyone) want(x *netsim.Net)                       { e.w.enter(x, e.v) }
func (e *everyone) release(*netsim.Net)                      {}
func (e *everyone) receive(*netsim.Net, int, netsim.Message) {}
func (e *everyone) timer(*netsim.Net, netsim.Message)        {}
func (e *everyone) why() string                              { return "" }

// The ordering check counts a pair whose requests are ordered by
// happened-before and whose entries are not.
func TestCausalInversionIsCounted(t *testing.T) {
	w := &world{g: &netsim.Graph{Nodes: []string{"a", "b"}}, nodes: make([]nodeState, 2),
		requests: []request{
			{node: 0, at: 10, vc: []int32{1, 0}},
			{node: 1, at: 20, vc: []int32{2, 3}}, // b had heard from a after a's request
		},
		entries: []int{1, 0}}
	o := w.ordering()
	assert.Equal(t, Order{Pairs: 1, Inversions: 1, Inversion: "a asked at 0.010, b at 0.020; b entered first",
		CausalInversions: 1, CausalInversion: "a's request at 0.010 happened before b's at 0.020; b entered first"}, o)
	w.requests[1].vc = []int32{0, 3} // concurrent: no causal inversion
	assert.Zero(t, w.ordering().CausalInversions)
}

func TestBadOptions(t *testing.T) {
	topo, err := bus.Generate("ring:4")
	require.NoError(t, err)
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Algo: "bakery"}, `unknown mutual-exclusion algorithm "bakery" (want central, ricart-agrawala, majority, token-ring)`},
		{Options{Algo: "central", LoseToken: true}, "central has no token to lose"},
		{Options{Algo: "token-ring", RequestReply: true}, "the request-reply remedy is ricart-agrawala's"},
		{Options{Algo: "central", Crashes: []Crash{{Node: "n9", At: 0}}}, `crashed node "n9" is not on the bus`},
		{Options{Algo: "central", Crashes: []Crash{{Node: "n1", At: 0}, {Node: "n1", At: 5}}}, `node "n1" crashes twice`},
		{Options{Algo: "central", Requesters: []string{"x"}}, `requester "x" is not on the bus`},
		{Options{Algo: "central", Coordinator: "x"}, `coordinator "x" is not on the bus`},
		{Options{Algo: "central", Requests: -1}, "-1 requests per node"},
	} {
		_, err := Run(topo, tc.o)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err = Run(topo, Options{Algo: "token-ring", Think: 10000 * Delay, MaxEvents: 1000})
	assert.EqualError(t, err, "run too long: token-ring ran past its budget of 1000 events; ask for fewer requests or shorter times")
	assert.ErrorIs(t, err, ErrTooLong)
	one, err := bus.Generate("chain:1")
	require.NoError(t, err)
	_, err = Run(one, Options{Algo: "central"})
	assert.ErrorIs(t, err, ErrBadOptions)
}

// The order check counts what comparing every two entries counts, on
// random runs with NOTEs, which make requests happen before others.
func TestOrderingCountsEveryPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	causal := 0
	for i := range cases() {
		_, topo := randomTopology(t, rng)
		o := randomWorkload(rng)
		o.Notify = true
		w, _, err := drive(topo, o)
		require.NoError(t, err)
		got := w.ordering()
		var want Order
		for k, a := range w.entries {
			for _, b := range w.entries[k+1:] {
				ra, rb := w.requests[a], w.requests[b]
				want.Pairs++
				if rb.at < ra.at {
					want.Inversions++
				}
				if rb.node != ra.node && rb.vc[rb.node] <= ra.vc[rb.node] {
					want.CausalInversions++
				}
			}
		}
		assert.Equal(t, want.Pairs, got.Pairs, "case %d", i)
		assert.Equal(t, want.Inversions, got.Inversions, "case %d", i)
		assert.Equal(t, want.CausalInversions, got.CausalInversions, "case %d", i)
		assert.Equal(t, got.Inversions > 0, got.Inversion != "", "case %d", i)
		assert.Equal(t, got.CausalInversions > 0, got.CausalInversion != "", "case %d", i)
		causal += got.CausalInversions
	}
	assert.Positive(t, causal, "some runs invert happened-before, or the check is not tested")
}

// Ricart–Agrawala follows happened-before: a request that happened before
// another, through any chain of messages, REPLYs included, enters first.
// The two runs are the ones where a REPLY carried no clock and the chain
// through it did not reach the later requester's; the random workloads
// are short and busy (several requests, a fraction of a delay to think and
// to stay inside), where such chains are common.
func TestRicartAgrawalaFollowsHappenedBefore(t *testing.T) {
	for _, tc := range []struct {
		spec      string
		requests  int
		think, cs int64
		seed      uint64
	}{
		{"complete:3", 4, 3 * Delay / 10, 2 * Delay / 10, 198},
		{"chain:8", 3, 5 * Delay / 10, 2 * Delay / 10, 24},
	} {
		topo, err := bus.Generate(tc.spec)
		require.NoError(t, err)
		res, err := Run(topo, Options{Algo: "ricart-agrawala", Requests: tc.requests, Think: tc.think, CSTime: tc.cs, Seed: tc.seed})
		require.NoError(t, err)
		assert.Zero(t, res.Order.CausalInversions, "%s seed %d: %s", tc.spec, tc.seed, res.Order.CausalInversion)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2 * cases() {
		spec := fmt.Sprintf("complete:%d", 3+rng.IntN(4))
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		o := Options{Algo: "ricart-agrawala", Requests: 2 + rng.IntN(3), Think: rng.Int64N(Delay), CSTime: rng.Int64N(Delay / 2), Seed: rng.Uint64()}
		res, err := Run(topo, o)
		require.NoError(t, err)
		assert.Zero(t, res.Order.CausalInversions, "case %d: %s %+v: %s", i, spec, o, res.Order.CausalInversion)
	}
}
