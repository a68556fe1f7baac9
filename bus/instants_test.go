package bus

import (
	"cmp"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/internal/testenv"
	"github.com/fwsim/fwsim/phy"
)

// instantStride is the step, in ns, of the walk through tree and self
// identify: FWSIM_INSTANT_STRIDE overrides it (CI's long pass walks every
// nanosecond).
func instantStride(t *testing.T) int64 {
	s := os.Getenv("FWSIM_INSTANT_STRIDE")
	if s == "" {
		return int64(testenv.Size(41, 23, 7))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err, "FWSIM_INSTANT_STRIDE")
	require.Positive(t, n, "FWSIM_INSTANT_STRIDE")
	return n
}

// scenarioKind places one scripted event of its kind at an instant.
type scenarioKind struct {
	name    string
	profile string
	// add appends the event (and whatever it needs) to topo.
	add func(t *testing.T, topo *Topology, at Duration)
	// check looks at the whole run once the invariants hold.
	check func(t *testing.T, topo *Topology, res *Result) string
}

// configRoot and configGap are what the phy_config scenario sets.
const configGap = 20

// lastNode is the node a scenario acts on where it needs one far from n0.
func lastNode(topo *Topology) string { return topo.Nodes[len(topo.Nodes)-1].ID }

func scenarioKinds() []scenarioKind {
	return []scenarioKind{
		{name: "long-reset", add: func(_ *testing.T, topo *Topology, at Duration) {
			topo.Events = append(topo.Events, Event{At: at, Reset: &ResetEvent{Node: "n0"}})
		}},
		{name: "short-reset", profile: "1394a-2000", add: func(_ *testing.T, topo *Topology, at Duration) {
			topo.Events = append(topo.Events, Event{At: at, Reset: &ResetEvent{Node: lastNode(topo), Short: true}})
		}},
		{name: "connect", add: func(_ *testing.T, topo *Topology, at Duration) {
			port := freePort(topo)
			topo.Nodes = append(topo.Nodes, Node{ID: "plugged", Ports: 2})
			topo.Events = append(topo.Events, Event{At: at, Connect: &Cable{From: port, To: "plugged:1"}})
		}},
		{name: "connect-1394a", profile: "1394a-2000", add: func(_ *testing.T, topo *Topology, at Duration) {
			// A short debounce puts the connection inside the walk too.
			debounce := Duration(time.Microsecond)
			topo.Timing = &TimingOverrides{ConnectTimeout: &debounce}
			port := freePort(topo)
			topo.Nodes = append(topo.Nodes, Node{ID: "plugged", Ports: 1})
			topo.Events = append(topo.Events, Event{At: at, Connect: &Cable{From: "plugged:0", To: port}})
		}},
		{name: "disconnect", add: func(_ *testing.T, topo *Topology, at Duration) {
			last := topo.Cables[len(topo.Cables)-1]
			topo.Events = append(topo.Events, Event{At: at, Disconnect: &Cable{From: last.To, To: last.From}})
		}},
		{name: "phy-config", add: func(_ *testing.T, topo *Topology, at Duration) {
			gap := configGap
			topo.Events = append(topo.Events,
				Event{At: at, PhyConfig: &PhyConfigEvent{Node: "n0", Root: lastNode(topo), GapCount: &gap}},
				Event{At: Duration(time.Millisecond), Reset: &ResetEvent{Node: "n0"}})
		}, check: phyConfigTookEffect},
	}
}

// phyConfigTookEffect checks the generation of the reset after the PHY
// configuration: its root is the node the packet named, and every self-ID
// carries the gap count it set, but the sender's on a 1394-1995 PHY, which
// loads only the packets it receives.
func phyConfigTookEffect(_ *testing.T, topo *Topology, res *Result) string {
	g := res.Generations[len(res.Generations)-1]
	if g.StartNs < int64(time.Millisecond) {
		return fmt.Sprintf("the last generation starts at %d ns, before the reset at 1 ms", g.StartNs)
	}
	if want := lastNode(topo); g.Root != want {
		return fmt.Sprintf("after the PHY configuration the root is %q, want %q", g.Root, want)
	}
	for _, n := range g.Nodes {
		want := configGap
		if n.ID == "n0" && cmp.Or(topo.Profile, phy.DefaultProfile) == "1394-1995" {
			want = powerUpGapCount // n0 sent it
		}
		if q := g.SelfIDs[slices.IndexFunc(g.SelfIDs, func(q phy.SelfID) bool { return !q.IsExtended() && q.PhyID() == n.PhyID })]; q.GapCount() != want {
			return fmt.Sprintf("%s's self-ID %08x has gap count %d, want %d", n.ID, uint32(q), q.GapCount(), want)
		}
	}
	return ""
}

// runTraced runs topo and checks every invariant, returning a description of
// the first run that breaks one.
//
// Every step of tree identify is held against the predicates
// (treePredicates). It runs the bus a second time without tracing, which measures self-ID
// copies on the cable forest where a traced run walks them, and leaves out
// the evaluations the PHY says would change nothing, which the traced run
// steps and checks (Options.checkIdle): the two must give the same result.
func runTraced(topo *Topology, o Options) (*Result, []string, error) {
	var tr Trace
	predicates := newTreePredicates()
	o.Observer, o.checkIdle, o.checkSteps = tr.Record, true, predicates
	res, err := Run(topo, o)
	if err != nil {
		return nil, nil, err
	}
	problems := append(predicates.problems, runProblems(topo, res, tr.Events)...)
	o.Observer, o.checkIdle, o.checkSteps = nil, false, nil
	plain, err := Run(topo, o)
	if err != nil {
		return nil, nil, err
	}
	if !reflect.DeepEqual(plain, res) {
		problems = append(problems, fmt.Sprintf("without tracing (the cable forest) and with idle evaluations left out, the run differs from the traced one (the walk, every evaluation stepped):\n%+v\n%+v", plain, res))
	}
	return res, problems, nil
}

// TestNoInstantIsSpecial walks each kind of scripted event across the whole
// initialisation of chains, stars and random trees: coarsely through the
// bus reset, every few ns through tree and self identify. Every generation
// must end ok or interrupted, every ok one be a post-order tree, the trace
// keep the protocol's rules, and a PHY configuration take effect at the
// next reset.
func TestNoInstantIsSpecial(t *testing.T) {
	stride := instantStride(t)
	for _, spec := range []string{"chain:4", "star:4", "tree:7:3"} {
		for _, kind := range scenarioKinds() {
			t.Run(spec+"/"+kind.name, func(t *testing.T) {
				base := mustGenerate(t, spec)
				base.Profile = kind.profile
				quiet := runOK(t, base, Options{Seed: 1})
				timing := quiet.Generations[0].Timing
				from, to := timing.ResetEnd-1000, timing.SelfIDDone+1000
				var instants []int64
				for at := int64(0); at < from; at += 9973 {
					instants = append(instants, at)
				}
				for at := from; at <= to; at += stride {
					instants = append(instants, at)
				}
				var failures []string
				for _, at := range instants {
					topo := mustGenerate(t, spec)
					topo.Profile = kind.profile
					kind.add(t, topo, Duration(at))
					res, problems, err := runTraced(topo, Options{Seed: uint64(at)})
					require.NoError(t, err, "event at %d ns", at)
					if len(problems) == 0 && kind.check != nil {
						if p := kind.check(t, topo, res); p != "" {
							problems = []string{p}
						}
					}
					if len(problems) > 0 {
						failures = append(failures, fmt.Sprintf("event at %d ns, seed %d: %s", at, at, strings.Join(problems, "; ")))
					}
				}
				if len(failures) > 0 {
					t.Errorf("%d of %d instants fail; the first ones:\n%s", len(failures), len(instants), strings.Join(failures[:min(len(failures), 5)], "\n"))
				}
			})
		}
	}
}

// chain4 is the issue tracker's four-node chain of two-port nodes with one
// scripted event.
func chain4(ev Event) *Topology {
	topo := chainTopology(4, false)
	topo.Events = []Event{ev}
	return topo
}

// phyConfigThenReset is chain4 with a PHY configuration at ev and a reset
// from n0 at 1 ms, when it must have taken effect.
func phyConfigThenReset(ev Event) *Topology {
	topo := chain4(ev)
	topo.Events = append(topo.Events, Event{At: Duration(time.Millisecond), Reset: &ResetEvent{Node: "n0"}})
	return topo
}

// The reproductions reported against the bus at unlucky instants: each run
// must keep every invariant.
func TestUnluckyInstants(t *testing.T) {
	gap := 20
	chain17 := chainTopology(17, false)
	chain17.Nodes = append(chain17.Nodes, Node{ID: "far", Ports: 1})
	chain17.Events = []Event{{At: Duration(time.Millisecond), Connect: &Cable{From: "n16:1", To: "far:0"}}}
	for _, tc := range []struct {
		name string
		topo *Topology
		o    Options
		// last is the outcome of the last generation, root its root when
		// not empty.
		last Outcome
		root string
	}{
		// A reset reaching n1 while it drives PARENT_NOTIFY, GRANT or
		// DATA_PREFIX: it used to miss it and wait in S2 for ever.
		{"reset-in-tree-identify", chain4(Event{At: 167560, Reset: &ResetEvent{Node: "n0"}}), Options{Seed: 1}, OutcomeOK, ""},
		// A reset during self identify: packets of the dead generation
		// used to count toward the next phy_IDs (n0 and n2 both 3).
		{"reset-in-self-identify", chain4(Event{At: 168640, Reset: &ResetEvent{Node: "n0"}}), Options{Seed: 1}, OutcomeOK, ""},
		// A timer and an arrival on one clock edge used to evaluate n1
		// twice, driving a 0 ns PARENT_NOTIFY.
		{"one-decision-per-edge", mustGenerate(t, "tree:38:206"), Options{Seed: 205002, IdealClock: true}, OutcomeOK, ""},
		// A PHY configuration during the reset used to give every node
		// force root: it now waits for the bus to be idle.
		{"phy-config-in-reset", phyConfigThenReset(Event{At: 100000, PhyConfig: &PhyConfigEvent{Node: "n0", Root: "n1", GapCount: &gap}}), Options{Seed: 1}, OutcomeOK, "n1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, problems, err := runTraced(tc.topo, tc.o)
			require.NoError(t, err)
			assert.Empty(t, problems)
			last := res.Generations[len(res.Generations)-1]
			assert.Equal(t, tc.last, last.Outcome)
			if tc.root != "" {
				assert.Equal(t, tc.root, last.Root)
			}
		})
	}

	// A connect that makes the bus 17 hops across is out of spec.
	err := chain17.Validate(ResolveOptions{})
	require.ErrorIs(t, err, ErrOutOfSpec)
	assert.Contains(t, err.Error(), "events[0].connect")
	assert.Contains(t, err.Error(), "17 cable hops")
	res, err := Run(chain17, Options{AllowOutOfSpec: true})
	require.NoError(t, err)
	assert.NotEmpty(t, res.OutOfSpec)
}

// The PHY configuration of a scripted event sent while the bus resets
// waits for the bus to be idle, and then takes effect at the next reset
// exactly as on an idle bus.
func TestPhyConfigWaitsForAnIdleBus(t *testing.T) {
	gap := 20
	topo := chain4(Event{At: 100000, PhyConfig: &PhyConfigEvent{Node: "n0", Root: "n3", GapCount: &gap}})
	topo.Events = append(topo.Events, Event{At: Duration(time.Millisecond), Reset: &ResetEvent{Node: "n0"}})
	var tr Trace
	res, err := Run(topo, Options{Seed: 3, Observer: tr.Record})
	require.NoError(t, err)
	var details []string
	for _, e := range tr.Events {
		if e.Kind == TraceScenario {
			details = append(details, fmt.Sprintf("%d %s", e.TimeNs, e.Detail))
		}
	}
	require.Len(t, details, 3, "%v", details)
	assert.Contains(t, details[0], "waits: the bus is not idle")
	first := res.Generations[0]
	require.Equal(t, OutcomeOK, first.Outcome)
	sentAt := first.StartNs + first.Timing.SelfIDDone
	assert.Equal(t, fmt.Sprintf("%d PHY config", sentAt), details[1][:len(fmt.Sprintf("%d PHY config", sentAt))], "sent when the bus became idle")
	last := res.Generations[len(res.Generations)-1]
	require.Equal(t, OutcomeOK, last.Outcome)
	assert.Equal(t, "n3", last.Root)
	assert.Empty(t, phyConfigTookEffect(t, topo, res))
}

// Each PHY draws its FORCE_ROOT_TIMEOUT from the standard's range, so two
// force-root nodes (out of spec: a PHY configuration packet leaves one) no
// longer time out together by construction; nominal timers keep the old
// lockstep.
func TestTimersAreDrawnPerPHY(t *testing.T) {
	topo := mustGenerate(t, "pair")
	topo.Nodes[0].ForceRoot, topo.Nodes[1].ForceRoot = true, true
	roots := map[string]int{}
	lockstep := 0
	for seed := range uint64(40) {
		res := runOK(t, topo, Options{Seed: seed, AllowOutOfSpec: true})
		roots[res.Generations[0].Root]++
		nominal := runOK(t, topo, Options{Seed: seed, NominalTimers: true, AllowOutOfSpec: true})
		if len(nominal.Generations[0].Contention) > 0 {
			lockstep++
		}
	}
	assert.Equal(t, 40, lockstep, "nominal timers: both hold off equally long, then contend")
	assert.Positive(t, roots["a"], "roots %v", roots)
	assert.Positive(t, roots["b"], "roots %v", roots)
}

// A loop ends in CONFIG_TIMEOUT; unplugging one of its cables at any
// instant afterwards gives a bus that initialises.
func TestLoopBrokenAfterConfigTimeout(t *testing.T) {
	for at := int64(334_000); at < 346_000; at += 397 {
		topo := mustGenerate(t, "ring:4")
		topo.Events = []Event{{At: Duration(at), Disconnect: &Cable{From: "n3:1", To: "n0:0"}}}
		res, problems, err := runTraced(topo, Options{Seed: uint64(at)})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(res.Generations), 2)
		assert.Equal(t, OutcomeConfigTimeout, res.Generations[0].Outcome, "at %d ns", at)
		// The loop's generation is a legitimate config-timeout; every later
		// one must keep the invariants.
		for _, p := range problems {
			if !strings.Contains(p, "generation 0 ") {
				t.Errorf("disconnect at %d ns: %s", at, p)
			}
		}
		assert.Equal(t, OutcomeOK, res.Generations[len(res.Generations)-1].Outcome, "at %d ns", at)
	}
}

// A generation left open when the run ends is stalled only if some PHY
// still waits: one whose PHYs are all idle is judged like any finished one.
func TestIdleBusIsNeverStalled(t *testing.T) {
	w, err := build(mustGenerate(t, "pair"), Options{Seed: 1})
	require.NoError(t, err)
	w.run()
	require.Equal(t, OutcomeOK, w.gens[0].outcome)
	// A generation the bookkeeping opened but no reset followed: both PHYs
	// sit in A0 with the first generation's self-IDs.
	g := w.open(w.comp[0], w.k.Now(), Cause{Kind: CauseSeen, Event: -1, Text: "test"})
	w.closeAll(OutcomeStalled, "nothing left to happen")
	assert.Equal(t, OutcomeInconsistent, g.outcome)
	assert.Contains(t, strings.Join(g.problems, "\n"), "self-ID quadlets")
}

// The 1394a watchdog names itself as the cause of the reset it starts: on
// this bus (found by FuzzRunScenario) a node waits in S0 while resets keep
// the rest of the bus busy, until MAX_ARB_STATE_TIME runs out.
func TestWatchdogResetIsNamed(t *testing.T) {
	topo, o := ScenarioFromBytes([]byte("210000000\x1fz20X9a000100p0010200"))
	res, problems, err := runTraced(topo, o)
	require.NoError(t, err)
	assert.Empty(t, problems)
	var causes []Cause
	for _, g := range res.Generations {
		causes = append(causes, g.Cause)
	}
	assert.Contains(t, causes, Cause{Kind: CauseWatchdog, Node: "n5", Event: -1, Text: "reset from n5: MAX_ARB_STATE_TIME ran out"})
	assert.Equal(t, OutcomeOK, res.Generations[len(res.Generations)-1].Outcome)
}

// On long chains and larger trees, beyond the fuzzer's few nodes, the cable
// forest's distances and jump pointers give what the walk of a traced run
// gives.
func TestTheForestTimesWhatTheWalkTimes(t *testing.T) {
	for _, spec := range []string{"chain:200", "tree:500:3", "tree:1000:5"} {
		topo := mustGenerate(t, spec)
		o := Options{Seed: 2, AllowOutOfSpec: true}
		plain, err := Run(topo, o)
		require.NoError(t, err, spec)
		o.Observer = func(TraceEvent) {}
		walked, err := Run(topo, o)
		require.NoError(t, err, spec)
		assert.Equal(t, walked, plain, spec)
		assert.Equal(t, OutcomeOK, plain.Generations[0].Outcome, spec)
	}
}
