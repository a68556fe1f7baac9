package election

import "github.com/fwsim/fwsim/lab/netsim"

// FloodMax on any connected graph of known diameter D, synchronous: in each
// of rounds 1…D every node sends the largest ID it knows to every
// neighbour; in round D+1, with the last of those messages in, every node
// knows the largest ID of the graph. 2·E·D messages for E cables.
var floodMax = &algorithm{
	name:      "floodmax",
	summary:   "any graph: D rounds of sending the largest ID known to every neighbour",
	needs:     needConnected,
	mode:      Sync,
	only:      true,
	allStart:  true,
	types:     []string{"MAX"},
	init:      initAll,
	announces: always,
	diameter:  true,
	newProc:   func(n *net, v int) process { return &floodMaxNode{diameter: n.diam} },
}

type floodMaxNode struct {
	base
	diameter, sent int
	best           int64
	bestV          int
}

func (f *floodMaxNode) start(n *net, v int) {
	f.best, f.bestV = n.ids[v], v
	f.timeout(n, v, netsim.Message{})
}

func (f *floodMaxNode) receive(_ *net, _, _ int, m netsim.Message) {
	if m.Value > f.best {
		f.best, f.bestV = m.Value, int(m.Aux)
	}
}

// timeout ends a round: send again, or decide after D rounds of sending.
func (f *floodMaxNode) timeout(n *net, v int, _ netsim.Message) {
	if f.sent == f.diameter {
		f.settle(v, f.bestV)
		return
	}
	f.sent++
	n.SendAll(v, -1, netsim.Message{Value: f.best, Aux: int64(f.bestV)})
	n.SetTimer(v, 1, netsim.Message{})
}
