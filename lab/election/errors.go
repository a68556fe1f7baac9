package election

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// Errors. Each is a category: the error returned wraps it (test with
// errors.Is) and says what was wrong in its message.
var (
	// ErrUnknownAlgorithm: Options.Algo names no algorithm of Algorithms.
	ErrUnknownAlgorithm = errors.New("unknown election algorithm")
	// ErrUnsupportedTopology: the algorithm needs another kind of graph (a
	// ring, a tree, a complete graph) than the topology has, or the
	// topology is not connected. It is the runtime's, whose graphs need
	// the same.
	ErrUnsupportedTopology = netsim.ErrUnsupportedTopology
	// ErrUnsupportedMode: the algorithm has no form in the mode asked
	// for (synchronous, asynchronous or timed).
	ErrUnsupportedMode = errors.New("unsupported mode")
	// ErrBadIDs: an ID assignment that does not give every node one unique
	// ID in range, or an ID file that does not parse.
	ErrBadIDs = errors.New("bad node IDs")
	// ErrBadOptions: initiators or crashed nodes that name no node, or more
	// initiators than the algorithm takes.
	ErrBadOptions = errors.New("bad election options")
	// ErrNoTermination: the run exceeded Options.MaxEvents. The algorithms
	// here terminate, so this is a bug report, not an outcome.
	ErrNoTermination = errors.New("election did not terminate")
	// ErrInterrupted: Options.Interrupt closed during the run, which has
	// no Result.
	ErrInterrupted = errors.New("election interrupted")
)

// runError names the runtime's errors as an election's, its message
// unchanged but for the category.
func runError(err error) error {
	switch {
	case errors.Is(err, netsim.ErrInterrupted):
		return ErrInterrupted
	case errors.Is(err, netsim.ErrNoTermination):
		return fmt.Errorf("%w%s", ErrNoTermination, strings.TrimPrefix(err.Error(), netsim.ErrNoTermination.Error()))
	}
	return err
}
