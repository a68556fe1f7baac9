package phy

import "fmt"

// LinkOn is a link-on packet (docs/protocol.md §9.1: 01 | phy_ID | 0): it asks the
// addressed PHY to power up its link.
type LinkOn uint32

// NewLinkOn makes the link-on packet addressed to phyID (0–63).
func NewLinkOn(phyID int) (LinkOn, error) {
	if err := checkField("phy_ID", phyID, 63); err != nil {
		return 0, err
	}
	return LinkOn(uint32(LinkOnPacket)<<30 | uint32(phyID)<<24), nil
}

// PhyID is the addressed PHY.
func (l LinkOn) PhyID() int { return int(l>>24) & 0x3f }

func (l LinkOn) String() string { return fmt.Sprintf("link-on phy %d", l.PhyID()) }
