package phy_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// newTestMachine builds a PHY on an ideal clock (one cycle per ns) with its
// tree identify from package treeid, its ports connected as given.
func newTestMachine(t *testing.T, connected []bool, mut func(*phy.Config)) *phy.Machine {
	t.Helper()
	timing := phy.Profiles()[0].Timing
	e, err := treeid.NewElection(treeid.ElectionConfig{
		Fast: timing.RootContendFast, Slow: timing.RootContendSlow,
		ForceRootTimeout: timing.ForceRootTimeout, ConfigTimeout: timing.ConfigTimeout,
		Clock: phy.IdealClock(), FastProbability: 0.5, Rand: rand.New(rand.NewPCG(1, 1)),
	})
	require.NoError(t, err)
	cfg := phy.Config{Ports: len(connected), Speed: phy.S400, LinkActive: true, Timing: timing, Clock: phy.IdealClock(), TreeID: e}
	if mut != nil {
		mut(&cfg)
	}
	m, err := phy.NewMachine(cfg)
	require.NoError(t, err)
	copy(m.Ports().Connected, connected)
	return m
}

func TestResetDrivesBusResetThenWaits(t *testing.T) {
	m := newTestMachine(t, []bool{true, false, true}, nil)
	m.InitiateReset(100, false)
	assert.Equal(t, phy.R0ResetStart, m.State())
	assert.Equal(t, []phy.LineState{phy.TxBusReset, phy.TxIdle, phy.TxBusReset}, m.Ports().Tx,
		"docs/protocol.md §4 R0: BUS_RESET on every connected port")
	resetTime := int64(phy.Profiles()[0].Timing.ResetTime)
	assert.Equal(t, 100+resetTime, m.Wake())

	m.Step(100 + resetTime - 1)
	assert.Equal(t, phy.R0ResetStart, m.State())
	// A neighbour still in R0 keeps BUS_RESET coming: R1 waits for it.
	m.Ports().Rx[0] = phy.RxBusReset
	m.Step(100 + resetTime)
	assert.Equal(t, phy.R1ResetWait, m.State())
	assert.Equal(t, []phy.LineState{phy.TxIdle, phy.TxIdle, phy.TxIdle}, m.Ports().Tx)

	// Both neighbours idle (or already asking for a parent): tree identify.
	m.Ports().Rx[0], m.Ports().Rx[2] = phy.RxIdle, phy.RxParentNotify
	m.Step(100 + resetTime + 50)
	assert.True(t, m.State().InTreeID(), "state %s", m.State())
	assert.True(t, m.Trail()[0] == phy.T0TreeIDStart)
}

func TestResetWaitTimesOutBackToR0(t *testing.T) {
	m := newTestMachine(t, []bool{true}, nil)
	timing := phy.Profiles()[0].Timing
	m.InitiateReset(0, false)
	m.Ports().Rx[0] = phy.RxBusReset
	m.Step(int64(timing.ResetTime))
	require.Equal(t, phy.R1ResetWait, m.State())
	m.Step(int64(timing.ResetTime + timing.ResetWait))
	assert.Equal(t, phy.R0ResetStart, m.State())
}

func TestBusResetArrivingAnywhereResets(t *testing.T) {
	m := newTestMachine(t, []bool{true, true}, nil)
	assert.Equal(t, phy.A0Idle, m.State())
	m.Ports().Rx[1] = phy.RxBusReset
	m.Step(7)
	assert.Equal(t, phy.R0ResetStart, m.State())
	assert.False(t, m.Initiated(), "a reset seen, not initiated: i = 0")
	assert.Equal(t, []phy.LineState{phy.TxBusReset, phy.TxBusReset}, m.Ports().Tx)
}

func TestWrittenGapCountSurvivesOneReset(t *testing.T) {
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.GapCount, c.GapCountWritten = 5, true })
	m.InitiateReset(0, false)
	assert.Equal(t, 5, m.GapCount(), "docs/protocol.md §9.2: a written gap count survives the next reset")
	m.InitiateReset(1, false)
	assert.Equal(t, 63, m.GapCount(), "…but not a second one")

	pc, err := phy.NewPhyConfig(0, true, true, 12)
	require.NoError(t, err)
	m.ApplyPhyConfig(pc)
	assert.True(t, m.ForceRoot(), "R=1 addressed to this node's phy_ID sets RHB")
	m.InitiateReset(2, false)
	assert.Equal(t, 12, m.GapCount())
	other, err := phy.NewPhyConfig(5, true, false, 0)
	require.NoError(t, err)
	m.ApplyPhyConfig(other)
	assert.False(t, m.ForceRoot(), "R=1 addressed to another node clears RHB")
}

func TestGapCountZeroIsAValue(t *testing.T) {
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.GapCount, c.GapCountWritten = 0, true })
	m.InitiateReset(0, false)
	assert.Equal(t, 0, m.GapCount())
}

func TestShortResetIsShort(t *testing.T) {
	timing := phy.Profiles()[1].Timing
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.Timing = timing })
	m.InitiateReset(0, true)
	assert.Equal(t, int64(timing.ShortResetTime), m.Wake())

	// A PHY that receives a short reset drives it for the short time too,
	// once told to expect one; otherwise a received reset is long.
	for _, expect := range []bool{true, false} {
		r := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.Timing = timing })
		if expect {
			r.ExpectShortReset()
		}
		r.Ports().Rx[0] = phy.RxBusReset
		r.Step(100)
		want := timing.ResetTime
		if expect {
			want = timing.ShortResetTime
		}
		assert.Equal(t, 100+int64(want), r.Wake(), "expect short: %v", expect)
	}
}

func TestResetWaitTimeoutKeepsTheInitiator(t *testing.T) {
	m := newTestMachine(t, []bool{true}, nil)
	timing := phy.Profiles()[0].Timing
	m.InitiateReset(0, false)
	m.Ports().Rx[0] = phy.RxBusReset
	m.Step(int64(timing.ResetTime))
	m.Step(int64(timing.ResetTime + timing.ResetWait))
	require.Equal(t, phy.R0ResetStart, m.State())
	assert.True(t, m.Initiated(), "the same reset, started over: i stays set")
}

// toChild runs a one-port leaf through reset and tree identify until its
// parent acknowledges it.
func toChild(t *testing.T, m *phy.Machine) {
	t.Helper()
	m.InitiateReset(0, false)
	m.Step(m.Wake())
	require.Equal(t, phy.T2ParentHandshake, m.State())
	m.Ports().Rx[0] = phy.RxParentHandshake
	m.Step(m.Wake() + 1000)
	require.Equal(t, phy.S0SelfIDStart, m.State())
}

func TestLeafSelfIdentifies(t *testing.T) {
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.Contender, c.PowerClass = true, 4 })
	toChild(t, m)
	// Two earlier nodes' packets have gone by: this node takes phy_ID 2.
	m.Receive(2, 2)
	m.Ports().Rx[0] = phy.RxSelfIDGrant
	m.Step(200000)
	assert.Equal(t, phy.S4SelfIDTransmit, m.State())
	assert.Equal(t, phy.TxDataPrefix, m.Ports().Tx[0])
	packets, _, _ := m.TakeTransmit()
	assert.Empty(t, packets, "the packet is handed over once it has been sent whole")
	end := m.Wake()
	m.Step(end)
	packets, start, end := m.TakeTransmit()
	require.Len(t, packets, 1)
	assert.Equal(t, 2, packets[0].PhyID())
	assert.Equal(t, phy.PortParent, packets[0].Port(0))
	assert.True(t, packets[0].Contender())
	// prefix 640 + 64 bits at 98.304 Mbit/s (651 ns) + end 520.
	assert.Equal(t, int64(640+652+520), end-start)
	assert.Equal(t, phy.TxIdentDone, m.Ports().Tx[0], "IDENT_DONE once the packet is out")
	m.Ports().Rx[0] = phy.RxDataPrefix
	m.Step(end + 50)
	assert.Equal(t, phy.A0Idle, m.State())
	assert.Equal(t, 2, m.PhyID())
}

func TestParentGrantsChildrenInPortOrder(t *testing.T) {
	m := newTestMachine(t, []bool{true, true, true}, nil)
	m.InitiateReset(0, false)
	ports := m.Ports()
	ports.Rx[0], ports.Rx[1], ports.Rx[2] = phy.RxParentNotify, phy.RxParentNotify, phy.RxParentNotify
	m.Step(m.Wake())
	ports.Rx[0], ports.Rx[1], ports.Rx[2] = phy.RxChildHandshake, phy.RxChildHandshake, phy.RxChildHandshake
	now := m.Wake() + 100
	m.Step(now)
	require.True(t, m.Root())

	for want := 0; want < 3; want++ {
		require.Equal(t, phy.S2SelfIDReceive, m.State(), "granting port %d", want)
		for p := range 3 {
			if p == want {
				assert.Equal(t, phy.TxGrant, ports.Tx[p], "docs/protocol.md §4 S1: grant the lowest unidentified child")
			} else {
				assert.Equal(t, phy.TxDataPrefix, ports.Tx[p])
			}
		}
		ports.Rx[want] = phy.RxDataPrefix
		now += 30
		m.Step(now)
		assert.Equal(t, phy.TxIdle, ports.Tx[want], "the child started: stop granting")
		ports.Rx[want] = phy.RxIdentDone
		now += 700
		m.Step(now)
		assert.Equal(t, phy.S3SendSpeedCapabilities, m.State())
		// docs/protocol.md §4 S3: SPEED_SIGNAL_LENGTH, then the next child.
		speed := int64(phy.Profiles()[0].Timing.SpeedSignal)
		assert.Equal(t, now+speed, m.Wake())
		m.Step(now + speed - 1)
		assert.Equal(t, phy.S3SendSpeedCapabilities, m.State(), "still signalling its speed")
		now += speed
		m.Step(now)
		ports.Rx[want] = phy.RxIdle
	}
	assert.Equal(t, phy.S4SelfIDTransmit, m.State(), "every child identified: the root sends last")
}

func TestNewMachineRejectsBadConfig(t *testing.T) {
	for name, mut := range map[string]func(*phy.Config){
		"ports":  func(c *phy.Config) { c.Ports = 28 },
		"power":  func(c *phy.Config) { c.PowerClass = 8 },
		"gap":    func(c *phy.Config) { c.GapCount = 64 },
		"tree":   func(c *phy.Config) { c.TreeID = nil },
		"clock":  func(c *phy.Config) { c.Clock = phy.Clock{} },
		"timing": func(c *phy.Config) { c.Timing.ResetTime = -time.Second },
	} {
		cfg := phy.Config{Ports: 1, Timing: phy.Profiles()[0].Timing, Clock: phy.IdealClock(), TreeID: &treeid.Election{}}
		mut(&cfg)
		_, err := phy.NewMachine(cfg)
		assert.Error(t, err, name)
	}
}

// A reset during the transmission cuts the packet off: it is never handed
// to the bus, and the link keeps nothing of the old generation.
func TestResetCutsOffTheSelfIDBeingSent(t *testing.T) {
	m := newTestMachine(t, []bool{true}, nil)
	toChild(t, m)
	m.Ports().Rx[0] = phy.RxSelfIDGrant
	m.Step(200000)
	require.Equal(t, phy.S4SelfIDTransmit, m.State())
	// A neighbour's BUS_RESET against this port's DATA_PREFIX resolves to
	// (Z,1), not (1,1): the PHY still sees the reset.
	m.Ports().Rx[0] = phy.Receive(phy.TxDataPrefix, phy.TxBusReset)
	m.Step(200100)
	assert.Equal(t, phy.R0ResetStart, m.State())
	packets, _, _ := m.TakeTransmit()
	assert.Empty(t, packets)
	m.Receive(1, 1)
	assert.Zero(t, m.ReceivedSelfIDs(), "a packet arriving in R0 belongs to a generation the PHY has left")
}

// Every state that drives a 0 somewhere sees a neighbour's BUS_RESET
// (docs/protocol.md §2): T2 with its PARENT_NOTIFY, S1/S2 with GRANT and DATA_PREFIX.
func TestBusResetReachesEveryDrivingState(t *testing.T) {
	m := newTestMachine(t, []bool{true}, nil)
	m.InitiateReset(0, false)
	m.Ports().Rx[0] = phy.RxIdle
	m.Step(m.Wake())
	require.Equal(t, phy.T2ParentHandshake, m.State())
	require.Equal(t, phy.TxParentNotify, m.Ports().Tx[0])
	m.Ports().Rx[0] = phy.Receive(phy.TxParentNotify, phy.TxBusReset)
	m.Step(m.Wake() + 1000)
	assert.Equal(t, phy.R0ResetStart, m.State(), "T2 driving PARENT_NOTIFY")

	root := newTestMachine(t, []bool{true, true}, nil)
	root.InitiateReset(0, false)
	root.Ports().Rx[0], root.Ports().Rx[1] = phy.RxParentNotify, phy.RxParentNotify
	root.Step(root.Wake())
	root.Ports().Rx[0], root.Ports().Rx[1] = phy.RxChildHandshake, phy.RxChildHandshake
	now := root.Wake() + 100
	root.Step(now)
	require.Equal(t, phy.S2SelfIDReceive, root.State())
	require.Equal(t, []phy.LineState{phy.TxGrant, phy.TxDataPrefix}, root.Ports().Tx)
	root.Ports().Rx[0] = phy.Receive(phy.TxGrant, phy.TxIdle)
	root.Ports().Rx[1] = phy.Receive(phy.TxDataPrefix, phy.TxBusReset)
	root.Step(now + 10)
	assert.Equal(t, phy.R0ResetStart, root.State(), "S2 driving DATA_PREFIX")
}

// The 1394a watchdog: a PHY left in T2 with no answer initiates a long
// reset MAX_ARB_STATE_TIME after entering it; 1394-1995 has none.
func TestMaxArbStateTimeResetsAStuckPHY(t *testing.T) {
	a, err := phy.LookupProfile("1394a-2000")
	require.NoError(t, err)
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.Timing = a.Timing })
	m.InitiateReset(0, false)
	m.Step(m.Wake())
	require.Equal(t, phy.T2ParentHandshake, m.State())
	entered := m.Wake() - int64(a.Timing.MaxArbStateTime)
	assert.Equal(t, int64(a.Timing.MaxArbStateTime), m.Wake()-entered)
	m.Step(m.Wake() - 1)
	assert.Equal(t, phy.T2ParentHandshake, m.State())
	m.Step(entered + int64(a.Timing.MaxArbStateTime))
	assert.Equal(t, phy.R0ResetStart, m.State())
	assert.True(t, m.WatchdogReset())
	assert.True(t, m.Initiated(), "the watchdog's reset is this PHY's own")

	old := newTestMachine(t, []bool{true}, nil)
	old.InitiateReset(0, false)
	old.Step(old.Wake())
	require.Equal(t, phy.T2ParentHandshake, old.State())
	assert.Equal(t, phy.NoWake, old.Wake(), "1394-1995 has no watchdog")
}

// A key holds only what the state will read: which child an earlier S2
// granted, and whether it answered, do not keep a reset PHY apart from one
// that never granted.
func TestKeyForgetsAnEarlierGrant(t *testing.T) {
	granting := newTestMachine(t, []bool{true, true}, nil)
	granting.InitiateReset(0, false)
	ports := granting.Ports()
	ports.Rx[0], ports.Rx[1] = phy.RxParentNotify, phy.RxParentNotify
	granting.Step(granting.Wake())
	ports.Rx[0], ports.Rx[1] = phy.RxChildHandshake, phy.RxChildHandshake
	now := granting.Wake() + 100
	granting.Step(now)
	require.Equal(t, phy.S2SelfIDReceive, granting.State())
	ports.Rx[0] = phy.RxDataPrefix
	granting.Step(now + 30)
	require.Equal(t, phy.TxIdle, ports.Tx[0], "the child answered the grant")

	fresh := newTestMachine(t, []bool{true, true}, nil)
	reset := now + 100
	for _, m := range []*phy.Machine{granting, fresh} {
		m.Ports().Rx[0], m.Ports().Rx[1] = phy.RxIdle, phy.RxIdle
		m.InitiateReset(reset, false)
		require.Equal(t, phy.R0ResetStart, m.State())
	}
	assert.Equal(t, fresh.AppendKey(nil, reset), granting.AppendKey(nil, reset))
}

// Enabled may report true where a step would change nothing, never false
// where it would: a random walk through the states, every profile, with
// random line states on two connected ports (half the time one the state
// waits for), steps the PHY after asking, and checks that a step Enabled
// said no to left the PHY and its tree identifier as they were.
func TestEnabledIsFalseOnlyWhereAStepChangesNothing(t *testing.T) {
	listens := map[phy.State][]phy.LineState{
		phy.R1ResetWait:       {phy.RxIdle, phy.RxParentNotify},
		phy.T0TreeIDStart:     {phy.RxParentNotify},
		phy.T1ChildHandshake:  {phy.RxChildHandshake},
		phy.T2ParentHandshake: {phy.RxParentHandshake, phy.RxRootContention},
		phy.T3RootContention:  {phy.RxIdle, phy.RxParentNotify},
		phy.S0SelfIDStart:     {phy.RxSelfIDGrant},
		phy.S2SelfIDReceive:   {phy.RxDataPrefix, phy.RxIdentDone},
		phy.S4SelfIDTransmit:  {phy.RxDataPrefix},
	}
	for _, profile := range phy.Profiles() {
		t.Run(profile.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			e, err := treeid.NewElection(treeid.ElectionConfig{
				Fast: profile.Timing.RootContendFast, Slow: profile.Timing.RootContendSlow,
				ForceRootTimeout: profile.Timing.ForceRootTimeout, ConfigTimeout: profile.Timing.ConfigTimeout,
				Clock: phy.IdealClock(), FastProbability: 0.5, Rand: rand.New(rand.NewPCG(1, 1)),
			})
			require.NoError(t, err)
			m, err := phy.NewMachine(phy.Config{Ports: 3, Speed: phy.S400, Timing: profile.Timing, Clock: phy.IdealClock(), TreeID: e})
			require.NoError(t, err)
			ports := m.Ports()
			copy(ports.Connected, []bool{true, true, false})
			key := func(now int64) string {
				return string(e.AppendKey(m.AppendKey(nil, now), now))
			}
			m.InitiateReset(0, false)
			var now int64
			idle, states := 0, map[phy.State]bool{}
			for range 60_000 {
				switch wake := m.Wake(); {
				case wake != phy.NoWake && rng.IntN(20) == 0:
					now = max(now+1, wake) // a timer's edge
				default:
					now += 1 + rng.Int64N(40)
				}
				for p := range ports.Rx {
					switch l := listens[m.State()]; {
					case rng.IntN(3) > 0:
					case len(l) > 0 && rng.IntN(2) == 0:
						ports.Rx[p] = l[rng.IntN(len(l))] // what the state waits for
					default:
						ports.Rx[p] = phy.LineState(rng.IntN(8)) // anything but BUS_RESET
					}
				}
				if rng.IntN(2000) == 0 {
					ports.Rx[rng.IntN(2)] = phy.RxBusReset
				}
				states[m.State()] = true
				enabled, wake, before := m.Enabled(now), m.Wake(), key(now)
				m.Step(now)
				packets, _, _ := m.TakeTransmit()
				if enabled {
					continue
				}
				idle++
				require.Empty(t, m.Trail(), "at %d", now)
				require.Empty(t, packets, "at %d", now)
				require.Equal(t, wake, m.Wake(), "at %d", now)
				require.Equal(t, before, key(now), "at %d: in %v", now, m.State())
			}
			assert.Greater(t, idle, 3_000, "few steps were idle")
			for _, s := range []phy.State{phy.R0ResetStart, phy.R1ResetWait, phy.T0TreeIDStart, phy.T1ChildHandshake,
				phy.T2ParentHandshake, phy.T3RootContention, phy.S0SelfIDStart, phy.S2SelfIDReceive,
				phy.S4SelfIDTransmit, phy.A0Idle} {
				assert.True(t, states[s], "the walk never stepped in %v", s)
			}
		})
	}
}

// TestGapCountRuleOfEveryGeneration: 1394-1995 PHYs return a written gap
// count to 63 after two resets without a new write, exactly as 1394a PHYs
// do (TI's 1394-1995 TSB21LV03 and 1394a TSB41AB1 datasheets, register 1;
// docs/protocol.md §9.2). What differs is the packet a PHY sends itself: a
// 1394a PHY loads it, a 1394-1995 PHY only those it receives.
func TestGapCountRuleOfEveryGeneration(t *testing.T) {
	for _, p := range phy.Profiles() {
		pc, err := phy.NewPhyConfig(0, true, true, 44)
		require.NoError(t, err)
		m := newTestMachine(t, []bool{true}, func(c *phy.Config) {
			c.Timing, c.LoadsOwnPhyConfig = p.Timing, p.LoadsOwnPhyConfig
		})
		m.ApplyPhyConfig(pc)
		m.InitiateReset(0, false)
		assert.Equal(t, 44, m.GapCount(), "%s: a received packet's gap count survives one reset", p.Name)
		m.InitiateReset(1, false)
		assert.Equal(t, 63, m.GapCount(), "%s: …not two", p.Name)

		m = newTestMachine(t, []bool{true}, func(c *phy.Config) {
			c.Timing, c.LoadsOwnPhyConfig = p.Timing, p.LoadsOwnPhyConfig
		})
		m.SendPhyConfig(pc)
		want, rhb := 63, false
		if p.LoadsOwnPhyConfig {
			want, rhb = 44, true
		}
		m.InitiateReset(2, false)
		assert.Equal(t, want, m.GapCount(), "%s: its own packet", p.Name)
		assert.Equal(t, rhb, m.ForceRoot(), "%s: its own packet's R bit", p.Name)
	}
	assert.False(t, phy.Profiles()[0].LoadsOwnPhyConfig, "1394-1995")
}

// TestShortResetStartsOverLongWhenANeighbourDrivesOn: after a short reset,
// R1 waits as long beyond SHORT_RESET_TIME as RESET_WAIT waits beyond
// RESET_TIME; BUS_RESET still there then comes from a PHY that took the
// reset as long (a 1394-1995 PHY), and this PHY starts over with a long
// reset, which its gap-count rule counts.
func TestShortResetStartsOverLongWhenANeighbourDrivesOn(t *testing.T) {
	timing := phy.Profiles()[1].Timing
	m := newTestMachine(t, []bool{true}, func(c *phy.Config) {
		c.Timing, c.GapCount, c.GapCountWritten = timing, 44, true
	})
	m.InitiateReset(0, true)
	assert.Equal(t, 44, m.GapCount())
	short := int64(timing.ShortResetTime)
	m.Ports().Rx[0] = phy.RxBusReset
	m.Step(short)
	require.Equal(t, phy.R1ResetWait, m.State())
	wait := short + int64(timing.ResetWait-timing.ResetTime)
	assert.Equal(t, short+wait, m.Wake())
	m.Step(short + wait - 1)
	assert.Equal(t, phy.R1ResetWait, m.State(), "a neighbour's short reset may still end")
	m.Step(short + wait)
	assert.Equal(t, phy.R0ResetStart, m.State())
	assert.Equal(t, short+wait+int64(timing.ResetTime), m.Wake(), "long this time")
	assert.Equal(t, 63, m.GapCount(), "the second reset since the write")
	assert.True(t, m.Initiated(), "the same reset, started over")
}

// TestShortResetMarkHoldsOnlyInA0: a PHY told to expect a short reset
// takes a BUS_RESET as short only in A0, where arbitration left it; one
// that meets BUS_RESET elsewhere, or whose mark was forgotten, resets long;
// a PHY without the short reset ignores the mark.
func TestShortResetMarkHoldsOnlyInA0(t *testing.T) {
	a, old := phy.Profiles()[1].Timing, phy.Profiles()[0].Timing
	for _, tc := range []struct {
		name   string
		timing phy.Timing
		before func(m *phy.Machine)
		want   time.Duration
	}{
		{"A0", a, func(m *phy.Machine) { m.ExpectShortReset() }, a.ShortResetTime},
		{"forgotten", a, func(m *phy.Machine) { m.ExpectShortReset(); m.ForgetShortReset() }, a.ResetTime},
		{"1394-1995", old, func(m *phy.Machine) { m.ExpectShortReset() }, old.ResetTime},
		{"in S0", a, func(m *phy.Machine) {
			m.InitiateReset(0, false)
			m.Step(int64(a.ResetTime))
			m.Step(int64(a.ResetTime) + 1) // T0, T1, T2: a leaf asks for a parent
			m.Ports().Rx[0] = phy.RxParentHandshake
			m.Step(int64(a.ResetTime) + 2)
			require.Equal(t, phy.S0SelfIDStart, m.State())
			m.ExpectShortReset()
		}, a.ResetTime},
	} {
		m := newTestMachine(t, []bool{true}, func(c *phy.Config) { c.Timing = tc.timing })
		tc.before(m)
		m.Ports().Rx[0] = phy.RxBusReset
		m.Step(1_000_000)
		require.Equal(t, phy.R0ResetStart, m.State(), tc.name)
		assert.Equal(t, 1_000_000+int64(tc.want), m.Wake(), tc.name)
	}
}
