package phy

// Ports is what a PHY's state machine sees of its ports and drives on them.
// The bus owns Rx (the resolved receive state of every port, refreshed before
// each step); the state machine owns Tx and Status.
type Ports struct {
	Connected []bool      // a cable with a live PHY at the other end
	Rx        []LineState // received (resolved) line state, per port
	Tx        []LineState // transmitted line state, per port
	Status    []PortStatus
}

func newPorts(n int) Ports {
	p := Ports{
		Connected: make([]bool, n),
		Rx:        make([]LineState, n),
		Tx:        make([]LineState, n),
		Status:    make([]PortStatus, n),
	}
	for i := range p.Status {
		p.Status[i] = PortNotConnected
	}
	return p
}

// NumConnected is NPORT in the standard's state machine.
func (p *Ports) NumConnected() int {
	n := 0
	for _, c := range p.Connected {
		if c {
			n++
		}
	}
	return n
}

// DriveAll transmits s on every connected port and IDLE on the others.
func (p *Ports) DriveAll(s LineState) {
	for i, c := range p.Connected {
		if c {
			p.Tx[i] = s
		} else {
			p.Tx[i] = TxIdle
		}
	}
}

// TreeIdentifier runs the tree-identify phase (T0–T3) of one PHY. The PHY
// state machine hands its ports to it on entry to T0 and steps it until it
// reports an outcome; package treeid implements it.
type TreeIdentifier interface {
	// Begin enters T0 at cycle now. forceRoot is the RHB bit.
	Begin(now int64, p *Ports, forceRoot bool, trail *Trail) TreeVerdict
	// Step evaluates the phase at cycle now against p.Rx, driving p.Tx,
	// marking child and parent ports in p.Status, and recording every state
	// it enters in trail.
	Step(now int64, p *Ports, trail *Trail) TreeVerdict
	// Enabled reports whether Step at cycle now, with p as it is, would
	// change anything: its state, p, or the verdict's Wake. It changes
	// nothing itself, and may report true where Step would not, never
	// false where it would.
	Enabled(now int64, p *Ports) bool
	// State is the current T state.
	State() State
}

// TreeOutcome is how the tree-identify phase ended for one PHY.
type TreeOutcome uint8

// Tree-identify outcomes.
const (
	TreePending       TreeOutcome = iota // still running
	TreeChild                            // the parent acknowledged: go to S0
	TreeRoot                             // every connected port is a child
	TreeConfigTimeout                    // CONFIG_TIMEOUT passed in T0 on this step: signalled, and T0 goes on
)

// NoWake means no timer is armed.
const NoWake int64 = -1

// TreeVerdict is the result of one step of the tree-identify phase.
type TreeVerdict struct {
	Outcome TreeOutcome
	Wake    int64 // the cycle at which a timer expires, or NoWake
}

// Trail records the states a PHY entered during one step, in order: several
// transitions can happen on one clock edge, and traces and phase timing need
// each of them.
type Trail struct{ states []State }

// Enter records entry to s.
func (t *Trail) Enter(s State) { t.states = append(t.states, s) }

// States lists the states entered, oldest first.
func (t *Trail) States() []State { return t.states }

func (t *Trail) clear() { t.states = t.states[:0] }
