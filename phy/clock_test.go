package phy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClockEdgesAt49MHz(t *testing.T) {
	c, err := NewClock(49152000, 7, 0)
	require.NoError(t, err)
	// 49.152 MHz: the period is 20.3450520833… ns; 49152 cycles take exactly 1 ms.
	assert.Equal(t, int64(7), c.Edge(0))
	assert.Equal(t, int64(7+20), c.Edge(1))
	assert.Equal(t, int64(7+40), c.Edge(2))
	assert.Equal(t, int64(7+61), c.Edge(3))
	assert.Equal(t, int64(7+1000000), c.Edge(49152))
}

func TestClockEdgeAtOrAfterInvertsEdge(t *testing.T) {
	for _, ppb := range []int64{0, 100000, -100000} {
		c, err := NewClock(49152000, 13, ppb)
		require.NoError(t, err)
		for k := int64(0); k < 5000; k++ {
			e := c.Edge(k)
			require.Equal(t, k, c.EdgeAtOrAfter(e), "edge %d at %d ns, ppb %d", k, e, ppb)
			require.Equal(t, k+1, c.EdgeAtOrAfter(e+1), "just after edge %d, ppb %d", k, ppb)
			next, at := c.FirstEdge(e + 1)
			require.Equal(t, k+1, next)
			require.Equal(t, c.Edge(k+1), at, "FirstEdge's time is its edge's, ppb %d", ppb)
		}
	}
}

func TestClockErrorChangesPeriod(t *testing.T) {
	fast, err := NewClock(49152000, 0, 100000) // +100 ppm
	require.NoError(t, err)
	slow, err := NewClock(49152000, 0, -100000)
	require.NoError(t, err)
	// 1 ms of nominal cycles runs 100 ns short on the fast clock and long on the slow one.
	assert.Equal(t, int64(999900), fast.Edge(49152))
	assert.Equal(t, int64(1000100), slow.Edge(49152))
}

func TestIdealClockIsNanoseconds(t *testing.T) {
	c := IdealClock()
	assert.Equal(t, int64(123456), c.Edge(123456))
	assert.Equal(t, int64(99), c.EdgeAtOrAfter(99))
	assert.Equal(t, int64(250), c.Cycles(250*time.Nanosecond))
	lo, hi := c.CycleWindow(Window{240 * time.Nanosecond, 260 * time.Nanosecond})
	assert.Equal(t, [2]int64{240, 260}, [2]int64{lo, hi})
}

func TestCycleWindowAt49MHz(t *testing.T) {
	c, err := NewClock(49152000, 0, 0)
	require.NoError(t, err)
	// The 1394-1995 windows are 20 and 30 ns wide: each holds one whole cycle count.
	lo, hi := c.CycleWindow(Window{240 * time.Nanosecond, 260 * time.Nanosecond})
	assert.Equal(t, [2]int64{12, 12}, [2]int64{lo, hi})
	lo, hi = c.CycleWindow(Window{570 * time.Nanosecond, 600 * time.Nanosecond})
	assert.Equal(t, [2]int64{29, 29}, [2]int64{lo, hi})
	// The PRISM windows hold several.
	lo, hi = c.CycleWindow(Window{760 * time.Nanosecond, 850 * time.Nanosecond})
	assert.Equal(t, [2]int64{38, 41}, [2]int64{lo, hi})
}

func TestNewClockRejectsNonsense(t *testing.T) {
	for _, tc := range []struct{ hz, phase, ppb int64 }{
		{0, 0, 0}, {-5, 0, 0}, {2e9, 0, 0}, {49152000, -1, 0}, {49152000, 0, -1e9}, {1e9, 0, 1000},
	} {
		_, err := NewClock(tc.hz, tc.phase, tc.ppb)
		assert.Error(t, err, "%+v", tc)
	}
}
