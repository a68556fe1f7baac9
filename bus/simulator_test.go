package bus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/treeid"
)

// metricsOf reads the Metrics out of a full Result, the way a user of Run
// would: the oracle a Simulator must agree with.
func metricsOf(res *Result) Metrics {
	m := Metrics{Outcome: OutcomeOK, ContentionNs: -1, Events: res.Events}
	for _, g := range res.Generations {
		if g.Outcome != OutcomeOK {
			m.Outcome = g.Outcome
			break
		}
	}
	if res.Traffic != nil {
		m.Traffic = res.Traffic.Metrics()
	}
	g := res.Generations[0]
	m.Root, m.TreeIDNs, m.SelfIDNs = g.Root, g.Timing.TreeIDDone, g.Timing.SelfIDDone
	if len(g.Contention) > 0 {
		c := g.Contention[0]
		m.Contended, m.ContentionRounds = true, c.Rounds
		if c.EndNs >= 0 {
			m.ContentionNs = c.EndNs - c.StartNs
		}
	}
	return m
}

func withDelay(t *testing.T, spec string, delayNs float64) *Topology {
	topo := mustGenerate(t, spec)
	topo.Cables[0].LengthM, topo.Cables[0].DelayNs = nil, &delayNs
	return topo
}

// TestSimulatorAgreesWithRun runs each case's seeds through one Simulator,
// in one sequence, so that every run but the first reuses the world left by
// a different run, and compares each with a fresh Run. The cases cover what
// a reused world must forget: roots and contentions that differ between
// runs, failures (which make it rebuild its PHYs), gap counts from the file,
// force root, initiators, scripted events and cycle clocks.
func TestSimulatorAgreesWithRun(t *testing.T) {
	gap := 5
	gapped := mustGenerate(t, "chain:3")
	for i := range gapped.Nodes {
		gapped.Nodes[i].GapCount = &gap
	}
	hotplug, err := LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	traffic, err := LoadTopology("../examples/traffic.yaml")
	require.NoError(t, err)
	cases := []struct {
		name string
		topo *Topology
		o    Options
	}{
		{"pair", mustGenerate(t, "pair"), Options{}},
		{"pair prism max ideal", withDelay(t, "pair", 30), Options{Profile: "prism", AllowOutOfSpec: true, Corner: treeid.CornerMax, IdealClock: true}},
		{"tree", mustGenerate(t, "tree:20:4"), Options{}},
		{"tree biased min", mustGenerate(t, "tree:12:2"), Options{Corner: treeid.CornerMin, CoinBias: new(0.2)}},
		{"gap count", gapped, Options{}},
		{"force root and initiator", mustGenerate(t, "chain:4"), Options{ForceRoot: "n0", Initiators: []string{"n3"}}},
		// Beyond docs/protocol.md §5 (2·delay > FAST.min): some runs end with two roots that
		// wait for each other (stalled), between runs that resolve.
		{"two roots sometimes", withDelay(t, "pair", 250), Options{AllowOutOfSpec: true, MaxTime: 2 * time.Millisecond}},
		{"loop", mustGenerate(t, "ring:3"), Options{}},
		{"budget", mustGenerate(t, "tree:8:1"), Options{MaxEvents: 100}},
		{"scripted events", hotplug, Options{}},
		{"traffic", traffic, Options{Until: 300 * time.Microsecond}},
		{"until without traffic", mustGenerate(t, "tree:6:3"), Options{Until: 200 * time.Microsecond}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := NewSimulator(tc.topo, tc.o)
			require.NoError(t, err)
			outcomes := map[Outcome]int{}
			for seed := range uint64(40) {
				o := tc.o
				o.Seed = seed
				res, err := Run(tc.topo, o)
				require.NoError(t, err)
				want := metricsOf(res)
				outcomes[want.Outcome]++
				require.Equal(t, want, sim.Run(seed), "seed %d", seed)
			}
			t.Log(outcomes)
		})
	}
}

func TestSimulatorRejectsWhatRunRejects(t *testing.T) {
	_, err := NewSimulator(withDelay(t, "pair", 300), Options{})
	require.ErrorIs(t, err, ErrOutOfSpec)
	_, err = NewSimulator(mustGenerate(t, "pair"), Options{ForceRoot: "x"})
	require.ErrorIs(t, err, ErrInvalidOptions)
	_, err = NewSimulator(mustGenerate(t, "pair"), Options{Observer: func(TraceEvent) {}})
	require.ErrorIs(t, err, ErrInvalidOptions)
}

// TestSimulatorSteadyStateAllocations pins that a reused world allocates
// nothing per run once its buffers have grown: the kernel, the PHYs' self-ID
// buffers, generations, verification and metrics are all reused.
func TestSimulatorSteadyStateAllocations(t *testing.T) {
	for _, spec := range []string{"pair", "tree:20:4", "tree:63:3"} {
		sim, err := NewSimulator(mustGenerate(t, spec), Options{})
		require.NoError(t, err)
		seed := uint64(0)
		for range 200 { // warm up: buffers and the tree cache reach their size
			sim.Run(seed)
			seed++
		}
		allocs := testing.AllocsPerRun(200, func() {
			m := sim.Run(seed)
			seed++
			if m.Outcome != OutcomeOK {
				t.Fatalf("seed %d: %s", seed, m.Outcome)
			}
		})
		assert.Zero(t, allocs, "%s: allocations per run", spec)
	}
}
