package bus

import "github.com/fwsim/fwsim/phy"

// TracedNode is a node of a run as its views list it.
type TracedNode struct {
	ID    string
	Ports int
	State phy.State // before the first trace event
}

// TracedNodes lists the nodes of a run, res and its trace: in phy_ID order of the first
// generation each belongs to, then any the trace alone names.
func TracedNodes(res *Result, trace []TraceEvent) []TracedNode {
	var out []TracedNode
	index := map[string]int{}
	add := func(id string, ports int, state phy.State) {
		if i, ok := index[id]; ok {
			out[i].Ports = max(out[i].Ports, ports)
			return
		}
		index[id] = len(out)
		out = append(out, TracedNode{ID: id, Ports: ports, State: state})
	}
	for _, g := range res.Generations {
		for _, n := range g.Nodes {
			add(n.ID, len(n.Ports), n.State)
		}
	}
	for _, e := range trace {
		if e.Node != "" {
			add(e.Node, e.Port+1, e.FromState)
		}
	}
	// A node's state before the run is where its first state change left
	// from.
	seen := map[string]bool{}
	for _, e := range trace {
		if e.Kind == TraceState && !seen[e.Node] {
			seen[e.Node] = true
			out[index[e.Node]].State = e.FromState
		}
	}
	return out
}
