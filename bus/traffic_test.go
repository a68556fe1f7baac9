package bus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// withGapCount sets every node's gap count.
func withGapCount(topo *Topology, gap int) *Topology {
	for i := range topo.Nodes {
		topo.Nodes[i].GapCount = &gap
	}
	return topo
}

// chainWithTraffic is a chain of n nodes with 4.5 m cables, its first node
// root and cycle master, whose end nodes write to each other.
func chainWithTraffic(t *testing.T, n, gap int) *Topology {
	topo, err := Generate(fmt.Sprintf("chain:%d", n))
	require.NoError(t, err)
	topo.Profile = "1394a-2000"
	topo.Nodes[0].ForceRoot, topo.Nodes[0].Contender = true, true
	first, last := topo.Nodes[0].ID, topo.Nodes[n-1].ID
	topo.Traffic = []Traffic{
		{Node: first, Async: &AsyncTraffic{To: last, Size: 512}},
		{Node: last, Async: &AsyncTraffic{To: first, Size: 512}},
	}
	return withGapCount(topo, gap)
}

// TestTheGapCountTableKeepsChainsFreeOfCollisions holds the arbitration
// against 1394a's gap-count table (docs/protocol.md §9.2), which is made so
// that on the worst bus of each diameter (4.5 m cables, PHYs that repeat
// in 144 ns) no node takes the bus while an acknowledgement is on its way:
// a chain of every length up to 15 hops, its far ends writing to each
// other, runs at the table's gap count with no collision and every request
// acknowledged.
func TestTheGapCountTableKeepsChainsFreeOfCollisions(t *testing.T) {
	for hops := 1; hops <= 15; hops++ {
		gap := treeid.GapCountForHops(hops)
		res, err := Run(chainWithTraffic(t, hops+1, gap), Options{Until: time.Millisecond})
		require.NoError(t, err)
		tr := res.Traffic
		assert.Zero(t, tr.Collisions, "%d hops, gap count %d", hops, gap)
		for _, f := range tr.Flows {
			// The last request may still wait for its acknowledgement.
			assert.Positive(t, f.Acked, "%d hops: %s", hops, f.Node)
			assert.LessOrEqual(t, f.Sent-f.Acked, 1, "%d hops: %s sent %d, acked %d", hops, f.Node, f.Sent, f.Acked)
			assert.Zero(t, f.Failed+f.Retries+f.Broken+f.AcksLost, "%d hops: %s", hops, f.Node)
		}
	}
}

// TestGapCountFiveOnFifteenHops is the bus: the 16-node chain with
// gap count 5 on every node, traffic from its far ends, collides and loses
// every request; the table's gap count for 15 hops collides never, and
// uses the bus better than 63, the power-up value.
func TestGapCountFiveOnFifteenHops(t *testing.T) {
	run := func(gap int) *TrafficResult {
		topo, err := LoadTopology("../examples/traffic.yaml")
		require.NoError(t, err)
		res, err := Run(withGapCount(topo, gap), Options{Until: 2 * time.Millisecond})
		require.NoError(t, err)
		return res.Traffic
	}
	small := run(5)
	assert.Positive(t, small.Collisions)
	for _, f := range small.Flows {
		if !f.Iso {
			assert.Zero(t, f.Acked, "%s → %s: acknowledged at gap count 5", f.Node, f.To)
		}
	}
	table, power := run(treeid.GapCountForHops(15)), run(63)
	for _, tr := range []*TrafficResult{table, power} {
		assert.Zero(t, tr.Collisions)
		for _, f := range tr.Flows {
			assert.Zero(t, f.Failed+f.Broken+f.AcksLost, "%s", f.Node)
		}
	}
	assert.Greater(t, table.Utilisation, power.Utilisation)
	t.Logf("utilisation at gap count %d: %.1f%%, at 63: %.1f%%", treeid.GapCountForHops(15), 100*table.Utilisation, 100*power.Utilisation)
}

// TestArbitrationIsFair: on random trees with the table's gap count for
// their diameter, nodes that always have a request waiting each send once
// in every fairness interval, so their counts differ by one at most, and
// no node sends twice in one interval.
func TestArbitrationIsFair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	for trial := range 30 {
		n := 3 + rng.IntN(12)
		topo := treeTopology(n, rng.Uint64())
		topo.Profile = "1394a-2000"
		for _, s := range rng.Perm(n)[:2+rng.IntN(n-1)] {
			to := (s + 1 + rng.IntN(n-1)) % n
			topo.Traffic = append(topo.Traffic, Traffic{Node: topo.Nodes[s].ID, Async: &AsyncTraffic{To: topo.Nodes[to].ID, Size: rng.IntN(513)}})
		}
		o := Options{Until: time.Millisecond, Seed: uint64(trial + 1)}
		res, err := Run(topo, o)
		require.NoError(t, err)
		tree, err := treeid.Build(res.Generations[len(res.Generations)-1].SelfIDs)
		require.NoError(t, err)
		res, err = Run(withGapCount(topo, treeid.GapCountForHops(tree.Hops())), o)
		require.NoError(t, err)
		tr := res.Traffic
		assert.Zero(t, tr.Collisions, "trial %d", trial)
		assert.Equal(t, 1, tr.MostInOneInterval, "trial %d", trial)
		least, most := tr.Flows[0].Sent, tr.Flows[0].Sent
		for _, f := range tr.Flows {
			least, most = min(least, f.Sent), max(most, f.Sent)
		}
		assert.LessOrEqual(t, most-least, 1, "trial %d: %d nodes, %d senders, sends from %d to %d", trial, n, len(tr.Flows), least, most)
		assert.Positive(t, least, "trial %d", trial)
	}
}

// TestTrafficIsDeterministic: the same seed gives the same traffic.
func TestTrafficIsDeterministic(t *testing.T) {
	topo, err := LoadTopology("../examples/traffic.yaml")
	require.NoError(t, err)
	a, err := Run(topo, Options{Until: time.Millisecond})
	require.NoError(t, err)
	b, err := Run(topo, Options{Until: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, a.Traffic, b.Traffic)
}

// TestBadTraffic: each mistake in a traffic item is refused at its line
// and field.
func TestBadTraffic(t *testing.T) {
	base := "nodes:\n  - {id: a, ports: 1, speed: S200}\n  - {id: b, ports: 2}\n  - {id: off, ports: 1, link: false}\ncables:\n  - {from: a:0, to: b:0}\n  - {from: b:1, to: off:0}\ntraffic:\n"
	for _, tc := range []struct{ item, want string }{
		{"  - {node: x, iso: {bytes: 1}}", "t.yaml:9: traffic[0].node: no node \"x\" on the bus"},
		{"  - {node: a}", "t.yaml:9: traffic[0]: give exactly one of async, iso and ping"},
		{"  - {node: a, iso: {bytes: 1}, async: {to: b, size: 1}}", "give exactly one of async, iso and ping"},
		{"  - {node: off, iso: {bytes: 1}}", "node \"off\" has its link off"},
		{"  - {node: a, async: {to: a, size: 4}}", "traffic[0].async.to: node \"a\" sends to itself"},
		{"  - {node: a, async: {to: off, size: 4}}", "nothing would acknowledge"},
		{"  - {node: a, async: {to: b, size: 1025}}", "traffic[0].async.size: payload 1025 bytes, want 0 to 1024 at S200"},
		{"  - {node: a, async: {to: b, size: 4, speed: S400}}", "speed S400 is faster than S200"},
		{"  - {node: a, async: {to: b, size: 4, speed: S800}}", "want S100, S200 or S400"},
		{"  - {node: a, async: {to: b, size: 4, every: 0s}}", "every 0s, want 1µs to 1s"},
		{"  - {node: a, async: {to: b, size: 4, retries: -1}}", "-1 retries, want 0 to 100"},
		{"  - {node: b, iso: {bytes: 4097}}", "traffic[0].iso.bytes: payload 4097 bytes, want 0 to 4096 at S400"},
		{"  - {node: a, ping: {to: b}}", `traffic[0].ping: node "a" has a 1394-1995 PHY: ping is a 1394a PHY packet`},
		{"  - {node: a, ping: {to: a}}", `traffic[0].ping.to: node "a" pings itself`},
		{"  - {node: a, ping: {to: b}, iso: {bytes: 1}}", "give exactly one of async, iso and ping"},
	} {
		topo, err := ParseTopology([]byte(base+tc.item+"\n"), "t.yaml")
		if err == nil {
			err = topo.Validate(ResolveOptions{})
		}
		require.Error(t, err, tc.item)
		assert.True(t, errors.Is(err, ErrBadTraffic), "%s: %v", tc.item, err)
		assert.Contains(t, err.Error(), tc.want, tc.item)
	}
	_, err := Run(&Topology{Nodes: []Node{{ID: "a", Ports: 1}}}, Options{Until: 2 * time.Second})
	assert.ErrorIs(t, err, ErrInvalidOptions)
}

// TestTheCycleMasterSendsEvery125us: the root, a contender, sends a cycle
// start every 125 µs (1394's isochronous cycle), late by the subactions
// under way; a talker sends once in every cycle.
func TestTheCycleMasterSendsEvery125us(t *testing.T) {
	topo, err := LoadTopology("../examples/traffic.yaml")
	require.NoError(t, err)
	withGapCount(topo, treeid.GapCountForHops(15))
	until := 2 * time.Millisecond
	res, err := Run(topo, Options{Until: until})
	require.NoError(t, err)
	tr := res.Traffic
	assert.Equal(t, "n0", tr.CycleMaster)
	cycles := int(until / phy.CycleTime)
	assert.InDelta(t, cycles, tr.Cycles, 1)
	assert.Zero(t, tr.CyclesSkipped)
	// The root asks for the bus at each subaction gap, and a node that saw
	// the gap sooner may ask first; but each sends once in a fairness
	// interval, so the cycle start waits for one subaction of each sender
	// at most: a 512-byte request at S400 (10.8 µs and its framing), its
	// acknowledgement, the chain's round trip (5 µs), a subaction gap.
	gaps := phy.Profiles()[1].Timing.Gaps(treeid.GapCountForHops(15))
	subaction := int64(20*time.Microsecond + gaps.Subaction)
	assert.LessOrEqual(t, tr.CycleStartDelay.MaxNs, 3*subaction+int64(gaps.Subaction))
	assert.Positive(t, tr.CycleStartDelay.MaxNs)
	talker := tr.Flows[3]
	require.True(t, talker.Iso)
	assert.InDelta(t, tr.Cycles, talker.Sent, 1, "one isochronous packet a cycle")
	assert.Zero(t, talker.Missed)

	// The timeline has every cycle, due on its tick, and adds up to the
	// totals.
	var iso, async, collisions, started int
	for k, c := range tr.Timeline {
		assert.Equal(t, k+1, c.Cycle)
		assert.Equal(t, tr.StartNs+int64(k)*int64(phy.CycleTime), c.DueNs, "cycle %d", c.Cycle)
		if c.StartNs >= 0 {
			started++
			assert.GreaterOrEqual(t, c.StartNs, c.DueNs)
		}
		iso, async, collisions = iso+c.Iso, async+c.Async, collisions+c.Collisions
	}
	assert.Equal(t, tr.Cycles, started)
	assert.Equal(t, talker.Sent, iso)
	assert.Equal(t, tr.Flows[0].Sent+tr.Flows[1].Sent+tr.Flows[2].Sent, async)
	assert.Equal(t, tr.Collisions, collisions)
}

// TestRequestsWaitForTheirGap holds the trace of a run with traffic to the
// gap rules of docs/protocol.md §9.6: a node asks for the bus for a
// request only after it has seen the bus idle for its subaction gap, for
// a cycle start likewise, and for an isochronous packet for the
// isochronous gap; and what a node sees alternates between a
// transmission and idle.
func TestRequestsWaitForTheirGap(t *testing.T) {
	topo, err := LoadTopology("../examples/traffic.yaml")
	require.NoError(t, err)
	withGapCount(topo, treeid.GapCountForHops(15))
	var trace Trace
	res, err := Run(topo, Options{Until: time.Millisecond, Observer: trace.Record})
	require.NoError(t, err)
	gaps := phy.Profiles()[1].Timing.Gaps(treeid.GapCountForHops(15))
	idleSince := map[string]int64{}
	seeing := map[string]string{}
	requests := 0
	for _, e := range trace.Events {
		if e.Kind != TraceBus {
			continue
		}
		switch d := e.Detail; {
		case d == "idle":
			assert.NotEmpty(t, seeing[e.Node], "%s idle at %d ns without a transmission", e.Node, e.TimeNs)
			seeing[e.Node], idleSince[e.Node] = "", e.TimeNs
		case strings.HasPrefix(d, "request "):
			requests++
			need := gaps.Subaction
			if d == "request iso" {
				need = gaps.Iso
			}
			assert.Empty(t, seeing[e.Node], "%s asks at %d ns while it sees %s", e.Node, e.TimeNs, seeing[e.Node])
			since, ok := idleSince[e.Node]
			if !ok {
				since = res.Traffic.StartNs
			}
			assert.GreaterOrEqual(t, e.TimeNs-since, int64(need), "%s: %s at %d ns, idle since %d ns", e.Node, d, e.TimeNs, since)
		case d == "denied" || strings.HasPrefix(d, "grants "):
		default:
			assert.Empty(t, seeing[e.Node], "%s sees %s at %d ns while it sees %s", e.Node, d, e.TimeNs, seeing[e.Node])
			seeing[e.Node] = d
		}
	}
	assert.Greater(t, requests, 50)
}

// TestParseTrafficSpec reads what --traffic takes into the items a
// topology file would hold.
func TestParseTrafficSpec(t *testing.T) {
	tr, err := ParseTrafficSpec("node=pc,to=disk,size=512,speed=S200,every=20us,retries=2")
	require.NoError(t, err)
	every, retries := Duration(20*time.Microsecond), 2
	assert.Equal(t, Traffic{Node: "pc", Async: &AsyncTraffic{To: "disk", Size: 512, Speed: "S200", Every: &every, Retries: &retries}}, tr)
	tr, err = ParseTrafficSpec("node=camera,iso=960")
	require.NoError(t, err)
	assert.Equal(t, Traffic{Node: "camera", Iso: &IsoTraffic{Bytes: 960}}, tr)
	tr, err = ParseTrafficSpec("node=pc,ping=disk,every=30us")
	require.NoError(t, err)
	pingEvery := Duration(30 * time.Microsecond)
	assert.Equal(t, Traffic{Node: "pc", Ping: &PingTraffic{To: "disk", Every: &pingEvery}}, tr)
	for _, bad := range []string{"", "node=", "node=a,node=b,iso=1", "node=a,iso=1,to=b", "node=a,ping=b,size=4", "node=a,ping=b,to=c", "node=a,to=b,size=1,every=soon", "node=a,to=b,size=1,retries=x", "iso=3"} {
		_, err := ParseTrafficSpec(bad)
		assert.ErrorIs(t, err, ErrBadTraffic, bad)
	}
}

// FuzzParseTrafficSpec: any text is an item or an ErrBadTraffic, never a
// panic; an item names its node and is exactly one of requests, a talker
// and pings.
func FuzzParseTrafficSpec(f *testing.F) {
	for _, s := range []string{"node=pc,to=disk,size=512,speed=S200,every=20us,retries=2", "node=camera,iso=960", "node=pc,ping=disk,every=30us", "node=a,,", "=,="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		tr, err := ParseTrafficSpec(spec)
		if err != nil {
			require.ErrorIs(t, err, ErrBadTraffic)
			return
		}
		require.NotEmpty(t, tr.Node)
		kinds := 0
		for _, given := range []bool{tr.Async != nil, tr.Iso != nil, tr.Ping != nil} {
			if given {
				kinds++
			}
		}
		require.Equal(t, 1, kinds, "%+v", tr)
	})
}

// TestPingRoundTripFitsApplesBudget: a ping across a chain of the
// standard's worst cables and PHYs takes what Apple's IOFireWireFamily
// budgets a hop when it turns a ping time into a gap count
// (IOFireWireController.cpp: the gap table's index is (ping − 20) / 9, in
// ticks that Linux's firewire-phy-command converts at 24.576 MHz): over
// 1 to 15 hops the index it reads from fwsim's round trip is never more
// than the hops, so Apple's budget covers the round trip fwsim times. The
// round trip grows by the same amount with every hop.
func TestPingRoundTripFitsApplesBudget(t *testing.T) {
	var last int64
	for hops := 1; hops <= 15; hops++ {
		topo := chainWithTraffic(t, hops+1, treeid.GapCountForHops(hops))
		first, far := topo.Nodes[0].ID, topo.Nodes[hops].ID
		topo.Traffic = []Traffic{{Node: first, Ping: &PingTraffic{To: far}}}
		res, err := Run(topo, Options{Until: 200 * time.Microsecond})
		require.NoError(t, err)
		f := res.Traffic.Flows[0]
		require.True(t, f.Ping)
		require.Positive(t, f.RoundTrip.Count, "%d hops", hops)
		assert.Equal(t, f.RoundTrip.MinNs, f.RoundTrip.MaxNs, "%d hops: a quiet bus answers in a fixed time", hops)
		rt := f.RoundTrip.MinNs
		ticks := rt * 24576 / 1_000_000
		index := (ticks - 20) / 9
		assert.LessOrEqual(t, index, int64(hops), "%d hops: round trip %d ns, %d ticks", hops, rt, ticks)
		t.Logf("%2d hops: round trip %5d ns, %3d ticks, Apple's index %2d", hops, rt, ticks, index)
		if hops > 1 {
			assert.InDelta(t, 2*(22.725+144), float64(rt-last), 2, "%d hops: each hop adds a cable and a PHY each way", hops)
		}
		last = rt
	}
}

// TestTrafficOnABusInTwoParts: a disconnect splits the bus before traffic
// starts; each part arbitrates on its own, with its own root, and a
// request to a node of the other part is not sent.
func TestTrafficOnABusInTwoParts(t *testing.T) {
	topo, err := Generate("chain:6")
	require.NoError(t, err)
	topo.Profile = "1394a-2000"
	topo.Events = []Event{{At: Duration(2 * time.Millisecond), Disconnect: &Cable{From: "n2:1", To: "n3:0"}}}
	topo.Traffic = []Traffic{
		{Node: "n0", Async: &AsyncTraffic{To: "n2", Size: 256}},
		{Node: "n2", Async: &AsyncTraffic{To: "n1", Size: 256}},
		{Node: "n3", Async: &AsyncTraffic{To: "n5", Size: 256}},
		{Node: "n5", Async: &AsyncTraffic{To: "n4", Size: 256}},
		{Node: "n4", Async: &AsyncTraffic{To: "n0", Size: 256}},
	}
	res, err := Run(topo, Options{Until: time.Millisecond})
	require.NoError(t, err)
	tr := res.Traffic
	assert.Zero(t, tr.Collisions)
	for _, f := range tr.Flows[:4] {
		assert.Positive(t, f.Acked, "%s to %s", f.Node, f.To)
		assert.Zero(t, f.Failed+f.Broken, "%s to %s", f.Node, f.To)
	}
	assert.Equal(t, "its destination is on another bus", tr.Flows[4].Unsent)
	assert.Zero(t, tr.Flows[4].Sent)
}
