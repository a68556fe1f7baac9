package hwtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// There is no standard USB protocol for 1394 bus analysers, and no USB
// device exposes a 1394 bus as such. The USB path serves capture devices
// (a lab bridge, a logic-analyser front end) that stream what the PHY put on
// the wire in the self-ID phase over a bulk IN endpoint, in this format:
//
//	FFFFFFFF FFFFFFFF G    a bus reset marker, then the generation count G
//	q ~q                   each self-ID quadlet followed by its inverse
//
// all big-endian. A quadlet followed by itself is never a PHY packet, so
// the marker cannot be mistaken for one. docs/hardware.md says more.

// USBDeviceInfo is one attached USB device.
type USBDeviceInfo struct {
	Bus, Address int
	VID, PID     uint16
	Class        string
}

func (d USBDeviceInfo) String() string {
	return fmt.Sprintf("bus %03d address %03d  %04x:%04x  %s", d.Bus, d.Address, d.VID, d.PID, d.Class)
}

// USB is the host's USB stack, as far as the probe needs it.
type USB interface {
	// List lists the attached devices.
	List() ([]USBDeviceInfo, error)
	// Open opens the device vid:pid and its bulk IN endpoint ep.
	Open(vid, pid uint16, ep int) (USBStream, error)
	Close() error
}

// USBStream is a bulk IN endpoint of a capture device.
type USBStream interface {
	// Read reads what the device has sent, waiting until ctx ends.
	Read(ctx context.Context, buf []byte) (int, error)
	Close() error
}

// ErrNoUSB: the binary was built without the gousb build tag.
var ErrNoUSB = errors.New("this fwsim was built without USB support; rebuild it with 'go build -tags gousb ./cmd/fwsim' (needs cgo and libusb-1.0-0-dev)")

// DefaultUSBEndpoint is the bulk IN endpoint read when --usb names none.
const DefaultUSBEndpoint = 1

// ParseUSBTarget reads "VID:PID" or "VID:PID,ENDPOINT" (hex IDs, decimal
// endpoint).
func ParseUSBTarget(s string) (vid, pid uint16, ep int, err error) {
	bad := func(why string) (uint16, uint16, int, error) {
		return 0, 0, 0, fmt.Errorf("USB device %q: %s (want VID:PID[,ENDPOINT], e.g. 1209:0001,2)", s, why)
	}
	ids, epText, hasEP := strings.Cut(s, ",")
	v, p, ok := strings.Cut(ids, ":")
	if !ok {
		return bad("no ':' between vendor and product ID")
	}
	vv, err1 := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 16)
	pv, err2 := strconv.ParseUint(strings.TrimPrefix(p, "0x"), 16, 16)
	if err1 != nil || err2 != nil {
		return bad("IDs are 1 to 4 hex digits")
	}
	ep = DefaultUSBEndpoint
	if hasEP {
		e, err := strconv.Atoi(epText)
		if err != nil || e < 1 || e > 15 {
			return bad("the endpoint is a number from 1 to 15")
		}
		ep = e
	}
	return uint16(vv), uint16(pv), ep, nil
}

// formatUSB names a capture device's stream in errors and Generations; it
// is not one of the Formats, since Parse does not read it (ParseUSBStream
// does).
const formatUSB Format = "usb"

// usbMarker is the bus reset marker quadlet, sent twice.
const usbMarker = 0xffffffff

// ParseUSBStream reads a capture device's stream. Bytes after the last
// whole quadlet are ignored. Data before the first marker is an error: the
// stream must start at a bus reset.
func ParseUSBStream(data []byte) ([]Generation, error) {
	qs := make([]uint32, len(data)/4)
	for i := range qs {
		qs[i] = binary.BigEndian.Uint32(data[4*i:])
	}
	var gens []Generation
	for i := 0; i < len(qs); {
		at := i * 4
		if i+2 >= len(qs) || qs[i] != usbMarker || qs[i+1] != usbMarker {
			return nil, &ParseError{Format: formatUSB, Field: fmt.Sprintf("byte %d", at),
				Reason: fmt.Sprintf("want a bus reset marker (ffffffff ffffffff, then the generation), got %s", quadletsAt(qs, i))}
		}
		g := newGeneration(formatUSB, 0)
		g.Number = int(qs[i+2])
		i += 3
		start := i
		for i < len(qs) && !(qs[i] == usbMarker && i+1 < len(qs) && qs[i+1] == usbMarker) {
			i++
		}
		if err := g.addPairs(qs[start:i]); err != nil {
			return nil, err
		}
		if err := g.checkSize(); err != nil {
			return nil, err
		}
		gens = append(gens, *g)
	}
	return gens, nil
}

// quadletsAt shows up to three quadlets from i.
func quadletsAt(qs []uint32, i int) string {
	var parts []string
	for _, q := range qs[i:min(i+3, len(qs))] {
		parts = append(parts, fmt.Sprintf("%08x", q))
	}
	if len(parts) == 0 {
		return "the end of the stream"
	}
	return strings.Join(parts, " ")
}

// ReadUSBCapture reads from a capture device for d (or until ctx ends, or
// the device stops sending) and parses what arrived.
func ReadUSBCapture(ctx context.Context, s USBStream, d time.Duration) ([]Generation, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var data []byte
	buf := make([]byte, 16<<10)
	for {
		n, err := s.Read(ctx, buf)
		data = append(data, buf[:n]...)
		if ctx.Err() != nil || errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the USB endpoint: %w", err)
		}
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("the device sent nothing in %v", d)
	}
	return ParseUSBStream(data)
}
