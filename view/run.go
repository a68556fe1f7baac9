package view

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// WriteRunText writes the human report of a run: a header, each generation,
// and a summary line. Every time is in integer nanoseconds since power-up,
// as in the VCD and JSONL views; the timeline also gives each time after
// its generation's start.
func WriteRunText(w io.Writer, source string, res *bus.Result) {
	fmt.Fprintf(w, "fwsim run: %s\n", res.Settings())
	fmt.Fprintf(w, "topology: %s\n", source)
	first := res.FirstReset()
	if len(res.AwaitingConnect) > 0 {
		first += "; " + strings.Join(res.AwaitingConnect, ", ") + " not yet: a scripted connect plugs it in later"
	}
	if res.ForceRoot != "" {
		first += "; force root " + res.ForceRoot
	}
	fmt.Fprintf(w, "first reset: %s\n", first)
	if len(res.OutOfSpec) > 0 {
		fmt.Fprintf(w, "OUT OF SPEC: %s\n", strings.Join(res.OutOfSpec, "; "))
	}
	all := busNodes(res)
	for _, g := range res.Generations {
		fmt.Fprintln(w)
		writeGenerationText(w, &g, all)
	}
	if res.Traffic != nil {
		fmt.Fprintln(w)
		writeTrafficText(w, res.Traffic)
	}
	fmt.Fprintln(w)
	ok := len(res.Generations) - res.FailedGenerations()
	fmt.Fprintf(w, "%d generation%s, %d ok; %d events; end %d ns\n",
		len(res.Generations), Plural(len(res.Generations)), ok, res.Events, res.EndNs)
}

// busNodes lists every node any generation of the run holds, in the order
// they first appear.
func busNodes(res *bus.Result) []string {
	var all []string
	seen := map[string]bool{}
	for _, g := range res.Generations {
		for _, n := range g.Nodes {
			if !seen[n.ID] {
				seen[n.ID] = true
				all = append(all, n.ID)
			}
		}
	}
	return all
}

func writeGenerationText(w io.Writer, g *bus.Generation, all []string) {
	fmt.Fprintf(w, "generation %d at %d ns (%s): %s\n", g.Index, g.StartNs, g.Cause, g.Outcome)
	if len(g.Nodes) < len(all) {
		// The cables leave the nodes in parts (a split bus, an unplugged
		// node), each its own generation: say which, or the missing nodes
		// read as lost.
		var here, apart []string
		in := map[string]bool{}
		for _, n := range g.Nodes {
			in[n.ID] = true
			here = append(here, n.ID)
		}
		for _, id := range all {
			if !in[id] {
				apart = append(apart, id)
			}
		}
		fmt.Fprintf(w, "  bus: %s, %d of the %d nodes; not on it: %s\n",
			strings.Join(here, ", "), len(here), len(all), strings.Join(apart, ", "))
	}
	for _, p := range g.Problems {
		fmt.Fprintf(w, "    problem: %s\n", p)
	}
	for _, p := range g.Warnings {
		fmt.Fprintf(w, "    warning: %s\n", p)
	}
	fmt.Fprintf(w, "  root: %s\n", orNone(g.Root))

	cabled := cabledPorts(g.Links)
	var nodes table
	showState := false
	for _, n := range g.Nodes {
		showState = showState || n.State != phy.A0Idle
	}
	header := []string{"id", "phy_ID", "role", "parent", "rounds", "ports"}
	if showState {
		header = append(header, "state")
	}
	nodes.add(header...)
	for _, n := range g.Nodes {
		role := "-"
		switch {
		case n.Root:
			role = "root"
		case n.ParentPort >= 0:
			role = "child"
		}
		row := []string{n.ID, intOrDash(n.PhyID), role, portOrDash(n.ParentPort), strconv.Itoa(n.ContentionRounds), runPorts(n, cabled)}
		if showState && n.State != phy.A0Idle {
			row = append(row, n.State.String())
		}
		nodes.add(row...)
	}
	nodes.write(w, "  ")

	if len(g.Contention) == 0 {
		fmt.Fprintln(w, "  root contention: none")
	} else {
		fmt.Fprintln(w, "  root contention:")
		for _, c := range g.Contention {
			span := fmt.Sprintf("from %d ns, unresolved", g.StartNs+c.StartNs)
			if c.EndNs >= 0 {
				span = fmt.Sprintf("%d to %d ns (%d ns)", g.StartNs+c.StartNs, g.StartNs+c.EndNs, c.EndNs-c.StartNs)
			}
			fmt.Fprintf(w, "    %s:%d - %s:%d: %d round%s, %s, parent %s\n",
				c.Nodes[0], c.Ports[0], c.Nodes[1], c.Ports[1], c.Rounds, Plural(c.Rounds),
				span, orNone(c.Parent))
			if c.OneSided != "" {
				fmt.Fprintf(w, "      %s\n", c.OneSided)
			}
		}
	}
	writeTimeline(w, g)

	if len(g.SelfIDs) == 0 {
		fmt.Fprintln(w, "  self-IDs: none")
		return
	}
	fmt.Fprintf(w, "  self-IDs (%d):\n", len(g.SelfIDs))
	if len(g.Nodes) > phy.MaxNodes {
		fmt.Fprintf(w, "    (phy_IDs from %d on do not fit the 6-bit field, whose %d is the broadcast address: those packets say %d, which names no node; the table above gives every PHY's ID)\n", phy.NoPhyID, phy.NoPhyID, phy.NoPhyID)
	}
	for _, q := range g.SelfIDs {
		fmt.Fprintf(w, "    0x%08x  %s\n", uint32(q), q)
	}
	if d := g.Manager; d != nil {
		fmt.Fprintf(w, "  bus manager %s at %d ns, turn %d: %s\n", d.Node, d.AtNs, d.Turn, d.Why)
	}
}

// writeTimeline writes the phase boundaries and every root-contention round,
// with both nodes' coins and waits, in time order.
func writeTimeline(w io.Writer, g *bus.Generation) {
	type entry struct {
		at   int64
		what string
	}
	entries := []entry{{0, "reset starts"}}
	if g.Timing.ResetEnd >= 0 {
		entries = append(entries, entry{g.Timing.ResetEnd, "reset done; tree identify starts"})
	}
	for _, c := range g.Contention {
		// Round k is each node's k-th wait.
		var waits [2][]bus.Backoff
		for _, b := range c.Backoffs {
			i := 0
			if b.Node == c.Nodes[1] {
				i = 1
			}
			waits[i] = append(waits[i], b)
		}
		for k := range max(len(waits[0]), len(waits[1])) {
			at := int64(-1)
			var parts []string
			for _, ws := range waits {
				if k < len(ws) {
					b := ws[k]
					if at < 0 || b.StartNs < at {
						at = b.StartNs
					}
					parts = append(parts, fmt.Sprintf("%s %s %d", b.Node, fastOrSlow(b.Fast), b.WaitNs))
				}
			}
			entries = append(entries, entry{at, fmt.Sprintf("root contention %s:%d - %s:%d, round %d: %s",
				c.Nodes[0], c.Ports[0], c.Nodes[1], c.Ports[1], k+1, strings.Join(parts, ", "))})
		}
	}
	for _, c := range g.ConfigTimeouts {
		entries = append(entries, entry{c.AtNs, c.Node + " signals CONFIG_TIMEOUT to its link, in T0"})
	}
	if g.Timing.TreeIDDone >= 0 {
		entries = append(entries, entry{g.Timing.TreeIDDone, "tree identify done, root " + orNone(g.Root) + "; self identify starts"})
	}
	if g.Timing.SelfIDDone >= 0 {
		entries = append(entries, entry{g.Timing.SelfIDDone, "self identify done: " + string(g.Outcome)})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a.at, b.at) })
	fmt.Fprintln(w, "  timeline (ns; waits in ns):")
	var t table
	t.add("at", "since start", "")
	for _, e := range entries {
		t.add(strconv.FormatInt(g.StartNs+e.at, 10), strconv.FormatInt(e.at, 10), e.what)
	}
	t.writeRight(w, "    ", 2)
}

func intOrDash(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func portOrDash(p int) string {
	if p < 0 {
		return "-"
	}
	return "p" + strconv.Itoa(p)
}

// portList renders port states as "p0:child p1:parent p2:ncon".
func portList(ports []phy.PortStatus) string {
	names := make([]string, len(ports))
	for i, p := range ports {
		names[i] = p.String()
	}
	return joinPorts(names)
}

// runPorts renders a node's ports as portList does, but a cabled port that
// tree identify left unresolved is no "not connected", as its self-ID
// status would say: it is "loop" when its cable lies on a loop of the
// cables, else "cabled" (a port toward a loop, or a tree identify cut
// short).
func runPorts(n bus.NodeResult, cabled map[nodePort]string) string {
	names := make([]string, len(n.Ports))
	for i, p := range n.Ports {
		names[i] = p.String()
		if c, ok := cabled[nodePort{n.ID, i}]; ok && p == phy.PortNotConnected {
			names[i] = c
		}
	}
	return joinPorts(names)
}

// joinPorts writes port i's name as "pI:NAME", space-separated.
func joinPorts(names []string) string {
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("p%d:%s", i, name)
	}
	return strings.Join(parts, " ")
}

// nodePort names a port of a node.
type nodePort struct {
	node string
	port int
}

// cabledPorts maps every cabled port of links to what an unresolved one
// is called: "loop" when its cable lies on a loop, else "cabled".
func cabledPorts(links []bus.Link) map[nodePort]string {
	ports := map[nodePort]string{}
	for i, onLoop := range bus.OnLoop(links) {
		name := "cabled"
		if onLoop {
			name = "loop"
		}
		for end := range 2 {
			ports[nodePort{links[i].Nodes[end], links[i].Ports[end]}] = name
		}
	}
	return ports
}
