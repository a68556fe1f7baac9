package analysis

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// The estimate scales with the runs, and the runs of a pair (microseconds
// each) put 10^13 of them far beyond a week: more than a year.
func TestEstimateScalesWithTheRuns(t *testing.T) {
	cfg := Config{Topology: generate(t, "pair"), Runs: 1e13, Workers: 1}
	whole, atLeast, err := Estimate(context.Background(), cfg)
	require.NoError(t, err)
	assert.False(t, atLeast)
	assert.Greater(t, whole, 7*24*time.Hour)

	// A thousandth of the runs, in a shard or on their own, takes about a
	// thousandth of the time: well under a hundredth, whatever the noise.
	cfg.Shard = Shard{3, 1000}
	shard, _, err := Estimate(context.Background(), cfg)
	require.NoError(t, err)
	assert.Less(t, shard, whole/100)
	cfg.Shard, cfg.Runs = Shard{}, 1000
	small, _, err := Estimate(context.Background(), cfg)
	require.NoError(t, err)
	assert.Less(t, small, time.Second)
}

// A run that takes longer than the pilot may wait is cut short, and the
// estimate counts it as a run of that length: a lower bound, said so.
func TestEstimateOfRunsLongerThanThePilot(t *testing.T) {
	slow := 0.0 // a coin that always says SLOW contends until the budget
	cfg := Config{Topology: generate(t, "pair"), Runs: 100, Workers: 1,
		Options: bus.Options{CoinBias: &slow, MaxEvents: 1e12}}
	start := time.Now()
	d, atLeast, err := Estimate(context.Background(), cfg)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), pilotLimit+time.Second/2)
	assert.True(t, atLeast)
	assert.GreaterOrEqual(t, d, 100*pilotLimit)
}

// The pilot keeps nothing: the analysis gives the same summary after an
// estimate, and the estimate stops with the context.
func TestEstimateChangesNothing(t *testing.T) {
	cfg := Config{Topology: generate(t, "tree:6:2"), Options: bus.Options{Seed: 3}, Runs: 200,
		Deadlines: []bus.MetricDeadline{{D: time.Millisecond}}}
	before, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	_, _, err = Estimate(context.Background(), cfg)
	require.NoError(t, err)
	after, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, encode(t, before), encode(t, after))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = Estimate(ctx, cfg)
	assert.ErrorIs(t, err, context.Canceled)
	cfg.Runs = 0
	_, _, err = Estimate(context.Background(), cfg)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
