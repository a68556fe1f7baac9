package multicast

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

func run(t testing.TB, spec string, o Options) *Result {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	res, err := Run(topo, o)
	require.NoError(t, err)
	return res
}

func guarantee(res *Result, i int) Guarantee { return res.Guarantees[i] }

// Without loss, on the mesh, ack sends each message once to each of the
// n−1 members and gets one ACK back: 2·M·(n−1) packets, each crossing one
// link. On the bus, a message is one packet that crosses the n−1 cables of
// the tree, and the n−1 ACKs cross the cables back: on a chain, from the
// member d cables away, d of them, n(n−1)/2 in all.
func TestAckWithoutLossCountsTwoPerMemberAndMessage(t *testing.T) {
	res := run(t, "chain:6", Options{Algo: "ack", Messages: 7, Seed: 3, Medium: MediumMesh})
	assert.Equal(t, 7*5, res.Sent.Count("DATA"))
	assert.Equal(t, 7*5, res.Sent.Count("ACK"))
	assert.Zero(t, res.Sent.Count("RETRANS"))
	assert.Equal(t, 2*7*5, res.Sent.Total)
	assert.Equal(t, res.Sent, res.Transmissions)
	for _, m := range res.Members {
		assert.Equal(t, 7, m.Delivered, m.Node)
	}
	assert.False(t, res.Violated())
	res = run(t, "chain:6", Options{Algo: "ack", Messages: 7, Seed: 3})
	assert.Equal(t, 7, res.Sent.Count("DATA"))
	assert.Equal(t, 7*5, res.Sent.Count("ACK"))
	assert.Equal(t, 7*5, res.Transmissions.Count("DATA"))
	assert.Equal(t, 7*6*5/2, res.Transmissions.Count("ACK"))
	assert.Equal(t, 2*7*5, res.Receptions)
	assert.False(t, res.Violated())
}

// Under loss, every copy of a message that arrives at a member is either
// delivered or dropped as a duplicate: counted from the trace, not from the
// members' own tallies. Copies still on their way when the stop signal's
// run ends arrive after its last delivery and are not counted.
func TestArrivalsAreDeliveriesOrDuplicates(t *testing.T) {
	for _, algo := range []string{"ack", "nack", "srm"} {
		res := run(t, "ring:5", Options{Algo: algo, Messages: 20, Loss: 0.3, Seed: 9, Stop: algo != "ack", Trace: true})
		arrived := map[string]int{}
		for _, e := range netsim.MessagesOnly(res.Trace) {
			if !e.Lost && e.Arrived <= res.Time && (e.Type == "DATA" || e.Type == "RETRANS" || e.Type == "REPAIR") {
				arrived[e.To]++
			}
		}
		for _, m := range res.Members {
			assert.Equal(t, arrived[m.Node], m.Delivered+m.Duplicates, "%s %s", algo, m.Node)
			assert.Equal(t, 20, m.Delivered, "%s %s", algo, m.Node)
		}
		assert.False(t, res.Violated(), algo)
	}
}

// The links lose about the share asked for, counted from the trace: on the
// mesh every copy, on a star's bus, where every path from the hub is one
// cable, every copy too; the trace has a copy per addressee.
func TestLossRate(t *testing.T) {
	for _, c := range []struct{ spec, medium string }{{"ring:8", MediumMesh}, {"star:8", MediumBus}} {
		res := run(t, c.spec, Options{Algo: "ack", Messages: 300, Loss: 0.2, Seed: 5, Trace: true, Medium: c.medium})
		lost := 0
		for _, e := range netsim.MessagesOnly(res.Trace) {
			if e.Lost {
				lost++
			}
		}
		copies := len(netsim.MessagesOnly(res.Trace))
		assert.Equal(t, lost, res.Lost, c.spec)
		assert.Equal(t, copies, res.Receptions+res.Lost, c.spec)
		assert.InDelta(t, 0.2, float64(lost)/float64(copies), 0.02, c.spec)
	}
}

// nack finds a gap only from a later message: a loss at the end of the
// stream goes unnoticed. Over many seeds some member misses the tail, and
// only ever a tail (an inner gap is always repaired); the stop signal
// repairs every one of them.
func TestNackMissesTheTailAndStopRepairsIt(t *testing.T) {
	tails := 0
	for seed := range uint64(40) {
		res := run(t, "ring:5", Options{Algo: "nack", Messages: 5, Loss: 0.3, Seed: seed})
		for _, m := range res.Members {
			if len(m.Missing) > 0 {
				tails++
				assert.Equal(t, 5, m.Missing[len(m.Missing)-1], "seed %d %s", seed, m.Node)
				assert.Len(t, m.Missing, 5-m.Delivered)
				assert.True(t, res.Violated())
			}
		}
		stopped := run(t, "ring:5", Options{Algo: "nack", Messages: 5, Loss: 0.3, Seed: seed, Stop: true})
		assert.False(t, stopped.Violated(), "seed %d: %+v", seed, stopped.Guarantees)
		assert.Positive(t, stopped.Sent.Count("STOP"))
	}
	assert.Positive(t, tails)
}

// Without loss nack and srm send the stream and nothing else: on the bus
// M packets, each crossing the n−1 cables of the tree; on the mesh M(n−1).
func TestNegativeFeedbackWithoutLossSendsOnlyData(t *testing.T) {
	for _, algo := range []string{"nack", "srm"} {
		for medium, packets := range map[string]int{MediumBus: 4, MediumMesh: 4 * 5} {
			res := run(t, "tree:6:2", Options{Algo: algo, Messages: 4, Seed: 2, Medium: medium})
			assert.Equal(t, packets, res.Sent.Total, algo)
			assert.Equal(t, packets, res.Sent.Count("DATA"), algo)
			assert.Equal(t, 4*5, res.Transmissions.Total, algo)
			assert.Equal(t, 4*5, res.Receptions, algo)
			assert.False(t, res.Violated(), algo)
		}
	}
}

// srm's NACKs and repairs go to every other node: on the mesh one packet to
// each, on the bus one packet that the trace shows as a copy to each. The
// NACKs that suppression spared are counted from the trace: a member whose
// DATA was lost, which delivered the message and never asked for it.
func TestSRMMulticastsFeedbackAndCountsWhatSuppressionSpared(t *testing.T) {
	res := run(t, "ring:12", Options{Algo: "srm", Messages: 30, Loss: 0.2, Seed: 4, Stop: true, Trace: true, Medium: MediumMesh})
	assert.False(t, res.Violated(), "%+v", res.Guarantees)
	assert.Zero(t, res.Sent.Count("NACK")%11)
	assert.Zero(t, res.Sent.Count("REPAIR")%11)
	bus := run(t, "ring:12", Options{Algo: "srm", Messages: 30, Loss: 0.2, Seed: 4, Stop: true, Trace: true})
	copies := map[string]int{}
	for _, e := range netsim.MessagesOnly(bus.Trace) {
		copies[e.Type]++
	}
	assert.Positive(t, bus.Sent.Count("NACK"))
	assert.Equal(t, 11*bus.Sent.Count("NACK"), copies["NACK"])
	assert.Equal(t, 11*bus.Sent.Count("REPAIR"), copies["REPAIR"])
	type key struct{ node, seq string }
	lost, asked := map[key]bool{}, map[key]bool{}
	for _, e := range netsim.MessagesOnly(res.Trace) {
		switch {
		case e.Type == "DATA" && e.Lost:
			lost[key{e.To, e.Payload}] = true
		case e.Type == "NACK":
			asked[key{e.From, e.Payload}] = true
		}
	}
	spared := 0
	for k := range lost {
		if !asked[k] {
			spared++
		}
	}
	assert.Positive(t, spared)
	assert.Equal(t, spared, res.NACKsSpared)
	assert.Positive(t, res.RepairsSpared)
}

// A crashed member is no violation: the others get the whole stream. A
// crashed sender takes the promise of the whole stream with it.
func TestCrashes(t *testing.T) {
	res := run(t, "ring:5", Options{Algo: "ack", Messages: 5, Loss: 0.2, Seed: 1, Crashes: []Crash{{Node: "n2", At: 2 * Delay}}})
	assert.False(t, res.Violated())
	assert.Equal(t, 2.0, res.Members[1].CrashedAt)
	assert.Less(t, res.Members[1].Delivered, 5)
	for _, m := range res.Members {
		if m.Node != "n2" {
			assert.Equal(t, 5, m.Delivered, m.Node)
		}
	}
	res = run(t, "ring:5", Options{Algo: "ack", Messages: 5, Seed: 1, Crashes: []Crash{{Node: "n0", At: 2 * Delay}}})
	assert.False(t, guarantee(res, 1).Promised)
	assert.Contains(t, guarantee(res, 1).Detail, "the sender n0 crashed at 2.000")
	assert.False(t, res.Violated())
	for _, m := range res.Members {
		assert.LessOrEqual(t, m.Delivered, 3, "the sender sent messages 1 to 3 before it crashed")
	}
}

// ack gives up a member after MaxTries sendings of a message: a member
// crashed from the start is sent exactly MaxTries copies of each message.
func TestAckGivesUpAfterMaxTries(t *testing.T) {
	res := run(t, "chain:2", Options{Algo: "ack", Messages: 3, Seed: 1, Trace: true, Crashes: []Crash{{Node: "n1", At: 0}}})
	copies := map[string]int{}
	for _, e := range netsim.MessagesOnly(res.Trace) {
		copies[e.Payload]++
	}
	assert.True(t, res.Members[0].GaveUp)
	assert.Equal(t, map[string]int{"1": MaxTries, "2": MaxTries, "3": MaxTries}, copies)
	assert.False(t, res.Violated())
}

func TestSameSeedSameRun(t *testing.T) {
	o := Options{Algo: "nack", Messages: 30, Loss: 0.4, Seed: 11, Stop: true, Trace: true}
	assert.Equal(t, run(t, "ring:7", o), run(t, "ring:7", o))
	o.Seed = 12
	a, b := run(t, "ring:7", o), run(t, "ring:7", Options{Algo: "nack", Messages: 30, Loss: 0.4, Seed: 11, Stop: true, Trace: true})
	assert.NotEqual(t, a.Trace, b.Trace)
}

func TestBadOptions(t *testing.T) {
	topo, err := bus.Generate("ring:4")
	require.NoError(t, err)
	for o, want := range map[*Options]string{
		{Algo: "gossip"}:                         `unknown multicast algorithm "gossip" (want ack, nack, srm, vsync)`,
		{Algo: "ack", Messages: MaxMessages + 1}: "1001 messages (want 1 to 1000)",
		{Algo: "ack", Loss: 0.6}:                 "loss 0.6 (want a probability from 0 to 0.5)",
		{Algo: "ack", Stop: true}:                "the stop signal is for nack and srm",
		{Algo: "ack", Sender: "x"}:               `sender "x" is not on the bus`,
		{Algo: "ack", Crashes: []Crash{{Node: "n1"}, {Node: "n1", At: 1}}}: `node "n1" crashes twice`,
	} {
		_, err := Run(topo, *o)
		assert.ErrorContains(t, err, want)
	}
	one, err := bus.Generate("ring:1")
	if err == nil {
		_, err = Run(one, Options{Algo: "ack"})
		assert.ErrorContains(t, err, "at least 2 nodes")
	}
}

// The summary's losses are the trace's: what the links lost, and what
// reached a node that had crashed, together mark every lost entry of the
// trace, for every algorithm.
func TestLossesAreTheTracesLostEntries(t *testing.T) {
	for _, algo := range []string{"ack", "nack", "srm", "vsync"} {
		for seed := range uint64(4) {
			o := Options{Algo: algo, Messages: 12, Loss: 0.25, Seed: seed, Stop: algo == "nack" || algo == "srm", Trace: true,
				Crashes: []Crash{{Node: "n2", At: 3 * Delay / 2}}}
			res := run(t, "ring:6", o)
			lost := 0
			for _, e := range netsim.MessagesOnly(res.Trace) {
				if e.Lost {
					lost++
				}
			}
			assert.Positive(t, res.ToCrashed, "%s seed %d", algo, seed)
			assert.Equal(t, lost, res.Lost+res.ToCrashed, "%s seed %d", algo, seed)
		}
	}
}

// A message on its way to a node that crashes before it arrives is lost
// there, not delivered: in the trace nothing reaches n2 after its crash.
func TestNothingArrivesAfterACrash(t *testing.T) {
	for _, algo := range []string{"ack", "nack", "srm", "vsync"} {
		for seed := range uint64(4) {
			res := run(t, "ring:6", Options{Algo: algo, Messages: 12, Loss: 0.1, Seed: seed, Trace: true,
				Crashes: []Crash{{Node: "n2", At: 3 * Delay / 2}}})
			for _, e := range netsim.MessagesOnly(res.Trace) {
				if e.To == "n2" && !e.Lost {
					assert.LessOrEqual(t, e.Arrived, 1.5, "%s seed %d: %+v", algo, seed, e)
				}
			}
		}
	}
}

// MaxTrace bounds the trace: a run whose trace passes it stops.
func TestMaxTraceStopsTheRun(t *testing.T) {
	topo, err := bus.Generate("ring:5")
	require.NoError(t, err)
	full, err := Run(topo, Options{Algo: "ack", Messages: 3, Trace: true})
	require.NoError(t, err)
	_, err = Run(topo, Options{Algo: "ack", Messages: 3, Trace: true, MaxTrace: len(full.Trace) - 1})
	require.ErrorIs(t, err, netsim.ErrTraceFull)
	_, err = Run(topo, Options{Algo: "ack", Messages: 3, Trace: true, MaxTrace: len(full.Trace)})
	require.NoError(t, err)
}
