package mutex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// Under message loss no algorithm breaks safety without the remedy, every
// run ends, and a request that waits for ever names what was lost: no
// algorithm resends, so a loss deadlocks all but the regenerated token.
func TestLossyRunsEndAndSayWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	deadlocks := map[string]int{}
	for i := range 2 * cases() {
		spec, topo := randomTopology(t, rng)
		o := randomWorkload(rng)
		o.Loss = []float64{0.02, 0.1, 0.3}[rng.IntN(3)]
		o.Regenerate = o.Algo == "token-ring" && rng.IntN(2) == 0
		res, err := Run(topo, o)
		require.NoError(t, err)
		name := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		assert.Empty(t, res.Violations, name)
		assert.Equal(t, !res.Live, res.Deadlock != "", name)
		for _, u := range res.Unserved {
			assert.NotContains(t, u.Reason, "a bug", name)
		}
		if !res.Live {
			assert.NotEmpty(t, res.Lost, "%s: a deadlock without a loss", name)
			assert.True(t, res.Failed(), name)
			deadlocks[o.Algo]++
		}
	}
	for _, a := range []string{"central", "ricart-agrawala", "majority", "token-ring"} {
		assert.Positive(t, deadlocks[a], "%s never deadlocked under loss", a)
	}
}

// The notes' deadlock of the central solution: a lost OK leaves the
// coordinator counting the client inside; every later client waits in its
// queue, and the run says so and fails.
func TestCentralLostOKDeadlocks(t *testing.T) {
	var res *Result
	for seed := range uint64(200) {
		r := run(t, "ring:5", Options{Algo: "central", Requests: 2, CSTime: Delay, Think: 2 * Delay, Seed: seed, Loss: 0.1})
		if len(r.Lost) == 1 && r.Lost[0].Type == "OK" {
			res = r
			break
		}
	}
	require.NotNil(t, res, "no seed loses just an OK")
	assert.False(t, res.Live)
	assert.True(t, res.Failed())
	l := res.Lost[0]
	assert.Contains(t, res.Deadlock, fmt.Sprintf("the coordinator n4's OK to it was lost at %.3f", l.At))
	for _, u := range res.Unserved {
		if u.Node != l.To {
			assert.Contains(t, u.Reason, fmt.Sprintf("granted %s, whose OK was lost at %.3f", l.To, l.At))
		}
	}
}

// Ricart–Agrawala waits for ever for a lost REQUEST's or REPLY's answer.
func TestRicartAgrawalaLossDeadlocks(t *testing.T) {
	res := run(t, "complete:4", Options{Algo: "ricart-agrawala", CSTime: Delay, Think: Delay, Seed: 1, Loss: 0.3})
	require.NotEmpty(t, res.Lost)
	require.False(t, res.Live)
	assert.Regexp(t, `(REQUEST to n\d was lost|REPLY was lost) at`, res.Deadlock)
}

// The request-reply remedy takes silence for a crash: under loss it gives
// up on live nodes and lets two in at once. No algorithm here tolerates
// loss, the remedy least of all.
func TestRequestReplyBreaksUnderLoss(t *testing.T) {
	broken := 0
	for seed := range uint64(60) {
		res := run(t, "complete:5", Options{Algo: "ricart-agrawala", RequestReply: true, Requests: 2, CSTime: Delay, Think: Delay, Seed: seed, Loss: 0.1})
		if len(res.Violations) > 0 {
			broken++
			assert.True(t, res.Failed())
		}
	}
	assert.Positive(t, broken)
}

// A loss is keyed by the message's type, link and attempt: central and
// Ricart–Agrawala, which both send REQUEST, lose the first REQUEST on a
// link alike; the delays, drawn from another stream, do not move.
func TestLossIsKeyedByMessage(t *testing.T) {
	o := Options{Requesters: []string{"n0"}, Coordinator: "n1", CSTime: Delay, Trace: true}
	for seed := range uint64(50) {
		o.Seed, o.Loss = seed, 0.5
		o.Algo = "central"
		c := run(t, "complete:3", o)
		o.Algo = "ricart-agrawala"
		r := run(t, "complete:3", o)
		lostC := len(c.Lost) > 0 && c.Lost[0].Type == "REQUEST"
		lostR := false
		for _, l := range r.Lost {
			lostR = lostR || (l.Type == "REQUEST" && l.To == "n1")
		}
		assert.Equal(t, lostC, lostR, "seed %d: n0's first REQUEST to n1", seed)
	}
	// Loss 0 and no loss at all give the same run.
	o = Options{Algo: "ricart-agrawala", Requests: 2, CSTime: Delay, Think: Delay, Seed: 4}
	a := run(t, "ring:5", o)
	o.Loss = 0
	b := run(t, "ring:5", o)
	assert.Equal(t, a.Entries, b.Entries)
	// A loss does not shift the delays of the messages before it.
	o.Trace = true
	clean := run(t, "ring:5", o)
	o.Loss = 0.2
	lossy := run(t, "ring:5", o)
	require.NotEmpty(t, lossy.Lost)
	cm, lm := netsim.MessagesOnly(clean.Trace), netsim.MessagesOnly(lossy.Trace)
	for i := range cm {
		if lm[i].Lost {
			break
		}
		assert.Equal(t, cm[i], lm[i], "message %d before the first loss", i)
	}
}

// Loss is a probability.
func TestLossBadOptions(t *testing.T) {
	for _, p := range []float64{-0.1, 1.5} {
		_, err := Run(mustTopo(t, "ring:3"), Options{Algo: "central", Loss: p})
		assert.ErrorContains(t, err, "want a probability from 0 to 1")
	}
	_, err := Run(mustTopo(t, "ring:3"), Options{Algo: "central", Regenerate: true})
	assert.ErrorContains(t, err, "central has no token to regenerate")
}

// The token ring's coordinator regenerates a lost token: never two tokens,
// mutual exclusion holds, and the entries go on after the loss.
func TestTokenRegenerated(t *testing.T) {
	o := Options{Algo: "token-ring", Requests: 3, CSTime: Delay, Think: 3 * Delay, Seed: 1, LoseToken: true, LoseTokenAt: 3 * Delay, Regenerate: true, Trace: true}
	res := run(t, "ring:5", o)
	assert.True(t, res.Live, "%v", res.Unserved)
	assert.Empty(t, res.Violations)
	require.Len(t, res.Regenerated, 1)
	assert.Equal(t, "n4", res.Coordinator)
	after := 0
	for _, e := range res.Entries {
		if e.Entered > res.Regenerated[0] {
			after++
		}
	}
	assert.Positive(t, after, "entries after the regeneration")
	events := 0
	for _, e := range res.Trace {
		if e.Event == netsim.EventDecide && e.Type == "REGENERATE" {
			events++
			assert.Equal(t, "n4", e.From)
		}
	}
	assert.Equal(t, 1, events)

	// Random loss, random workloads: exactly one token at any time.
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range cases() {
		spec, topo := randomTopology(t, rng)
		o := randomWorkload(rng)
		o.Algo, o.Regenerate, o.Loss = "token-ring", true, []float64{0, 0.05, 0.2}[rng.IntN(3)]
		if rng.IntN(2) == 0 {
			o.LoseToken, o.LoseTokenAt = true, rng.Int64N(6*Delay)
		}
		w, out, err := drive(topo, o)
		require.NoError(t, err)
		res := w.result(out)
		name := fmt.Sprintf("case %d: %s %+v", i, spec, o)
		assert.LessOrEqual(t, w.maxTokens, 1, name)
		assert.Empty(t, res.Violations, name)
		if !res.Live {
			assert.GreaterOrEqual(t, res.GaveUp, 0.0, "%s: not live, yet the coordinator did not give up: %v", name, res.Unserved)
		}
	}
}

// Without --regenerate a lost token stays lost, as before.
func TestTokenNotRegeneratedByDefault(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "token-ring", Requests: 2, CSTime: Delay, Think: 3 * Delay, Seed: 1, LoseToken: true, LoseTokenAt: 3 * Delay})
	assert.False(t, res.Live)
	assert.Empty(t, res.Regenerated)
}

// A crashed node swallows every token: the coordinator gives up after n
// in a row, and the run ends.
func TestTokenRegenerationGivesUpOnACrash(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "token-ring", Requests: 2, CSTime: Delay, Seed: 1, Regenerate: true, Crashes: []Crash{{Node: "n2", At: 0}}})
	assert.False(t, res.Live)
	assert.Len(t, res.Regenerated, 5)
	assert.Positive(t, res.GaveUp)
	assert.Contains(t, res.Deadlock, "gave up")
}

// What a message costs on the topology: on a chain two nodes far apart
// are many hops apart; on a complete graph every message is one hop.
func TestHops(t *testing.T) {
	for _, a := range Algorithms() {
		o := Options{Algo: a.Name, Requests: 2, CSTime: Delay, Think: Delay, Seed: 1}
		chain := run(t, "chain:6", o)
		assert.Greater(t, chain.Hops, int64(chain.Messages.Total), a.Name)
		complete := run(t, "complete:6", o)
		assert.Equal(t, int64(complete.Messages.Total), complete.Hops, a.Name)
	}
}

// The trace shows what a student follows: entries and exits, named
// timers, and the crashes the workload scripts.
func TestTraceShowsEntriesTimersAndCrashes(t *testing.T) {
	res := run(t, "ring:4", Options{Algo: "ricart-agrawala", CSTime: Delay, Think: Delay, Seed: 2, Trace: true, RequestReply: true,
		Crashes: []Crash{{Node: "n3", At: 5 * Delay}}})
	var enters, exits, crashes int
	timers := map[string]bool{}
	for _, e := range res.Trace {
		switch e.Event {
		case netsim.EventEnter:
			enters++
			assert.True(t, strings.HasPrefix(e.Payload, "timestamp "), e.Payload)
		case netsim.EventExit:
			exits++
		case netsim.EventCrash:
			crashes++
			assert.Equal(t, "n3", e.From)
		case netsim.EventTimer:
			timers[e.Type] = true
		}
	}
	assert.Equal(t, len(res.Entries), enters)
	assert.Equal(t, len(res.Entries), exits)
	assert.Equal(t, 1, crashes)
	assert.True(t, timers["WANT"] && timers["EXIT"] && timers["CRASH"] && timers["SUSPECT"], "%v", timers)
	assert.False(t, timers["TIMER"], "every timer is named")
}

func mustTopo(t *testing.T, spec string) *bus.Topology {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	return topo
}

// MaxTrace bounds the trace: a run whose trace passes it stops.
func TestMaxTraceStopsTheRun(t *testing.T) {
	topo, err := bus.Generate("ring:5")
	require.NoError(t, err)
	full, err := Run(topo, Options{Algo: "token-ring", Requests: 2, Trace: true})
	require.NoError(t, err)
	_, err = Run(topo, Options{Algo: "token-ring", Requests: 2, Trace: true, MaxTrace: len(full.Trace) - 1})
	require.ErrorIs(t, err, netsim.ErrTraceFull)
	_, err = Run(topo, Options{Algo: "token-ring", Requests: 2, Trace: true, MaxTrace: len(full.Trace)})
	require.NoError(t, err)
}
