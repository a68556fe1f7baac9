package hwtest

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fwsim/fwsim/phy"
)

// Capture is a decoded capture: where it came from, its format, and the
// bus of each of its resets in capture order.
type Capture struct {
	Source string // the file name, "stdin", or the device
	Format Format
	Buses  []*Bus
}

// MaxCaptureResets bounds the bus resets of one capture. The parser reads
// in constant memory, but a Capture holds every decoded bus (up to about
// 23 KB each): 10,000 of them are some 230 MB and a report no one reads
// whole, more than any lab session records.
const MaxCaptureResets = 10_000

// NewCapture decodes generations read elsewhere (a probe, a USB stream)
// as a capture named source.
func NewCapture(source string, f Format, gens []Generation) *Capture {
	c := &Capture{Source: source, Format: f}
	for _, g := range gens {
		c.Buses = append(c.Buses, Decode(g))
	}
	return c
}

// ReadCapture reads a capture in format f ("" detects it) from r, named
// source in reports and errors, and decodes each bus reset. The capture
// streams through the parser a line at a time: what stays in memory is the
// decoded bus of each reset, at most MaxCaptureResets of them. Errors are
// named as CaptureError names them.
func ReadCapture(r io.Reader, source string, f Format) (*Capture, error) {
	c := NewCapture(source, f, nil)
	var err error
	c.Format, err = Read(r, f, func(g Generation) error {
		if len(c.Buses) == MaxCaptureResets {
			return fmt.Errorf("more than %d bus resets: the report keeps every one, so split the capture (e.g. with csplit at the resets)", MaxCaptureResets)
		}
		c.Buses = append(c.Buses, Decode(g))
		return nil
	})
	if err != nil {
		return nil, CaptureError(source, err)
	}
	return c, nil
}

// CaptureError names the capture source an error of opening or reading it
// concerns. Both opening and reading (a directory opens) fail with a
// PathError, which names the file itself.
func CaptureError(source string, err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return fmt.Errorf("capture %s: %w", pe.Path, pe.Err)
	}
	return fmt.Errorf("%s: %w", source, err)
}

// Inconsistent counts the buses of the capture that are not consistent.
func (c *Capture) Inconsistent() int {
	n := 0
	for _, b := range c.Buses {
		if !b.Consistent() {
			n++
		}
	}
	return n
}

// PresentPorts drops the absent ports after the last present one: the
// packets always carry 3, 11, 19 or 27 port fields.
func PresentPorts(ports []phy.PortStatus) []phy.PortStatus {
	n := len(ports)
	for n > 1 && ports[n-1] == phy.PortAbsent {
		n--
	}
	return ports[:n]
}

// ShowsConfig says whether the bus shows what the PHY configuration packet
// c forced before its reset: otherRoot when c forced a root and another
// is root, otherGap when c set a gap count and the nodes report another
// or disagree. An emulation compares with the bus only when it does:
// crosscheck forces the root the bus shows, and the topology the gap
// count the nodes report.
func (b *Bus) ShowsConfig(c phy.PhyConfig) (otherRoot, otherGap bool) {
	otherRoot = c.ForceRoot() && b.Root != c.RootID()
	otherGap = c.SetGapCount() && (!b.GapConsistent || b.GapCount != c.GapCount())
	return otherRoot, otherGap
}
