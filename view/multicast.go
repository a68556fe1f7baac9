package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/netsim"
)

func WriteMulticastText(w io.Writer, source string, res *multicast.Result) {
	fmt.Fprintf(w, "fwsim multicast: %s, %s", res.Algo, multicastSettings(res, false))
	if res.Stop {
		fmt.Fprint(w, ", stop signal")
	}
	fmt.Fprintf(w, "\ntopology: %s\nsender: %s\n", source, res.Sender)
	for _, l := range eventLines(res.Crashes, res.Joins, res.Leaves, "") {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "\nmembers:")
	vsync := res.Algo == "vsync"
	var t table
	header := []string{"node", "delivered", "expected", "duplicates", "missing", "crashed"}
	if vsync {
		header = append(header, "views")
	}
	t.add(header...)
	for _, m := range res.Members {
		missing := "-"
		if len(m.Missing) > 0 {
			missing = fmt.Sprint(m.Missing)
		}
		if m.GaveUp {
			missing += " (gave up)"
		}
		crashed := "-"
		if m.CrashedAt >= 0 {
			crashed = fmt.Sprintf("at %.3f", m.CrashedAt)
		}
		row := []string{m.Node, strconv.Itoa(m.Delivered), strconv.Itoa(m.Expected), strconv.Itoa(m.Duplicates), missing, crashed}
		if vsync {
			row = append(row, joinInts(m.Views))
		}
		t.add(row...)
	}
	t.write(w, "  ")
	fmt.Fprintln(w)
	if vsync {
		writeViews(w, res.Views)
	}
	for _, g := range res.Guarantees {
		switch {
		case !g.Promised:
			fmt.Fprintf(w, "%s: %s\n", g.Name, g.Detail)
		case g.Held:
			fmt.Fprintf(w, "%s: held\n", g.Name)
		default:
			fmt.Fprintf(w, "%s: VIOLATED, %s\n", g.Name, g.Detail)
		}
	}
	toCrashed := ""
	if res.ToCrashed > 0 {
		toCrashed = fmt.Sprintf(", %d reached crashed nodes", res.ToCrashed)
	}
	fmt.Fprintf(w, "packets sent: %s; %s\n", byType(res.Sent), packetUnit(res.Medium))
	fmt.Fprintf(w, "crossings: %s; %s\n", byType(res.Transmissions), crossingUnit(res.Medium))
	fmt.Fprintf(w, "receptions: %d copies reached a live addressee; %d missed theirs on the way%s\n", res.Receptions, res.Lost, toCrashed)
	fmt.Fprintf(w, "DATA lost: %d of %d multicasts missed some member\n", res.LostData, res.Messages)
	if res.Algo == "srm" {
		fmt.Fprintf(w, "suppression: %d NACKs spared (losses repaired on another's NACK), %d repairs spared\n",
			res.NACKsSpared, res.RepairsSpared)
	}
	fmt.Fprintf(w, "time: %.3f delays\n", res.Time)
	if res.Trace != nil {
		writeTraceTable(w, "delays", res.Trace)
	}
}

// multicastSettings names the settings of run r: seed, stream, loss and
// medium, with the cables given a loss of their own.
func multicastSettings(r *multicast.Result, stop bool) string {
	s := fmt.Sprintf("seed %d, messages %d, loss %g, medium %s", r.Seed, r.Messages, r.Loss, r.Medium)
	for _, c := range r.CableLosses {
		s += fmt.Sprintf(", loss %g on %s-%s", c.P, c.A, c.B)
	}
	if stop {
		s += ", stop signal (nack, srm)"
	}
	return s
}

// packetUnit says what one packet is on medium.
func packetUnit(medium string) string {
	if medium == multicast.MediumMesh {
		return "a multicast is one packet per addressee"
	}
	return "a multicast is one packet"
}

// crossingUnit says what a crossing is on medium.
func crossingUnit(medium string) string {
	if medium == multicast.MediumMesh {
		return "links a packet crossed, one per packet"
	}
	return "cables a packet crossed on the bus's tree, the one it was lost on included"
}

// byType writes counts as 12 (DATA 5, NACK 7).
func byType(m netsim.Messages) string {
	parts := make([]string, len(m.ByType))
	for i, c := range m.ByType {
		parts[i] = fmt.Sprintf("%s %d", c.Type, c.Count)
	}
	return fmt.Sprintf("%d (%s)", m.Total, strings.Join(parts, ", "))
}

// writeViews lists vsync's views: who was in each, who proposed it, the
// messages sent in it, and who installed it.
func writeViews(w io.Writer, views []multicast.View) {
	fmt.Fprintln(w, "views:")
	var t table
	t.add("view", "members", "coordinator", "messages", "installed by")
	for _, v := range views {
		messages := "-"
		if v.To >= v.From {
			messages = fmt.Sprintf("%d-%d", v.From, v.To)
		}
		t.add(strconv.Itoa(v.Number), strings.Join(v.Members, ","), v.Coordinator, messages, strings.Join(v.Installed, ","))
	}
	t.write(w, "  ")
	fmt.Fprintln(w)
}

// joinInts writes ns as 1,2,3, or - when there are none.
func joinInts(ns []int) string {
	if len(ns) == 0 {
		return "-"
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// eventLines names the crashes, joins and leaves asked for, a line each
// when there are any; taker, such as " (vsync)", follows the names of joins
// and leaves when not every run takes them.
func eventLines(crashes, joins, leaves []multicast.Event, taker string) []string {
	var lines []string
	for _, events := range []struct {
		name string
		list []multicast.Event
	}{{"crashes", crashes}, {"joins" + taker, joins}, {"leaves" + taker, leaves}} {
		if len(events.list) > 0 {
			lines = append(lines, events.name+": "+formatEvents(events.list))
		}
	}
	return lines
}

// guaranteesCell counts a run's guarantees as held, VIOLATED and not
// promised, e.g. "1 held, 1 VIOLATED".
func guaranteesCell(gs []multicast.Guarantee) string {
	var held, violated, unpromised int
	for _, g := range gs {
		switch {
		case !g.Promised:
			unpromised++
		case g.Held:
			held++
		default:
			violated++
		}
	}
	parts := []string{fmt.Sprintf("%d held", held)}
	if violated > 0 {
		parts = append(parts, fmt.Sprintf("%d VIOLATED", violated))
	}
	if unpromised > 0 {
		parts = append(parts, fmt.Sprintf("%d not promised", unpromised))
	}
	return strings.Join(parts, ", ")
}
