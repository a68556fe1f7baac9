package phy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKind checks bits 31–30 (docs/protocol.md §9.1) on the vectors of each kind.
func TestKind(t *testing.T) {
	for _, v := range []struct {
		q    uint32
		kind PacketKind
		name string
	}{
		{0x034f0000, PhyConfigPacket, "PHY config"},
		{0x45000000, LinkOnPacket, "link-on"},
		{0x80458c80, SelfIDPacket, "self-ID"},
		{0xc0000000, VersaPHYPacket, "VersaPHY"},
	} {
		assert.Equal(t, v.kind, Kind(v.q), "%#08x", v.q)
		assert.Equal(t, v.name, v.kind.String())
	}
	assert.Equal(t, "PacketKind(4)", PacketKind(4).String())
}

func TestCheckInverse(t *testing.T) {
	assert.NoError(t, CheckInverse(0x80458c80, 0x7fba737f))

	err := CheckInverse(0x80458c80, 0x7fba7370)
	assert.ErrorIs(t, err, ErrBadInverse)
	assert.EqualError(t, err, "bad inverse quadlet: 0x80458c80 followed by 0x7fba7370, want 0x7fba737f")
}
