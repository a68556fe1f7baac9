package treeid

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGapCountForHops pins the Linux table of docs/protocol.md §9.2.
func TestGapCountForHops(t *testing.T) {
	want := []int{63, 5, 7, 8, 10, 13, 16, 18, 21, 24, 26, 29, 32, 35, 37, 40}
	for hops, gap := range want {
		assert.Equal(t, gap, GapCountForHops(hops), "%d hops", hops)
	}
	for _, hops := range []int{-1, 16, 17, 63} {
		assert.Equal(t, 63, GapCountForHops(hops), "%d hops", hops)
	}
}
