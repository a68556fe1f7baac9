package bus

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run that goes on from a snapshot stops where the run from power-up
// along the same choices stops, in the same state: on random paths through
// buses with coins, waits under an adversary, clock phases, a moved hot
// plug and a cable unplugged during power-up, every stop has the same key,
// marks, choice, metrics and first generation. The snapshots are taken by
// one Follower and gone on from by another that has run nothing else, or
// by the first after an unrelated run from power-up: a snapshot shares
// nothing with the bus it was taken from.
func TestSnapshotsGoOnAsRunsFromPowerUp(t *testing.T) {
	hotplug, err := LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	unplug, err := LoadTopology("../examples/unplug-window.yaml")
	require.NoError(t, err)
	prism, err := LoadTopology("../examples/prism-pair.yaml")
	require.NoError(t, err)
	pair, err := Generate("pair")
	require.NoError(t, err)
	tree, err := Generate("tree:2:2")
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		topo  *Topology
		opts  Options
		space ChoiceSpace
	}{
		{"pair", pair, Options{Seed: 3}, ChoiceSpace{}},
		{"pair 1394a phases", pair, Options{Seed: 3, Profile: "1394a-2000"}, ChoiceSpace{PhaseGrid: 3}},
		{"prism adversary", prism, Options{Seed: 1, IdealClock: true, AllowOutOfSpec: true}, ChoiceSpace{Resolution: 10}},
		{"tree", tree, Options{Seed: 5}, ChoiceSpace{}},
		{"hotplug window", hotplug, Options{Seed: 1}, ChoiceSpace{EventWindow: &Window{From: 166_000, To: 171_000}}},
		{"unplug window 1394a", unplug, Options{Seed: 1, Profile: "1394a-2000"}, ChoiceSpace{EventWindow: &Window{From: 168_000, To: 168_400}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			follower := func() *Follower {
				f, err := NewFollower(tc.topo, tc.opts, tc.space)
				require.NoError(t, err)
				return f
			}
			taker, replayer := follower(), follower()
			rng := rand.New(rand.NewPCG(11, uint64(len(tc.name))))
			resumed := 0
			for walk := range 40 {
				var path []int
				var snap *Snapshot
				for {
					var a FollowStop
					if snap == nil {
						a, err = taker.Follow(path)
					} else {
						goer := taker
						if walk%2 == 1 {
							goer = follower() // has run nothing
						}
						a, err = goer.FollowFrom(snap, path)
						resumed++
						taker = goer
					}
					require.NoError(t, err, "path %v", path)
					key, order := slices.Clone(a.Key), slices.Clone(a.FirstOrder)
					next := taker.Snapshot()
					if walk%3 == 2 {
						// An unrelated run from power-up between taking the
						// snapshot and going on from it.
						_, err := taker.Follow(nil)
						require.NoError(t, err)
					}
					b, err := replayer.Follow(path)
					require.NoError(t, err)
					require.True(t, bytes.Equal(key, b.Key), "path %v: the keys differ", path)
					require.Equal(t, b.Marks, a.Marks, "path %v", path)
					require.Equal(t, b.Choice, a.Choice, "path %v", path)
					require.Equal(t, b.Done, a.Done, "path %v", path)
					require.Equal(t, b.Metrics, a.Metrics, "path %v", path)
					require.Equal(t, b.FirstRoot, a.FirstRoot, "path %v", path)
					require.True(t, slices.Equal(b.FirstOrder, order), "path %v: first order %v, want %v", path, order, b.FirstOrder)
					if a.Done {
						require.Nil(t, next, "a snapshot of an ended run")
						break
					}
					if setup := a.Choice.Kind == ChoicePhase || a.Choice.Kind == ChoiceShift; setup {
						require.Nil(t, next, "path %v: a snapshot of the setup", path)
					} else {
						require.NotNil(t, next, "path %v: no snapshot at a choice point", path)
					}
					snap = next
					path = append(path, rng.IntN(a.Choice.Options))
				}
			}
			require.Positive(t, resumed, "no run went on from a snapshot")
		})
	}
}

// copyRun decides, for every field of the world, and for every field that
// refers to memory in its parts, whether it is copied, shared as
// configuration, or w's own scratch: a field added without that decision
// (a run's state that a snapshot would leave behind, or share with the bus
// it was taken from) fails here until copyRun and these lists say what it
// is.
func TestSnapshotDecidesEveryField(t *testing.T) {
	decided := func(typ reflect.Type, refsOnly bool, names ...string) {
		known := map[string]bool{}
		for _, n := range names {
			known[n] = true
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch f.Type.Kind() {
			case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan:
			default:
				if refsOnly {
					continue // copied with the struct
				}
			}
			assert.True(t, known[f.Name], "%s.%s: copyRun does not say whether it copies it (bus/snapshot.go)", typ.Name(), f.Name)
		}
	}
	// The world is copied field by field: all of them.
	decided(reflect.TypeOf(world{}), false,
		// copied
		"k", "nodes", "cables", "comp", "openGen", "gens", "tx", "txData", "txGen", "staleTimers", "discardedAt",
		"forest", "startCables", "inFlight", "traceOnly", "evaluations", "idle", "lastActive", "interrupted",
		"initiating", "waiting", "initiators", "powerUp", "arrivals", "powerUpEvery", "cabled", "lastCauses",
		"awaiting", "cause", "shiftNs", "metrics", "first", "choices", "runEvents", "manager",
		// configuration, the same for every Follower of the bus
		"topo", "opts", "phys", "maxTime", "maxEv", "bias", "forced", "lean",
		// w's own: scratch, caches, wiring
		"stack", "hops", "rebuild", "draws", "draw", "follower", "genPool", "roots", "owner", "trees", "treeAt")
	// The parts are copied whole, then what they refer to.
	decided(reflect.TypeOf(node{}), true, "phy", "m", "election", "coins", "peerUIDs", "cable", "remote", "sent",
		"busyUntil", "inbox", "owed", "gen", "rxGen", "notifyFrom", "notified")
	decided(reflect.TypeOf(generation{}), true, "members", "problems", "selfIDs", "configTimeouts", "warnings", "cables",
		"links", "tree")
	decided(reflect.TypeOf(cableForest{}), true, "parent", "jump", "depth", "upPort", "dist", "far", "reach", "looped",
		"mixed", "repeat", "order", "down")
	decided(reflect.TypeOf(chooser{}), true, "w", "path", "pending", "made", "err", "instants")
	decided(reflect.TypeOf(managerState{}), true, "members")
}

// A snapshot of another bus is refused, not copied into this one.
func TestSnapshotOfAnotherBusRefused(t *testing.T) {
	pair, err := Generate("pair")
	require.NoError(t, err)
	chain, err := Generate("chain:3")
	require.NoError(t, err)
	f, err := NewFollower(pair, Options{Seed: 1}, ChoiceSpace{})
	require.NoError(t, err)
	_, err = f.Follow(nil)
	require.NoError(t, err)
	snap := f.Snapshot()
	require.NotNil(t, snap)
	other, err := NewFollower(chain, Options{Seed: 1}, ChoiceSpace{})
	require.NoError(t, err)
	_, err = other.FollowFrom(snap, []int{0})
	require.ErrorIs(t, err, ErrInvalidOptions)
	assert.ErrorContains(t, err, "a snapshot of another bus: 2 nodes and 1 cable(s), where this one has 3 and 2")
	_, err = f.FollowFrom(snap, nil)
	require.NoError(t, err, "the bus that took it goes on from it")
}

// BenchmarkSnapshot saves the bus at a choice point and goes on from it,
// on the pair at its first root contention and on a 63-node tree at its
// first choice: what an explorer pays a state beside its runs' events.
func BenchmarkSnapshot(b *testing.B) {
	for _, bc := range []struct {
		name string
		topo *Topology
	}{{"pair", mustGenerate(b, "pair")}, {"tree63", benchTree(b)}} {
		f, err := NewFollower(bc.topo, Options{Seed: 1}, ChoiceSpace{})
		if err != nil {
			b.Fatal(err)
		}
		stop, err := f.Follow(nil)
		if err != nil || stop.Done {
			b.Fatalf("%s: no choice point: %v", bc.name, err)
		}
		snap := f.Snapshot()
		b.Run(bc.name+"/save", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.FollowFrom(snap, nil); err != nil {
					b.Fatal(err)
				}
				if f.Snapshot() == nil {
					b.Fatal("no snapshot")
				}
			}
			b.ReportMetric(float64(snap.Bytes()), "bytes")
		})
		b.Run(bc.name+"/go-on", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.FollowFrom(snap, []int{0}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
