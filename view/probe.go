package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/phy"
)

func WriteSnapshotText(w io.Writer, s *hwtest.Snapshot, b *hwtest.Bus, sent *phy.PhyConfig) {
	i := s.Info
	fmt.Fprintf(w, "fwsim probe: %s, generation %d: local node %s, root %s, IRM %s, bus manager %s\n",
		s.Path, i.Generation, nodeID(i.LocalNodeID), nodeID(i.RootNodeID), nodeID(i.IRMNodeID), nodeID(i.BMNodeID))
	if sent != nil {
		fmt.Fprintf(w, "before this reset fwsim sent the PHY configuration packet 0x%08x (%s): %s\n", uint32(*sent), phyConfigFields(*sent), phyConfigOutcome(*sent, b))
	}
	fmt.Fprintln(w)
	writeBusText(w, 1, b)
	fmt.Fprintln(w)
}

// phyConfigFields says what c forces: "root phy 2, gap count 5".
func phyConfigFields(c phy.PhyConfig) string {
	var fields []string
	if c.ForceRoot() {
		fields = append(fields, fmt.Sprintf("root phy %d", c.RootID()))
	}
	if c.SetGapCount() {
		fields = append(fields, fmt.Sprintf("gap count %d", c.GapCount()))
	}
	return strings.Join(fields, ", ")
}

// phyConfigOutcome says whether bus shows what the PHY configuration
// packet c forced. An emulation compares with the bus only when it does:
// crosscheck forces the root the bus shows, and the topology the gap count
// the nodes report.
func phyConfigOutcome(c phy.PhyConfig, b *hwtest.Bus) string {
	var differ []string
	if c.ForceRoot() && b.Root != c.RootID() {
		differ = append(differ, fmt.Sprintf("root phy %d", b.Root))
	}
	if c.SetGapCount() && (!b.GapConsistent || b.GapCount != c.GapCount()) {
		differ = append(differ, "gap counts that differ from it")
	}
	if len(differ) == 0 {
		return "the bus shows it"
	}
	return "the bus shows " + strings.Join(differ, " and ") + ": another PHY configuration followed, perhaps the Linux bus manager's"
}

// nodeID shows a node ID with its phy_ID; 0xffff is "none" (no bus manager
// yet).
func nodeID(id uint32) string {
	if id&0xffff == 0xffff {
		return "none"
	}
	return fmt.Sprintf("%#04x (phy %d)", id, hwtest.PhyID(id))
}

// WriteUSBListText lists the USB devices fwsim probe --usb list found.
func WriteUSBListText(w io.Writer, devs []hwtest.USBDeviceInfo) {
	fmt.Fprintf(w, "%d USB device%s attached:\n", len(devs), Plural(len(devs)))
	for _, d := range devs {
		fmt.Fprintf(w, "  %s\n", d)
	}
	fmt.Fprintln(w, "None of them is a 1394 bus: fwsim reads only capture devices that stream self-IDs (docs/hardware.md).")
}
