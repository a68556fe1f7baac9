package analysis

import (
	"context"
	"math"
	"runtime"
	"time"

	"github.com/fwsim/fwsim/bus"
)

// The pilot of Estimate times the first runs for pilotTime: long enough to
// average over the runs of a small bus and over the moments the scheduler
// gives the CPU to others (a 5 ms pilot read 10 times too high under
// load), short enough to be lost in any analysis worth estimating. A first
// run longer than that is waited for up to pilotLimit, then cut short. The
// pilot also stops after 1/pilotShare of the runs of each worker: an
// analysis shorter than the pilot, or each point of a sweep of many small
// ones, then pays a sixteenth of its time at most.
const (
	pilotTime  = 50 * time.Millisecond
	pilotLimit = time.Second
	pilotShare = 16
)

// Estimate predicts how long Run(ctx, cfg, nil) takes on this machine. A
// pilot times the first runs of cfg (of its shard) on one simulator, in run
// order, for pilotTime or a sixteenth of the runs of a worker, whichever is
// less but at least one run, and scales the time per run to every run of
// the shard, spread over the workers Run would use (at most GOMAXPROCS run
// at once). A run still going after pilotLimit is cut short; atLeast then
// reports that the estimate is a lower bound, as it is when the estimate
// exceeds the longest time.Duration.
//
// The pilot runs on a simulator of its own and keeps nothing: Run's result
// is the same with or without an estimate. Errors: those of Run's checks,
// or the context's.
func Estimate(ctx context.Context, cfg Config) (d time.Duration, atLeast bool, err error) {
	if err := cfg.check(); err != nil {
		return 0, false, err
	}
	pilot, cancel := context.WithTimeout(ctx, pilotLimit)
	defer cancel()
	cfg.Options.Interrupt = pilot.Done()
	sim, err := bus.NewSimulator(cfg.Topology, cfg.Options)
	if err != nil {
		return 0, false, err
	}
	from, to := cfg.Shard.runs(cfg.Runs)
	parallel := min(workersFor(cfg.Workers, to-from), runtime.GOMAXPROCS(0))
	most := max((to-from)/(pilotShare*parallel), 1)
	// The first run pays for cold caches and first allocations: it is timed
	// apart, and counts only when no other run fits in the pilot.
	start := time.Now()
	sim.Run(RunSeed(cfg.Options.Seed, from))
	perRun := time.Since(start)
	// A run cut short counts as one that took as long as it ran.
	cut := sim.Interrupted()
	warm, n := time.Now(), 0
	for !cut && 1+n < most && time.Since(start) < pilotTime {
		sim.Run(RunSeed(cfg.Options.Seed, from+1+n))
		n++
		cut = sim.Interrupted()
	}
	if err := ctx.Err(); err != nil {
		return 0, false, context.Cause(ctx)
	}
	if n > 0 {
		perRun = time.Since(warm) / time.Duration(n)
	}
	atLeast = cut
	ns := float64(perRun) * float64(to-from) / float64(parallel)
	if ns >= math.MaxInt64 {
		return math.MaxInt64, true, nil
	}
	return time.Duration(ns), atLeast, nil
}

// EstimateTotal is the time the analyses cfgs would take here, summed, as
// Estimate times each; it stops adding once the sum passes limit, and
// saturates at the largest Duration. atLeast says the sum is a lower
// bound. When an estimate fails, failed is the index of its Config.
func EstimateTotal(ctx context.Context, limit time.Duration, cfgs ...Config) (total time.Duration, atLeast bool, failed int, err error) {
	for i, cfg := range cfgs {
		if total > limit {
			return total, true, 0, nil
		}
		d, lower, err := Estimate(ctx, cfg)
		if err != nil {
			return 0, false, i, err
		}
		// Both are at most MaxInt64; their sum saturates there.
		total = time.Duration(min(uint64(total)+uint64(d), math.MaxInt64))
		atLeast = atLeast || lower || total == math.MaxInt64
	}
	return total, atLeast, 0, nil
}

// TraceRun runs run i of the analysis cfg again, with its seed
// (RunSeed), and returns it with its trace, for the views of one run.
func TraceRun(cfg Config, i int) (*bus.Result, []bus.TraceEvent, error) {
	opts := cfg.Options
	opts.Seed = RunSeed(opts.Seed, i)
	var trace bus.Trace
	opts.Observer = trace.Record
	res, err := bus.Run(cfg.Topology, opts)
	return res, trace.Events, err
}
