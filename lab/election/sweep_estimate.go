package election

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fwsim/fwsim/bus"
)

// The pilot of EstimateSweep times the sizes of each case for
// sweepPilotTime, as analysis.Estimate times an analysis's first runs: long
// enough to average over small runs and the scheduler's pauses, short
// enough to be lost in any sweep worth estimating. A first run longer than
// that is waited for up to sweepPilotLimit, then cut short. The pilot of a
// size also stops after 1/sweepPilotShare of its runs (but times up to
// sweepPilotWarmRuns), so that a small sweep pays little for being
// estimated.
const (
	sweepPilotTime  = 50 * time.Millisecond
	sweepPilotLimit = time.Second
	sweepPilotShare = 16
	// sweepPilotWarmRuns is how many runs a pilot times at least, when they
	// fit in it, even of a point of fewer runs: the fastest of a few.
	sweepPilotWarmRuns = 4
)

// EstimateSweep predicts how long Sweep(ctx, o) takes on this machine. It
// builds every size's graph, as Sweep does, to learn the formula's value
// and which sizes --max-messages skips (those cost only their graph). For
// each case a pilot times runs of its sizes, smallest first, for
// sweepPilotTime in all, and the time per run of the largest size it timed
// is scaled to every larger size by the run's work: the formula's messages
// plus one per node, whose process and links dominate where messages are
// few. A small size's pace would overstate a large one's, as a run's fixed
// costs are spread over few messages. The time spent building the graphs
// counts too, as Sweep builds them again.
//
// Once the estimate passes limit (when limit > 0) the rest goes untimed
// and atLeast reports that the estimate is a lower bound, as it does when
// a pilot run was cut short or the estimate exceeds the longest
// time.Duration. The pilot keeps nothing: Sweep's rows are the same with or
// without an estimate. Errors: those Sweep would give for the runs timed,
// or the context's.
func EstimateSweep(ctx context.Context, o SweepOptions, limit time.Duration) (d time.Duration, atLeast bool, err error) {
	var total float64 // nanoseconds
	for _, k := range o.Cases {
		nsPerWork := -1.0 // the case's pace, once its pilot has run
		var piloted time.Duration
		for _, n := range o.Sizes {
			if limit > 0 && total > float64(limit) {
				return saturate(total), true, nil
			}
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
			start := time.Now()
			topo, row, err := sweepGraph(o, k, n)
			if err != nil {
				return 0, false, fmt.Errorf("%s, n=%d: %w", k.Label(), n, err)
			}
			total += float64(time.Since(start))
			if row.Skipped != "" {
				continue
			}
			work := row.Formula + float64(n)
			// A smaller size's pace overstates this one's (its fixed costs
			// weigh more): a run that fits in what is left of the pilot by
			// it fits.
			if left := sweepPilotTime - piloted; nsPerWork < 0 || nsPerWork*work <= float64(left) {
				start := time.Now()
				perRun, cut, err := pilotSweepPoint(ctx, o, topo, row, max(left, 0))
				if err != nil {
					return 0, false, fmt.Errorf("%s, n=%d: %w", k.Label(), n, err)
				}
				piloted += time.Since(start)
				atLeast = atLeast || cut
				nsPerWork = float64(perRun) / work
			}
			total += nsPerWork * work * float64(o.runsOf(k))
		}
	}
	return saturate(total), atLeast || total >= math.MaxInt64, nil
}

// saturate is ns nanoseconds, at most the longest time.Duration.
func saturate(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// pilotSweepPoint times the first runs of the point row on topo, in run
// order, for budget or 1/sweepPilotShare of its runs, whichever is less
// but at least one run, and returns the time per run. cut reports a
// run cut short after sweepPilotLimit, which counts as one that took as
// long as it ran.
func pilotSweepPoint(ctx context.Context, o SweepOptions, topo *bus.Topology, row SweepRow, budget time.Duration) (perRun time.Duration, cut bool, err error) {
	pilot, cancel := context.WithTimeout(ctx, sweepPilotLimit)
	defer cancel()
	timed := func(r int) (time.Duration, bool, error) {
		start := time.Now()
		_, err := sweepRun(pilot.Done(), o, topo, row, r)
		took := time.Since(start)
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		if errors.Is(err, ErrInterrupted) {
			return took, true, nil
		}
		return took, false, err
	}
	// The first run pays for cold caches and first allocations: it is timed
	// apart, and counts only when no other run fits in the pilot. Of the
	// others the fastest counts: a pause of the scheduler or the collector
	// (a loaded machine) only ever adds to a run, and one such run,
	// scaled to a sweep's largest sizes, overstated a sweep 40 times.
	perRun, cut, err = timed(0)
	most := max(o.runsOf(row.Case)/sweepPilotShare, sweepPilotWarmRuns)
	var spent time.Duration
	fastest := time.Duration(math.MaxInt64)
	for n := 1; !cut && err == nil && n < most && perRun+spent < budget; n++ {
		var took time.Duration
		took, cut, err = timed(n % o.runsOf(row.Case))
		spent += took
		fastest = min(fastest, took)
	}
	if err != nil {
		return 0, false, err
	}
	if spent > 0 {
		perRun = fastest
	}
	return perRun, cut, nil
}
