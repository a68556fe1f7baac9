package hwtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/testenv"
	"github.com/fwsim/fwsim/phy"
)

// emulated runs a random topology and returns it with the run's first
// generation.
func emulated(t *testing.T, rng *rand.Rand, seed uint64) (*bus.Topology, *bus.Generation) {
	t.Helper()
	var spec string
	switch rng.IntN(4) {
	case 0:
		spec = fmt.Sprintf("chain:%d", 1+rng.IntN(12))
	case 1:
		spec = fmt.Sprintf("star:%d", 2+rng.IntN(10))
	default:
		spec = fmt.Sprintf("tree:%d:%d", 2+rng.IntN(30), rng.Uint64())
	}
	topo, err := bus.Generate(spec)
	require.NoError(t, err, spec)
	// Vary the self-ID fields the capture carries.
	for i := range topo.Nodes {
		n := &topo.Nodes[i]
		n.Contender = rng.IntN(2) == 0
		n.PowerClass = rng.IntN(8)
		n.Speed = []string{"S100", "S200", "S400", "S800"}[rng.IntN(4)]
		if rng.IntN(4) == 0 {
			n.Link = new(false)
		}
	}
	res, err := bus.Run(topo, bus.Options{Seed: seed, AllowOutOfSpec: true})
	require.NoError(t, err, spec)
	g := &res.Generations[0]
	require.Equal(t, bus.OutcomeOK, g.Outcome, "%s seed %d: %v", spec, seed, g.Problems)
	return topo, g
}

// propertyRuns is how many random buses a property test tries.
func propertyRuns() uint64 { return uint64(testenv.Size(8, 40, 400)) }

// Emulate, render the self-IDs in every format, read them back: the same
// quadlets, a consistent bus, and a cross-check that passes. Quoted in
// mail, in one of the ways mail clients quote, every rendering reads the
// same.
func TestPropertyEveryFormatRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	quotes := []string{"> ", ">> ", "> > ", ">"}
	for seed := range propertyRuns() {
		_, g1 := emulated(t, rng, seed)
		_, g2 := emulated(t, rng, seed+1000)
		want := [][]phy.SelfID{g1.SelfIDs, g2.SelfIDs}
		for _, r := range renderings(want) {
			quote := quotes[int(seed)%len(quotes)]
			for _, text := range []string{r.text, quoteMail(r.text, quote)} {
				f, err := Detect([]byte(text))
				require.NoError(t, err, r.name)
				require.Equal(t, r.format, f, "%s detected as %s:\n%s", r.name, f, text)
				gens, err := Parse([]byte(text), "")
				require.NoError(t, err, r.name)
				require.Len(t, gens, 2, "%s:\n%s", r.name, text)
				for i, g := range gens {
					assert.Equal(t, want[i], g.SelfIDs, "%s generation %d", r.name, i)
					b := Decode(g)
					assert.Empty(t, b.Problems, "%s generation %d", r.name, i)
				}
			}
		}
	}
}

func TestPropertyCrossCheckOfOwnSelfIDsPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for seed := range propertyRuns() {
		_, g := emulated(t, rng, seed)
		b := Decode(Generation{SelfIDs: g.SelfIDs, Number: -1, LocalPhyID: -1})
		require.Empty(t, b.Problems)
		c, err := Cross(b, CrossOptions{Seed: seed + 7})
		require.NoError(t, err)
		assert.True(t, c.Match(), "seed %d: %s %v %v", seed, c.Outcome, c.Problems, c.Diffs)
		assert.Empty(t, c.Notes, "every node initiated the power-up reset, so i is compared")
	}
}

// One port state changed in the captured self-IDs gives exactly that diff
// against the emulated topology.
func TestPropertyOnePortChangedGivesThatDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for seed := range propertyRuns() {
		topo, g := emulated(t, rng, seed)
		groups, err := phy.SplitSelfIDs(slices.Clone(g.SelfIDs))
		require.NoError(t, err)
		node := rng.IntN(len(groups))
		info, err := phy.DecodeSelfIDInfo(groups[node])
		require.NoError(t, err)
		var present []int
		for p, st := range info.Ports {
			if st != phy.PortAbsent {
				present = append(present, p)
			}
		}
		port := present[rng.IntN(len(present))]
		was := info.Ports[port]
		info.Ports[port] = phy.PortStatus((int(was) + 1 + rng.IntN(3)) % 4)
		packets, err := info.Encode()
		require.NoError(t, err)

		real := slices.Clone(g.SelfIDs)
		index := 0
		for _, gr := range groups[:node] {
			index += len(gr)
		}
		require.Len(t, packets, len(groups[node]), "the change keeps the packet count")
		copy(real[index:], packets)

		root := ""
		for _, n := range g.Nodes {
			if n.Root {
				root = n.ID
			}
		}
		b := Decode(Generation{SelfIDs: real, Number: -1, LocalPhyID: -1})
		c, err := Cross(b, CrossOptions{Seed: seed, Topology: topo, ForceRoot: root})
		require.NoError(t, err)
		require.Equal(t, bus.OutcomeOK, c.Outcome)
		require.Len(t, c.Diffs, 1, "seed %d: %v", seed, c.Diffs)
		d := c.Diffs[0]
		assert.Equal(t, node, d.Node)
		assert.Equal(t, fmt.Sprintf("port %d", port), d.Field)
		assert.Equal(t, info.Ports[port].String(), d.Real)
		assert.Equal(t, was.String(), d.Emulated)
		assert.Equal(t, index+(port+5)/8, d.Index, "the quadlet that carries the port")
	}
}
