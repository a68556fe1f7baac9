// Package sweep varies a bus over a grid of parameters and says, at every
// point, whether the correctness conditions of root contention hold.
//
// A parameter is written NAME=FROM..TO:STEP (Parse), for instance
// delay=0..400:20 sweeps the one-way delay of every cable from 0 to 400 ns.
// Several parameters make a grid (NewGrid) whose points come in a stable
// order, the last parameter varying fastest. The names are:
//
//	delay         ns  one-way propagation delay of every cable
//	cable_length  m   length of every cable (5.05 ns/m)
//	fast_min …    ns  fast_min, fast_max, slow_min, slow_max: the bounds of
//	                  ROOT_CONTEND_FAST and ROOT_CONTEND_SLOW
//	coin_bias         probability that the coin picks FAST
//	nodes             node count of a generated bus (tree:N:SEED keeps SEED)
//
// Base.Apply turns a point into the topology and bus.Options of its runs;
// Evaluate computes the conditions of docs/protocol.md §5 for them:
//
//	2·delay < FAST.min   and   2·delay + FAST.max < SLOW.min
//
// which hold for delays below MaxDelayNs: 120 ns for the 1394-1995 windows
// (240–260/570–600 ns) and 370 ns for the prism windows (760–850/1590–1670
// ns). A point beyond them is not an error: the emulator runs it (out of
// spec, as any cable longer than 4.5 m is) and reports what happened there.
//
// Run executes a sweep: one analysis.Run at every point of the grid, in
// grid order, each with the same seed, so the same seed gives the same
// bytes at any worker count. Its results carry the JSON (NewJSON) and CSV
// (WriteCSV, RowPrefixer for the per-run rows) that fwsim sweep and fwsim
// report write; package view renders them for people.
package sweep
