package hwtest

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// The Linux firewire-cdev ABI (include/uapi/linux/firewire-cdev.h). The
// ioctl numbers are the generic _IOC encoding of x86-64 and arm64:
// dir<<30 | size<<16 | '#'<<8 | nr, with dir 0 for _IO, 1 for _IOW and 3
// for _IOWR.
const (
	iocGetInfo          = 0xc0282300 // _IOWR('#', 0x00, struct fw_cdev_get_info)
	iocSendRequest      = 0x40282301 // _IOW('#', 0x01, struct fw_cdev_send_request)
	iocInitiateBusReset = 0x40042305 // _IOW('#', 0x05, struct fw_cdev_initiate_bus_reset)
	iocGetSpeed         = 0x00002311 // _IO('#', 0x11): the speed code is the return value
	iocSendPhyPacket    = 0xc0182315 // _IOWR('#', 0x15, struct fw_cdev_send_phy_packet)

	// cdevABIVersion is the ABI the probe announces in GET_INFO: version 5
	// still sends the plain response event (version 6 adds timestamps).
	cdevABIVersion = 5

	eventBusReset      = 0x00 // FW_CDEV_EVENT_BUS_RESET
	eventResponse      = 0x01 // FW_CDEV_EVENT_RESPONSE
	eventPhyPacketSent = 0x07 // FW_CDEV_EVENT_PHY_PACKET_SENT

	resetLong  = 0 // FW_CDEV_LONG_RESET
	resetShort = 1 // FW_CDEV_SHORT_RESET

	tcodeReadQuadletRequest = 4
	tcodeReadBlockRequest   = 5

	rcodeComplete   = 0x00
	rcodeGeneration = 0x13 // Linux-specific: the request's generation is stale

	// topologyMapOffset is CSR_REGISTER_BASE + CSR_TOPOLOGY_MAP; the map
	// spans 0x1000–0x13ff, 256 quadlets.
	topologyMapOffset = 0xfffff0001000
	topologyMapBytes  = 0x400

	// maxRequestS100 is the longest request the kernel sends at S100;
	// it doubles with each speed code (core-cdev.c refuses a longer one
	// with EIO, and any over 4096 bytes).
	maxRequestS100 = 512

	// eventBufferSize is the read(2) buffer: the kernel silently truncates
	// an event that does not fit.
	eventBufferSize = 16 << 10
)

// cdevGetInfo mirrors struct fw_cdev_get_info (40 bytes on LP64). Rom and
// BusReset are user pointers.
type cdevGetInfo struct {
	Version         uint32
	RomLength       uint32
	Rom             uint64
	BusReset        uint64
	BusResetClosure uint64
	Card            uint32
	_               uint32
}

// cdevSendRequest mirrors struct fw_cdev_send_request (40 bytes). Data is a
// user pointer to the request payload.
type cdevSendRequest struct {
	Tcode      uint32
	Length     uint32
	Offset     uint64
	Closure    uint64
	Data       uint64
	Generation uint32
	_          uint32
}

// cdevInitiateBusReset mirrors struct fw_cdev_initiate_bus_reset.
type cdevInitiateBusReset struct {
	Type uint32
}

// cdevSendPhyPacket mirrors struct fw_cdev_send_phy_packet (24 bytes on
// LP64: the closure aligns it to 8). Data is the packet's quadlet and its
// inverse, in host byte order.
type cdevSendPhyPacket struct {
	Closure    uint64
	Data       [2]uint32
	Generation uint32
	_          uint32
}

// cdevBusReset mirrors struct fw_cdev_event_bus_reset (40 bytes).
type cdevBusReset struct {
	Closure     uint64
	Type        uint32
	NodeID      uint32
	LocalNodeID uint32
	BMNodeID    uint32
	IRMNodeID   uint32
	RootNodeID  uint32
	Generation  uint32
	_           uint32
}

// cdevResponse mirrors struct fw_cdev_event_response: its payload starts at
// Data's offset, 20, although the struct is 24 bytes long (padding). The
// event of a PHY packet sent, struct fw_cdev_event_phy_packet, has the same
// layout.
type cdevResponse struct {
	Closure uint64
	Type    uint32
	Rcode   uint32
	Length  uint32
	Data    [0]uint32
}

// BusInfo is what the kernel reports about the bus of a device file.
type BusInfo struct {
	Generation  uint32
	NodeID      uint32 // the device's node
	LocalNodeID uint32 // the controller's node
	BMNodeID    uint32 // the bus manager, 0xffff while none is elected
	IRMNodeID   uint32
	RootNodeID  uint32
}

// PhyID is the physical ID part of a node ID.
func PhyID(nodeID uint32) int { return int(nodeID & 0x3f) }

// event is one event read from the device, parsed by offset.
type event struct {
	closure uint64
	typ     uint32
	reset   BusInfo // eventBusReset
	rcode   uint32  // eventResponse, eventPhyPacketSent
	data    []byte  // their payload
}

// Field offsets, from the mirrors: parsing by offset rather than by
// casting keeps the padding of the C structs out of the way.
var (
	offClosure    = unsafe.Offsetof(cdevBusReset{}.Closure)
	offType       = unsafe.Offsetof(cdevBusReset{}.Type)
	offNodeID     = unsafe.Offsetof(cdevBusReset{}.NodeID)
	offLocalNode  = unsafe.Offsetof(cdevBusReset{}.LocalNodeID)
	offBMNode     = unsafe.Offsetof(cdevBusReset{}.BMNodeID)
	offIRMNode    = unsafe.Offsetof(cdevBusReset{}.IRMNodeID)
	offRootNode   = unsafe.Offsetof(cdevBusReset{}.RootNodeID)
	offGeneration = unsafe.Offsetof(cdevBusReset{}.Generation)
	sizeBusReset  = unsafe.Sizeof(cdevBusReset{}) - 4 // the tail padding is not written
	offRcode      = unsafe.Offsetof(cdevResponse{}.Rcode)
	offLength     = unsafe.Offsetof(cdevResponse{}.Length)
	offData       = unsafe.Offsetof(cdevResponse{}.Data)
)

// parseEvent reads an event as read(2) returned it (host byte order).
func parseEvent(b []byte) (event, error) {
	u32 := func(off uintptr) uint32 { return binary.NativeEndian.Uint32(b[off:]) }
	if uintptr(len(b)) < offType+4 {
		return event{}, fmt.Errorf("firewire event of %d bytes, shorter than its header", len(b))
	}
	e := event{closure: binary.NativeEndian.Uint64(b[offClosure:]), typ: u32(offType)}
	switch e.typ {
	case eventBusReset:
		if uintptr(len(b)) < sizeBusReset {
			return event{}, fmt.Errorf("bus reset event of %d bytes, want %d", len(b), sizeBusReset)
		}
		e.reset = parseBusReset(b)
	case eventResponse, eventPhyPacketSent:
		if uintptr(len(b)) < offData {
			return event{}, fmt.Errorf("firewire event %d of %d bytes, want at least %d", e.typ, len(b), offData)
		}
		e.rcode = u32(offRcode)
		n := uintptr(u32(offLength))
		if n > uintptr(len(b))-offData {
			return event{}, fmt.Errorf("firewire event %d says %d payload bytes, %d arrived", e.typ, n, uintptr(len(b))-offData)
		}
		e.data = b[offData : offData+n]
	}
	return e, nil
}

// parseBusReset reads a struct fw_cdev_event_bus_reset.
func parseBusReset(b []byte) BusInfo {
	u32 := func(off uintptr) uint32 { return binary.NativeEndian.Uint32(b[off:]) }
	return BusInfo{
		Generation: u32(offGeneration), NodeID: u32(offNodeID), LocalNodeID: u32(offLocalNode),
		BMNodeID: u32(offBMNode), IRMNodeID: u32(offIRMNode), RootNodeID: u32(offRootNode),
	}
}
