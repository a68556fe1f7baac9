package hwtest

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// LineReport is what a line-state capture shows: its ports' line states,
// and their comparison with an emulation when one was asked for.
type LineReport struct {
	Source     string // the capture file, or "stdin"
	Capture    *LineCapture
	Emulated   string // the bus emulated, as the caller names it (a topology file, gen SPEC)
	Seed       uint64 // the emulation's seed
	Comparison *LineComparison
}

// EmulateLines runs topo under opts and gives the line states each port
// receives, as EmulatedLines reads them from the run. It records only the
// receive events, all the comparison reads, so that a long run's trace
// stays small; opts.Observer, if any, still sees every event.
func EmulateLines(topo *bus.Topology, opts bus.Options) (*LineCapture, error) {
	var trace bus.Trace
	observe := opts.Observer
	opts.Observer = func(ev bus.TraceEvent) {
		if ev.Kind == bus.TraceReceive {
			trace.Record(ev)
		}
		if observe != nil {
			observe(ev)
		}
	}
	res, err := bus.Run(topo, opts)
	if err != nil {
		return nil, err
	}
	return EmulatedLines(res, trace.Events), nil
}

// MaxChannelMapFile bounds a channel map file: 63 nodes of 27 ports take
// a few hundred KiB.
const MaxChannelMapFile = 1 << 20

// ReadChannelMap reads a channel map file: the entries ParseChannelMap
// reads, separated by commas, blanks or line ends. An error of r, or a
// file larger than MaxChannelMapFile, is returned as it is; what is wrong
// with the map itself is a *ParseError.
func ReadChannelMap(r io.Reader) (ChannelMap, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxChannelMapFile+1))
	if err == nil && len(data) > MaxChannelMapFile {
		err = fmt.Errorf("larger than %d KiB: no channel map", MaxChannelMapFile>>10)
	}
	if err != nil {
		return nil, err
	}
	return ParseChannelMap(strings.Join(strings.Fields(strings.ReplaceAll(string(data), ",", " ")), ","))
}
