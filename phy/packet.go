package phy

import "fmt"

// PacketKind is the type of a PHY packet, from bits 31–30 of its first
// quadlet (docs/protocol.md §9.1).
type PacketKind uint8

// PHY packet kinds; the value is the two-bit code.
const (
	PhyConfigPacket PacketKind = 0 // 00, also 1394a extended PHY packets
	LinkOnPacket    PacketKind = 1 // 01
	SelfIDPacket    PacketKind = 2 // 10
	VersaPHYPacket  PacketKind = 3 // 11, 1394-2008
)

// Kind is the kind of the PHY packet whose first quadlet is q.
func Kind(q uint32) PacketKind { return PacketKind(q >> 30) }

func (k PacketKind) String() string {
	switch k {
	case PhyConfigPacket:
		return "PHY config"
	case LinkOnPacket:
		return "link-on"
	case SelfIDPacket:
		return "self-ID"
	case VersaPHYPacket:
		return "VersaPHY"
	}
	return fmt.Sprintf("PacketKind(%d)", uint8(k))
}

// CheckInverse checks that inverse is the bitwise inverse of q, as the second
// quadlet of every PHY packet must be; the link uses it to detect corruption.
func CheckInverse(q, inverse uint32) error {
	if inverse != ^q {
		return fmt.Errorf("%w: 0x%08x followed by 0x%08x, want 0x%08x", ErrBadInverse, q, inverse, ^q)
	}
	return nil
}
