package phy

import (
	"fmt"
	"strings"
)

// PhyConfig is a PHY configuration packet (docs/protocol.md §9.1: 00 | root_ID | R | T |
// gap_cnt | 0). With R=T=0 the same layout is a 1394a extended PHY packet.
type PhyConfig uint32

const (
	phyConfigR = 1 << 23
	phyConfigT = 1 << 22
)

// NewPhyConfig makes a PHY configuration packet. forceRoot (R) makes rootID
// the only node with force-root set; setGap (T) makes every node take gap.
// One of the two must be set: with neither, the quadlet would be an extended
// PHY packet.
func NewPhyConfig(rootID int, forceRoot, setGap bool, gap int) (PhyConfig, error) {
	if err := checkField("root_ID", rootID, 63); err != nil {
		return 0, err
	}
	if err := checkField("gap count", gap, 63); err != nil {
		return 0, err
	}
	if !forceRoot && !setGap {
		return 0, fmt.Errorf("%w: neither R nor T set, which makes an extended PHY packet", ErrInvalidField)
	}
	p := PhyConfig(uint32(PhyConfigPacket)<<30 | uint32(rootID)<<24 | uint32(gap)<<16)
	if forceRoot {
		p |= phyConfigR
	}
	if setGap {
		p |= phyConfigT
	}
	return p, nil
}

// RootID is the node that R makes root; with R=0 it is ignored, and in an
// extended PHY packet it is the addressed phy_ID.
func (p PhyConfig) RootID() int { return int(p>>24) & 0x3f }

// ForceRoot is R: set force-root (RHB) on RootID, clear it on all others.
func (p PhyConfig) ForceRoot() bool { return p&phyConfigR != 0 }

// SetGapCount is T: every node takes GapCount.
func (p PhyConfig) SetGapCount() bool { return p&phyConfigT != 0 }

// GapCount is the gap count that T sets.
func (p PhyConfig) GapCount() int { return int(p>>16) & 0x3f }

// IsExtended reports R=T=0: a 1394a extended PHY packet, not a configuration.
func (p PhyConfig) IsExtended() bool { return p&(phyConfigR|phyConfigT) == 0 }

// ExtendedType is the type of an extended PHY packet, bits 21–18.
func (p PhyConfig) ExtendedType() int { return int(p>>18) & 0xf }

// extendedTypeNames are the extended PHY packet types docs/protocol.md §9.1 names.
var extendedTypeNames = map[int]string{0: "ping", 1: "remote read", 5: "remote read", 8: "remote command"}

// String gives "PHY config root_ID 2 R", "PHY config root_ID 3 T gap 15" or
// "ext PHY packet phy 3 type 0 (ping)".
func (p PhyConfig) String() string {
	if p.IsExtended() {
		s := fmt.Sprintf("ext PHY packet phy %d type %d", p.RootID(), p.ExtendedType())
		if name, ok := extendedTypeNames[p.ExtendedType()]; ok {
			s += " (" + name + ")"
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PHY config root_ID %d", p.RootID())
	if p.ForceRoot() {
		b.WriteString(" R")
	}
	if p.SetGapCount() {
		fmt.Fprintf(&b, " T gap %d", p.GapCount())
	}
	return b.String()
}
