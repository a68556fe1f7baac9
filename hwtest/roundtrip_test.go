package hwtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// TestEmittedTopologyRoundTrip checks every consistent generation of every
// capture against the topology decode emits for it, read back from its
// file: the emulation must give back the captured self-IDs exactly.
func TestEmittedTopologyRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	require.NoError(t, err)
	// The one capture among the command's test files; the rest are outputs.
	files = append(files, "../cmd/fwsim/testdata/crosscheck/pair.txt")
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || filepath.Base(f) == "README" {
			continue // the fuzz corpus directory, the notes
		}
		gens, err := Parse(data, "")
		if err != nil {
			continue // a capture made to be refused
		}
		for i, g := range gens {
			b := Decode(g)
			if b.Tree == nil || len(b.Problems) > 0 || holeInPorts(b) || delayCode(b) {
				continue
			}
			topo, _, _, err := b.Topology()
			require.NoError(t, err)
			var file bytes.Buffer
			require.NoError(t, topo.Encode(&file, "yaml"))
			back, err := bus.ParseTopology(file.Bytes(), "emitted.yaml")
			require.NoError(t, err, "%s generation %d", f, i+1)
			c, err := Cross(b, CrossOptions{Topology: back})
			require.NoError(t, err, "%s generation %d", f, i+1)
			assert.True(t, c.Match(), "%s generation %d: %v %v", f, i+1, c.Outcome, c.Diffs)
			checked++
		}
	}
	t.Logf("%d consistent generations round-trip", checked)
	assert.Greater(t, checked, 20, "the corpus should hold many consistent generations")
}

// holeInPorts reports a node with an absent port below a present one: a
// topology file gives a node a port count, so it cannot describe that.
func holeInPorts(b *Bus) bool {
	for _, n := range b.Nodes {
		for p := 1; p < len(n.Ports); p++ {
			if n.Ports[p-1] == phy.PortAbsent && n.Ports[p] != phy.PortAbsent {
				return true
			}
		}
	}
	return false
}

// delayCode reports a node whose del field is not 0: a topology file does
// not describe it, and the emulated PHYs send 0, as 1394a has it.
func delayCode(b *Bus) bool {
	for _, n := range b.Nodes {
		if n.Delay != 0 {
			return true
		}
	}
	return false
}

// A topology that adds a node to the captured bus is compared node by node
// by name: the new leaf under camera (phy 0) takes phy_ID 0 and shifts
// every other, which is one phy_id difference per node, not a comparison
// of each captured node with its emulated neighbour.
func TestCrossAlignsByTopologyNode(t *testing.T) {
	var text bytes.Buffer
	for _, q := range labBus(63) {
		fmt.Fprintf(&text, "%08x\n", uint32(q))
	}
	gens, err := Parse(text.Bytes(), FormatRaw)
	require.NoError(t, err)
	b := Decode(gens[0])
	topo, _, _, err := b.Topology()
	require.NoError(t, err)
	camera := NodeName(0)
	for i := range topo.Nodes {
		if topo.Nodes[i].ID == camera {
			topo.Nodes[i].Ports = 2
		}
	}
	topo.Nodes = append(topo.Nodes, bus.Node{ID: "extra", Ports: 1, Speed: "S100"})
	topo.Cables = append(topo.Cables, bus.Cable{From: camera + ":1", To: "extra:0"})

	c, err := Cross(b, CrossOptions{Topology: topo})
	require.NoError(t, err)
	assert.Equal(t, []string{NodeName(5)}, c.Initiators, "the initiator comes from the capture")
	var want []Diff
	for id := range 6 {
		want = append(want, Diff{Node: id, Name: NodeName(id), Field: "phy_id", Real: fmt.Sprint(id), Emulated: fmt.Sprint(id + 1)})
		if id == 0 {
			want = append(want, Diff{Node: 0, Name: camera, Field: "port 1", Real: "absent", Emulated: "child"})
		}
	}
	want = append(want, Diff{Node: -1, Name: "extra", Index: -1, Field: "node", Real: "absent", Emulated: "present"})
	got := slices.Clone(c.Diffs)
	for i := range got {
		if got[i].Node >= 0 {
			got[i].Index = 0 // positions are checked elsewhere
		}
	}
	assert.Equal(t, want, got)
}

func TestNodeName(t *testing.T) {
	for id, want := range map[int]string{0: "node-a", 5: "node-f", 25: "node-z", 26: "node-aa", 51: "node-az", 52: "node-ba", 62: "node-bk"} {
		assert.Equal(t, want, NodeName(id), id)
	}
}

// pairBus is two 1-port nodes on one cable, phy 1 the root: which one is
// root is a root contention's outcome.
func pairBus(t *testing.T) *Bus {
	t.Helper()
	P, C := phy.PortParent, phy.PortChild
	var text bytes.Buffer
	for _, n := range []phy.SelfIDInfo{
		{PhyID: 0, LinkActive: true, GapCount: 63, Speed: phy.S400, Ports: []phy.PortStatus{P}},
		{PhyID: 1, LinkActive: true, GapCount: 63, Speed: phy.S400, Ports: []phy.PortStatus{C}},
	} {
		packets, err := n.Encode()
		require.NoError(t, err)
		for _, q := range packets {
			fmt.Fprintf(&text, "%08x\n", uint32(q))
		}
	}
	gens, err := Parse(text.Bytes(), FormatRaw)
	require.NoError(t, err)
	return Decode(gens[0])
}

// A root the emulator elects by chance is one finding, and the nodes are
// compared with the captured root: no cascade of port and phy_id
// differences. Its odds are a fair coin's.
func TestCrossReportsAnotherRootOnce(t *testing.T) {
	b := pairBus(t)
	topo, _, _, err := b.Topology()
	require.NoError(t, err)
	seen := map[bool]bool{}
	for seed := range uint64(20) {
		c, err := Cross(b, CrossOptions{Topology: topo, Seed: seed})
		require.NoError(t, err)
		assert.True(t, c.Match(), "seed %d: %v", seed, c.Diffs)
		assert.Empty(t, c.Diffs, "seed %d", seed)
		seen[c.Root != nil] = true
		if c.Root == nil {
			assert.Empty(t, c.ForceRoot, "nothing forced")
			continue
		}
		assert.Equal(t, RootDiff{Real: "node-b", Emulated: "node-a", Contention: true}, *c.Root, "two nodes alone can only contend")
		assert.Equal(t, "node-b", c.ForceRoot, "compared with the captured root forced")
	}
	assert.Equal(t, map[bool]bool{false: true, true: true}, seen, "20 seeds elect each node at least once")

	c, err := Cross(b, CrossOptions{Topology: topo, Seed: 1, Odds: &OddsOptions{MaxStates: -1}})
	require.NoError(t, err)
	l := c.Likelihood
	require.NotNil(t, l)
	assert.False(t, l.Exact)
	assert.Equal(t, "no exploration asked for", l.Why)
	assert.Equal(t, OddsRuns, l.PRoot.Runs)
	// Each contention round is a fair coin for each node.
	assert.InDelta(t, 0.5, l.PRoot.P(), 0.1)
	assert.Less(t, l.PRoot.Interval()[0], 0.5)
	assert.Greater(t, l.PRoot.Interval()[1], 0.5)
	assert.Equal(t, l.PRoot, l.POrder, "on two nodes the root decides the order")

	// A root forced elsewhere is never the captured one: a mismatch, still
	// one finding; the odds are the election's all the same.
	c, err = Cross(b, CrossOptions{Topology: topo, ForceRoot: "node-a", Seed: 1, Odds: &OddsOptions{MaxStates: -1}})
	require.NoError(t, err)
	require.NotNil(t, c.Root)
	assert.True(t, c.Root.Forced)
	assert.Empty(t, c.Diffs)
	assert.False(t, c.Match())
	assert.Equal(t, l.PRoot, c.Likelihood.PRoot)
}
