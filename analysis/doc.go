// Package analysis runs Monte Carlo timing analysis of bus initialisation:
// many seeded runs of one topology, spread over workers, summarised into
// distributions, deadline probabilities, root counts and failure counts.
//
// # Running
//
//	sum, err := analysis.Run(ctx, analysis.Config{
//		Topology:  topo,                  // a *bus.Topology
//		Options:   bus.Options{Seed: 7},  // profile, corner, clock, coin bias …
//		Runs:      100_000,
//		Deadlines: []bus.MetricDeadline{{D: 2 * time.Microsecond}},
//	}, nil)
//
// Run i uses the seed RunSeed(Options.Seed, i), so its outcome does not depend
// on Workers or on sharding, and `fwsim run --seed <that seed>` with the same
// options replays it exactly. Each worker keeps one bus.Simulator, which
// reuses its world from run to run.
//
// # What a Summary holds
//
// Every metric is kept as an exact histogram: the sorted distinct values and
// how often each occurred (times are whole nanoseconds, so the number of
// distinct values stays small). Mean, standard deviation, percentiles and the
// confidence interval of the mean are computed from it (Stats), and so is
// every deadline probability with its Wilson interval. Histograms add up, so
// Merge of the shards of a run gives exactly, byte for byte once encoded, the
// Summary the unsharded run gives. The histograms also draw CDFs and
// histograms (Metric.Hist, Metric.CDF).
//
// The metrics, all of the first bus initialisation (generation) of each run,
// with time zero at its first R0 entry:
//
//   - tree_id_ns: when the last node left tree identify;
//   - self_id_ns: when the last self-ID packet arrived everywhere;
//   - contention_ns: the root-contention duration, from the first
//     ROOT_CONTENTION seen on the contended link to the moment the child of
//     that link sees the parent's handshake (only runs with a contention);
//   - contention_rounds: the rounds of that contention (0 without one).
//
// A time metric a run never reached (a failure, an unresolved contention)
// is counted in Metric.Missing: it misses every deadline and stays out of
// the statistics. Failures are counted by outcome, never dropped.
//
// ReadSummary and Merge refuse a summary that no analysis could have
// written: a count beyond its runs, counts that disagree with each other, a
// statistic or deadline its histogram does not give. The error names the
// field.
//
// # Limits and run time
//
// An analysis holds at most MaxRuns (2^53) runs, the most its statistics
// count exactly. Estimate predicts how long Run will take from a pilot of
// the first runs, on a simulator of its own: it changes nothing Run gives.
//
// # Per-run data
//
// Config.Each, when set, receives every run's Sample in run order, whatever
// the number of workers: this is how --csv writes its rows.
//
// The summary's JSON (WriteJSON), the per-run CSV (RunCSV, CSVPreamble),
// the verdict (Summary.Shortfalls) and the time an analysis would take
// (Estimate, EstimateTotal) are here; package view renders the text and
// the report's content.
package analysis
