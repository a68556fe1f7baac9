package bus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fwsim/fwsim/phy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sentinels names every error category a topology file can produce.
var sentinels = map[string]error{
	"ErrMalformedFile":   ErrMalformedFile,
	"ErrUnknownProfile":  ErrUnknownProfile,
	"ErrBadTiming":       ErrBadTiming,
	"ErrEmptyBus":        ErrEmptyBus,
	"ErrBadNodeID":       ErrBadNodeID,
	"ErrDuplicateNodeID": ErrDuplicateNodeID,
	"ErrBadPortCount":    ErrBadPortCount,
	"ErrUnknownSpeed":    ErrUnknownSpeed,
	"ErrBadPowerClass":   ErrBadPowerClass,
	"ErrBadGapCount":     ErrBadGapCount,
	"ErrDuplicateUID":    ErrDuplicateUID,
	"ErrBadClock":        ErrBadClock,
	"ErrBadPortRef":      ErrBadPortRef,
	"ErrUnknownNode":     ErrUnknownNode,
	"ErrPortOutOfRange":  ErrPortOutOfRange,
	"ErrPortInUse":       ErrPortInUse,
	"ErrSelfCable":       ErrSelfCable,
	"ErrLengthAndDelay":  ErrLengthAndDelay,
	"ErrBadCableLength":  ErrBadCableLength,
	"ErrDisconnected":    ErrDisconnected,
	"ErrBadEvent":        ErrBadEvent,
	"ErrBadBusManager":   ErrBadBusManager,
	"ErrOutOfSpec":       ErrOutOfSpec,
}

// invalidFixture is a file of testdata/invalid: a topology whose first two
// comment lines are the error it must give,
//
//	# want ErrBadPortCount
//	# ports-zero.yaml:6: nodes[1].ports: node "camera" has 0 ports, want at least 1
type invalidFixture struct {
	name    string
	data    []byte
	kind    string
	message string
}

func invalidFixtures(t *testing.T) []invalidFixture {
	paths, err := filepath.Glob("testdata/invalid/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var fixtures []invalidFixture
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.SplitN(string(data), "\n", 3)
		require.Len(t, lines, 3, path)
		kind, ok := strings.CutPrefix(lines[0], "# want ")
		require.True(t, ok, "%s: first line must be # want ErrSomething", path)
		message, ok := strings.CutPrefix(lines[1], "# ")
		require.True(t, ok, "%s: second line must be # and the error message", path)
		fixtures = append(fixtures, invalidFixture{filepath.Base(path), data, kind, message})
	}
	return fixtures
}

// TestInvalidTopologies checks each fixture fails with its error and message
// (docs/protocol.md §9.4 for the limits). Hard errors stay errors when out-of-spec
// configurations are allowed; out-of-spec ones then resolve.
func TestInvalidTopologies(t *testing.T) {
	for _, f := range invalidFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			kind, ok := sentinels[f.kind]
			require.True(t, ok, "unknown sentinel %s", f.kind)
			check := func(o ResolveOptions) error {
				topo, err := ParseTopology(f.data, f.name)
				if err != nil {
					return err
				}
				return topo.Validate(o)
			}
			err := check(ResolveOptions{})
			require.Error(t, err)
			assert.ErrorIs(t, err, kind)
			assert.Equal(t, f.message, err.Error())
			var te *TopologyError
			assert.ErrorAs(t, err, &te)
			assert.Equal(t, kind != ErrOutOfSpec, errors.Is(err, ErrInvalidTopology))

			err = check(ResolveOptions{AllowOutOfSpec: true})
			if kind == ErrOutOfSpec {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, kind)
			}
		})
	}
}

// TestEverySentinelHasAFixture keeps the fixtures complete as errors are added.
func TestEverySentinelHasAFixture(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range invalidFixtures(t) {
		covered[f.kind] = true
	}
	for name := range sentinels {
		assert.True(t, covered[name], "no fixture in testdata/invalid wants %s", name)
	}
}

func TestSentinelsAreInvalidTopologies(t *testing.T) {
	for name, err := range sentinels {
		if err != ErrOutOfSpec {
			assert.ErrorIs(t, err, ErrInvalidTopology, name)
		}
	}
	assert.NotErrorIs(t, ErrOutOfSpec, ErrInvalidTopology)
}

func mustResolve(t *testing.T, topo *Topology, o ResolveOptions) *resolvedTopology {
	t.Helper()
	rt, err := topo.resolve(o)
	require.NoError(t, err)
	return rt
}

func mustParse(t *testing.T, text, name string) *Topology {
	t.Helper()
	topo, err := ParseTopology([]byte(text), name)
	require.NoError(t, err)
	return topo
}

func TestResolveAppliesDefaults(t *testing.T) {
	rt := mustResolve(t, mustParse(t, `
nodes:
  - {id: a, ports: 1}
  - {id: b, ports: 3, speed: S100, link: false, contender: true, power_class: 7,
     force_root: true, gap_count: 0, uid: 9, clock_ppm: -99.5}
  - {id: c, ports: 1}
  - {id: d, ports: 1}
cables:
  - {from: "a:0", to: "b:1"}
  - {from: "b:0", to: "c:0", delay_ns: 10.5}
  - {from: "d:0", to: "b:2", length_m: 1}
`, "t.yaml"), ResolveOptions{})
	assert.Equal(t, "1394-1995", rt.profile.Name)
	assert.Equal(t, []resolvedNode{
		{id: "a", ports: 1, speed: phy.S400, link: true, gapCount: 63, uid: 1},
		{id: "b", ports: 3, speed: phy.S100, contender: true, forceRoot: true, powerClass: 7, gapCount: 0, uid: 9, clockPPM: -99.5},
		{id: "c", ports: 1, speed: phy.S400, link: true, gapCount: 63, uid: 3},
		{id: "d", ports: 1, speed: phy.S400, link: true, gapCount: 63, uid: 4},
	}, rt.nodes)
	assert.Equal(t, []resolvedCable{
		{a: portRef{0, 0}, b: portRef{1, 1}, delayNs: 23, connectedAtStart: true}, // 4.5 m × 5.05 ns/m = 22.725 ns
		{a: portRef{1, 0}, b: portRef{2, 0}, delayNs: 11, connectedAtStart: true}, // 10.5 rounds up
		{a: portRef{3, 0}, b: portRef{1, 2}, delayNs: 5, connectedAtStart: true},
	}, rt.cables)
	assert.Empty(t, rt.events)
	assert.Empty(t, rt.outOfSpec)
	assert.False(t, rt.hasLoop)
}

func TestZeroTopologyIsAnEmptyBus(t *testing.T) {
	var topo Topology
	err := topo.Validate(ResolveOptions{})
	assert.ErrorIs(t, err, ErrEmptyBus)
	assert.Equal(t, "nodes: the bus has no nodes (want 1 to 63)", err.Error(), "no file: no file prefix")
}

// TestResolveEvents checks the scenario is replayed in time order (file order
// among equal times), that each connect adds a cable and each disconnect
// finds the cable plugged in at its time.
func TestResolveEvents(t *testing.T) {
	rt := mustResolve(t, mustParse(t, `
profile: 1394a-2000
nodes: [{id: hub, ports: 3}, {id: pc, ports: 1}, {id: disk, ports: 2}]
cables: [{from: "pc:0", to: "hub:0", length_m: 2}, {from: "disk:1", to: "hub:1"}]
events:
  - {at: 4ms, connect: {from: "disk:0", to: "hub:2", delay_ns: 3}}
  - {at: 2ms, connect: {from: "hub:2", to: "disk:0", length_m: 1}}
  - {at: 3ms, disconnect: {from: "disk:0", to: "hub:2"}}
  - {at: 5ms, phy_config: {node: pc, root: disk}}
  - {at: 5ms, phy_config: {node: disk, gap_count: 5}}
  - {at: 1500000, reset: {node: pc, short: true}}
  - {at: 6ms, disconnect: {from: "hub:0", to: "pc:0"}}
`, "t.yaml"), ResolveOptions{})
	const ms = 1_000_000
	assert.Equal(t, []resolvedEvent{
		{at: 1.5 * ms, kind: eventReset, cable: -1, node: 1, short: true, root: -1, gapCount: -1},
		{at: 2 * ms, kind: eventConnect, cable: 2, node: -1, root: -1, gapCount: -1},
		{at: 3 * ms, kind: eventDisconnect, cable: 2, node: -1, root: -1, gapCount: -1},
		{at: 4 * ms, kind: eventConnect, cable: 3, node: -1, root: -1, gapCount: -1},
		{at: 5 * ms, kind: eventPhyConfig, cable: -1, node: 1, root: 2, gapCount: -1},
		{at: 5 * ms, kind: eventPhyConfig, cable: -1, node: 2, root: -1, gapCount: 5},
		{at: 6 * ms, kind: eventDisconnect, cable: 0, node: -1, root: -1, gapCount: -1},
	}, rt.events)
	assert.Equal(t, []resolvedCable{
		{a: portRef{1, 0}, b: portRef{0, 0}, delayNs: 10, connectedAtStart: true}, // 2 m: 10.1 ns
		{a: portRef{2, 1}, b: portRef{0, 1}, delayNs: 23, connectedAtStart: true},
		{a: portRef{0, 2}, b: portRef{2, 0}, delayNs: 5},
		{a: portRef{2, 0}, b: portRef{0, 2}, delayNs: 3},
	}, rt.cables)
	assert.False(t, rt.hasLoop, "loops made by scenario connects are not the t=0 graph's")
}

func TestEventTimeLimit(t *testing.T) {
	topo := DefaultTopology()
	topo.Events = []Event{{At: Duration(time.Hour + 1), Reset: &ResetEvent{Node: "pc"}}}
	err := topo.Validate(ResolveOptions{})
	assert.ErrorIs(t, err, ErrBadEvent)
	assert.Equal(t, "events[0].at: event at 1h0m0.000000001s: want a time from 0 to 1h0m0s", err.Error())
}

// TestHops pins the 16-hop limit (docs/protocol.md §9.4): the diameter of the cable graph.
func TestHops(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		hops    int
		inSpec  bool
		endNode string
	}{
		{"chain:17", 16, true, ""},
		{"chain:18", 17, false, "n17"},
		{"star:27", 2, true, ""},
		{"ring:34", 17, false, "n17"}, // the far side of a ring is half way round
		{"ring:33", 16, true, ""},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			topo, err := Generate(tc.spec)
			require.NoError(t, err)
			rt := mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: true})
			if tc.inSpec {
				assert.Empty(t, rt.outOfSpec)
				assert.NoError(t, topo.Validate(ResolveOptions{}))
				return
			}
			assert.Equal(t, []string{fmt.Sprintf(
				"cables: the bus is %d cable hops across (from \"n0\" to %q), more than the 16 the standard allows", tc.hops, tc.endNode)}, rt.outOfSpec)
			assert.ErrorIs(t, topo.Validate(ResolveOptions{}), ErrOutOfSpec)
		})
	}
	t.Run("connect", func(t *testing.T) {
		// A device plugged in at the end of a 16-hop chain makes it 17.
		topo := mustGenerate(t, "chain:17")
		topo.Nodes = append(topo.Nodes, Node{ID: "n17", Ports: 1})
		topo.Events = []Event{{At: Duration(time.Millisecond), Connect: &Cable{From: "n16:1", To: "n17:0"}}}
		assert.Equal(t, []string{`events[0].connect: after the connect at 1ms, the bus is 17 cable hops across (from "n0" to "n17"), more than the 16 the standard allows`},
			mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: true}).outOfSpec)
		assert.Empty(t, mustResolve(t, topo, ResolveOptions{GraphOnly: true}).outOfSpec, "the election lab has no hop limit")
	})
}

func TestLoopDetection(t *testing.T) {
	for spec, loop := range map[string]bool{
		"pair": false, "chain:1": false, "chain:30": false, "star:20": false, "tree:63:7": false,
		"ring:2": true, "ring:3": true, "ring:33": true, "complete:2": false, "complete:3": true, "complete:9": true,
	} {
		topo, err := Generate(spec)
		require.NoError(t, err)
		assert.Equal(t, loop, mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: true}).hasLoop, spec)
	}
	topo, err := LoadTopology("../examples/loop.yaml")
	require.NoError(t, err)
	assert.True(t, mustResolve(t, topo, ResolveOptions{}).hasLoop)
}

// TestOutOfSpecListed checks every reason is kept when allowed, and the
// error names the first and counts the rest when not.
func TestOutOfSpecListed(t *testing.T) {
	topo := mustParse(t, `
profile: 1394a-2000
nodes:
  - {id: hub, ports: 20, clock_ppm: 101, force_root: true}
  - {id: b, ports: 2, force_root: true}
cables:
  - {from: "hub:19", to: "b:0", length_m: 4.6}
events:
  - {at: 1ms, connect: {from: "hub:0", to: "b:1", delay_ns: 22.8}}
`, "t.yaml")
	err := topo.Validate(ResolveOptions{})
	assert.ErrorIs(t, err, ErrOutOfSpec)
	assert.Equal(t, `t.yaml:4: nodes[0].ports: node "hub" has 20 ports, more than the 16 of a 1394a-2000 PHY `+
		`(out of spec, and 4 more out-of-spec problems)`, err.Error())

	rt := mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: true})
	assert.Equal(t, []string{
		`nodes[0].ports: node "hub" has 20 ports, more than the 16 of a 1394a-2000 PHY`,
		`nodes[0].clock_ppm: node "hub" has a clock error of 101 ppm, beyond the ±100 ppm the standard allows`,
		`nodes[1].force_root: nodes "hub" and "b" both have force_root: a PHY configuration packet sets RHB on one node and clears it on every other`,
		`cables[0].length_m: cable hub:19–b:0 is 4.6 m long, longer than the 4.5 m the standard allows`,
		`events[0].connect.delay_ns: cable hub:0–b:1 has a delay of 22.8 ns, more than the 22.725 ns of a 4.5 m cable`,
	}, rt.outOfSpec)
}

func TestSpecLimitsAreInSpec(t *testing.T) {
	topo := mustParse(t, `
nodes: [{id: a, ports: 27, clock_ppm: -100}, {id: b, ports: 1, clock_ppm: 100}, {id: c, ports: 1}]
cables:
  - {from: "a:0", to: "b:0", length_m: 4.5}
  - {from: "a:26", to: "c:0", delay_ns: 22.725}
`, "t.yaml")
	assert.NoError(t, topo.Validate(ResolveOptions{}))
}

func TestProfileOverride(t *testing.T) {
	topo := mustParse(t, "nodes: [{id: hub, ports: 17}]\n", "t.yaml")
	require.NoError(t, topo.Validate(ResolveOptions{}))
	rt := mustResolve(t, topo, ResolveOptions{Profile: "prism", AllowOutOfSpec: true})
	assert.Equal(t, "prism", rt.profile.Name)
	assert.ErrorIs(t, topo.Validate(ResolveOptions{Profile: "1394a-2000"}), ErrOutOfSpec)

	err := topo.Validate(ResolveOptions{Profile: "1394c"})
	assert.ErrorIs(t, err, ErrUnknownProfile)
	assert.Equal(t, `profile option: unknown profile "1394c" (want 1394-1995, 1394a-2000, 1394b-2002, prism)`, err.Error())
}

func TestErrorsWithoutFile(t *testing.T) {
	topo := DefaultTopology()
	topo.Cables[1].To = "disk1:2"
	err := topo.Validate(ResolveOptions{})
	assert.ErrorIs(t, err, ErrPortOutOfRange)
	assert.Equal(t, `cables[1].to: "disk1:2": node "disk1" has only ports 0 to 1`, err.Error())
}

// BenchmarkValidateGraph is the election lab's check of random trees of 10^4
// to 10^6 nodes: every name, port reference and cable, and whether the
// cables join the nodes, without 1394's limits. The 10^6 tree, some seconds
// to build and check, runs only with FWSIM_LONG_BENCH=1.
func BenchmarkValidateGraph(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		spec := fmt.Sprintf("tree:%d", n)
		b.Run(spec, func(b *testing.B) {
			if n > 100_000 && os.Getenv("FWSIM_LONG_BENCH") == "" {
				b.Skip("FWSIM_LONG_BENCH=1 runs it")
			}
			topo := mustGenerate(b, spec)
			b.ReportAllocs()
			for b.Loop() {
				if err := topo.Validate(ResolveOptions{GraphOnly: true, AllowOutOfSpec: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEccentricities checks the two-search shortcut on trees, and the
// search per node on parts with a loop, against a search from every node,
// on random forests with and without extra cables.
func TestEccentricities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + rng.IntN(40)
		var cables []resolvedCable
		for v := 1; v < n; v++ {
			if rng.IntN(8) > 0 { // else v starts a part of its own
				cables = append(cables, resolvedCable{a: portRef{node: rng.IntN(v)}, b: portRef{node: v}})
			}
		}
		for range rng.IntN(3) * (trial % 2) { // a loop or two
			cables = append(cables, resolvedCable{a: portRef{node: rng.IntN(n)}, b: portRef{node: rng.IntN(n)}})
		}
		g := newCableGraph(n, cables, func(int) bool { return true })
		want := make([]int, n)
		for v := range n {
			var h hopCounter
			for _, hops := range h.from(g, v) {
				want[v] = max(want[v], hops)
			}
		}
		require.Equal(t, want, eccentricities(g), "trial %d: %d nodes, cables %v", trial, n, cables)
	}
}
