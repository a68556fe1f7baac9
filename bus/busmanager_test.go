package bus

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// managedMixedBus is the mixed bus of docs/protocol.md §9.2, a 1394b
// computer and a 1394-1995 camcorder, with the computer as bus manager of
// policy instead of the scripted packet and reset.
func managedMixedBus(t *testing.T, policy string) *Topology {
	topo := computerAndCamcorder(t, "1394-1995")
	topo.Events, topo.BusManager = nil, &BusManager{Node: "pc", Policy: policy}
	return topo
}

// gapCounts are the gap counts the self-IDs of g carry, by node.
func gapCounts(g Generation) map[string]int {
	gaps := map[string]int{}
	for _, n := range g.Nodes {
		gaps[n.ID] = g.Tree.Nodes[n.PhyID].Info.GapCount
	}
	return gaps
}

// What Linux's comment on its 2024 change describes ("firewire: core: use
// long bus reset on gap count error", citing 1394a 8.4.6.2): on a mixed
// bus the bus manager's short reset is doubled by the 1394-1995 PHY, the
// gap counts then disagree, and a long reset makes them agree. With that
// policy the bus is healthy after two resets of the manager's; with the
// short resets of before, it disagrees after every one until the
// manager's five turns are spent.
func TestManagerOnTheMixedBus(t *testing.T) {
	for seed := range uint64(10) {
		res, err := Run(managedMixedBus(t, "linux"), Options{Seed: seed})
		require.NoError(t, err)
		gens := res.Generations
		require.Len(t, gens, 3, "seed %d: power-up, the manager's short reset, its long one", seed)
		for _, g := range gens {
			require.Equal(t, OutcomeOK, g.Outcome, "seed %d", seed)
			require.NotNil(t, g.Manager, "seed %d, generation %d: no turn", seed, g.Index)
		}
		assert.Equal(t, "short", gens[0].Manager.Reset, "seed %d: gap count 63 on a 1-hop bus", seed)
		assert.Equal(t, map[string]int{"pc": 63, "camcorder": 5}, gapCounts(gens[1]), "seed %d: the short reset doubled", seed)
		assert.Equal(t, "long", gens[1].Manager.Reset, "seed %d: after gap counts that disagree", seed)
		assert.Equal(t, map[string]int{"pc": 5, "camcorder": 5}, gapCounts(gens[2]), "seed %d", seed)
		assert.Empty(t, gens[2].Warnings, "seed %d", seed)
		assert.Equal(t, "", gens[2].Manager.Reset, "seed %d: a healthy bus is left be", seed)
		for _, g := range gens[1:] {
			assert.Equal(t, CauseManager, g.Cause.Kind, "seed %d", seed)
			assert.Equal(t, "pc", g.Cause.Node, "seed %d", seed)
		}

		res, err = Run(managedMixedBus(t, "linux-short"), Options{Seed: seed})
		require.NoError(t, err)
		gens = res.Generations
		require.Len(t, gens, 1+managerRetries, "seed %d: power-up, then a reset on each of the manager's turns", seed)
		for _, g := range gens[1:] {
			assert.Equal(t, map[string]int{"pc": 63, "camcorder": 5}, gapCounts(g), "seed %d, generation %d", seed, g.Index)
			assert.Contains(t, strings.Join(g.Warnings, "\n"), "gap counts disagree", "seed %d", seed)
		}
		last := gens[len(gens)-1].Manager
		require.NotNil(t, last)
		assert.Equal(t, managerRetries+1, last.Turn, "seed %d", seed)
		assert.Equal(t, "", last.Reset, "seed %d: its turns are spent", seed)
	}
}

// A plug-in on a managed 1394a bus: the manager resets once after power-up
// and once after the plug-in, where the diameter, and so the gap count,
// changes (one reset more than the plug-in's, as real buses show), and the
// root it wants is one that can be cycle master.
func TestManagerResetsOnceAfterAPlugIn(t *testing.T) {
	topo := mustParse(t, `profile: 1394a-2000
nodes:
  - {id: pc, ports: 2, contender: true}
  - {id: camera, ports: 2, force_root: true}
  - {id: disk, ports: 1}
cables:
  - {from: pc:0, to: camera:0}
events:
  - {at: 300ms, connect: {from: camera:1, to: disk:0}}
bus_manager: {node: pc}
`, "plug.yaml")
	for seed := range uint64(10) {
		res, err := Run(topo, Options{Seed: seed})
		require.NoError(t, err)
		var kinds []CauseKind
		for _, g := range res.Generations {
			require.Equal(t, OutcomeOK, g.Outcome, "seed %d", seed)
			kinds = append(kinds, g.Cause.Kind)
		}
		require.Equal(t, []CauseKind{CausePowerUp, CauseManager, CauseEvent, CauseManager}, kinds, "seed %d", seed)
		gens := res.Generations
		first := gens[0].Manager
		assert.Equal(t, "camera", first.Root, "seed %d: forced root", seed)
		assert.Equal(t, "pc", first.NewRoot, "seed %d: camera cannot be cycle master (c = 0)", seed)
		assert.Equal(t, 5, first.NewGapCount, "seed %d: 1394a's table for 1 hop", seed)
		assert.Equal(t, "pc", gens[1].Root, "seed %d", seed)
		assert.Equal(t, 2, gens[2].Manager.Hops, "seed %d", seed)
		assert.Equal(t, 7, gens[2].Manager.NewGapCount, "seed %d: 1394a's table for 2 hops", seed)
		assert.Equal(t, 1, gens[2].Manager.Turn, "seed %d: a node found, the turns count again", seed)
		assert.Equal(t, map[string]int{"pc": 7, "camera": 7, "disk": 7}, gapCounts(gens[3]), "seed %d", seed)
		assert.Equal(t, "", gens[3].Manager.Reset, "seed %d", seed)
		assert.Equal(t, "pc", gens[3].Root, "seed %d", seed)
	}
}

// The manager of a bus that did not manage the generation before waits
// 125 ms after its reset, and then acts at once after each of its own.
func TestManagerWaitsItsGraceOnce(t *testing.T) {
	res, err := Run(managedMixedBus(t, "linux"), Options{Seed: 1})
	require.NoError(t, err)
	gens := res.Generations
	require.Len(t, gens, 3)
	assert.Equal(t, gens[0].StartNs+managerGrace, gens[0].Manager.AtNs)
	for _, g := range gens[1:] {
		assert.Less(t, g.Manager.AtNs-(g.StartNs+g.Timing.SelfIDDone), int64(1000), "generation %d: at once after self identify", g.Index)
	}
}

// A manager on a 1394-1995 PHY, which does not load the PHY configuration
// packet it sends, keeps gap count 63 while the others take 5: with policy
// linux it resets long on every turn, and only the event budget ends the
// run.
func TestManagerOnA1995PHYNeverAgrees(t *testing.T) {
	topo := computerAndCamcorder(t, "1394-1995")
	topo.Events, topo.BusManager = nil, &BusManager{Node: "camcorder"}
	res, err := Run(topo, Options{Seed: 1, MaxEvents: 20_000})
	require.NoError(t, err)
	gens := res.Generations
	require.Greater(t, len(gens), 2*managerRetries, "the turn limit does not hold it")
	for _, g := range gens[1 : len(gens)-1] {
		assert.Equal(t, map[string]int{"pc": 5, "camcorder": 63}, gapCounts(g), "generation %d", g.Index)
		assert.Equal(t, "long", g.Manager.Reset, "generation %d", g.Index)
	}
	assert.Equal(t, OutcomeBudgetExhausted, gens[len(gens)-1].Outcome)
}
