package phy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwsim/fwsim/phy"
)

// transmitted lists every line state the modelled states drive
// (docs/protocol.md §2). DATA_END, which only normal arbitration drives,
// is left out: a port driving it cannot tell BUS_RESET from CHILD_NOTIFY.
var transmitted = []phy.LineState{
	phy.TxIdle, phy.TxGrant, phy.TxParentNotify, phy.TxDataPrefix,
	phy.TxChildNotify, phy.TxBusReset,
}

// A port recognises a neighbour's BUS_RESET whatever it drives itself: the
// resolved pair alone shows (1,1) only against IDLE, CHILD_NOTIFY and
// BUS_RESET.
func TestBusResetIsRecognisedWhateverThePortDrives(t *testing.T) {
	for _, tx := range transmitted {
		rx := phy.Receive(tx, phy.TxBusReset)
		assert.True(t, phy.ReceivesBusReset(tx, rx), "driving %s, receiving %s", tx.TxName(), rx)
	}
	// Without knowing its own drive, PARENT_NOTIFY, GRANT and DATA_PREFIX
	// would hide the reset.
	for _, tx := range []phy.LineState{phy.TxParentNotify, phy.TxGrant, phy.TxDataPrefix} {
		assert.NotEqual(t, phy.RxBusReset, phy.Receive(tx, phy.TxBusReset), "driving %s", tx.TxName())
	}
}

// No other peer line state is taken for a reset, except where the port's
// own 1 on both receivers hides the difference: CHILD_NOTIFY against
// CHILD_NOTIFY resolves to (1,1), as on the wire.
func TestOnlyBusResetIsABusReset(t *testing.T) {
	for _, tx := range transmitted {
		for _, peer := range transmitted {
			if peer == phy.TxBusReset || tx == phy.TxBusReset {
				continue
			}
			rx := phy.Receive(tx, peer)
			want := rx == phy.RxBusReset
			assert.Equal(t, want, phy.ReceivesBusReset(tx, rx), "driving %s against %s (rx %s)", tx.TxName(), peer.TxName(), rx)
		}
	}
}

// A value that is no line state is no reset, rather than one of the nine
// it would wrap onto.
func TestNoLineStateIsNoBusReset(t *testing.T) {
	for v := 9; v < 256; v++ {
		l := phy.LineState(v)
		assert.False(t, phy.ReceivesBusReset(l, phy.RxBusReset), "driving %d", v)
		assert.False(t, phy.ReceivesBusReset(phy.TxIdle, l), "receiving %d", v)
	}
}

// Recovery is exact wherever the port does not drive: the received pair is
// the peer's transmission crossed over.
func TestPeerLineStateAgainstAnIdlePort(t *testing.T) {
	for _, peer := range transmitted {
		got, ok := phy.PeerLineState(phy.TxIdle, phy.Receive(phy.TxIdle, peer))
		assert.True(t, ok, "peer %s", peer.TxName())
		assert.Equal(t, peer, got, "peer %s", peer.TxName())
	}
	// Driving PARENT_NOTIFY (0,Z) and seeing (Z,1): the peer's TPB cancels
	// the 0, so it drives 1 there, and 1 on TPA: BUS_RESET.
	got, ok := phy.PeerLineState(phy.TxParentNotify, phy.MakeLineState(phy.SigZ, phy.Sig1))
	assert.True(t, ok)
	assert.Equal(t, phy.TxBusReset, got)
	// Driving CHILD_NOTIFY (1,Z) and seeing (1,1): the peer drives 1 on its
	// TPA, and on its TPB a 1 or nothing: BUS_RESET or CHILD_NOTIFY.
	_, ok = phy.PeerLineState(phy.TxChildNotify, phy.RxBusReset)
	assert.False(t, ok)
}

func TestLineStateName(t *testing.T) {
	for l, want := range map[phy.LineState]string{
		phy.TxBusReset:     "BUS_RESET (1,1)",
		phy.TxIdle:         "IDLE (z,z)",
		phy.TxParentNotify: "tx PARENT_NOTIFY, rx SELF_ID_GRANT/REQUEST (0,z)",
		phy.RxParentNotify: "tx REQUEST/GRANT, rx PARENT_NOTIFY (z,0)",
	} {
		assert.Equal(t, want, l.String(), l.Signals())
	}
}
