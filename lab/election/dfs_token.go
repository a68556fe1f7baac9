package election

import "github.com/fwsim/fwsim/lab/netsim"

// Depth-first token traversal on any connected graph: the initiator's TOKEN
// carries the largest ID seen. A node that gets it for the first time takes
// the cable it came over as its parent and sends it on over a cable it has
// not used; a visited node that gets it over a cable it did not send on
// (a loop) sends it straight back; a node with no unused cable left returns
// it to its parent. When the initiator has no unused cable left, the token
// has crossed every cable twice and holds the largest ID, and LEADER goes
// down the depth-first tree.
var dfsToken = &algorithm{
	name:      "dfs-token",
	summary:   "any graph: one token walks depth-first and collects the largest ID",
	needs:     needConnected,
	mode:      Async,
	types:     []string{"TOKEN", "LEADER"},
	init:      initFirst,
	single:    true,
	announces: always,
	newProc:   func(n *net, v int) process { return &dfsNode{used: make([]bool, len(n.g.Adj[v])), parent: -1, out: -1} },
}

const (
	dfsTokenMsg uint8 = iota
	dfsLeader
)

type dfsNode struct {
	base
	visited  bool
	used     []bool
	parent   int   // -1 for the initiator
	out      int   // the port the token last left on
	children []int // ports of the depth-first tree below
}

func (d *dfsNode) start(n *net, v int) {
	d.visited = true
	d.forward(n, v, netsim.Message{Type: dfsTokenMsg, Value: n.ids[v], Aux: int64(v)})
}

func (d *dfsNode) receive(n *net, v, port int, m netsim.Message) {
	if m.Type == dfsLeader {
		d.decide(n, v, m)
		return
	}
	if n.ids[v] > m.Value {
		m.Value, m.Aux = n.ids[v], int64(v)
	}
	switch {
	case !d.visited:
		d.visited, d.parent, d.used[port] = true, port, true
	case port != d.out: // a loop: this node has had the token
		d.used[port] = true
		m.Back = true
		n.Send(v, port, m)
		return
	case !m.Back: // back from a new child
		d.children = append(d.children, port)
	}
	m.Back = false
	d.forward(n, v, m)
}

// forward sends the token over the next unused cable, else back to the
// parent; the initiator with none left decides.
func (d *dfsNode) forward(n *net, v int, m netsim.Message) {
	for p, used := range d.used {
		if !used {
			d.used[p], d.out = true, p
			n.Send(v, p, m)
			return
		}
	}
	if d.parent >= 0 {
		n.Send(v, d.parent, m)
		return
	}
	d.decide(n, v, netsim.Message{Type: dfsLeader, Value: m.Value, Aux: m.Aux})
}

func (d *dfsNode) decide(n *net, v int, m netsim.Message) {
	d.settle(v, int(m.Aux))
	for _, p := range d.children {
		n.Send(v, p, m)
	}
}
