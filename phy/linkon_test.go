package phy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinkOn(t *testing.T) {
	l, err := NewLinkOn(5)
	require.NoError(t, err)
	assert.Equal(t, LinkOn(0x45000000), l, "01 | phy_ID | 0 (docs/protocol.md §9.1)")
	assert.Equal(t, LinkOnPacket, Kind(uint32(l)))
	assert.Equal(t, 5, l.PhyID())
	assert.Equal(t, "link-on phy 5", l.String())
}

func TestNewLinkOnErrors(t *testing.T) {
	for _, id := range []int{-1, 64} {
		_, err := NewLinkOn(id)
		assert.ErrorIs(t, err, ErrInvalidField, "phy_ID %d", id)
	}
}
