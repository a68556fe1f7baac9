package treeid

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// These tests drive one node's tree-identify phase by hand, as the bus would:
// set what the ports receive, step at a cycle, read what they transmit.

func newTestElection(t *testing.T, mut func(*ElectionConfig)) *Election {
	t.Helper()
	cfg := ElectionConfig{
		Fast:             phy.Window{Min: 240 * time.Nanosecond, Max: 260 * time.Nanosecond},
		Slow:             phy.Window{Min: 570 * time.Nanosecond, Max: 600 * time.Nanosecond},
		ForceRootTimeout: 1000 * time.Nanosecond,
		ConfigTimeout:    5000 * time.Nanosecond,
		Clock:            phy.IdealClock(), // cycles are nanoseconds
		FastProbability:  0.5,
		Rand:             rand.New(rand.NewPCG(1, 2)),
		PeerUIDs:         make([]uint64, 3),
	}
	if mut != nil {
		mut(&cfg)
	}
	e, err := NewElection(cfg)
	require.NoError(t, err)
	return e
}

func testPorts(connected ...bool) *phy.Ports {
	n := len(connected)
	p := &phy.Ports{Connected: connected, Rx: make([]phy.LineState, n), Tx: make([]phy.LineState, n), Status: make([]phy.PortStatus, n)}
	for i := range p.Status {
		p.Status[i] = phy.PortNotConnected
	}
	return p
}

// contendingLeaf starts a one-port leaf's tree identify at cycle 0 (it asks
// for a parent at once) and has ROOT_CONTENTION arrive; the caller steps it.
func contendingLeaf(e *Election) (*phy.Ports, *phy.Trail) {
	p := testPorts(true)
	trail := new(phy.Trail)
	e.Begin(0, p, false, trail)
	p.Rx[0] = phy.RxRootContention
	return p, trail
}

func TestLeafAsksForAParentAtOnce(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, false)
	var trail phy.Trail
	v := e.Begin(0, p, false, &trail)
	assert.Equal(t, phy.TreePending, v.Outcome)
	assert.Equal(t, []phy.State{phy.T0TreeIDStart, phy.T1ChildHandshake, phy.T2ParentHandshake}, trail.States())
	assert.Equal(t, phy.TxParentNotify, p.Tx[0], "docs/protocol.md §4 T2: PARENT_NOTIFY on the parent port")
	assert.Equal(t, phy.TxIdle, p.Tx[1], "unconnected ports stay idle")
	assert.Equal(t, phy.PortParent, p.Status[0])

	p.Rx[0] = phy.RxParentHandshake
	v = e.Step(40, p, &trail)
	assert.Equal(t, phy.TreeChild, v.Outcome)
}

func TestNodeWithEveryPortAChildIsRoot(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, true, true)
	var trail phy.Trail
	e.Begin(0, p, false, &trail)
	p.Rx[0], p.Rx[1], p.Rx[2] = phy.RxParentNotify, phy.RxParentNotify, phy.RxParentNotify
	e.Step(10, p, &trail)
	assert.Equal(t, phy.T1ChildHandshake, e.State())
	assert.Equal(t, []phy.LineState{phy.TxChildNotify, phy.TxChildNotify, phy.TxChildNotify}, p.Tx)

	p.Rx[0], p.Rx[1], p.Rx[2] = phy.RxChildHandshake, phy.RxChildHandshake, phy.RxChildHandshake
	v := e.Step(30, p, &trail)
	assert.Equal(t, phy.TreeRoot, v.Outcome)
	assert.Equal(t, []phy.PortStatus{phy.PortChild, phy.PortChild, phy.PortChild}, p.Status)
}

// Children are marked in T0 only (docs/protocol.md §4): a PARENT_NOTIFY that arrives
// in T1 on the remaining port is not a third child; in T2 it meets this
// node's own PARENT_NOTIFY as root contention.
func TestParentNotifyInT1IsNotAChild(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, true, true)
	var trail phy.Trail
	e.Begin(0, p, false, &trail)
	p.Rx[0], p.Rx[2] = phy.RxParentNotify, phy.RxParentNotify
	e.Step(10, p, &trail)
	require.Equal(t, phy.T1ChildHandshake, e.State())
	assert.Equal(t, []phy.LineState{phy.TxChildNotify, phy.TxIdle, phy.TxChildNotify}, p.Tx)

	p.Rx[1] = phy.RxParentNotify
	e.Step(20, p, &trail)
	assert.Equal(t, phy.T1ChildHandshake, e.State())
	assert.Equal(t, phy.TxIdle, p.Tx[1], "no CHILD_NOTIFY to a port that asked in T1")
	assert.Equal(t, phy.PortNotConnected, p.Status[1])

	// The two children drop PARENT_NOTIFY: T2 asks port 1 to be the parent,
	// and with port 1's own PARENT_NOTIFY still there the pair resolves to
	// ROOT_CONTENTION.
	p.Rx[0], p.Rx[2] = phy.RxChildHandshake, phy.RxChildHandshake
	e.Step(30, p, &trail)
	require.Equal(t, phy.T2ParentHandshake, e.State())
	assert.Equal(t, phy.TxParentNotify, p.Tx[1])
	p.Rx[1] = phy.Receive(phy.TxParentNotify, phy.TxParentNotify)
	require.Equal(t, phy.RxRootContention, p.Rx[1])
	e.Step(31, p, &trail)
	assert.Equal(t, phy.T3RootContention, e.State())
}

func TestRootContentionBacksOffAndRetries(t *testing.T) {
	e := newTestElection(t, func(c *ElectionConfig) { c.Corner = CornerMin; c.FastProbability = 1 })
	p, trail := contendingLeaf(e)
	v := e.Step(50, p, trail)
	require.Equal(t, phy.T3RootContention, e.State())
	assert.Equal(t, phy.TxIdle, p.Tx[0], "T3 drives IDLE")
	assert.Equal(t, int64(50+240), v.Wake, "FAST at the window's minimum")
	require.Len(t, e.Rounds(), 1)
	assert.Equal(t, Round{Start: 50, Port: 0, Fast: true, Wait: 240}, e.Rounds()[0])

	p.Rx[0] = phy.RxIdle
	e.Step(289, p, trail)
	assert.Equal(t, phy.T3RootContention, e.State(), "still waiting one cycle before the end")
	e.Step(290, p, trail)
	assert.Equal(t, phy.T2ParentHandshake, e.State(), "peer idle: ask again")
	assert.Equal(t, phy.TxParentNotify, p.Tx[0])
}

func TestRootContentionLostToTheQuickerPeer(t *testing.T) {
	e := newTestElection(t, func(c *ElectionConfig) { c.Corner = CornerMax; c.FastProbability = 0 })
	p, trail := contendingLeaf(e)
	v := e.Step(0, p, trail)
	assert.Equal(t, int64(600), v.Wake, "SLOW at the window's maximum")

	// The peer waited less and asks again: this node becomes its parent.
	p.Rx[0] = phy.RxParentNotify
	e.Step(600, p, trail)
	assert.Equal(t, phy.T1ChildHandshake, e.State())
	assert.Equal(t, phy.TxChildNotify, p.Tx[0])
	assert.Equal(t, phy.PortChild, p.Status[0])
	p.Rx[0] = phy.RxChildHandshake
	assert.Equal(t, phy.TreeRoot, e.Step(650, p, trail).Outcome)
}

// A back-off that ends on anything but IDLE or PARENT_NOTIFY (a peer that
// has meanwhile become the parent, on a too-long wire) leaves the node in T3
// waiting for the line to change, with no timer: the bus then stalls rather
// than polling forever.
func TestBackoffEndingOnAnotherLineStateWaitsWithoutATimer(t *testing.T) {
	e := newTestElection(t, func(c *ElectionConfig) { c.Corner = CornerMin; c.FastProbability = 1 })
	p, trail := contendingLeaf(e)
	e.Step(0, p, trail)
	p.Rx[0] = phy.RxIdentDone // the peer drives CHILD_NOTIFY at an idle port
	v := e.Step(240, p, trail)
	assert.Equal(t, phy.T3RootContention, e.State())
	assert.Equal(t, phy.NoWake, v.Wake)
	p.Rx[0] = phy.RxIdle
	e.Step(900, p, trail)
	assert.Equal(t, phy.T2ParentHandshake, e.State())
}

func TestForceRootHoldsOffInT0(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, true)
	var trail phy.Trail
	v := e.Begin(0, p, true, &trail)
	assert.Equal(t, int64(5000), v.Wake, "no child yet: only CONFIG_TIMEOUT is armed")
	p.Rx[0] = phy.RxParentNotify
	v = e.Step(10, p, &trail)
	assert.Equal(t, phy.T0TreeIDStart, e.State(), "RHB: wait for the last port too")
	assert.Equal(t, int64(1000), v.Wake, "FORCE_ROOT_TIMEOUT armed")
	e.Step(999, p, &trail)
	assert.Equal(t, phy.T0TreeIDStart, e.State())
	e.Step(1000, p, &trail)
	assert.Equal(t, phy.T1ChildHandshake, e.State(), "held long enough: acknowledge the child")
	p.Rx[0] = phy.RxChildHandshake
	e.Step(1010, p, &trail)
	assert.Equal(t, phy.T2ParentHandshake, e.State(), "then ask port 1 for a parent")
	assert.Equal(t, phy.TxParentNotify, p.Tx[1])
}

// TestConfigTimeoutIsAFlag: CONFIG_TIMEOUT is signalled once, on the edge
// it passes in T0 (T0 -> T0: !T0_timeout && arbTimer == CONFIG_TIMEOUT =>
// T0_timeout = true), and T0's exits stay live: PARENT_NOTIFYs that arrive
// later still make this node a parent (docs/protocol.md §4).
func TestConfigTimeoutIsAFlag(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, true)
	var trail phy.Trail
	e.Begin(100, p, false, &trail)
	assert.Equal(t, phy.TreePending, e.Step(5099, p, &trail).Outcome)
	assert.False(t, e.ConfigTimedOut())
	v := e.Step(5100, p, &trail)
	assert.Equal(t, phy.TreeConfigTimeout, v.Outcome)
	assert.Equal(t, phy.NoWake, v.Wake, "signalled: no timer is left in T0")
	assert.True(t, e.ConfigTimedOut())
	assert.Equal(t, phy.T0TreeIDStart, e.State())
	assert.Equal(t, phy.TreePending, e.Step(5101, p, &trail).Outcome, "signalled once")
	assert.False(t, e.Enabled(6000, p), "nothing to do until a line state changes")

	p.Rx[0] = phy.RxParentNotify
	require.True(t, e.Enabled(6000, p))
	e.Step(6000, p, &trail)
	assert.Equal(t, phy.T1ChildHandshake, e.State(), "all ports but one are children: a late PARENT_NOTIFY still counts")
	assert.Equal(t, phy.PortChild, p.Status[0])
	assert.True(t, e.ConfigTimedOut(), "the flag stays until the next T0")

	e.Begin(7000, p, false, &trail)
	assert.False(t, e.ConfigTimedOut(), "cleared on entry to T0")
}

func TestLargerIDWaitsSlow(t *testing.T) {
	for _, tc := range []struct {
		own, peer uint64
		fast      bool
	}{{3, 7, true}, {7, 3, false}} {
		e := newTestElection(t, func(c *ElectionConfig) {
			c.Policy, c.Corner, c.Rand = LargerIDWins, CornerMin, nil
			c.UID, c.PeerUIDs = tc.own, []uint64{tc.peer}
		})
		p, trail := contendingLeaf(e)
		e.Step(1, p, trail)
		require.Len(t, e.Rounds(), 1)
		assert.Equal(t, tc.fast, e.Rounds()[0].Fast, "uid %d vs %d", tc.own, tc.peer)
	}
}

func TestRandomWaitsCoverTheWindow(t *testing.T) {
	e := newTestElection(t, nil)
	seen := map[int64]bool{}
	for i := range 4000 {
		p, trail := contendingLeaf(e)
		e.Step(0, p, trail)
		r := e.Rounds()[0]
		if r.Fast {
			require.True(t, r.Wait >= 240 && r.Wait <= 260, "round %d: fast wait %d", i, r.Wait)
		} else {
			require.True(t, r.Wait >= 570 && r.Wait <= 600, "round %d: slow wait %d", i, r.Wait)
		}
		seen[r.Wait] = true
	}
	assert.Len(t, seen, 21+31, "every whole nanosecond of both windows is drawn")
}

func TestNewElectionRejectsBadConfig(t *testing.T) {
	for name, mut := range map[string]func(*ElectionConfig){
		"empty window": func(c *ElectionConfig) { c.Fast = phy.Window{Min: 300, Max: 200} },
		"bias":         func(c *ElectionConfig) { c.FastProbability = 1.5 },
		"no clock":     func(c *ElectionConfig) { c.Clock = phy.Clock{} },
		"no rand":      func(c *ElectionConfig) { c.Rand = nil },
		"no timeout":   func(c *ElectionConfig) { c.ConfigTimeout = 0 },
	} {
		cfg := ElectionConfig{
			Fast: phy.Window{Min: 240, Max: 260}, Slow: phy.Window{Min: 570, Max: 600},
			ForceRootTimeout: 1000, ConfigTimeout: 5000, Clock: phy.IdealClock(),
			FastProbability: 0.5, Rand: rand.New(rand.NewPCG(1, 1)),
		}
		mut(&cfg)
		_, err := NewElection(cfg)
		assert.Error(t, err, name)
	}
}

// A cable unplugged during tree identify can leave a node with no port to
// ask: it waits, with no parent, for the reset the disconnection starts.
func TestUnpluggedParentPortLeavesNoParent(t *testing.T) {
	e := newTestElection(t, nil)
	p := testPorts(true, true)
	var trail phy.Trail
	e.Begin(0, p, false, &trail)
	p.Rx[0] = phy.RxParentNotify
	e.Step(10, p, &trail)
	require.Equal(t, phy.T1ChildHandshake, e.State())
	p.Connected[1] = false
	p.Rx[0] = phy.RxChildHandshake
	v := e.Step(20, p, &trail)
	assert.Equal(t, phy.T2ParentHandshake, e.State())
	assert.Equal(t, phy.TreePending, v.Outcome)
	v = e.Step(30, p, &trail)
	assert.Equal(t, phy.TreePending, v.Outcome)
}
