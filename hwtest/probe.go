package hwtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Device is an open firewire-cdev character device (/dev/fwN): the ioctls
// the probe makes and read(2) of events, nothing more, so that a fake can
// stand in for the kernel in tests. Struct encoding and pointer pinning
// stay in the implementation; events come back as the kernel wrote them.
type Device interface {
	// GetInfo is FW_CDEV_IOC_GET_INFO announcing ABI version: busReset
	// receives a struct fw_cdev_event_bus_reset describing the bus now,
	// and later bus resets are queued as events carrying closure.
	GetInfo(version uint32, closure uint64, busReset []byte) error
	// SendRequest is FW_CDEV_IOC_SEND_REQUEST for a request without
	// payload (a read) of length bytes at offset, valid in generation.
	SendRequest(tcode, length uint32, offset, closure uint64, generation uint32) error
	// InitiateBusReset is FW_CDEV_IOC_INITIATE_BUS_RESET (0 long, 1 short).
	InitiateBusReset(typ uint32) error
	// ReadEvent reads one event into buf, waiting at most timeout; it
	// returns ErrNoEvent when none came.
	ReadEvent(buf []byte, timeout time.Duration) (int, error)
	Close() error
}

// Opener opens a device file.
type Opener func(path string) (Device, error)

var (
	// ErrNoEvent: no event arrived in time.
	ErrNoEvent = errors.New("no event from the device in time")
	// ErrNotLocal: the device file is another node's, which cannot read
	// the local TOPOLOGY_MAP.
	ErrNotLocal = errors.New("not the local node's device file")
	// ErrNoDevice: no /dev/fw* file belongs to a local node.
	ErrNoDevice = errors.New("no local FireWire node found (is firewire_ohci loaded and a controller present?)")
	// ErrBusUnstable: the bus kept resetting while the map was read.
	ErrBusUnstable = errors.New("the bus kept resetting while the topology map was read")
	// ErrNeedsLinux: the /dev/fw* probe exists only on Linux.
	ErrNeedsLinux = errors.New("the /dev/fw* probe needs Linux (amd64 or arm64); on other systems record a capture and use decode")
)

// UdevRule is the rule that gives a group access to the local node's device
// file; docs/hardware.md explains it.
const UdevRule = `SUBSYSTEM=="firewire", ATTR{is_local}=="1", GROUP="plugdev", MODE="0660"`

// PermissionError is an open that the system refused.
type PermissionError struct {
	Path string
	Err  error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("cannot open %s: %v; the probe needs read-write access to the local node's device file. "+
		"Give it to the plugdev group with a udev rule, e.g. in /etc/udev/rules.d/60-fwsim.rules: %s "+
		"(then run 'udevadm control --reload && udevadm trigger' as root and make sure you are in plugdev), "+
		"or run the probe once with sudo", e.Path, e.Err, UdevRule)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// OpenError classifies an error from opening path: EACCES and EPERM become
// a *PermissionError that names the udev rule.
func OpenError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &PermissionError{Path: path, Err: err}
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// DevicePaths lists the /dev/fw* files in numeric order.
func DevicePaths(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "fw[0-9]*")) // the pattern is valid
	num := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(p), "fw"))
		return n
	}
	slices.SortFunc(paths, func(a, b string) int { return num(a) - num(b) })
	return paths
}

// Snapshot is the bus as the probe read it.
type Snapshot struct {
	Path string
	Info BusInfo
	Map  []uint32 // the TOPOLOGY_MAP as read, 256 quadlets
	Generation
}

// Probe reads the bus through the local node's device file.
type Probe struct {
	Path string
	Dev  Device
	// Timeout bounds each wait for an event (default 2 s).
	Timeout time.Duration
	// Attempts bounds the reads of the map that a bus reset may spoil
	// (default 5).
	Attempts int

	closure uint64
	buf     []byte
}

// maxProbeAttempts is the default of Probe.Attempts: the Linux bus manager
// alone may reset the bus up to five times after a reset.
const maxProbeAttempts = 5

// OpenLocal opens the first of paths that is a local node's device file.
// Permission errors are returned at once: they would hide the local node.
func OpenLocal(open Opener, paths []string) (*Probe, error) {
	for _, path := range paths {
		dev, err := open(path)
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil, OpenError(path, err)
			}
			continue
		}
		p := &Probe{Path: path, Dev: dev}
		if _, err := p.info(); err == nil {
			return p, nil
		}
		dev.Close()
	}
	return nil, ErrNoDevice
}

// Open opens path, which must be a local node's device file.
func Open(open Opener, path string) (*Probe, error) {
	dev, err := open(path)
	if err != nil {
		return nil, OpenError(path, err)
	}
	p := &Probe{Path: path, Dev: dev}
	if _, err := p.info(); err != nil {
		dev.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Close closes the device.
func (p *Probe) Close() error { return p.Dev.Close() }

func (p *Probe) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return 2 * time.Second
}

// info is GET_INFO: the bus now. It also starts bus reset events.
func (p *Probe) info() (BusInfo, error) {
	b := make([]byte, sizeBusReset+4)
	if err := p.Dev.GetInfo(cdevABIVersion, 0, b); err != nil {
		return BusInfo{}, fmt.Errorf("GET_INFO: %w", err)
	}
	info := parseBusReset(b)
	if info.NodeID != info.LocalNodeID {
		return info, fmt.Errorf("%w: node %#04x, the local node is %#04x", ErrNotLocal, info.NodeID, info.LocalNodeID)
	}
	return info, nil
}

// Read reads the TOPOLOGY_MAP of the current generation, again when a bus
// reset spoils a read, and decodes it.
func (p *Probe) Read() (*Snapshot, error) {
	attempts := p.Attempts
	if attempts <= 0 {
		attempts = maxProbeAttempts
	}
	for range attempts {
		info, err := p.info()
		if err != nil {
			return nil, err
		}
		words, stale, err := p.readMap(info.Generation)
		if err != nil {
			return nil, err
		}
		if stale {
			continue
		}
		g, err := DecodeTopologyMap(words)
		if err != nil {
			return nil, err
		}
		g.Number = int(info.Generation)
		g.LocalPhyID = PhyID(info.LocalNodeID)
		return &Snapshot{Path: p.Path, Info: info, Map: words, Generation: g}, nil
	}
	return nil, fmt.Errorf("%w (%d attempts)", ErrBusUnstable, attempts)
}

// readMap sends the block read and waits for its response. stale is true
// when a bus reset intervened: a BUS_RESET event, or the kernel's
// RCODE_GENERATION answer.
func (p *Probe) readMap(generation uint32) (words []uint32, stale bool, err error) {
	p.closure++
	closure := p.closure
	if err := p.Dev.SendRequest(tcodeReadBlockRequest, topologyMapBytes, topologyMapOffset, closure, generation); err != nil {
		return nil, false, fmt.Errorf("SEND_REQUEST (read TOPOLOGY_MAP): %w", err)
	}
	for {
		e, err := p.next(p.timeout())
		if err != nil {
			return nil, false, err
		}
		switch {
		case e.typ == eventBusReset:
			return nil, true, nil
		case e.typ != eventResponse || e.closure != closure:
			continue
		case e.rcode == rcodeGeneration:
			return nil, true, nil
		case e.rcode != rcodeComplete:
			return nil, false, fmt.Errorf("reading the TOPOLOGY_MAP: response code %#x", e.rcode)
		case len(e.data)%4 != 0 || len(e.data) == 0:
			return nil, false, fmt.Errorf("reading the TOPOLOGY_MAP: %d bytes, want whole quadlets", len(e.data))
		}
		words = make([]uint32, len(e.data)/4)
		for i := range words {
			words[i] = binary.BigEndian.Uint32(e.data[4*i:]) // CSR data is big-endian
		}
		return words, false, nil
	}
}

// next reads one event.
func (p *Probe) next(timeout time.Duration) (event, error) {
	if p.buf == nil {
		p.buf = make([]byte, eventBufferSize)
	}
	n, err := p.Dev.ReadEvent(p.buf, timeout)
	if err != nil {
		return event{}, err
	}
	return parseEvent(p.buf[:n])
}

// Reset initiates a bus reset (short or long) and waits for the new
// generation. Software must leave 2 s between the resets it causes; the
// kernel enforces that grace period itself.
func (p *Probe) Reset(short bool) error {
	before, err := p.info()
	if err != nil {
		return err
	}
	typ := uint32(resetLong)
	if short {
		typ = resetShort
	}
	if err := p.Dev.InitiateBusReset(typ); err != nil {
		return fmt.Errorf("INITIATE_BUS_RESET: %w", err)
	}
	deadline := 5 * time.Second // the grace period, then the reset itself
	for start := time.Now(); time.Since(start) < deadline; {
		e, err := p.next(p.timeout())
		if errors.Is(err, ErrNoEvent) {
			continue
		}
		if err != nil {
			return err
		}
		if e.typ == eventBusReset && e.reset.Generation != before.Generation {
			return nil
		}
	}
	return fmt.Errorf("no bus reset within %v of asking for one", deadline)
}

// Watch reads the bus now and after every bus reset, calling fn with each
// snapshot, until ctx ends or fn fails.
func (p *Probe) Watch(ctx context.Context, fn func(*Snapshot) error) error {
	for {
		s, err := p.Read()
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		if err := p.awaitReset(ctx, s.Info.Generation); err != nil {
			return err
		}
	}
}

// awaitReset waits for a bus reset to a generation other than gen.
func (p *Probe) awaitReset(ctx context.Context, gen uint32) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := p.next(200 * time.Millisecond)
		if errors.Is(err, ErrNoEvent) {
			continue
		}
		if err != nil {
			return err
		}
		if e.typ == eventBusReset && e.reset.Generation != gen {
			return nil
		}
	}
}
