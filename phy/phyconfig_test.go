package phy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPhyConfigVectors checks the PHY configuration vectors of docs/protocol.md §9.1 both
// ways.
func TestPhyConfigVectors(t *testing.T) {
	for _, v := range []struct {
		q         PhyConfig
		root      int
		r, t      bool
		gap       int
		formatted string
	}{
		{0x02800000, 2, true, false, 0, "PHY config root_ID 2 R"},
		{0x034f0000, 3, false, true, 15, "PHY config root_ID 3 T gap 15"},
	} {
		assert.Equal(t, PhyConfigPacket, Kind(uint32(v.q)))
		assert.Equal(t, v.root, v.q.RootID(), "%#x", uint32(v.q))
		assert.Equal(t, v.r, v.q.ForceRoot(), "%#x", uint32(v.q))
		assert.Equal(t, v.t, v.q.SetGapCount(), "%#x", uint32(v.q))
		assert.Equal(t, v.gap, v.q.GapCount(), "%#x", uint32(v.q))
		assert.False(t, v.q.IsExtended())
		assert.Equal(t, v.formatted, v.q.String())

		got, err := NewPhyConfig(v.root, v.r, v.t, v.gap)
		require.NoError(t, err)
		assert.Equal(t, v.q, got)
	}
}

func TestPhyConfigExtended(t *testing.T) {
	for _, v := range []struct {
		q         PhyConfig
		typ       int
		formatted string
	}{
		{0x03000000, 0, "ext PHY packet phy 3 type 0 (ping)"},
		{0x00200000, 8, "ext PHY packet phy 0 type 8 (remote command)"},
		{0x05280000, 10, "ext PHY packet phy 5 type 10"},
	} {
		assert.True(t, v.q.IsExtended(), "R=T=0 (docs/protocol.md §9.1)")
		assert.Equal(t, v.typ, v.q.ExtendedType())
		assert.Equal(t, v.formatted, v.q.String())
	}
}

func TestNewPhyConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		root, gap int
		r, t      bool
		msg       string
	}{
		{"root_ID", 64, 0, true, false, "invalid field: root_ID 64, want 0–63"},
		{"gap count", 0, -1, false, true, "invalid field: gap count -1, want 0–63"},
		{"neither R nor T", 0, 5, false, false, "invalid field: neither R nor T set, which makes an extended PHY packet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPhyConfig(tc.root, tc.r, tc.t, tc.gap)
			assert.ErrorIs(t, err, ErrInvalidField)
			assert.EqualError(t, err, tc.msg)
		})
	}
}
