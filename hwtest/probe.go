package hwtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fwsim/fwsim/phy"
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
	// Speed is FW_CDEV_IOC_GET_SPEED: the speed code (0 for S100) of the
	// requests the kernel sends to the device's node.
	Speed() (uint32, error)
	// InitiateBusReset is FW_CDEV_IOC_INITIATE_BUS_RESET (0 long, 1 short).
	InitiateBusReset(typ uint32) error
	// SendPhyPacket is FW_CDEV_IOC_SEND_PHY_PACKET: data, a PHY packet's
	// quadlet and its inverse, sent from the local node in generation; an
	// event carrying closure follows once the controller has sent it.
	SendPhyPacket(closure uint64, data [2]uint32, generation uint32) error
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
	// ErrNoBusInfo: GET_INFO succeeded but wrote no bus reset event.
	ErrNoBusInfo = errors.New("GET_INFO wrote no bus information")
	// ErrNoDevice: no /dev/fw* file belongs to a local node.
	ErrNoDevice = errors.New("no local FireWire node found (is firewire_ohci loaded and a controller present?)")
	// ErrBusUnstable: the bus kept resetting while the map was read.
	ErrBusUnstable = errors.New("the bus kept resetting while the topology map was read")
	// ErrNoSuchPhy: a PHY configuration names a phy_ID the bus lacks.
	ErrNoSuchPhy = errors.New("no such phy_ID on the bus")
	// ErrNeedsLinux: the /dev/fw* probe exists only on Linux.
	ErrNeedsLinux = errors.New("the /dev/fw* probe needs Linux (amd64 or arm64); on other systems record a capture and use decode")
)

// UdevRule is the rule that gives a group access to the local node's device
// file read access, all the probe needs; docs/hardware.md explains it.
const UdevRule = `SUBSYSTEM=="firewire", ATTR{is_local}=="1", GROUP="plugdev", MODE="0640"`

// PermissionError is an open that the system refused.
type PermissionError struct {
	Path string
	Err  error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("cannot open %s: %v; the probe needs read access to the local node's device file. "+
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

// SysfsDevices is where Linux describes each /dev/fwN, in fwN/is_local.
const SysfsDevices = "/sys/bus/firewire/devices"

// DevicePaths lists the fw* files of dir in numeric order, leaving out
// those that sysfs (the directory of each fwN, see SysfsDevices) says are
// remote nodes': opening them would fail with EACCES where the udev rule
// opened up only the local node's. A file whose is_local cannot be read
// stays, for GET_INFO to tell.
func DevicePaths(dir, sysfs string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "fw[0-9]*")) // the pattern is valid
	num := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(p), "fw"))
		return n
	}
	slices.SortFunc(paths, func(a, b string) int { return num(a) - num(b) })
	return slices.DeleteFunc(paths, func(p string) bool {
		local, err := os.ReadFile(filepath.Join(sysfs, filepath.Base(p), "is_local"))
		return err == nil && strings.TrimSpace(string(local)) == "0"
	})
}

// Snapshot is the bus as the probe read it.
type Snapshot struct {
	Path string
	Info BusInfo
	Map  []uint32 // the TOPOLOGY_MAP as read: its header and self-IDs
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
	// quadlets is set once the kernel refused a block read: the map is
	// then read a quadlet at a time.
	quadlets bool
}

// maxProbeAttempts is the default of Probe.Attempts: the Linux bus manager
// alone may reset the bus up to five times after a reset.
const maxProbeAttempts = 5

// OpenLocal opens the first of paths that is a local node's device file.
// A file that cannot be opened for want of permission may be a remote
// node's, which the udev rule leaves closed: the next is tried, and the
// first such error is returned only when no local node opens.
func OpenLocal(open Opener, paths []string) (*Probe, error) {
	var denied error
	for _, path := range paths {
		dev, err := open(path)
		if err != nil {
			if denied == nil && errors.Is(err, fs.ErrPermission) {
				denied = OpenError(path, err)
			}
			continue
		}
		p := &Probe{Path: path, Dev: dev}
		if _, err := p.info(); err == nil {
			return p, nil
		}
		dev.Close()
	}
	if denied != nil {
		return nil, denied
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

func (p *Probe) attempts() int {
	if p.Attempts > 0 {
		return p.Attempts
	}
	return maxProbeAttempts
}

func (p *Probe) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return 2 * time.Second
}

// info is GET_INFO: the bus now. It also starts bus reset events.
func (p *Probe) info() (BusInfo, error) {
	// Node IDs are 16 bits: a field still all ones was never written.
	b := bytes.Repeat([]byte{0xff}, int(sizeBusReset)+4)
	if err := p.Dev.GetInfo(cdevABIVersion, 0, b); err != nil {
		return BusInfo{}, fmt.Errorf("GET_INFO: %w", err)
	}
	info := parseBusReset(b)
	if info.NodeID > 0xffff || info.LocalNodeID > 0xffff {
		return info, ErrNoBusInfo
	}
	if info.NodeID != info.LocalNodeID {
		return info, fmt.Errorf("%w: node %#04x, the local node is %#04x", ErrNotLocal, info.NodeID, info.LocalNodeID)
	}
	return info, nil
}

// Read reads the TOPOLOGY_MAP of the current generation, again when the
// kernel says the generation ended before it answered, and decodes it.
func (p *Probe) Read() (*Snapshot, error) {
	attempts := p.attempts()
	for range attempts {
		// Events of past resets may be queued: drain them before GET_INFO,
		// so that the event of a reset after it stays queued for Watch.
		if err := p.drain(); err != nil {
			return nil, err
		}
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

// readMap reads the map in generation: in block reads as long as the
// kernel sends to the local node, or a quadlet at a time once it refuses
// them. The kernel checks each request's generation, so every part read
// is the map of that generation; stale is true when it answered
// RCODE_GENERATION, because a bus reset ended the generation. BUS_RESET
// events met on the way only say that a reset happened, perhaps long ago.
func (p *Probe) readMap(generation uint32) (words []uint32, stale bool, err error) {
	block := uint32(0)
	if !p.quadlets {
		speed, err := p.Dev.Speed()
		// The kernel refuses a request longer than 512 << speed bytes.
		block, p.quadlets = maxRequestS100<<min(speed, 1), err != nil
	}
	want := topologyMapBytes / 4 // until q0 gives the map's length
	for len(words) < want {
		length, tcode := uint32(4), uint32(tcodeReadQuadletRequest)
		if !p.quadlets {
			length, tcode = min(block, uint32(4*(want-len(words)))), tcodeReadBlockRequest
		}
		data, stale, err := p.request(tcode, length, topologyMapOffset+uint64(4*len(words)), generation)
		if errors.Is(err, syscall.EIO) && !p.quadlets {
			p.quadlets = true
			continue
		}
		if err != nil || stale {
			return nil, stale, err
		}
		for i := 0; i < len(data); i += 4 {
			words = append(words, binary.BigEndian.Uint32(data[i:])) // CSR data is big-endian
		}
		want = min(1+int(words[0]>>16), want)
	}
	return words[:want], false, nil
}

// request sends one read of the map and waits for its response.
func (p *Probe) request(tcode, length uint32, offset uint64, generation uint32) (data []byte, stale bool, err error) {
	p.closure++
	if err := p.Dev.SendRequest(tcode, length, offset, p.closure, generation); err != nil {
		return nil, false, fmt.Errorf("SEND_REQUEST (read %d bytes of the TOPOLOGY_MAP at %#x): %w", length, offset, err)
	}
	e, err := p.await(eventResponse, p.closure)
	switch {
	case err != nil:
		return nil, false, err
	case e.rcode == rcodeGeneration:
		return nil, true, nil
	case e.rcode != rcodeComplete:
		return nil, false, fmt.Errorf("reading the TOPOLOGY_MAP: response code %#x", e.rcode)
	case len(e.data) != int(length):
		return nil, false, fmt.Errorf("reading the TOPOLOGY_MAP: %d bytes, asked for %d", len(e.data), length)
	}
	return e.data, false, nil
}

// await reads events until the one of type typ that carries closure.
func (p *Probe) await(typ uint32, closure uint64) (event, error) {
	for {
		e, err := p.next(p.timeout())
		if err != nil || e.typ == typ && e.closure == closure {
			return e, err
		}
	}
}

// SendPhyConfig sends the PHY configuration packet c (docs/protocol.md
// §9.1) from the local node and waits until the controller has sent it.
// The PHYs apply it at the next bus reset, which it does not cause: call
// Reset next. A root to force must be on the bus: the root has the
// highest phy_ID. The kernel drops a packet of a generation that a bus
// reset has ended, and it is sent again in the new one.
func (p *Probe) SendPhyConfig(c phy.PhyConfig) error {
	attempts := p.attempts()
	for range attempts {
		if err := p.drain(); err != nil {
			return err
		}
		info, err := p.info()
		if err != nil {
			return err
		}
		if last := PhyID(info.RootNodeID); c.ForceRoot() && c.RootID() > last {
			return fmt.Errorf("%w: phy %d to force as root, the bus has phy_IDs 0–%d", ErrNoSuchPhy, c.RootID(), last)
		}
		p.closure++
		if err := p.Dev.SendPhyPacket(p.closure, [2]uint32{uint32(c), ^uint32(c)}, info.Generation); err != nil {
			return fmt.Errorf("SEND_PHY_PACKET (%v): %w", c, err)
		}
		e, err := p.await(eventPhyPacketSent, p.closure)
		switch {
		case err != nil:
			return err
		case e.rcode == rcodeGeneration:
			continue
		case e.rcode != rcodeComplete:
			return fmt.Errorf("sending the PHY configuration packet: response code %#x", e.rcode)
		}
		return nil
	}
	return fmt.Errorf("the bus kept resetting while the PHY configuration packet was sent (%d attempts)", attempts)
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

// drain reads every event already queued.
func (p *Probe) drain() error {
	for {
		_, err := p.next(0)
		if errors.Is(err, ErrNoEvent) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// newer reports whether generation a came after b. The kernel's generation
// is the OHCI controller's 8-bit count, which wraps: a is newer when it is
// less than half the circle ahead.
func newer(a, b uint32) bool { return int8(uint8(a-b)) > 0 }

// Reset initiates a bus reset (short or long) and waits for a generation
// newer than the one before it: events of past resets may be queued.
// Software must leave 2 s between the resets it causes; the kernel
// enforces that grace period itself.
func (p *Probe) Reset(short bool) error {
	if err := p.drain(); err != nil {
		return err
	}
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
		if e.typ == eventBusReset && newer(e.reset.Generation, before.Generation) {
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

// awaitReset waits for a bus reset to a generation newer than gen. A
// reset while the map was read left its event queued: the kernel queues a
// local read's response before the ioctl returns, and answers a read of
// a past generation with RCODE_GENERATION.
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
		if e.typ == eventBusReset && newer(e.reset.Generation, gen) {
			return nil
		}
	}
}
