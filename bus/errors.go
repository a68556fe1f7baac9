package bus

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalidTopology is the category of every problem that makes a topology
// unusable: a malformed file or a configuration that cannot exist. Each
// problem below wraps it, so errors.Is(err, ErrInvalidTopology) tells input
// errors from everything else.
var ErrInvalidTopology = errors.New("invalid topology")

// The problems a topology can have, one sentinel each (test with errors.Is).
var (
	ErrMalformedFile   = invalid("malformed topology file")
	ErrUnknownProfile  = invalid("unknown profile")
	ErrBadTiming       = invalid("bad timing constant")
	ErrEmptyBus        = invalid("empty bus")
	ErrBadNodeID       = invalid("bad node id")
	ErrDuplicateNodeID = invalid("duplicate node id")
	ErrBadPortCount    = invalid("bad port count")
	ErrUnknownSpeed    = invalid("unknown speed")
	ErrBadPowerClass   = invalid("bad power class")
	ErrBadGapCount     = invalid("bad gap count")
	ErrDuplicateUID    = invalid("duplicate uid")
	ErrBadClock        = invalid("bad clock_ppm")
	ErrBadPortRef      = invalid("malformed port reference")
	ErrUnknownNode     = invalid("unknown node")
	ErrPortOutOfRange  = invalid("port out of range")
	ErrPortInUse       = invalid("port used twice")
	ErrSelfCable       = invalid("node cabled to itself")
	ErrLengthAndDelay  = invalid("both length_m and delay_ns")
	ErrBadCableLength  = invalid("bad cable length or delay")
	ErrDisconnected    = invalid("disconnected bus")
	ErrBadEvent        = invalid("bad event")
	ErrBadBusManager   = invalid("bad bus manager")
	ErrBadTraffic      = invalid("bad traffic")
)

// ErrOutOfSpec reports a configuration the standard does not allow but the
// emulator can run: more ports than the profile's PHYs have, more than 16
// hops, cables longer than 4.5 m, clocks beyond ±100 ppm. It is not an
// ErrInvalidTopology: ResolveOptions.AllowOutOfSpec runs it anyway.
var ErrOutOfSpec = errors.New("configuration out of spec")

// ErrInterrupted reports a run stopped because Options.Interrupt closed. It
// has no Result: a run cut short measures nothing.
var ErrInterrupted = errors.New("run interrupted")

// ErrBadGenerator reports a generator spec Generate cannot read.
var ErrBadGenerator = errors.New("bad generator spec")

func invalid(what string) error { return fmt.Errorf("%w: %s", ErrInvalidTopology, what) }

// TopologyError locates a problem in a topology. Its Kind is one of the
// sentinels above; errors.Is sees through to it.
type TopologyError struct {
	// File is the name given to ParseTopology; empty for a topology built
	// in Go.
	File string
	// Line is the line of the offending item in File; 0 when unknown.
	Line int
	// Path names the offending item the way the file spells it, such as
	// "nodes[1].ports" or "events[0].connect.from"; empty for the whole
	// topology.
	Path string
	// Msg says what is wrong and what was expected.
	Msg string
	// Kind is the sentinel: ErrPortInUse, ErrOutOfSpec, ….
	Kind error
}

func (e *TopologyError) Error() string {
	var s string
	if e.File != "" {
		s = e.File + ":"
		if e.Line > 0 {
			s += strconv.Itoa(e.Line) + ":"
		}
		s += " "
	}
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg
}

func (e *TopologyError) Unwrap() error { return e.Kind }
