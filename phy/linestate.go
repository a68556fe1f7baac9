package phy

// Signal is the value one end of a twisted pair drives or resolves to during
// arbitration: 0, 1 or Z (not driven). The zero value is Z.
type Signal uint8

// The three arbitration signal values (docs/protocol.md §2).
const (
	SigZ Signal = iota
	Sig0
	Sig1
)

func (s Signal) String() string {
	switch s {
	case Sig0:
		return "0"
	case Sig1:
		return "1"
	default:
		return "z"
	}
}

// Resolve is the value of a pair driven from both ends: an undriven end leaves
// the other's value, equal values agree, and opposite drivers cancel to Z.
// The cancellation rule is [U] in docs/protocol.md §2 but is what makes the encoding
// below consistent.
func Resolve(a, b Signal) Signal {
	switch {
	case a == SigZ:
		return b
	case b == SigZ || a == b:
		return a
	default:
		return SigZ
	}
}

// LineState is a (TPA, TPB) pair of signals: what a port transmits, or what it
// resolves on its receivers. The same pair has a transmit name and a receive
// name; the table below holds both (docs/protocol.md §2, one table in code).
type LineState uint8

// MakeLineState builds a line state from its TPA and TPB signals.
func MakeLineState(a, b Signal) LineState { return LineState(a)*3 + LineState(b) }

// A is the TPA signal.
func (l LineState) A() Signal { return Signal(l / 3) }

// B is the TPB signal.
func (l LineState) B() Signal { return Signal(l % 3) }

// Transmitted line states.
const (
	TxIdle         = LineState(SigZ)*3 + LineState(SigZ)
	TxRequest      = LineState(SigZ)*3 + LineState(Sig0) // also GRANT
	TxGrant        = LineState(SigZ)*3 + LineState(Sig0)
	TxParentNotify = LineState(Sig0)*3 + LineState(SigZ)
	TxDataPrefix   = LineState(Sig0)*3 + LineState(Sig1)
	TxChildNotify  = LineState(Sig1)*3 + LineState(SigZ) // also IDENT_DONE
	TxIdentDone    = LineState(Sig1)*3 + LineState(SigZ)
	TxDataEnd      = LineState(Sig1)*3 + LineState(Sig0)
	TxBusReset     = LineState(Sig1)*3 + LineState(Sig1)
)

// Received (resolved) line states.
const (
	RxIdle            = LineState(SigZ)*3 + LineState(SigZ)
	RxParentNotify    = LineState(SigZ)*3 + LineState(Sig0)
	RxIdentDone       = LineState(SigZ)*3 + LineState(Sig1)
	RxSelfIDGrant     = LineState(Sig0)*3 + LineState(SigZ) // also REQUEST
	RxRootContention  = LineState(Sig0)*3 + LineState(Sig0) // also GRANT
	RxParentHandshake = LineState(Sig0)*3 + LineState(Sig1) // also DATA_END
	RxChildHandshake  = LineState(Sig1)*3 + LineState(SigZ)
	RxDataPrefix      = LineState(Sig1)*3 + LineState(Sig0)
	RxBusReset        = LineState(Sig1)*3 + LineState(Sig1)
)

// lineStateNames gives, per encoding, the transmit and the receive name
// (docs/protocol.md §2). Where the standard reuses a pair for two meanings, both are named.
var lineStateNames = [9]struct{ tx, rx string }{
	LineState(SigZ)*3 + LineState(SigZ): {"IDLE", "IDLE"},
	LineState(SigZ)*3 + LineState(Sig0): {"REQUEST/GRANT", "PARENT_NOTIFY"},
	LineState(SigZ)*3 + LineState(Sig1): {"(Z,1)", "IDENT_DONE"},
	LineState(Sig0)*3 + LineState(SigZ): {"PARENT_NOTIFY", "SELF_ID_GRANT/REQUEST"},
	LineState(Sig0)*3 + LineState(Sig0): {"(0,0)", "ROOT_CONTENTION/GRANT"},
	LineState(Sig0)*3 + LineState(Sig1): {"DATA_PREFIX", "PARENT_HANDSHAKE/DATA_END"},
	LineState(Sig1)*3 + LineState(SigZ): {"CHILD_NOTIFY/IDENT_DONE", "CHILD_HANDSHAKE"},
	LineState(Sig1)*3 + LineState(Sig0): {"DATA_END", "DATA_PREFIX"},
	LineState(Sig1)*3 + LineState(Sig1): {"BUS_RESET", "BUS_RESET"},
}

// TxName is the name of l as a transmitted line state.
func (l LineState) TxName() string { return lineStateNames[l%9].tx }

// RxName is the name of l as a received line state.
func (l LineState) RxName() string { return lineStateNames[l%9].rx }

// Signals shows the pair as "(a,b)", TPA first.
func (l LineState) Signals() string { return "(" + l.A().String() + "," + l.B().String() + ")" }

// String gives the standard's name and the pair, e.g. "BUS_RESET (1,1)". A
// value alone does not say whether it was sent or received, and most pairs
// have a different name each way, so those show both:
// "tx PARENT_NOTIFY, rx SELF_ID_GRANT/REQUEST (0,z)".
func (l LineState) String() string {
	if tx, rx := l.TxName(), l.RxName(); tx != rx {
		return "tx " + tx + ", rx " + rx + " " + l.Signals()
	}
	return l.TxName() + " " + l.Signals()
}

// Receive is the line state a port resolves when it transmits local and its
// peer's transmission peer arrives: the cable crosses TPA of one end to TPB of
// the other (docs/protocol.md §2).
func Receive(local, peer LineState) LineState {
	if local < 9 && peer < 9 {
		return received[local][peer]
	}
	return resolveCrossed(local, peer)
}

// resolveCrossed is Receive worked out from the signals. It is kept out
// of line so that Receive, called on every change of a line state, inlines.
//
//go:noinline
func resolveCrossed(local, peer LineState) LineState {
	return MakeLineState(Resolve(local.A(), peer.B()), Resolve(local.B(), peer.A()))
}

// received tabulates Receive for the nine line states: the bus resolves
// every port's drive against its peer's on every change of either.
var received = func() (t [9][9]LineState) {
	for local := range LineState(9) {
		for peer := range LineState(9) {
			t[local][peer] = resolveCrossed(local, peer)
		}
	}
	return t
}()

// peerCandidates is what the far end of a pair may drive when this end
// drives local and the pair resolves to seen: the far end's value is
// recovered exactly except where this end drives a value and sees it, which
// the far end may be driving too or not at all.
func peerCandidates(local, seen Signal) []Signal {
	switch {
	case local == SigZ:
		return []Signal{seen}
	case seen == SigZ: // opposite drivers cancel
		if local == Sig0 {
			return []Signal{Sig1}
		}
		return []Signal{Sig0}
	case seen == local:
		return []Signal{local, SigZ}
	}
	return nil // this end's own value cannot turn into the opposite one
}

// transmittable reports whether some state of the state machine transmits
// l: every pair but (Z,1) and (0,0), which exist only as received states.
func transmittable(l LineState) bool {
	return l != MakeLineState(SigZ, Sig1) && l != MakeLineState(Sig0, Sig0)
}

// PeerLineState is the line state the peer of a port transmits, recovered
// from what the port itself transmits (tx) and what it resolves (rx): a
// port knows its own drivers, so where it drives a 0 and sees Z the peer
// drives a 1 (docs/protocol.md §2). ok is false when more than one transmittable line
// state fits, which happens only where the port drives a value the peer may
// or may not drive too, or when nothing fits (rx is not the resolution of
// tx with any peer).
func PeerLineState(tx, rx LineState) (peer LineState, ok bool) {
	// The crossover: the peer's TPB reaches this port's TPA receivers and
	// its TPA this port's TPB receivers.
	found := 0
	for _, a := range peerCandidates(tx.B(), rx.B()) {
		for _, b := range peerCandidates(tx.A(), rx.A()) {
			if l := MakeLineState(a, b); transmittable(l) {
				peer, found = l, found+1
			}
		}
	}
	return peer, found == 1
}

// ReceivesBusReset reports whether a port that transmits tx and resolves rx
// is receiving BUS_RESET: either the pair resolves to (1,1), or the peer's
// line state recovered from the port's own drive is BUS_RESET. Testing the
// resolved pair alone would miss a neighbour's reset against this port's own
// PARENT_NOTIFY, GRANT or DATA_PREFIX, whose drivers cancel part of it.
// A value past the nine line states is none: false.
func ReceivesBusReset(tx, rx LineState) bool {
	return tx < 9 && busResetSeen[tx]>>rx&1 != 0 // past bit 8 every bit is 0
}

// busResetSeen tabulates ReceivesBusReset, a bit per received line state:
// PHYs ask it for every port on every clock edge.
var busResetSeen = func() (t [9]uint16) {
	for tx := range LineState(9) {
		for rx := range LineState(9) {
			if peer, ok := PeerLineState(tx, rx); rx == RxBusReset || (ok && peer == TxBusReset) {
				t[tx] |= 1 << rx
			}
		}
	}
	return t
}()
