package multicast

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// groupFaults adds to o, drawn from r, crashes, joins (some followed by a
// leave) and leaves of the nodes of topo, within the stream's time and a
// little after; the sender never joins.
func groupFaults(r *rand.Rand, topo *bus.Topology, o *Options) {
	span := int64(o.Messages+3) * Delay
	for v, nd := range topo.Nodes {
		switch r.IntN(6) {
		case 0:
			o.Crashes = append(o.Crashes, Crash{Node: nd.ID, At: r.Int64N(span)})
		case 1:
			if v == 0 {
				continue
			}
			at := r.Int64N(span)
			o.Joins = append(o.Joins, Event{Node: nd.ID, At: at})
			if r.IntN(2) == 0 {
				o.Leaves = append(o.Leaves, Event{Node: nd.ID, At: at + 1 + r.Int64N(span)})
			}
		case 2:
			o.Leaves = append(o.Leaves, Event{Node: nd.ID, At: r.Int64N(span)})
		}
	}
}

// vsyncCases is how many random runs the property test makes: more with
// FWSIM_LONG=1.
func vsyncCases() int {
	if os.Getenv("FWSIM_LONG") != "" {
		return 10_000
	}
	return 60
}

// Under loss, crashes (the sender's included), joins and leaves, every run
// ends and keeps every guarantee.
func TestVsyncKeepsItsGuaranteesUnderFaults(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	for i := range vsyncCases() {
		spec := specs[r.IntN(len(specs))]
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		o := Options{Algo: "vsync", Messages: 1 + r.IntN(20), Loss: float64(r.IntN(6)) / 10, Seed: r.Uint64(), Medium: Media()[i%2]}
		if o.Medium == MediumBus { // a loss per cable compounds along a path: see SuspectAfter
			o.Loss /= 5
		}
		groupFaults(r, topo, &o)
		res, err := Run(topo, o)
		require.NoError(t, err, "case %d: %s %+v", i, spec, o)
		assert.False(t, res.Violated(), "case %d: %s %+v: %+v", i, spec, o, res.Guarantees)
	}
}

// Without loss or faults, vsync is ack in one view, with heartbeats: every
// member acknowledges every message (a multicast on the bus), and no view
// changes.
func TestVsyncWithoutFaultsIsOneView(t *testing.T) {
	res := run(t, "ring:6", Options{Algo: "vsync", Messages: 7, Seed: 3})
	assert.Equal(t, 7, res.Sent.Count("DATA"))
	assert.Equal(t, 7*5, res.Sent.Count("ACK"))
	assert.Equal(t, res.Sent.Count("DATA")+res.Sent.Count("ACK")+res.Sent.Count("HEARTBEAT"), res.Sent.Total)
	require.Len(t, res.Views, 1)
	assert.Equal(t, View{Number: 1, Members: []string{"n0", "n1", "n2", "n3", "n4", "n5"}, Coordinator: "n0", From: 1, To: 7,
		Installed: []string{"n0", "n1", "n2", "n3", "n4", "n5"}}, res.Views[0])
	for _, m := range res.Members {
		assert.Equal(t, 7, m.Delivered, m.Node)
		assert.Equal(t, []int{1}, m.Views, m.Node)
	}
	assert.False(t, res.Violated())
}

// A joiner starts outside and delivers from its first view on; a leaver
// delivers up to the cut of the view it leaves; everyone else installs the
// same three views.
func TestVsyncJoinAndLeave(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "vsync", Messages: 10, Loss: 0.2, Seed: 1,
		Joins: []Event{{Node: "n3", At: 2 * Delay}}, Leaves: []Event{{Node: "n1", At: 5 * Delay}}})
	require.False(t, res.Violated(), "%+v", res.Guarantees)
	require.Len(t, res.Views, 3)
	assert.Equal(t, []string{"n0", "n1", "n2", "n4"}, res.Views[0].Members)
	assert.Equal(t, []string{"n0", "n1", "n2", "n4", "n3"}, res.Views[1].Members)
	assert.Equal(t, []string{"n0", "n2", "n4", "n3"}, res.Views[2].Members)
	byNode := map[string]Member{}
	for _, m := range res.Members {
		byNode[m.Node] = m
	}
	assert.Equal(t, []int{1, 2}, byNode["n1"].Views)
	assert.Equal(t, res.Views[1].To, byNode["n1"].Delivered, "n1 delivers up to the cut of view 2")
	assert.Equal(t, []int{2, 3}, byNode["n3"].Views)
	assert.Equal(t, 10-res.Views[0].To, byNode["n3"].Delivered, "n3 delivers from view 2 on")
	assert.Equal(t, []int{1, 2, 3}, byNode["n2"].Views)
	assert.Equal(t, 10, byNode["n2"].Delivered)
	for _, m := range res.Members {
		assert.Equal(t, m.Expected, m.Delivered, m.Node)
		assert.Empty(t, m.Missing, m.Node)
	}
}

// When the sender crashes, the survivors agree on a cut: over these seeds,
// some messages reach every survivor through the flush (FORWARD) though the
// sender's copies to some were lost, and some messages sent reach none, but
// no message reaches only some.
func TestVsyncSenderCrashIsAllOrNone(t *testing.T) {
	forwarded, dropped := 0, 0
	for seed := range uint64(30) {
		res := run(t, "ring:6", Options{Algo: "vsync", Messages: 10, Loss: 0.3, Seed: seed,
			Crashes: []Crash{{Node: "n0", At: 4*Delay + 500}}})
		require.False(t, res.Violated(), "seed %d: %+v", seed, res.Guarantees)
		require.Len(t, res.Views, 2, "seed %d", seed)
		assert.Equal(t, "n1", res.Views[1].Coordinator, "seed %d", seed)
		assert.Equal(t, []string{"n1", "n2", "n3", "n4", "n5"}, res.Views[1].Members, "seed %d", seed)
		forwarded += res.Sent.Count("FORWARD")
		cut := res.Views[0].To
		assert.LessOrEqual(t, cut, 5, "the sender sent messages 1 to 5 before it crashed")
		if cut < 5 {
			dropped++
		}
		for _, m := range res.Members {
			assert.Equal(t, cut, m.Delivered, "seed %d %s", seed, m.Node)
		}
	}
	assert.Positive(t, forwarded)
	assert.Positive(t, dropped)
}

// A flush that forgets the unstable messages installs the next view with
// members short of the cut: the checks catch it, on some of these seeds,
// and the real flush passes them all.
func TestVsyncBrokenFlushIsCaught(t *testing.T) {
	caught := 0
	for seed := range uint64(30) {
		o := Options{Algo: "vsync", Messages: 10, Loss: 0.3, Seed: seed, Crashes: []Crash{{Node: "n0", At: 4*Delay + 500}}}
		require.False(t, run(t, "ring:6", o).Violated(), "seed %d", seed)
		o.breakFlush = true
		res := run(t, "ring:6", o)
		if res.Violated() {
			caught++
			assert.False(t, res.Guarantees[2].Held, "seed %d: %+v", seed, res.Guarantees)
			assert.Contains(t, res.Guarantees[2].Detail, "view 1: ")
		}
	}
	assert.Positive(t, caught)
}

// The coordinator and sender leaving hands the group to the next oldest;
// the stream stops with it.
func TestVsyncCoordinatorLeaves(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "vsync", Messages: 10, Loss: 0.2, Seed: 2, Leaves: []Event{{Node: "n0", At: 4 * Delay}}})
	require.False(t, res.Violated(), "%+v", res.Guarantees)
	require.Len(t, res.Views, 2)
	assert.Equal(t, "n0", res.Views[1].Coordinator, "the leaver proposes the view without it")
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, res.Views[1].Members)
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, res.Views[1].Installed)
	for _, m := range res.Members {
		assert.Equal(t, res.Views[0].To, m.Delivered, m.Node)
	}
}

func TestVsyncSameSeedSameRun(t *testing.T) {
	o := Options{Algo: "vsync", Messages: 15, Loss: 0.3, Seed: 5, Trace: true, Crashes: []Crash{{Node: "n2", At: 3 * Delay}},
		Joins: []Event{{Node: "n4", At: Delay}}, Leaves: []Event{{Node: "n1", At: 6 * Delay}}}
	assert.Equal(t, run(t, "ring:6", o), run(t, "ring:6", o))
}

func TestVsyncBadOptions(t *testing.T) {
	topo, err := bus.Generate("ring:4")
	require.NoError(t, err)
	for o, want := range map[*Options]string{
		{Algo: "ack", Joins: []Event{{Node: "n1"}}}:                                                      "joins and leaves are for vsync",
		{Algo: "srm", Leaves: []Event{{Node: "n1"}}}:                                                     "joins and leaves are for vsync",
		{Algo: "vsync", Stop: true}:                                                                      "the stop signal is for nack and srm",
		{Algo: "vsync", Joins: []Event{{Node: "n9"}}}:                                                    `joining node "n9" is not on the bus`,
		{Algo: "vsync", Leaves: []Event{{Node: "n9"}}}:                                                   `leaving node "n9" is not on the bus`,
		{Algo: "vsync", Joins: []Event{{Node: "n0", At: 1}}}:                                             "the sender n0 starts the group and cannot join it",
		{Algo: "vsync", Joins: []Event{{Node: "n1"}, {Node: "n1", At: 5}}}:                               `node "n1" joins twice`,
		{Algo: "vsync", Leaves: []Event{{Node: "n1"}, {Node: "n1", At: 5}}}:                              `node "n1" leaves twice`,
		{Algo: "vsync", Joins: []Event{{Node: "n1", At: 2000}}, Leaves: []Event{{Node: "n1", At: 2000}}}: `node "n1" leaves at 2.000, not after it joins at 2.000`,
	} {
		_, err := Run(topo, *o)
		assert.ErrorContains(t, err, want)
	}
}

// docs/multicast.md: without loss, a crash is found about 60 delays after
// it: the last heartbeat heard is at most two delays older than the crash
// or one younger, silence is checked at each beat, every two delays, and
// the flush starts then.
func TestVsyncCrashFoundSixtyDelaysLater(t *testing.T) {
	for seed := range uint64(10) {
		for _, at := range []int64{5 * Delay, 10 * Delay, 13*Delay + Delay/2} {
			res := run(t, "ring:6", Options{Algo: "vsync", Messages: 3, Seed: seed, Trace: true,
				Crashes: []Crash{{Node: "n3", At: at}}})
			first := -1.0
			for _, m := range netsim.MessagesOnly(res.Trace) {
				if m.Type == "FLUSH" && (first < 0 || m.Sent < first) {
					first = m.Sent
				}
			}
			found := first - float64(at)/Delay
			assert.True(t, found >= 58 && found <= 63, "seed %d crash at %d: flush %.3f delays after", seed, at, found)
		}
	}
}
