package hwtest

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"time"
)

// FakeDevice is a Device that behaves like the kernel's local node device
// file on a bus whose TOPOLOGY_MAP it holds: tests and demonstrations run
// the probe against it. It writes events with the kernel's layout, fields
// placed at the offsets of include/uapi/linux/firewire-cdev.h.
type FakeDevice struct {
	Generation                                     uint32
	NodeID, LocalNodeID, BMNodeID, IRMNodeID, Root uint32
	// MaxSpeed is the speed code GET_SPEED reports (0 for S100): like the
	// kernel, the fake refuses a request longer than 512 << MaxSpeed
	// bytes with EIO.
	MaxSpeed uint32
	// Map is the TOPOLOGY_MAP of the current generation; Next are the maps
	// of the generations after each bus reset (the last one stays).
	Map  []uint32
	Next [][]uint32
	// SpoilReads is how many map reads a bus reset ends before the kernel
	// handles them: the BUS_RESET event is queued, then the kernel's
	// RCODE_GENERATION answer.
	SpoilReads int
	// ManagerResets is how many more bus resets follow each one the probe
	// asks for, as when the bus manager forces a root or gap count.
	ManagerResets int

	// Infos, Requests, PhyPackets and Resets record the calls, for
	// assertions.
	Infos      []FakeInfo
	Requests   []FakeRequest
	PhyPackets []FakePhyPacket
	Resets     []uint32
	Closed     bool

	events [][]byte
	// resetClosure is the closure of bus reset events, as the last
	// GET_INFO set it.
	resetClosure uint64
	// resetAsked: InitiateBusReset was called; the reset comes once the
	// events queued before it have been read.
	resetAsked bool
}

// FakeInfo is one GetInfo call: the ABI version announced and the closure
// of bus reset events.
type FakeInfo struct {
	Version uint32
	Closure uint64
}

// FakeRequest is one SendRequest call.
type FakeRequest struct {
	Tcode, Length uint32
	Offset        uint64
	Generation    uint32
}

// FakePhyPacket is one SendPhyPacket call.
type FakePhyPacket struct {
	Data       [2]uint32
	Generation uint32
}

// GetInfo implements Device.
func (d *FakeDevice) GetInfo(version uint32, closure uint64, busReset []byte) error {
	if version < 1 {
		return fmt.Errorf("ABI version %d", version)
	}
	d.Infos = append(d.Infos, FakeInfo{version, closure})
	d.resetClosure = closure
	copy(busReset, d.busResetEvent(closure))
	return nil
}

// busResetEvent is struct fw_cdev_event_bus_reset: closure@0, type@8,
// node_id@12, local_node_id@16, bm@20, irm@24, root@28, generation@32.
func (d *FakeDevice) busResetEvent(closure uint64) []byte {
	b := make([]byte, 40)
	binary.NativeEndian.PutUint64(b[0:], closure)
	for off, v := range map[int]uint32{8: eventBusReset, 12: d.NodeID, 16: d.LocalNodeID, 20: d.BMNodeID, 24: d.IRMNodeID, 28: d.Root, 32: d.Generation} {
		binary.NativeEndian.PutUint32(b[off:], v)
	}
	return b
}

// response is struct fw_cdev_event_response: closure@0, type@8, rcode@12,
// length@16, then the payload at 20.
func response(closure uint64, rcode uint32, payload []byte) []byte {
	return completion(eventResponse, closure, rcode, payload)
}

// completion is an event with the layout of struct fw_cdev_event_response,
// which struct fw_cdev_event_phy_packet shares.
func completion(typ uint32, closure uint64, rcode uint32, payload []byte) []byte {
	b := make([]byte, 20+len(payload))
	binary.NativeEndian.PutUint64(b[0:], closure)
	binary.NativeEndian.PutUint32(b[8:], typ)
	binary.NativeEndian.PutUint32(b[12:], rcode)
	binary.NativeEndian.PutUint32(b[16:], uint32(len(payload)))
	copy(b[20:], payload)
	return b
}

// busReset moves the fake bus to its next generation, modulo 256 as the
// controller counts, and queues the event.
func (d *FakeDevice) busReset() {
	d.Generation = (d.Generation + 1) & 0xff
	if len(d.Next) > 0 {
		d.Map, d.Next = d.Next[0], d.Next[1:]
	}
	d.events = append(d.events, d.busResetEvent(d.resetClosure))
}

// Speed implements Device.
func (d *FakeDevice) Speed() (uint32, error) { return d.MaxSpeed, nil }

// SendRequest implements Device for reads of the TOPOLOGY_MAP.
func (d *FakeDevice) SendRequest(tcode, length uint32, offset, closure uint64, generation uint32) error {
	d.Requests = append(d.Requests, FakeRequest{tcode, length, offset, generation})
	switch {
	case length > 4096 || length > maxRequestS100<<d.MaxSpeed:
		return syscall.EIO
	case d.SpoilReads > 0 && generation == d.Generation:
		d.SpoilReads--
		d.busReset()
		fallthrough
	case generation != d.Generation:
		d.events = append(d.events, response(closure, rcodeGeneration, nil))
		return nil
	case tcode == tcodeReadQuadletRequest && length != 4,
		tcode != tcodeReadBlockRequest && tcode != tcodeReadQuadletRequest,
		offset < topologyMapOffset || offset+uint64(length) > topologyMapOffset+topologyMapBytes:
		d.events = append(d.events, response(closure, 0x07, nil)) // address error
		return nil
	}
	csr := make([]byte, topologyMapBytes)
	for i, w := range d.Map {
		binary.BigEndian.PutUint32(csr[4*i:], w)
	}
	start := offset - topologyMapOffset
	d.events = append(d.events, response(closure, rcodeComplete, csr[start:start+uint64(length)]))
	return nil
}

// SendPhyPacket implements Device: like the kernel it sends the packet only
// in the current generation, and its event carries the two quadlets. The
// packet changes nothing on the fake bus: Next says what each reset gives.
func (d *FakeDevice) SendPhyPacket(closure uint64, data [2]uint32, generation uint32) error {
	d.PhyPackets = append(d.PhyPackets, FakePhyPacket{data, generation})
	rcode := uint32(rcodeComplete)
	if generation != d.Generation {
		rcode = rcodeGeneration
	}
	payload := binary.NativeEndian.AppendUint32(binary.NativeEndian.AppendUint32(nil, data[0]), data[1])
	d.events = append(d.events, completion(eventPhyPacketSent, closure, rcode, payload))
	return nil
}

// InitiateBusReset implements Device: the reset, and ManagerResets more,
// come after the events already queued.
func (d *FakeDevice) InitiateBusReset(typ uint32) error {
	if typ > resetShort {
		return fmt.Errorf("reset type %d", typ)
	}
	d.Resets = append(d.Resets, typ)
	d.resetAsked = true
	return nil
}

// ReadEvent implements Device; like the kernel it truncates an event that
// does not fit in buf.
func (d *FakeDevice) ReadEvent(buf []byte, _ time.Duration) (int, error) {
	if len(d.events) == 0 && d.resetAsked {
		d.resetAsked = false
		for range 1 + d.ManagerResets {
			d.busReset()
		}
	}
	if len(d.events) == 0 {
		return 0, ErrNoEvent
	}
	e := d.events[0]
	d.events = d.events[1:]
	return copy(buf, e), nil
}

// Close implements Device.
func (d *FakeDevice) Close() error {
	d.Closed = true
	return nil
}
