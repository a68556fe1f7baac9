package phy

// State is a state of the PHY state machine (docs/protocol.md §4), named as the standard
// names it.
type State uint8

// PHY states in the cable environment.
const (
	R0ResetStart State = iota
	R1ResetWait
	T0TreeIDStart
	T1ChildHandshake
	T2ParentHandshake
	T3RootContention
	S0SelfIDStart
	S1SelfIDGrant
	S2SelfIDReceive
	S3SendSpeedCapabilities
	S4SelfIDTransmit
	A0Idle
	numStates
)

var stateNames = [numStates][2]string{
	{"R0", "Reset Start"},
	{"R1", "Reset Wait"},
	{"T0", "Tree-ID Start"},
	{"T1", "Child Handshake"},
	{"T2", "Parent Handshake"},
	{"T3", "Root Contention"},
	{"S0", "Self-ID Start"},
	{"S1", "Self-ID Grant"},
	{"S2", "Self-ID Receive"},
	{"S3", "Send Speed Capabilities"},
	{"S4", "Self-ID Transmit"},
	{"A0", "Idle"},
}

// String is the short name, "T3".
func (s State) String() string {
	if s < numStates {
		return stateNames[s][0]
	}
	return "?"
}

// LongName is the standard's name, "Root Contention".
func (s State) LongName() string {
	if s < numStates {
		return stateNames[s][1]
	}
	return "?"
}

// InTreeID reports whether s is one of T0–T3.
func (s State) InTreeID() bool { return s >= T0TreeIDStart && s <= T3RootContention }
