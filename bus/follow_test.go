package bus_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/testenv"
)

// walk follows f from power-up taking random options until the run ends,
// and returns the choices, the kinds and nodes of their points, and the
// end. Once the first generation has closed, every stop reports the root
// and self-ID order the end reports.
func walk(t *testing.T, f *bus.Follower, rng *rand.Rand, prefix []int) ([]int, []bus.PathChoice, bus.FollowStop) {
	t.Helper()
	path := append([]int(nil), prefix...)
	var points []bus.PathChoice
	var closed []string // a stop's root and order once the generation closed
	for range 10_000 {
		stop, err := f.Follow(path)
		require.NoError(t, err)
		if !stop.Marks.First.Closed {
			assert.Empty(t, stop.FirstRoot)
			assert.Empty(t, stop.FirstOrder)
		} else if closed == nil {
			closed = append([]string{stop.FirstRoot}, stop.FirstOrder...)
		} else {
			assert.Equal(t, closed, append([]string{stop.FirstRoot}, stop.FirstOrder...), "path %v", path)
		}
		if stop.Done {
			return path, points, stop
		}
		k := rng.IntN(stop.Choice.Options)
		points = append(points, bus.PathChoice{Kind: stop.Choice.Kind, Node: stop.Choice.Node, Option: k})
		path = append(path, k)
	}
	require.Fail(t, "no end after 10,000 choices")
	return nil, nil, bus.FollowStop{}
}

// followCases are buses whose choices a Follower opens: coins and waits
// on cycle clocks and the ideal clock, a phase grid, a hot plug moved
// over tree and self identify, and a bus of four.
func followCases(t *testing.T) []struct {
	name  string
	topo  *bus.Topology
	opts  bus.Options
	space bus.ChoiceSpace
} {
	hotplug, err := bus.LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	return []struct {
		name  string
		topo  *bus.Topology
		opts  bus.Options
		space bus.ChoiceSpace
	}{
		{"pair", generate(t, "pair"), bus.Options{Seed: 3}, bus.ChoiceSpace{}},
		{"pair ideal", generate(t, "pair"), bus.Options{Seed: 3, IdealClock: true}, bus.ChoiceSpace{}},
		{"pair phases", generate(t, "pair"), bus.Options{Seed: 3, Profile: "1394a-2000"}, bus.ChoiceSpace{PhaseGrid: 3}},
		{"hotplug window, 10 ns steps", hotplug, bus.Options{Seed: 1, IdealClock: true}, bus.ChoiceSpace{EventWindow: &bus.Window{From: 166_000, To: 166_095}, Resolution: 10}},
		{"chain:4", generate(t, "chain:4"), bus.Options{Seed: 5}, bus.ChoiceSpace{}},
		{"hotplug window", hotplug, bus.Options{Seed: 1}, bus.ChoiceSpace{EventWindow: &bus.Window{From: 166_000, To: 171_000}}},
	}
}

// A Follower's run is bus.Run's: the path it took, replayed, gives the
// same metrics, and a path that does not fit is refused with the choice
// it breaks at.
func TestFollowerPathReplays(t *testing.T) {
	for _, tc := range followCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			f, err := bus.NewFollower(tc.topo, tc.opts, tc.space)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, 2))
			for range testenv.Size(2, 10, 50) {
				_, points, end := walk(t, f, rng, nil)
				o := tc.opts
				o.Replay = &bus.Path{Space: tc.space, Choices: points}
				res, err := bus.Run(tc.topo, o)
				require.NoError(t, err)
				first := res.Generations[0]
				assert.Equal(t, end.Metrics.TreeIDNs, first.Timing.TreeIDDone)
				assert.Equal(t, end.Metrics.SelfIDNs, first.Timing.SelfIDDone)
				outcome := bus.OutcomeOK
				for _, g := range res.Generations {
					if g.Outcome != bus.OutcomeOK && !g.Scripted {
						outcome = g.Outcome
						break
					}
				}
				assert.Equal(t, end.Metrics.Outcome, outcome)
				assert.Equal(t, first.Root, end.FirstRoot)
				assert.Equal(t, end.Metrics.Root, end.FirstRoot)
				order := []string{}
				for _, n := range first.Nodes {
					if n.PhyID >= 0 {
						order = append(order, n.ID)
					}
				}
				assert.Equal(t, order, append([]string{}, end.FirstOrder...))
				if len(points) == 0 {
					continue
				}
				short := &bus.Path{Space: tc.space, Choices: points[:len(points)-1]}
				o.Replay = short
				_, err = bus.Run(tc.topo, o)
				require.ErrorIs(t, err, bus.ErrInvalidOptions)
				assert.ErrorContains(t, err, "the path's")
				wrong := append([]bus.PathChoice(nil), points...)
				wrong[0].Node = "nobody"
				o.Replay = &bus.Path{Space: tc.space, Choices: wrong}
				_, err = bus.Run(tc.topo, o)
				assert.ErrorContains(t, err, "choice 1 of the path is a "+wrong[0].Kind.String()+" of nobody")
			}
		})
	}
}

// Equal keys mean equal futures: two paths that reach the same key, taking
// the same choices from there, end alike, and every mark they pass lies as
// far from the key's instant on both.
func TestFollowerKeysMergeOnlyEqualFutures(t *testing.T) {
	for _, tc := range followCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			f, err := bus.NewFollower(tc.topo, tc.opts, tc.space)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(3, 4))
			type seen struct {
				path []int
				now  int64
			}
			byKey := map[string]seen{}
			merged := 0
			for range testenv.Size(5, 40, 400) {
				path, _, _ := walk(t, f, rng, nil)
				for i := range path {
					stop, err := f.Follow(path[:i])
					require.NoError(t, err)
					key := string(stop.Key)
					other, ok := byKey[key]
					if !ok {
						byKey[key] = seen{append([]int(nil), path[:i]...), stop.Marks.NowNs}
						continue
					}
					if len(other.path) == i && equalInts(other.path, path[:i]) {
						continue
					}
					merged++
					// The same suffix from both.
					suffix := path[i:]
					a, err := f.Follow(append(append([]int(nil), other.path...), suffix...))
					require.NoError(t, err)
					b, err := f.Follow(append(append([]int(nil), path[:i]...), suffix...))
					require.NoError(t, err)
					require.True(t, a.Done && b.Done)
					assert.Equal(t, a.Metrics.Outcome, b.Metrics.Outcome)
					// (Not the end's instant: stale timers, which keys leave
					// out, may still pop after the bus finished.)
					for _, pair := range [][2]int64{
						{a.Marks.First.TreeIDNs, b.Marks.First.TreeIDNs},
						{a.Marks.First.SelfIDNs, b.Marks.First.SelfIDNs},
						{a.Marks.First.ContentionEndNs, b.Marks.First.ContentionEndNs},
					} {
						if pair[0] > other.now || pair[1] > stop.Marks.NowNs {
							assert.Equal(t, pair[0]-other.now, pair[1]-stop.Marks.NowNs, "a mark after the key's instant")
						}
					}
				}
			}
			t.Logf("%d keys, %d merges checked", len(byKey), merged)
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A run whose coins and waits are drawn when each contention round
// begins and the same run with them decided choice by choice, the waits
// edge by edge as an explorer decides them, are one run: the Follower,
// taking the drawn run's coins and ending each wait where the drawn one
// ended, reaches the same metrics. Before line-state arrivals ran first
// at their instant, a wait decided edge by edge had its last evaluation
// queued a cycle ahead, after a line state arriving at that edge, and saw
// it; the drawn wait's evaluation, queued when the round began, did not.
func TestEdgeByEdgeWaitsMatchDrawnWaits(t *testing.T) {
	for _, tc := range []struct {
		name string
		topo *bus.Topology
		opts bus.Options
	}{
		{"pair", generate(t, "pair"), bus.Options{IdealClock: true}},
		{"prism pair", prismPair(t), bus.Options{IdealClock: true, AllowOutOfSpec: true}},
		{"chain:4", generate(t, "chain:4"), bus.Options{IdealClock: true}},
		{"prism pair, cycle clocks", prismPair(t), bus.Options{AllowOutOfSpec: true}},
		{"chain:4, cycle clocks", generate(t, "chain:4"), bus.Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup := uint64(7)
			tc.opts.Seed = setup
			f, err := bus.NewFollower(tc.topo, tc.opts, bus.ChoiceSpace{})
			require.NoError(t, err)
			for seed := range uint64(testenv.Size(30, 300, 3000)) {
				o := tc.opts
				o.Seed, o.SetupSeed = seed, &setup
				res, err := bus.Run(tc.topo, o)
				require.NoError(t, err)
				// Each node's backoffs, in the order it drew them.
				backoffs := map[string][]bus.Backoff{}
				for _, g := range res.Generations {
					for _, c := range g.Contention {
						for _, b := range c.Backoffs {
							backoffs[b.Node] = append(backoffs[b.Node], b)
						}
					}
				}
				waits := map[string]int64{}
				var path []int
				var end bus.FollowStop
				for {
					stop, err := f.Follow(path)
					require.NoError(t, err)
					if stop.Done {
						end = stop
						break
					}
					c := stop.Choice
					k := 1
					switch c.Kind {
					case bus.ChoiceCoin:
						require.NotEmpty(t, backoffs[c.Node], "seed %d: %s flips a coin the drawn run did not", seed, c.Node)
						b := backoffs[c.Node][0]
						backoffs[c.Node] = backoffs[c.Node][1:]
						waits[c.Node] = b.WaitNs // the ideal clock: a cycle is a ns
						if !tc.opts.IdealClock {
							// Whole cycles of 20.345 ns, each rounded to the ns.
							waits[c.Node] = (b.WaitNs*49_152_000 + 500_000_000) / 1_000_000_000
						}
						if b.Fast {
							k = 0
						}
					case bus.ChoiceWait:
						if c.Waited == waits[c.Node] {
							k = 0
						}
					}
					path = append(path, k)
				}
				g := res.Generations[0]
				assert.Equal(t, g.Timing.TreeIDDone, end.Metrics.TreeIDNs, "seed %d: tree identify", seed)
				assert.Equal(t, g.Timing.SelfIDDone, end.Metrics.SelfIDNs, "seed %d: self identify", seed)
				assert.Equal(t, g.Outcome, end.Metrics.Outcome, "seed %d", seed)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func prismPair(t *testing.T) *bus.Topology {
	t.Helper()
	topo, err := bus.LoadTopology("../examples/prism-pair.yaml")
	require.NoError(t, err)
	return topo
}

func generate(t *testing.T, spec string) *bus.Topology {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	return topo
}

// With a Resolution of 10 ns a wait is asked to end only after a multiple
// of 10 ns or at its window's bounds, and the event window's instants are
// its multiples of 10 and its ends.
func TestResolutionKeepsItsGrid(t *testing.T) {
	hotplug, err := bus.LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	f, err := bus.NewFollower(hotplug, bus.Options{Seed: 1, IdealClock: true},
		bus.ChoiceSpace{EventWindow: &bus.Window{From: 166_003, To: 166_095}, Resolution: 10})
	require.NoError(t, err)
	stop, err := f.Follow(nil)
	require.NoError(t, err)
	require.Equal(t, bus.ChoiceShift, stop.Choice.Kind)
	assert.Equal(t, []int64{166_003, 166_010, 166_020, 166_030, 166_040, 166_050, 166_060, 166_070, 166_080, 166_090, 166_095}, stop.Choice.Instants)

	pair, err := bus.NewFollower(generate(t, "pair"), bus.Options{Seed: 3, IdealClock: true}, bus.ChoiceSpace{Resolution: 10})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 10))
	waits := 0
	for range 50 {
		path, _, _ := walk(t, pair, rng, nil)
		for i := range path {
			stop, err := pair.Follow(path[:i])
			require.NoError(t, err)
			if c := stop.Choice; c.Kind == bus.ChoiceWait {
				waits++
				assert.True(t, c.Waited%10 == 0 || c.Waited == c.Lo || c.Waited == c.Hi, "a wait asked after %d ns of %d..%d", c.Waited, c.Lo, c.Hi)
			}
		}
	}
	assert.Positive(t, waits)

	_, err = bus.NewFollower(generate(t, "pair"), bus.Options{Seed: 3}, bus.ChoiceSpace{Resolution: 10})
	assert.ErrorContains(t, err, "resolution 10 ns: cycle clocks make their choices at their own edges")
	_, err = bus.NewFollower(generate(t, "pair"), bus.Options{Seed: 3, IdealClock: true}, bus.ChoiceSpace{Resolution: -1})
	assert.ErrorContains(t, err, "resolution -1 ns: want a positive number of ns")
}
