package netsim

import "errors"

// Errors. Each is a category: the error returned wraps it (test with
// errors.Is) and says what was wrong in its message.
var (
	// ErrUnsupportedTopology: the topology's graph is not what the run
	// needs (NewGraph: a connected graph). The election lab returns it
	// for the rings, trees and complete graphs its algorithms need.
	ErrUnsupportedTopology = errors.New("unsupported topology")
	// ErrNoTermination: the run exceeded its event budget.
	ErrNoTermination = errors.New("run did not terminate")
	// ErrTooLarge: the run would need more memory than the runtime allows
	// (Drive: more than MaxDriveNodes nodes).
	ErrTooLarge = errors.New("run too large")
	// ErrInterrupted: Config.Interrupt closed during the run.
	ErrInterrupted = errors.New("run interrupted")
	// ErrTraceFull: the run's trace passed Config.MaxTrace entries.
	ErrTraceFull = errors.New("trace full")
)
