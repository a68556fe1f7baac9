package election

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepOf is the sweep of every case at sizes, with the flags' defaults.
func sweepOf(t *testing.T, spec string, runs int) SweepOptions {
	t.Helper()
	sizes, err := ParseSizes(spec)
	require.NoError(t, err)
	return SweepOptions{Cases: SelectSweepCases("", "", ""), Sizes: sizes, Seed: 1, Runs: runs, MaxMessages: 100_000_000}
}

// The estimate grows with the runs of the random IDs: ten times the runs
// of a sweep they dominate, about ten times the time, whatever the noise.
func TestEstimateSweepScalesWithTheRuns(t *testing.T) {
	o := sweepOf(t, "n=10..100", 1_000_000)
	o.Cases = SelectSweepCases("chang-roberts", "", "average")
	few, atLeast, err := EstimateSweep(context.Background(), o, 0)
	require.NoError(t, err)
	assert.False(t, atLeast)
	o.Runs *= 10
	many, _, err := EstimateSweep(context.Background(), o, 0)
	require.NoError(t, err)
	assert.Greater(t, many, 3*few)
	assert.Less(t, many, 30*few)
	assert.Greater(t, many, 10*time.Second, "10^7 runs of rings of 10 to 100 nodes")
}

// The estimate is of the right order: a small sweep's estimate is within
// a factor of 20 of the time the sweep takes, and the sweep gives the same
// rows after an estimate as before.
func TestEstimateSweepIsOfTheRightOrder(t *testing.T) {
	o := sweepOf(t, "n=10..1000", 20)
	start := time.Now()
	before, err := Sweep(context.Background(), o)
	require.NoError(t, err)
	took := time.Since(start)
	d, atLeast, err := EstimateSweep(context.Background(), o, 24*time.Hour)
	require.NoError(t, err)
	assert.False(t, atLeast)
	t.Logf("estimate %v, took %v", d, took)
	assert.Greater(t, d, took/20)
	assert.Less(t, d, 20*took)
	after, err := Sweep(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// Past the limit the rest goes untimed, and the estimate says it is a
// lower bound; sizes past --max-messages cost only their graph; the
// estimate stops with the context.
func TestEstimateSweepLimits(t *testing.T) {
	o := sweepOf(t, "n=10..100000", 1_000_000_000)
	start := time.Now()
	d, atLeast, err := EstimateSweep(context.Background(), o, time.Hour)
	require.NoError(t, err)
	assert.True(t, atLeast)
	assert.Greater(t, d, time.Hour)
	// Timing every size would take hours; past the limit the estimate
	// stops timing, so it returns within a few pilot limits even under the
	// race detector on a loaded machine (2.7 s seen with 2 allowed).
	assert.Less(t, time.Since(start), 5*sweepPilotLimit)

	o.MaxMessages = 1 // every size skipped
	d, atLeast, err = EstimateSweep(context.Background(), o, 0)
	require.NoError(t, err)
	assert.False(t, atLeast)
	assert.Less(t, d, time.Minute)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = EstimateSweep(ctx, o, 0)
	assert.ErrorIs(t, err, context.Canceled)
}
