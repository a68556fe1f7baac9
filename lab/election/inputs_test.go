package election

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

func TestParseIDs(t *testing.T) {
	ids, err := ParseIDs([]byte("# IDs\nn0 5\n\n  n1\t0\nn2 1000000000\n"), "ids.txt")
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"n0": 5, "n1": 0, "n2": MaxID}, ids)

	for _, tc := range []struct{ in, want string }{
		{"n0 5 6\n", `ids.txt:1: want NODE ID, got 3 fields in "n0 5 6"`},
		{"n0\n", `ids.txt:1: want NODE ID, got 1 field in "n0"`},
		{"n0 x\n", `ids.txt:1: node "n0": want an ID from 0 to 1000000000 written in decimal, got "x"`},
		{"n0 -1\n", `got "-1"`},
		{"n0 +1\n", `got "+1"`},
		{"n0 007\n", `got "007"`},
		{"n0 1000000001\n", `got "1000000001"`},
		{"n0 1\n# c\nn0 2\n", `ids.txt:3: node "n0" already has an ID (line 1)`},
		{"n0 1\nn1 1\n", `ids.txt:2: ID 1 of node "n1" is already taken (line 1): IDs must be unique`},
		{"# nothing\n", "ids.txt: no IDs"},
		{strings.Repeat("x", 70000), "ids.txt:1: line longer than 65536 bytes (want NODE ID)"},
	} {
		_, err := ParseIDs([]byte(tc.in), "ids.txt")
		require.Error(t, err, tc.in)
		assert.ErrorIs(t, err, ErrBadIDs)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func FuzzParseIDs(f *testing.F) {
	for _, seed := range []string{"n0 1\nn1 2\n", "# c\n\na 0\n", "a 1 2", "a 01", "a 1\na 2", "a 9999999999"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := ParseIDs(data, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrBadIDs) {
				t.Fatalf("error %v is not ErrBadIDs", err)
			}
			return
		}
		seen := map[int64]bool{}
		for node, id := range ids {
			if node == "" || strings.ContainsAny(node, " \t\n") || id < 0 || id > MaxID || seen[id] {
				t.Fatalf("accepted node %q with ID %d", node, id)
			}
			seen[id] = true
		}
	})
}

func TestExplicitIDsMustCoverTheBus(t *testing.T) {
	topo, err := bus.Generate("ring:3")
	require.NoError(t, err)
	for _, tc := range []struct {
		ids  map[string]int64
		want string
	}{
		{map[string]int64{"n0": 1, "n1": 2}, `node "n2" has no ID`},
		{map[string]int64{"n0": 1, "n1": 2, "n2": 3, "x": 4, "a": 5}, `no node "a" on the bus`},
		// A misspelt node is the error, not the node it leaves without an ID.
		{map[string]int64{"n0": 1, "n1": 2, "n_2": 3}, `no node "n_2" on the bus`},
		{map[string]int64{"n0": 1, "n1": 2, "n2": 2}, `nodes "n1" and "n2" both have ID 2`},
		{map[string]int64{"n0": 1, "n1": 2, "n2": -3}, `node "n2": ID -3 is not from 0`},
	} {
		_, err := Run(topo, Options{Algo: "lelann", IDs: tc.ids})
		assert.ErrorIs(t, err, ErrBadIDs)
		assert.ErrorContains(t, err, tc.want)
	}
	res, err := Run(topo, Options{Algo: "lelann", IDs: map[string]int64{"n0": 30, "n1": 10, "n2": 20}})
	require.NoError(t, err)
	assert.Equal(t, "n0", res.Leader)
	assert.Equal(t, "explicit", res.IDOrder)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		o    Options
		kind error
		want string
	}{
		{"tree:5", Options{Algo: "chang-roberts"}, ErrUnsupportedTopology, "chang-roberts needs a ring, got a tree of 5 nodes"},
		{"complete:4", Options{Algo: "lelann"}, ErrUnsupportedTopology, "lelann needs a ring, got a complete graph of 4 nodes"},
		{"ring:5", Options{Algo: "echo"}, ErrUnsupportedTopology, "echo needs a tree, got a ring of 5 nodes"},
		{"ring:5", Options{Algo: "tree-min"}, ErrUnsupportedTopology, "tree-min needs a tree"},
		{"ring:4", Options{Algo: "bully"}, ErrUnsupportedTopology, "bully needs a complete graph, got a ring of 4 nodes"},
		{"ring:3", Options{Algo: "1394"}, ErrUnsupportedTopology, "1394 needs a tree, got a ring of 3 nodes"},
		{"ring:3", Options{Algo: "sync-ring", Mode: Async}, ErrUnsupportedMode, "sync-ring has no async form (it is sync only)"},
		{"tree:3", Options{Algo: "1394", Mode: Sync}, ErrUnsupportedMode, "1394 has no sync form"},
		{"ring:3", Options{Algo: "raft"}, ErrUnknownAlgorithm, `"raft" (want chang-roberts, chang-roberts-bidi,`},
		{"ring:3", Options{Algo: "lelann", Initiators: []string{"n9"}}, ErrBadOptions, `initiator "n9" is not on the bus`},
		{"ring:3", Options{Algo: "lelann", Initiators: []string{"n1", "n1"}}, ErrBadOptions, `initiator "n1" is named twice`},
		{"ring:3", Options{Algo: "dfs-token", InitiatorCount: 2}, ErrBadOptions, "dfs-token starts from exactly one initiator, got 2"},
		{"ring:3", Options{Algo: "floodmax", InitiatorCount: 1}, ErrBadOptions, "floodmax starts at every node in round 1, got 1 initiator of 3 nodes"},
		{"ring:3", Options{Algo: "lelann", InitiatorCount: 4}, ErrBadOptions, "lelann cannot start at 4 nodes: the bus has 3"},
		{"ring:3", Options{Algo: "lelann", InitiatorCount: -2}, ErrBadOptions, "lelann cannot start at -2 nodes"},
		{"complete:4", Options{Algo: "bully", InitiatorCount: 4}, ErrBadOptions, "bully cannot start at 4 nodes: 3 are live"},
		{"ring:3", Options{Algo: "chang-roberts", Mode: Timed}, ErrUnsupportedMode, "chang-roberts has no timed form (it runs on message delays or rounds)"},
		{"tree:3", Options{Algo: "1394", Mode: Async}, ErrUnsupportedMode, "1394 has no async form (it is timed only)"},
		{"complete:3", Options{Algo: "bully", Crashed: []string{"n1", "n1"}}, ErrBadOptions, `crashed node "n1" is named twice`},
		{"ring:3", Options{Algo: "lelann", Crashed: []string{"n0"}}, ErrBadOptions, "lelann has no crashed nodes"},
		{"complete:3", Options{Algo: "bully", Crashed: []string{"n7"}}, ErrBadOptions, `crashed node "n7" is not on the bus`},
		{"complete:3", Options{Algo: "bully", Crashed: []string{"n2"}, Initiators: []string{"n2"}}, ErrBadOptions, `initiator "n2" has crashed`},
		{"complete:2", Options{Algo: "bully", Crashed: []string{"n0", "n1"}}, ErrBadOptions, "every node has crashed"},
		{"ring:3", Options{Algo: "ring-list", Crashes: []NodeEvent{{"n0", 5}}, Recoveries: []NodeEvent{{"n0", 9}}}, ErrBadOptions, "ring-list has crashes but no recoveries"},
		{"ring:3", Options{Algo: "lelann", Crashes: []NodeEvent{{"n0", 5}}, Recoveries: []NodeEvent{{"n0", 9}}}, ErrBadOptions, "lelann has crashes but no recoveries"},
		{"complete:3", Options{Algo: "bully", Mode: Sync, Recoveries: []NodeEvent{{"n2", 5}}}, ErrBadOptions,
			"bully's crashes and recoveries are timed in message delays: not in sync mode"},
		{"complete:3", Options{Algo: "bully", Crashes: []NodeEvent{{"n7", 5}}}, ErrBadOptions, `crash of "n7": not a node of the bus`},
		{"complete:3", Options{Algo: "bully", Recoveries: []NodeEvent{{"n2", -5}}}, ErrBadOptions, "recovery of n2 at -0.005 delays: want a time from 0"},
		{"complete:3", Options{Algo: "bully", Crashes: []NodeEvent{{"n2", 1500}}}, ErrBadOptions, "n2 crashes at 1.5 delays but is down then"},
		{"complete:3", Options{Algo: "bully", Recoveries: []NodeEvent{{"n1", 2000}}}, ErrBadOptions, "n1 recovers at 2 delays but is up then"},
		{"complete:3", Options{Algo: "bully", Crashes: []NodeEvent{{"n1", 2000}, {"n1", 3000}}, Recoveries: []NodeEvent{{"n1", 2500}, {"n1", 2600}}},
			ErrBadOptions, "n1 recovers at 2.6 delays but is up then"},
		{"complete:3", Options{Algo: "bully", Crashes: []NodeEvent{{"n1", 2000}}, Recoveries: []NodeEvent{{"n1", 2000}}}, ErrBadOptions,
			"n1 crashes and recovers at 2 delays: say which comes first"},
		{"complete:3", Options{Algo: "bully", Crashes: []NodeEvent{{"n2", 2000}}, Recoveries: []NodeEvent{{"n2", 2000}}}, ErrBadOptions,
			"n2 crashes and recovers at 2 delays: say which comes first"},
		{"ring:3", Options{Algo: "virtual-tree", Recoveries: []NodeEvent{{"n1", 5}}}, ErrBadOptions, "virtual-tree has crashes but no recoveries"},
		{"ring:3", Options{Algo: "virtual-tree", InitiatorCount: 1}, ErrBadOptions, "virtual-tree starts at every node, got 1 initiator of 3 nodes"},
		{"ring:3", Options{Algo: "virtual-tree", Mode: Sync}, ErrUnsupportedMode, "virtual-tree has no sync form (it is async only)"},
		{"ring:3", Options{Algo: "virtual-tree", Crashed: []string{"n1"}}, ErrBadOptions, "virtual-tree has no crashed nodes"},
		{"ring:40", Options{Algo: "chang-roberts", IDOrder: Descending, MaxEvents: 100}, ErrNoTermination, "budget of 100 events"},
	} {
		topo, err := bus.Generate(tc.spec)
		require.NoError(t, err)
		_, err = Run(topo, tc.o)
		assert.ErrorIs(t, err, tc.kind, "%s %+v", tc.spec, tc.o)
		assert.ErrorContains(t, err, tc.want)
	}
}

// A graph with loops that is not a ring says why.
func TestNotARingSaysWhy(t *testing.T) {
	topo := &bus.Topology{
		Nodes: []bus.Node{{ID: "a", Ports: 3}, {ID: "b", Ports: 2}, {ID: "c", Ports: 2}, {ID: "d", Ports: 1}},
		Cables: []bus.Cable{
			{From: "a:0", To: "b:0"}, {From: "b:1", To: "c:0"}, {From: "c:1", To: "a:1"}, {From: "a:2", To: "d:0"},
		},
	}
	_, err := Run(topo, Options{Algo: "lelann"})
	assert.ErrorIs(t, err, ErrUnsupportedTopology)
	assert.ErrorContains(t, err, `lelann needs a ring, got a graph of 4 nodes and 4 cables, with loops (node "a" has 3 cables, a ring node has 2)`)
}

func TestDisconnectedOrInvalidTopology(t *testing.T) {
	topo := &bus.Topology{
		Nodes:  []bus.Node{{ID: "a", Ports: 1}, {ID: "b", Ports: 2}, {ID: "c", Ports: 1}},
		Cables: []bus.Cable{{From: "a:0", To: "b:0"}},
		Events: []bus.Event{{At: 1000, Connect: &bus.Cable{From: "c:0", To: "b:1"}}},
	}
	_, err := Run(topo, Options{Algo: "echo"})
	assert.ErrorIs(t, err, ErrUnsupportedTopology)
	assert.ErrorContains(t, err, `node "c" is not cabled to node "a" at power-up`)

	_, err = Run(&bus.Topology{}, Options{Algo: "echo"})
	assert.ErrorIs(t, err, bus.ErrEmptyBus)
}

// InitiatorCount K starts the first K live nodes along the ID order: a
// crashed node is passed over, not counted.
func TestInitiatorCountSkipsCrashedNodes(t *testing.T) {
	res := elect(t, "complete:5", Options{Algo: "bully", Crashed: []string{"n0", "n4"}, InitiatorCount: 2})
	assert.Equal(t, []string{"n1", "n2"}, res.Initiators)
	assert.Equal(t, []string{"n0", "n4"}, res.Crashed)
	assert.Equal(t, "n3", res.Leader, "the largest live ID")
	res = elect(t, "complete:5", Options{Algo: "bully", Crashed: []string{"n0"}, InitiatorCount: AllNodes})
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, res.Initiators)
}

// On a ring, "along the order" means along the direction messages travel,
// whatever the order the topology lists its nodes in: the ring below runs
// c → a → b. IDs ascend that way, and K initiators are the first K of it.
func TestIDsAndInitiatorsFollowTheRing(t *testing.T) {
	topo := &bus.Topology{
		Nodes: []bus.Node{{ID: "a", Ports: 2}, {ID: "b", Ports: 2}, {ID: "c", Ports: 2}},
		Cables: []bus.Cable{
			{From: "c:0", To: "a:1"}, {From: "a:0", To: "b:1"}, {From: "b:0", To: "c:1"},
		},
	}
	res, err := Run(topo, Options{Algo: "chang-roberts", InitiatorCount: 2, UnitDelays: true, Trace: true})
	require.NoError(t, err)
	ids := map[string]int64{}
	for _, n := range res.Nodes {
		ids[n.Node] = n.ID
	}
	assert.Equal(t, map[string]int64{"c": 1, "a": 2, "b": 3}, ids)
	assert.Equal(t, []string{"c", "a"}, res.Initiators)
	require.NotEmpty(t, netsim.MessagesOnly(res.Trace))
	assert.Equal(t, "c", netsim.MessagesOnly(res.Trace)[0].From, "the first initiator sends first")
	assert.Equal(t, "a", netsim.MessagesOnly(res.Trace)[0].To, "clockwise is c → a")
	assert.Equal(t, "b", res.Leader)
}
