package view

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// WriteDOT writes the buses of a run as a Graphviz digraph, one cluster per
// generation, stacked in order from the top: each node labelled with its id and phy_ID, the root drawn with
// a double border, each cable an edge from child to parent labelled with the
// port at either end, and each unconnected port a small dashed stub. A
// generation whose self-IDs did not build a tree (a loop, a stall) draws its
// cables undirected and dashed, from Generation.Links, with every port
// labelled with the role the PHY gave it. The graph's label records the
// seed. Render it with dot -Tsvg.
func WriteDOT(w io.Writer, res *bus.Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph fwsim {\n  label=%s;\n  labelloc=t;\n  rankdir=BT;\n", dotQuote(res.Summary()))
	// Port labels stand beside the cable's ends, clear of the arrowheads.
	bw.WriteString("  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10, labeldistance=2, labelangle=35];\n")
	for gi := range res.Generations {
		writeDOTGeneration(bw, &res.Generations[gi])
	}
	writeDOTStacking(bw, res.Generations)
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing DOT: %w", err)
	}
	return nil
}

func writeDOTGeneration(bw *bufio.Writer, g *bus.Generation) {
	label := fmt.Sprintf("generation %d at %d ns (%s): %s", g.Index, g.StartNs, g.Cause, g.Outcome)
	if g.Tree == nil {
		label += "; no tree: cables as wired"
	}
	fmt.Fprintf(bw, "  subgraph cluster_g%d {\n    label=%s;\n", g.Index, dotQuote(label))
	name := func(id string) string { return dotQuote(fmt.Sprintf("g%d/%s", g.Index, id)) }
	byPhyID := map[int]string{}
	nodeOf := func(phyID int) string {
		if id, ok := byPhyID[phyID]; ok {
			return id
		}
		// A phy_ID no node took: the self-IDs say more than the PHYs. No
		// node id holds a blank, so no node has this name.
		return fmt.Sprintf("phy_ID %d", phyID)
	}
	for _, n := range g.Nodes {
		attrs := ""
		phyID := "phy_ID -"
		if n.PhyID >= 0 {
			phyID = fmt.Sprintf("phy_ID %d", n.PhyID)
			byPhyID[n.PhyID] = n.ID
		}
		if n.Root {
			phyID += ", root"
			attrs = ", peripheries=2, style=bold"
		}
		fmt.Fprintf(bw, "    %s [label=%s%s];\n", name(n.ID), dotQuote(n.ID+"\n"+phyID), attrs)
	}
	type portOf struct {
		node string
		port int
	}
	cabled := map[portOf]bool{}
	status := map[portOf]phy.PortStatus{}
	for _, n := range g.Nodes {
		for p, s := range n.Ports {
			status[portOf{n.ID, p}] = s
		}
	}
	// A cabled port the PHY left ncon never finished tree identify.
	role := func(p portOf) string {
		if s := status[p]; s == phy.PortParent || s == phy.PortChild {
			return fmt.Sprintf("p%d %s", p.port, s)
		}
		return fmt.Sprintf("p%d undecided", p.port)
	}
	if g.Tree == nil {
		for _, l := range g.Links {
			a, b := portOf{l.Nodes[0], l.Ports[0]}, portOf{l.Nodes[1], l.Ports[1]}
			cabled[a], cabled[b] = true, true
			fmt.Fprintf(bw, "    %s -> %s [dir=none, style=dashed, taillabel=%s, headlabel=%s];\n",
				name(a.node), name(b.node), dotQuote(role(a)), dotQuote(role(b)))
		}
	}
	for _, n := range g.Nodes {
		for p, s := range n.Ports {
			// With a tree the cables show the connected ports; without one
			// the cables are drawn as wired, and the ports without one are
			// stubs.
			if s == phy.PortAbsent || (g.Tree != nil && s != phy.PortNotConnected) || (g.Tree == nil && cabled[portOf{n.ID, p}]) {
				continue
			}
			// No node id holds ':', so no node has a stub's name.
			stub := name(fmt.Sprintf("%s:p%d", n.ID, p))
			fmt.Fprintf(bw, "    %s [label=%s, shape=plaintext, fontsize=10];\n", stub, dotQuote(fmt.Sprintf("p%d %s", p, s)))
			fmt.Fprintf(bw, "    %s -> %s [style=dashed, arrowhead=none];\n", name(n.ID), stub)
		}
	}
	if g.Tree != nil {
		for parent, tn := range g.Tree.Nodes {
			for _, l := range tn.Children {
				fmt.Fprintf(bw, "    %s -> %s [taillabel=\"p%d\", headlabel=\"p%d\"];\n",
					name(nodeOf(l.Child)), name(nodeOf(parent)), l.ChildPort, l.Port)
			}
		}
	}
	bw.WriteString("  }\n")
}

// writeDOTStacking stacks the generations, the first on top: an invisible
// point between two generations lies below every node of the one and above
// every node of the next, so that a run of many resets reads downwards
// rather than spreading across the page.
func writeDOTStacking(bw *bufio.Writer, gens []bus.Generation) {
	for i := 1; i < len(gens); i++ {
		between := dotQuote(fmt.Sprintf("between g%d and g%d", i-1, i)) // no node id holds a blank
		fmt.Fprintf(bw, "  %s [shape=point, style=invis, width=0];\n", between)
		// rankdir=BT: an edge's tail is drawn below its head. The weight
		// keeps the generations in one column.
		for _, n := range gens[i-1].Nodes {
			fmt.Fprintf(bw, "  %s -> %s [style=invis, weight=100];\n", between, dotQuote(fmt.Sprintf("g%d/%s", gens[i-1].Index, n.ID)))
		}
		for _, n := range gens[i].Nodes {
			fmt.Fprintf(bw, "  %s -> %s [style=invis, weight=100];\n", dotQuote(fmt.Sprintf("g%d/%s", gens[i].Index, n.ID)), between)
		}
	}
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// dotQuote makes s a DOT string: quoted, with quotes and backslashes
// escaped and line breaks as \n.
func dotQuote(s string) string { return `"` + dotEscaper.Replace(s) + `"` }
