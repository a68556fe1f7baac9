package phy

import (
	"errors"
	"fmt"
	"time"
)

// Config describes one PHY: its registers at power-up, its timing, and the
// tree-identify phase it runs. The zero value is not usable: Ports, Clock and
// TreeID are required.
type Config struct {
	Ports      int   // physical ports, 1..27
	Speed      Speed // reported in self-ID sp
	LinkActive bool  // the L bit
	Contender  bool  // the c bit
	PowerClass int   // pwr, 0..7
	// ForceRoot is RHB before the first reset.
	ForceRoot bool
	// GapCount is the gap count register before the first reset.
	GapCount int
	// GapCountWritten says GapCount was written by a PHY configuration
	// packet just before the first reset, so it survives that reset
	// (docs/protocol.md §9.2); otherwise the first reset sets the power-up
	// value 63.
	GapCountWritten bool
	// LoadsOwnPhyConfig says the PHY loads RHB and the gap count from a
	// PHY configuration packet it sends itself (1394a on); a 1394-1995 PHY
	// loads them only from packets it receives (Profile.LoadsOwnPhyConfig).
	LoadsOwnPhyConfig bool
	Timing            Timing
	// Clock converts timing constants into cycle counts.
	Clock  Clock
	TreeID TreeIdentifier
}

// Machine is the PHY state machine of docs/protocol.md §4 for the cable environment:
// bus reset (R0, R1), tree identify (T0–T3, delegated to Config.TreeID),
// self identify (S0–S4) and idle (A0). It is a pure state machine: the bus
// refreshes Ports().Rx and calls Step on clock edges; Step drives Ports().Tx,
// arms at most one timer (Wake) and queues self-ID packets to send
// (TakeTransmit). Nothing in it reads a clock, sleeps or draws random numbers.
type Machine struct {
	cfg   Config
	ports Ports
	state State // R0, R1, S0–S4, A0; T0 stands for the whole delegated phase
	now   int64 // cycle of the step in progress
	entry int64 // cycle the current state was entered
	wake  int64

	// Registers.
	rhb      bool
	gapCount int
	gapSet   bool // gap count written since the last reset: it survives one

	// Per-reset outcome.
	short       bool
	expectShort bool // the next BUS_RESET to arrive is a short reset
	initiated   bool
	// configTimeout is the T0_timeout the link was told of in this reset's
	// tree identify.
	configTimeout bool
	root          bool
	parentPort    int
	phyID         int
	zeros         int // self-ID packet #0s received: the next free phy_ID
	// received counts the quadlets the link has buffered. The packets
	// themselves are the bus's stream, which every link of a generation
	// receives in the same order: the bus keeps them once, so that a bus of
	// n nodes holds n self-IDs, not n².
	received int

	// Self-ID phase.
	identified []bool
	granted    int      // child port granted in S1/S2
	grantAcked bool     // the granted child started its data: stop granting
	identSent  bool     // S4: own packets sent, IDENT_DONE on the parent port
	transmit   []SelfID // own packets sent whole and not yet taken by TakeTransmit
	selfIDBuf  []SelfID // the packets being sent; reused on every reset
	txStart    int64
	txEnd      int64

	trail Trail
	// resetSeen is BUS_RESET on a connected port, sampled when this step
	// began: Rx was resolved against what the ports drove then, so
	// recovering the peer's signal uses that, not a drive changed during
	// the step.
	resetSeen bool

	cyc struct{ resetTime, shortResetTime, resetWait, shortResetWait, maxArbState, speedSignal int64 }
	// since is the cycle the current state (T states included) was
	// entered: the watchdog counts from it.
	since int64
	// watchdog says the last reset was initiated by MAX_ARB_STATE_TIME.
	watchdog bool
}

// NewMachine returns a powered-up PHY in A0 with all ports disconnected. The
// bus connects its cables and starts the first reset with InitiateReset or by
// driving BUS_RESET at it.
func NewMachine(cfg Config) (*Machine, error) {
	if cfg.Ports < 1 || cfg.Ports > 27 {
		return nil, fmt.Errorf("phy: %d ports out of range 1..27", cfg.Ports)
	}
	if cfg.PowerClass < 0 || cfg.PowerClass > 7 {
		return nil, fmt.Errorf("phy: power class %d out of range 0..7", cfg.PowerClass)
	}
	if cfg.GapCount < 0 || cfg.GapCount > 63 {
		return nil, fmt.Errorf("phy: gap count %d out of range 0..63", cfg.GapCount)
	}
	if cfg.TreeID == nil {
		return nil, errors.New("phy: Config.TreeID is required")
	}
	if cfg.Clock.Hz() == 0 {
		return nil, errors.New("phy: Config.Clock is required")
	}
	if err := cfg.Timing.Validate(); err != nil {
		return nil, fmt.Errorf("phy: %w", err)
	}
	m := &Machine{
		cfg:        cfg,
		ports:      newPorts(cfg.Ports),
		state:      A0Idle,
		wake:       NoWake,
		rhb:        cfg.ForceRoot,
		identified: make([]bool, cfg.Ports),
		parentPort: -1,
	}
	m.gapCount, m.gapSet = cfg.GapCount, cfg.GapCountWritten
	m.cyc.resetTime = cfg.Clock.Cycles(cfg.Timing.ResetTime)
	m.cyc.shortResetTime = cfg.Clock.Cycles(cfg.Timing.ShortResetTime)
	m.cyc.resetWait = cfg.Clock.Cycles(cfg.Timing.ResetWait)
	// R1 after a short reset waits as long beyond it as RESET_WAIT waits
	// beyond RESET_TIME (docs/protocol.md §4).
	m.cyc.shortResetWait = cfg.Clock.Cycles(cfg.Timing.ShortResetTime + max(cfg.Timing.ResetWait-cfg.Timing.ResetTime, 0))
	m.cyc.maxArbState = cfg.Clock.Cycles(cfg.Timing.MaxArbStateTime)
	m.cyc.speedSignal = max(cfg.Clock.Cycles(cfg.Timing.SpeedSignal), 1)
	return m, nil
}

// SetResetTime sets this PHY's RESET_TIME, as drawn for it from the range
// the standard allows; it takes effect at the next reset.
func (m *Machine) SetResetTime(d time.Duration) { m.cyc.resetTime = m.cfg.Clock.Cycles(d) }

// Ports gives the bus access to the port state: it sets Connected and Rx.
func (m *Machine) Ports() *Ports { return &m.ports }

// State is the current state; during tree identify, the T state.
func (m *Machine) State() State {
	if m.state == T0TreeIDStart {
		return m.cfg.TreeID.State()
	}
	return m.state
}

// Wake is the cycle at which the armed timer expires, or NoWake: the
// state's own timer or the MAX_ARB_STATE_TIME watchdog, whichever is first.
func (m *Machine) Wake() int64 {
	if !m.watched() {
		return m.wake
	}
	if deadline := m.since + m.cyc.maxArbState; m.wake == NoWake || deadline < m.wake {
		return deadline
	}
	return m.wake
}

// watched reports whether the watchdog bounds the current state: T1–T3 and
// S0–S4. R0, R1 and T0 have timers of their own, and A0 is idle.
func (m *Machine) watched() bool {
	return m.cyc.maxArbState != 0 && m.watchedState() // 1394-1995 has no watchdog
}

func (m *Machine) watchedState() bool {
	s := m.State()
	return s >= T1ChildHandshake && s <= S4SelfIDTransmit
}

// WatchdogReset reports that the current reset was initiated by the
// MAX_ARB_STATE_TIME watchdog.
func (m *Machine) WatchdogReset() bool { return m.watchdog }

// InitiateReset starts a bus reset from this PHY at cycle now, as setting IBR
// (long) or ISBR (short) does, or as a port's connection change does. The
// node's next self-ID packet carries i = 1.
func (m *Machine) InitiateReset(now int64, short bool) {
	m.sample(now)
	m.enterR0(true, short)
	m.settle()
}

// ExpectShortReset tells the PHY, idle in A0, that another PHY has won
// arbitration for a short reset (1394a), so the BUS_RESET it receives next
// in A0 is short and it too drives BUS_RESET for only SHORT_RESET_TIME. On
// a real bus the PHYs know because the short reset follows arbitration,
// which the emulator does not model: the bus tells them. The mark is
// dropped on the PHY's next R0 entry, and by ForgetShortReset; a PHY
// without the short reset (1394-1995) ignores it.
func (m *Machine) ExpectShortReset() { m.expectShort = m.cyc.shortResetTime > 0 }

// ForgetShortReset drops the mark ExpectShortReset set: the bus changed
// under a short reset on its way (a cable event), and the resets that come
// are long.
func (m *Machine) ForgetShortReset() { m.expectShort = false }

// Step evaluates the state machine at clock cycle now against Ports().Rx.
func (m *Machine) Step(now int64) {
	m.sample(now)
	m.settle()
}

// sample begins the evaluation of clock edge now.
func (m *Machine) sample(now int64) {
	m.now = now
	m.trail.clear()
	m.resetSeen = m.receivesBusReset()
}

// Trail lists the states entered during the last Step or InitiateReset.
func (m *Machine) Trail() []State { return m.trail.States() }

// settle takes every transition enabled now: several can chain within one
// cycle (a leaf goes T0 → T1 → T2 at once). The bound is a safety net; every
// chain in the state graph is shorter.
func (m *Machine) settle() {
	for range 32 {
		if !m.advance() {
			break
		}
	}
	if len(m.trail.states) > 0 {
		m.since = m.now
	}
}

// Receive delivers self-ID quadlets that arrived at this PHY (or that it
// sent itself), packet0s of them the first quadlet of a packet #0: the link
// buffers them (ReceivedSelfIDs counts them), and packet #0s are counted,
// because the count is the next free physical ID. The quadlets themselves
// are the bus's, which keeps a generation's stream once; a caller may hand
// over many at once, so that delivery costs nothing per quadlet. Only
// packets of the self-ID phase count: in bus reset and tree identify a
// packet belongs to a generation this PHY has left, and is dropped.
func (m *Machine) Receive(quadlets, packet0s int) {
	if m.state < S0SelfIDStart {
		return
	}
	m.received += quadlets
	m.zeros += packet0s
}

// TakeTransmit returns, once, the self-ID packets this PHY has finished
// sending, and the cycles at which the transmission started and ended. A
// transmission cut off by a reset is never returned: a truncated packet
// fails its inverse-quadlet check at every link. The packets stay valid
// until the PHY next enters self identify: copy them to keep them.
func (m *Machine) TakeTransmit() (packets []SelfID, start, end int64) {
	packets, m.transmit = m.transmit, nil
	return packets, m.txStart, m.txEnd
}

// SendPhyConfig is this PHY sending PHY configuration packet p for its
// link: a 1394a PHY loads it as it would a received one, a 1394-1995 PHY
// does not (Config.LoadsOwnPhyConfig).
func (m *Machine) SendPhyConfig(p PhyConfig) {
	if m.cfg.LoadsOwnPhyConfig {
		m.ApplyPhyConfig(p)
	}
}

// ApplyPhyConfig applies a PHY configuration packet this PHY receives, as
// every other PHY on the bus does: R=1 sets RHB on the addressed node and
// clears it on the others; T=1 writes the gap count, which then survives
// one reset.
func (m *Machine) ApplyPhyConfig(p PhyConfig) {
	if p.IsExtended() {
		return
	}
	if p.ForceRoot() {
		m.rhb = p.RootID() == m.phyID
	}
	if p.SetGapCount() {
		m.gapCount, m.gapSet = p.GapCount(), true
	}
}

// Outcome accessors, valid once the node has finished self identify.

// Root reports whether this PHY became the root.
func (m *Machine) Root() bool { return m.root }

// ParentPort is the port toward the parent, -1 for the root.
func (m *Machine) ParentPort() int { return m.parentPort }

// PhyID is the physical ID taken in S4.
func (m *Machine) PhyID() int { return m.phyID }

// ConfigTimedOut reports that this reset's tree identify signalled
// CONFIG_TIMEOUT to the link. The PHY may have configured late since.
func (m *Machine) ConfigTimedOut() bool { return m.configTimeout }

// ReceivedSelfIDs is how many self-ID quadlets the link has buffered since
// the last reset: the first that many of its generation's stream.
func (m *Machine) ReceivedSelfIDs() int { return m.received }

// Initiated is the self-ID i bit: this PHY initiated the current reset.
func (m *Machine) Initiated() bool { return m.initiated }

// ForceRoot is the RHB bit.
func (m *Machine) ForceRoot() bool { return m.rhb }

// GapCount is the gap count register.
func (m *Machine) GapCount() int { return m.gapCount }

func (m *Machine) enter(s State) {
	if s != T0TreeIDStart { // the tree identifier records its own states
		m.trail.Enter(s)
	}
	m.state = s
	m.entry = m.now
	m.wake = NoWake
}

func (m *Machine) enterR0(initiated, short bool) {
	m.enter(R0ResetStart)
	m.initiated, m.short, m.expectShort, m.watchdog = initiated, short, false, false
	m.configTimeout, m.root, m.parentPort, m.phyID, m.zeros = false, false, -1, 0, 0
	m.received = 0
	m.transmit = nil
	m.identSent = false
	for i := range m.identified {
		m.identified[i] = false
		m.ports.Status[i] = PortNotConnected
	}
	// A written gap count survives one reset; the next returns it to 63 (docs/protocol.md §9.2).
	if m.gapSet {
		m.gapSet = false
	} else {
		m.gapCount = 63
	}
	m.ports.DriveAll(TxBusReset)
	m.wake = m.entry + m.resetDuration()
}

func (m *Machine) resetDuration() int64 {
	if m.short && m.cyc.shortResetTime > 0 {
		return m.cyc.shortResetTime
	}
	return m.cyc.resetTime
}

// resetWait is how long R1 waits for idle ports: RESET_WAIT after a long
// reset, as much longer than SHORT_RESET_TIME after a short one.
func (m *Machine) resetWait() int64 {
	if m.short && m.cyc.shortResetTime > 0 {
		return m.cyc.shortResetWait
	}
	return m.cyc.resetWait
}

// advance takes at most one transition and reports whether it did.
func (m *Machine) advance() bool {
	if m.state != R0ResetStart && m.state != R1ResetWait && m.resetSeen {
		m.enterR0(false, m.expectShort && m.state == A0Idle)
		return true
	}
	if m.watched() && m.now-m.since >= m.cyc.maxArbState && len(m.trail.states) == 0 {
		m.enterR0(true, false)
		m.watchdog = true
		return true
	}
	switch m.state {
	case R0ResetStart:
		if m.now-m.entry >= m.resetDuration() {
			m.enter(R1ResetWait)
			m.ports.DriveAll(TxIdle)
			m.wake = m.entry + m.resetWait()
			return true
		}
	case R1ResetWait:
		if m.resetComplete() {
			m.enter(T0TreeIDStart)
			return m.treeVerdict(m.cfg.TreeID.Begin(m.now, &m.ports, m.rhb, &m.trail))
		}
		if m.now-m.entry >= m.resetWait() {
			// The same reset, started over, and long: a neighbour still
			// drives BUS_RESET, so it took the reset as long (a PHY
			// without the short reset does).
			m.enterR0(m.initiated, false)
			return true
		}
	case T0TreeIDStart:
		return m.treeVerdict(m.cfg.TreeID.Step(m.now, &m.ports, &m.trail))
	case S0SelfIDStart:
		if m.granted0() {
			m.enter(S1SelfIDGrant)
			return true
		}
	case S1SelfIDGrant:
		return m.grantNextChild()
	case S2SelfIDReceive:
		c := m.granted
		if m.childSends() {
			// The child (or its subtree) is sending: stop granting and listen.
			m.grantAcked = true
			m.ports.Tx[c] = TxIdle
			return true
		}
		if m.childDone() {
			m.identified[c] = true
			m.enter(S3SendSpeedCapabilities)
			m.wake = m.now + m.cyc.speedSignal
			return true
		}
	case S3SendSpeedCapabilities:
		// S3 lasts SPEED_SIGNAL_LENGTH, while a PHY faster than S100
		// signals its speed to the child (docs/protocol.md §4); the signal
		// is a common-mode current, not a line state.
		if m.now-m.entry >= m.cyc.speedSignal {
			m.enter(S1SelfIDGrant)
			return true
		}
	case S4SelfIDTransmit:
		return m.selfIDTransmit()
	}
	return false
}

// Enabled reports whether Step at cycle now, with the ports as they are,
// would change anything: enter a state, drive a port, queue packets or
// move the timer Wake reports. It changes nothing itself, and may report
// true where Step would not, never false where it would: a bus can leave
// out an evaluation it reports false for (most of those a PHY's own change
// of drive asks for) and know the PHY is as that evaluation would have
// left it.
func (m *Machine) Enabled(now int64) bool {
	if m.state != R0ResetStart && m.state != R1ResetWait && m.receivesBusReset() {
		return true
	}
	if m.watched() && now-m.since >= m.cyc.maxArbState {
		return true
	}
	switch m.state {
	case R0ResetStart:
		return now-m.entry >= m.resetDuration()
	case R1ResetWait:
		return m.resetComplete() || now-m.entry >= m.resetWait()
	case T0TreeIDStart:
		return m.cfg.TreeID.Enabled(now, &m.ports)
	case S0SelfIDStart:
		return m.granted0()
	case S1SelfIDGrant:
		return true
	case S2SelfIDReceive:
		return m.childSends() || m.childDone()
	case S3SendSpeedCapabilities:
		return now-m.entry >= m.cyc.speedSignal
	case S4SelfIDTransmit:
		if !m.identSent {
			return now >= m.txEnd
		}
		return m.parentMovesOn()
	}
	return false
}

// granted0 is S0's exit: the root grants itself; any other node waits for
// its parent's grant.
func (m *Machine) granted0() bool {
	return m.root || m.ports.Rx[m.parentPort] == RxSelfIDGrant
}

// childSends is S2's first step: the granted child starts its data.
func (m *Machine) childSends() bool {
	return !m.grantAcked && m.ports.Rx[m.granted] == RxDataPrefix
}

// childDone is S2's exit: the granted child's subtree has identified.
func (m *Machine) childDone() bool {
	return m.grantAcked && m.ports.Rx[m.granted] == RxIdentDone
}

// parentMovesOn ends S4 for a node that has sent its packets: its parent
// drives DATA_PREFIX to grant the next child, or its own packets.
func (m *Machine) parentMovesOn() bool {
	return m.ports.Rx[m.parentPort] == RxDataPrefix
}

// receivesBusReset reports BUS_RESET on a connected port, recognised
// whatever the port drives itself (ReceivesBusReset).
func (m *Machine) receivesBusReset() bool {
	rx := m.ports.Rx
	tx, connected := m.ports.Tx[:len(rx)], m.ports.Connected[:len(rx)] // one bounds check, not three a port
	for i, r := range rx {
		if connected[i] && ReceivesBusReset(tx[i], r) {
			return true
		}
	}
	return false
}

// resetComplete is R1's exit condition: every connected port is idle or
// already receives PARENT_NOTIFY from a quicker neighbour.
func (m *Machine) resetComplete() bool {
	for i, c := range m.ports.Connected {
		if c && m.ports.Rx[i] != RxIdle && m.ports.Rx[i] != RxParentNotify {
			return false
		}
	}
	return true
}

func (m *Machine) treeVerdict(v TreeVerdict) bool {
	m.wake = v.Wake
	switch v.Outcome {
	case TreeConfigTimeout:
		// Reported to the link (docs/protocol.md §4); T0 goes on.
		m.configTimeout = true
		return true
	case TreeRoot, TreeChild:
		m.root = v.Outcome == TreeRoot
		m.parentPort = -1
		for i, s := range m.ports.Status {
			if s == PortParent {
				m.parentPort = i
			}
		}
		m.enter(S0SelfIDStart)
		m.ports.DriveAll(TxIdle)
		return true
	}
	return false
}

// grantNextChild is S1: grant the lowest-numbered unidentified child port and
// announce data on every other port, or, with every child identified, go on
// to transmit this node's own self-ID.
func (m *Machine) grantNextChild() bool {
	for i, s := range m.ports.Status {
		if s != PortChild || m.identified[i] {
			continue
		}
		m.ports.DriveAll(TxDataPrefix)
		m.ports.Tx[i] = TxGrant
		m.granted, m.grantAcked = i, false
		m.enter(S2SelfIDReceive)
		return true
	}
	m.enter(S4SelfIDTransmit)
	// In hardware a 6-bit counter; here it keeps counting past 63, so
	// that the nodes of an out-of-spec bus of more keep distinct IDs
	// (selfIDPackets says what their packets carry).
	m.phyID = m.zeros
	m.ports.DriveAll(TxDataPrefix)
	m.selfIDBuf = m.selfIDPackets()
	t := m.cfg.Timing
	bits := int64(64 * len(m.selfIDBuf))
	dur := t.DataPrefix + t.DataEnd + durationOfBits(bits, t.BaseRateBitsPerSecond)
	m.txStart, m.txEnd = m.now, m.now+m.cfg.Clock.Cycles(dur)
	m.wake = m.txEnd
	return true
}

// selfIDTransmit is S4 after the node's packets are on their way: at the end
// of the transmission the root is done; any other node signals IDENT_DONE and
// waits until its parent moves on (DATA_PREFIX from the parent).
func (m *Machine) selfIDTransmit() bool {
	if !m.identSent {
		if m.now < m.txEnd {
			return false
		}
		m.identSent = true
		m.transmit = m.selfIDBuf
		m.wake = NoWake
		if m.root {
			m.ports.DriveAll(TxIdle)
			m.enter(A0Idle)
			return true
		}
		m.ports.DriveAll(TxIdle)
		m.ports.Tx[m.parentPort] = TxIdentDone
		return true
	}
	if m.parentMovesOn() {
		m.ports.DriveAll(TxIdle)
		m.enter(A0Idle)
		return true
	}
	return false
}

func (m *Machine) selfIDPackets() []SelfID {
	info := SelfIDInfo{
		PhyID:          min(m.phyID, NoPhyID),
		LinkActive:     m.cfg.LinkActive,
		GapCount:       m.gapCount,
		Speed:          m.cfg.Speed,
		Contender:      m.cfg.Contender,
		PowerClass:     m.cfg.PowerClass,
		InitiatedReset: m.initiated,
		Ports:          m.ports.Status,
	}
	// NewMachine range-checked every other field and phy_ID is held to
	// six bits, so AppendEncode cannot refuse these values. An ID past 62
	// (a bus of more than 63 nodes, out of spec) does not fit: its packets
	// carry NoPhyID, which names no node, never an ID wrapped onto
	// another node's. The buffer is
	// reused from reset to reset: see TakeTransmit.
	m.selfIDBuf, _ = info.AppendEncode(m.selfIDBuf[:0])
	return m.selfIDBuf
}

func durationOfBits(bits, bitsPerSecond int64) time.Duration {
	return time.Duration(ceilDiv(bits*1e9, bitsPerSecond))
}
