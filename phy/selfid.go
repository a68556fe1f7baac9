package phy

import (
	"fmt"
	"slices"
	"strings"
)

// SelfID is one self-ID packet quadlet, without its inverse (docs/protocol.md §9.1).
// Packet #0 carries the node's fields and ports 0–2; extended packets #1–#3
// (n = 0, 1, 2) carry eight ports each. The node fields read garbage on an
// extended packet: check IsExtended first.
type SelfID uint32

const (
	selfIDExtended  = 1 << 23
	selfIDLink      = 1 << 22
	selfIDContender = 1 << 11
	selfIDInitiated = 1 << 1
	selfIDMore      = 1 << 0

	// maxPorts is the 1394-1995 limit: four packets of ports.
	maxPorts   = 27
	maxPackets = 4
)

// IsSelfID reports bits 31–30 = 10.
func (s SelfID) IsSelfID() bool { return Kind(uint32(s)) == SelfIDPacket }

// PhyID is the sender's physical ID.
func (s SelfID) PhyID() int { return int(s>>24) & 0x3f }

// IsExtended reports an extended packet (#1–#3), bit 23.
func (s SelfID) IsExtended() bool { return s&selfIDExtended != 0 }

// ExtendedSeq is n, the sequence number of an extended packet: it is packet
// #n+1.
func (s SelfID) ExtendedSeq() int { return int(s>>20) & 7 }

// LinkActive is L: the node's link layer is active.
func (s SelfID) LinkActive() bool { return s&selfIDLink != 0 }

// GapCount is the node's gap count.
func (s SelfID) GapCount() int { return int(s>>16) & 0x3f }

// Speed is the node's maximum speed.
func (s SelfID) Speed() Speed { return Speed(s>>14) & 3 }

// Delay is del, the repeat delay code of 1394-1995 (reserved in 1394a).
func (s SelfID) Delay() int { return int(s>>12) & 3 }

// Contender is c: the node can be isochronous resource manager.
func (s SelfID) Contender() bool { return s&selfIDContender != 0 }

// PowerClass is pwr.
func (s SelfID) PowerClass() int { return int(s>>8) & 7 }

// InitiatedReset is i: this node initiated the bus reset.
func (s SelfID) InitiatedReset() bool { return s&selfIDInitiated != 0 }

// More is m: another packet of the same node follows.
func (s SelfID) More() bool { return s&selfIDMore != 0 }

// number is the packet's position among its node's packets: 0 for packet #0,
// n+1 for an extended one.
func (s SelfID) number() int {
	if s.IsExtended() {
		return s.ExtendedSeq() + 1
	}
	return 0
}

// portPacket and portShift place port p (docs/protocol.md §9.1): packet #0 holds ports 0–2
// at shifts 6, 4, 2; packet #k holds eight more from shift 16 down.
func portPacket(p int) int { return (p + 5) / 8 }
func portShift(p int) int  { return 16 - 2*((p+5)%8) }

// portsIn is how many ports k packets carry.
func portsIn(k int) int { return 8*k - 5 }

// Port is the status of port p as this packet reports it. p is the PHY's
// port number: packet #0 carries ports 0–2, extended packet n ports 3+8n to
// 10+8n; ports the packet does not carry read as PortAbsent.
func (s SelfID) Port(p int) PortStatus {
	if p < 0 || portPacket(p) != s.number() {
		return PortAbsent
	}
	return PortStatus(s>>portShift(p)) & 3
}

// String is a one-line decode, stable for golden files:
// "phy 0 #0 L gap 5 S400 c pwr 4 p0:parent p1:absent p2:absent" for packet #0
// (flags L, c, i, m shown only when set, del only when nonzero),
// "phy 0 #1 p3:ncon … p10:absent" for extended ones.
func (s SelfID) String() string {
	if !s.IsSelfID() {
		return fmt.Sprintf("not a self-ID (0x%08x)", uint32(s))
	}
	var b strings.Builder
	k := s.number()
	fmt.Fprintf(&b, "phy %d #%d", s.PhyID(), k)
	if k == 0 {
		if s.LinkActive() {
			b.WriteString(" L")
		}
		fmt.Fprintf(&b, " gap %d %v", s.GapCount(), s.Speed())
		if s.Delay() != 0 {
			fmt.Fprintf(&b, " del %d", s.Delay())
		}
		if s.Contender() {
			b.WriteString(" c")
		}
		fmt.Fprintf(&b, " pwr %d", s.PowerClass())
	}
	for p := max(0, portsIn(k)); p < portsIn(k+1); p++ {
		fmt.Fprintf(&b, " p%d:%v", p, s.Port(p))
	}
	if k == 0 && s.InitiatedReset() {
		b.WriteString(" i")
	}
	if s.More() {
		b.WriteString(" m")
	}
	return b.String()
}

// SelfIDInfo is one node's self-ID, decoded from all its packets.
type SelfIDInfo struct {
	PhyID          int
	LinkActive     bool
	GapCount       int
	Speed          Speed
	Delay          int // del: 1394-1995 only, 0 in 1394a
	Contender      bool
	PowerClass     int
	InitiatedReset bool
	Ports          []PortStatus // port p at index p; 1–27 entries
}

// Encode gives the node's packets: 1 for up to 3 ports, 2 for 4–11, 3 for
// 12–19, 4 for 20–27, with m set on all but the last.
func (f SelfIDInfo) Encode() ([]SelfID, error) {
	packets, err := f.AppendEncode(make([]SelfID, 0, portPacket(len(f.Ports)-1)+1))
	if err != nil {
		return nil, err
	}
	return packets, nil
}

// AppendEncode appends the node's packets to dst, as Encode gives them, and
// returns the extended slice; dst is returned unchanged with the error. It
// lets a caller that encodes once per bus reset reuse one buffer.
func (f SelfIDInfo) AppendEncode(dst []SelfID) ([]SelfID, error) {
	if err := f.check(); err != nil {
		return dst, err
	}
	first, n := len(dst), portPacket(len(f.Ports)-1)+1
	dst = slices.Grow(dst, n)[:first+n]
	packets := dst[first:] // every quadlet is assigned before ports are ORed in
	s := SelfID(uint32(SelfIDPacket)<<30|uint32(f.PhyID)<<24) |
		SelfID(f.GapCount)<<16 | SelfID(f.Speed)<<14 | SelfID(f.Delay)<<12 | SelfID(f.PowerClass)<<8
	if f.LinkActive {
		s |= selfIDLink
	}
	if f.Contender {
		s |= selfIDContender
	}
	if f.InitiatedReset {
		s |= selfIDInitiated
	}
	packets[0] = s
	for k := 1; k < len(packets); k++ {
		packets[k] = SelfID(uint32(SelfIDPacket)<<30|uint32(f.PhyID)<<24) | selfIDExtended | SelfID(k-1)<<20
	}
	for p, st := range f.Ports {
		packets[portPacket(p)] |= SelfID(st) << portShift(p)
	}
	for k := range len(packets) - 1 {
		packets[k] |= selfIDMore
	}
	return dst, nil
}

func (f SelfIDInfo) check() error {
	for _, field := range []struct {
		name     string
		v, limit int
	}{
		{"phy_ID", f.PhyID, 63},
		{"gap count", f.GapCount, 63},
		{"speed", int(f.Speed), int(S800)},
		{"delay", f.Delay, 3},
		{"power class", f.PowerClass, 7},
	} {
		if err := checkField(field.name, field.v, field.limit); err != nil {
			return err
		}
	}
	if len(f.Ports) == 0 || len(f.Ports) > maxPorts {
		return fmt.Errorf("%w: %d ports, want 1–%d", ErrInvalidField, len(f.Ports), maxPorts)
	}
	for p, st := range f.Ports {
		if st > PortChild {
			return fmt.Errorf("%w: port %d status %d, want 0–3", ErrInvalidField, p, st)
		}
	}
	return nil
}

// DecodeSelfIDInfo decodes one node's packets. Ports has every port field the
// packets carry (3, 11, 19 or 27), trailing absent ports included. Reserved
// bits are ignored, as Linux ignores them, so re-encoding clears them.
func DecodeSelfIDInfo(packets []SelfID) (SelfIDInfo, error) {
	if len(packets) == 0 {
		return SelfIDInfo{}, fmt.Errorf("%w: no packets", ErrInconsistentExtended)
	}
	if err := checkGroup(packets, 0); err != nil {
		return SelfIDInfo{}, err
	}
	s := packets[0]
	f := SelfIDInfo{
		PhyID:          s.PhyID(),
		LinkActive:     s.LinkActive(),
		GapCount:       s.GapCount(),
		Speed:          s.Speed(),
		Delay:          s.Delay(),
		Contender:      s.Contender(),
		PowerClass:     s.PowerClass(),
		InitiatedReset: s.InitiatedReset(),
		Ports:          make([]PortStatus, portsIn(len(packets))),
	}
	for p := range f.Ports {
		f.Ports[p] = packets[portPacket(p)].Port(p)
	}
	return f, nil
}

// SplitSelfIDs groups a stream of self-ID quadlets (inverse quadlets already
// removed) into each node's packets, in stream order. A malformed sequence is
// a *SelfIDError wrapping ErrInconsistentExtended (docs/protocol.md §9.3 item 1). The
// groups share q's backing array.
func SplitSelfIDs(q []SelfID) ([][]SelfID, error) {
	var groups [][]SelfID
	for start := 0; start < len(q); {
		// m alone decides where a node's packets end; checkGroup then
		// judges whether they are a proper sequence.
		end := start + 1
		for end < len(q) && end-start < maxPackets && q[end-1].More() {
			end++
		}
		g := q[start:end:end]
		if err := checkGroup(g, start); err != nil {
			return nil, err
		}
		groups = append(groups, g)
		start = end
	}
	return groups, nil
}

// checkGroup checks that g, which starts at stream index base, is one
// node's proper packet sequence.
func checkGroup(g []SelfID, base int) error {
	node := -1
	if g[0].IsSelfID() {
		node = g[0].PhyID()
	}
	for k, s := range g {
		var detail string
		last := k == len(g)-1
		switch {
		case k == maxPackets:
			detail = fmt.Sprintf("more than %d packets", maxPackets)
		case !s.IsSelfID():
			detail = "not a self-ID packet"
		case k == 0 && s.IsExtended():
			detail = "extended packet with no packet #0 before it"
		case k > 0 && !s.IsExtended():
			detail = fmt.Sprintf("packet #0 where extended packet n=%d should be", k-1)
		case k > 0 && s.ExtendedSeq() != k-1:
			detail = fmt.Sprintf("extended packet n=%d, want n=%d", s.ExtendedSeq(), k-1)
		case s.PhyID() != node:
			detail = fmt.Sprintf("phy_ID %d among the packets of phy %d", s.PhyID(), node)
		case last && s.More() && k == maxPackets-1:
			detail = fmt.Sprintf("m set on packet #%d, but a node has at most %d packets", k, maxPackets)
		case last && s.More():
			detail = "m set, but no packet follows"
		case !last && !s.More():
			detail = "m clear, but more packets follow"
		default:
			continue
		}
		return &SelfIDError{Index: base + k, Quadlet: s, Node: node, Err: ErrInconsistentExtended, Detail: detail}
	}
	return nil
}
