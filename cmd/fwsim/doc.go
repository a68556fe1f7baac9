// Command fwsim emulates IEEE 1394 (FireWire) bus initialisation. Run
// "fwsim help" for its commands.
//
// The command line only parses, calls and prints: a table of commands
// behind one testable entry point, Run (cli.go), each command in a file of
// its own with its help text and flags; the computations, verdicts, file
// formats and JSON types are the library's, the renderings package view's
// (docs/architecture.md). Results go to stdout, diagnostics to stderr.
//
// Exit codes: 0 success; 1 the command completed but the outcome it reports
// is a failure; 2 a usage or input error, one line on stderr; 3 an output
// could not be written; 130 interrupted (SIGINT), 143 and 129 for SIGTERM
// and SIGHUP (main.go). Output files are written whole or not at all
// (output.go).
//
// Where things are: cli.go (the command table, Run, help, the flag helpers),
// output.go (output files), busflags.go (--topology/--gen and the bus
// options run, analyze, sweep, explore and report share, and how their
// errors name the flags), maxduration.go (--max-duration, which analyze,
// sweep, report and elect --sweep share), progress.go (when to draw the
// progress bar), input.go (input files and stdin that Ctrl-C stops), and
// one file per command. Golden tests compare each command's output with
// testdata/; `go test ./cmd/fwsim -update` rewrites the files.
//
// default.pgo, beside this file, is a CPU profile of the emulator's
// benchmarks: the go command uses it whenever it builds fwsim, to inline
// and devirtualise the hot path (profile-guided optimisation), which saves
// about a tenth of the instructions of a run. pgo.sh writes it again after
// the hot path changes (docs/performance.md).
//
//go:generate sh pgo.sh
package main
