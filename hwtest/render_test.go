package hwtest

import (
	"fmt"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// The renderers below write self-IDs the way each producer does, from the
// producers' format strings, independently of the parsers.

// renderRaw writes one quadlet per line, inverses optional; a blank line
// between generations.
func renderRaw(gens [][]phy.SelfID, inverses bool) string {
	var b strings.Builder
	for i, g := range gens {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, q := range g {
			if inverses {
				fmt.Fprintf(&b, "0x%08x, 0x%08x\n", uint32(q), ^uint32(q))
			} else {
				fmt.Fprintf(&b, "%08X\n", uint32(q))
			}
		}
	}
	return b.String()
}

// renderOHCI follows log_selfids in drivers/firewire/ohci.c.
func renderOHCI(gens [][]phy.SelfID) string {
	speed := []string{"S100", "S200", "S400", "beta"}
	power := []string{"+0W", "+15W", "+30W", "+45W", "-3W", " ?W", "-3..-6W", "-3..-10W"}
	p := func(q phy.SelfID, shift int) byte { return ".-pc"[q>>shift&3] }
	var b strings.Builder
	const prefix = "[  843.118071] firewire_ohci 0000:05:00.0: "
	for i, g := range gens {
		fmt.Fprintf(&b, "%s%d selfIDs, generation %d, local node ID ffc%d\n", prefix, len(g), i+1, 0)
		for _, q := range g {
			if q&(1<<23) == 0 {
				flags := ""
				if q>>22&1 != 0 {
					flags += "L"
				}
				if q>>11&1 != 0 {
					flags += "c"
				}
				if q&2 != 0 {
					flags += "i"
				}
				fmt.Fprintf(&b, "%sselfID 0: %08x, phy %d [%c%c%c] %s gc=%d %s %s\n", prefix, uint32(q), q>>24&63,
					p(q, 6), p(q, 4), p(q, 2), speed[q>>14&3], q>>16&63, power[q>>8&7], flags)
			} else {
				fmt.Fprintf(&b, "%sselfID n: %08x, phy %d [%c%c%c%c%c%c%c%c]\n", prefix, uint32(q), q>>24&63,
					p(q, 16), p(q, 14), p(q, 12), p(q, 10), p(q, 8), p(q, 6), p(q, 4), p(q, 2))
			}
		}
	}
	return b.String()
}

// printArray is the kernel's __print_array of u32: "{0x1,0x2}".
func printArray(qs []phy.SelfID) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprintf("0x%x", uint32(q))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// renderTrace writes bus_reset_handle events, or one self_id_sequence event
// per node, as tracefs prints them.
func renderTrace(gens [][]phy.SelfID, perNode bool) string {
	var b strings.Builder
	for i, g := range gens {
		const head = "     kworker/1:2-1403    [001] .....  2210.402%03d: "
		if !perNode {
			fmt.Fprintf(&b, head+"bus_reset_handle: card_index=0 generation=%d node_id=0x00c0 bm_abdicate=false self_ids=%s\n",
				i, i+1, printArray(g))
			continue
		}
		groups, err := phy.SplitSelfIDs(append([]phy.SelfID(nil), g...))
		if err != nil {
			panic(err)
		}
		for _, n := range groups {
			s := n[0]
			fmt.Fprintf(&b, head+"self_id_sequence: card_index=0 generation=%d phy_id=0x%02x link_active=%t gap_count=%d scode=%d contender=%t power_class=%d initiated_reset=%t port_status={0x1} self_id_sequence=%s\n",
				i, i+1, s.PhyID(), s.LinkActive(), s.GapCount(), s.Speed(), s.Contender(), s.PowerClass(), s.InitiatedReset(), printArray(n))
		}
	}
	return b.String()
}

// renderIEEE1394 follows handle_selfid of the old ohci1394 driver.
func renderIEEE1394(gens [][]phy.SelfID) string {
	var b strings.Builder
	for _, g := range gens {
		b.WriteString("ieee1394: Initiating bus reset\n")
		for _, q := range g {
			fmt.Fprintf(&b, "ohci1394: fw-host0: SelfID packet 0x%x received\n", uint32(q))
		}
		b.WriteString("ohci1394: fw-host0: SelfID complete\n")
	}
	return b.String()
}

// renderFireBug writes FireBug-style packet lines.
func renderFireBug(gens [][]phy.SelfID) string {
	var b strings.Builder
	for i, g := range gens {
		fmt.Fprintf(&b, "%04d.000.000  Bus Reset\n", i)
		for k, q := range g {
			fmt.Fprintf(&b, "%04d.%03d.120  Self-ID  %08x  %08x\n", i, k, uint32(q), ^uint32(q))
		}
	}
	return b.String()
}

// renderNosy follows print_packet of nosy-dump -x (the later form, without
// a comma after the gap count): with -x a bus reset, 4 bytes of timestamp
// alone, is followed by the empty bracket of its other bytes.
func renderNosy(gens [][]phy.SelfID) string {
	var b strings.Builder
	for i, g := range gens {
		fmt.Fprintf(&b, "%6d  bus reset  []\r\n", 1000*i)
		for k, s := range g {
			q := uint32(s)
			fmt.Fprintf(&b, "%6d  ", 1000*i+k+1)
			if q&(1<<23) != 0 {
				fmt.Fprintf(&b, "extended self id: phy_id=%02x, seq=%d", q>>24&63, q>>20&7)
			} else {
				link := "not active"
				if q>>22&1 != 0 {
					link = "active"
				}
				fmt.Fprintf(&b, "self id: phy_id=%02x, link %s, gap_count=%d speed=%s", q>>24&63, link, q>>16&63, []string{"S100", "S200", "S400", "BETA"}[q>>14&3])
				if q>>11&1 != 0 {
					b.WriteString(", irm contender")
				}
				if q&2 != 0 {
					b.WriteString(", initiator")
				}
			}
			fmt.Fprintf(&b, "  [%08x %08x 0000000f]\r\n", q, ^q)
		}
	}
	return b.String()
}

// renderFwcontrol follows show_topology_map of FreeBSD's fwcontrol -t. It
// loses the ports of extended packets, so it is no rendering of every bus.
func renderFwcontrol(gens [][]phy.SelfID) string {
	ports := []string{" ", "-", "P", "C"}
	var b strings.Builder
	for i, g := range gens {
		fmt.Fprintf(&b, "crc_len: %d generation:%d node_count:%d sid_count:%d\n", len(g)+2, i+1, countNodes(g), len(g))
		b.WriteString("id link gap_cnt speed delay cIRM power port0 port1 port2 ini more\n")
		for _, s := range g {
			q := uint32(s)
			if q>>23&1 != 0 {
				fmt.Fprintf(&b, "%02d sequel packet\n", q>>24&63)
				continue
			}
			fmt.Fprintf(&b, "%02d   %2d      %2d  %4s     %d   %3s     %s     %s     %s   %d    %d\n",
				q>>24&63, q>>22&1, q>>16&63, []string{"S100", "S200", "S400", "S800"}[q>>14&3], q>>11&1,
				[]string{" 0W", "15W", "30W", "45W", "-1W", "-2W", "-5W", "-9W"}[q>>8&7],
				ports[q>>6&3], ports[q>>4&3], ports[q>>2&3], q>>1&1, q&1)
		}
	}
	return b.String()
}

// renderFireSpy writes a FireSpy quadlets data file, the first block in
// hex with h, the others in decimal with their inverses.
func renderFireSpy(gens [][]phy.SelfID) string {
	var b strings.Builder
	for i, g := range gens {
		if i > 0 {
			b.WriteString("\r\n")
		}
		for _, q := range g {
			if i == 0 {
				fmt.Fprintf(&b, "%08Xh\r\n", uint32(q))
			} else {
				fmt.Fprintf(&b, "%d %d\r\n", uint32(q), ^uint32(q))
			}
		}
	}
	return b.String()
}

// renderDataTransit writes a Data Transit analyzer's trace lines, with the
// decoded fields known from its published excerpts.
func renderDataTransit(gens [][]phy.SelfID) string {
	var b strings.Builder
	line := 0
	for _, g := range gens {
		line++
		fmt.Fprintf(&b, "%03d BUS RESET                                                  298.1 MS\n", line)
		for _, s := range g {
			q := uint32(s)
			k, first, second := 0, "", ""
			if q>>23&1 != 0 {
				k = 1 + int(q>>20&7)
			} else {
				first = fmt.Sprintf(" ID=%02X L=%d GAP=%02X SP=%s C=%d I=%d", q>>24&63, q>>22&1, q>>16&63,
					[]string{"100", "200", "400", "800"}[q>>14&3], q>>11&1, q>>1&1)
				second = fmt.Sprintf(" PWR=%d", q>>8&7)
			}
			fmt.Fprintf(&b, "%03d SELFID PKT%d  %08X  01%s  168.7 US\n", line+1, k, q, first)
			fmt.Fprintf(&b, "%03d SELFID PKT%d  %08X  02%s  0.330 US\n", line+2, k, ^q, second)
			line += 2
		}
	}
	return b.String()
}

// renderTraceComplete writes firewire_ohci's self_id_complete events.
func renderTraceComplete(gens [][]phy.SelfID) string {
	var b strings.Builder
	for i, g := range gens {
		pairs := make([]phy.SelfID, 0, 2*len(g))
		for _, q := range g {
			pairs = append(pairs, q, ^q)
		}
		fmt.Fprintf(&b, "  irq/30-firewire-77  [000] d..1.  2210.402%03d: self_id_complete: card_index=0 is_error=false generation_at_bus_reset=%d generation_at_completion=%d timestamp=0x%04x packet_data=%s\n",
			i, i+1, i+1, 0x1234+i, printArray(pairs))
	}
	return b.String()
}

// renderTopologyMap dumps each generation's map with an address column.
func renderTopologyMap(gens [][]phy.SelfID) string {
	var b strings.Builder
	for i, g := range gens {
		m := EncodeTopologyMap(uint32(i+1), g)
		for k := 0; k < len(m); k += 4 {
			fmt.Fprintf(&b, "%012x:", uint64(0xfffff0001000)+uint64(4*k))
			for _, w := range m[k:min(k+4, len(m))] {
				fmt.Fprintf(&b, " %08x", w)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// renderings gives every rendering of gens, by name, with its format.
func renderings(gens [][]phy.SelfID) []struct {
	name   string
	format Format
	text   string
} {
	return []struct {
		name   string
		format Format
		text   string
	}{
		{"raw", FormatRaw, renderRaw(gens, false)},
		{"raw with inverses", FormatRaw, renderRaw(gens, true)},
		{"firewire-ohci", FormatOHCI, renderOHCI(gens)},
		{"bus_reset_handle", FormatTrace, renderTrace(gens, false)},
		{"self_id_sequence", FormatTrace, renderTrace(gens, true)},
		{"ieee1394", FormatIEEE1394, renderIEEE1394(gens)},
		{"firebug", FormatFireBug, renderFireBug(gens)},
		{"nosy-dump", FormatNosy, renderNosy(gens)},
		{"firespy", FormatFireSpy, renderFireSpy(gens)},
		{"data-transit", FormatDataTransit, renderDataTransit(gens)},
		{"self_id_complete", FormatTrace, renderTraceComplete(gens)},
		{"topology-map", FormatTopologyMap, renderTopologyMap(gens)},
	}
}

// quoteMail quotes every line of text as a mail client does, with prefix
// ("> ", ">> ", "> > " or ">"), a blank line with prefix's marks alone.
func quoteMail(text, prefix string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if strings.TrimSpace(l) == "" {
			b.WriteString(strings.TrimRight(prefix, " ") + "\n")
			continue
		}
		b.WriteString(prefix + l)
	}
	return b.String()
}
