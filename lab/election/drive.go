package election

import (
	"math/rand/v2"
	"slices"
)

// TicksPerDelay is the kernel's resolution: one time unit, the longest
// asynchronous message delay, is TicksPerDelay ticks.
const TicksPerDelay = ticksPerDelay

// Message is a message of a driven protocol: its type, an index into
// Protocol.Types, and two values whose meaning the protocol defines (the
// trace shows Value).
type Message struct {
	Type       uint8
	Value, Aux int64
}

// Machine is one node of a protocol that Drive runs on the election
// runtime. Like an election process it reads no clock and no random
// source: it is told that it starts, that a message arrived from a node,
// or that one of its timers fired, and it answers through the Net.
type Machine interface {
	Start(x *Net, v int)
	Receive(x *Net, v, from int, m Message)
	Timer(x *Net, v int, tag Message)
}

// Net is what the machines of a driven protocol share: the links between
// every two nodes, the timers and the clock.
type Net struct {
	n    *net
	port [][]int // port[v][u]: v's port to u
}

// Send sends m from node v to node u, with a delay drawn from the seed; the
// link from v to u is FIFO. A message to a crashed node is counted and lost.
func (x *Net) Send(v, u int, m Message) {
	x.n.send(v, x.port[v][u], msg{typ: m.Type, value: m.Value, aux: m.Aux})
}

// Lose counts and traces m from v to u as sent and lost on the way.
func (x *Net) Lose(v, u int, m Message) {
	x.n.counts[m.Type]++
	x.n.record(x.n.k.Now(), 0, v, u, msg{typ: m.Type, value: m.Value, aux: m.Aux}, true)
}

// TimerAt fires v's Timer with tag at kernel time at, in ticks (not
// before Now).
func (x *Net) TimerAt(v int, at int64, tag Message) {
	x.n.setTimerAt(v, at, msg{typ: tag.Type, value: tag.Value, aux: tag.Aux})
}

// Now is the kernel time of the event being handled, in ticks.
func (x *Net) Now() int64 { return x.n.k.Now() }

// Crash makes every message sent to v from now on lost. The machine of v
// still hears what was already on its way and must ignore it.
func (x *Net) Crash(v int) { x.n.crashed[v] = true }

// Protocol is a run of a driven protocol: every node a Machine, every two
// nodes joined by a link, asynchronous delays of up to one time unit.
type Protocol struct {
	Name     string
	Types    []string // the message types, in the order counts are reported
	Nodes    []string // the node names, for the trace
	Machines []Machine
	// Seed draws the delays, as Options.Seed does for an election.
	Seed      uint64
	Trace     bool
	MaxEvents uint64 // default DefaultMaxEvents; beyond it Drive returns ErrNoTermination
	Interrupt <-chan struct{}
	// Done, when set, is asked after every event; true ends the run.
	Done func() bool
}

// Outcome is what the runtime counted in a driven run.
type Outcome struct {
	Messages Messages
	// Time is the last delivery, in delays.
	Time  float64
	Trace []TraceEntry
}

// driven is a Machine in the place of an election process.
type driven struct {
	base
	m Machine
	x *Net
}

func (d *driven) start(_ *net, v int) { d.m.Start(d.x, v) }

func (d *driven) receive(n *net, v, port int, m msg) {
	d.m.Receive(d.x, v, n.g.Adj[v][port].Peer, Message{Type: m.typ, Value: m.value, Aux: m.aux})
}

func (d *driven) timeout(_ *net, v int, tag msg) {
	d.m.Timer(d.x, v, Message{Type: tag.typ, Value: tag.value, Aux: tag.aux})
}

// Drive runs p: every machine starts at time 0, in node order, and the run
// ends when no event is left or p.Done says so.
func Drive(p Protocol) (*Outcome, error) {
	nodes := len(p.Nodes)
	g := &Graph{Nodes: p.Nodes, Adj: make([][]Half, nodes), Edges: nodes * (nodes - 1) / 2}
	x := &Net{port: make([][]int, nodes)}
	for v := range nodes {
		x.port[v] = make([]int, nodes)
		for u := range nodes {
			if u != v {
				x.port[v][u] = len(g.Adj[v])
				g.Adj[v] = append(g.Adj[v], Half{Peer: u, Port: len(g.Adj[v])})
			}
		}
	}
	for v := range nodes {
		for i := range g.Adj[v] {
			g.Adj[v][i].PeerPort = x.port[g.Adj[v][i].Peer][v]
		}
	}
	o := &Options{Seed: p.Seed, MaxEvents: p.MaxEvents, Interrupt: p.Interrupt}
	n := &net{g: g, opts: o, algo: &algorithm{name: p.Name, types: p.Types},
		rng:    rand.New(rand.NewPCG(p.Seed, streamDelays)),
		counts: make([]int, len(p.Types)), awake: make([]bool, nodes), crashed: make([]bool, nodes), inc: make([]int32, nodes),
		fifo: make([][]int64, nodes), tracing: p.Trace, diam: -1, done: p.Done}
	x.n = n
	n.procs = make([]process, nodes)
	starters := make([]int, nodes)
	for v := range nodes {
		n.fifo[v] = make([]int64, nodes-1)
		n.procs[v] = &driven{m: p.Machines[v], x: x}
		starters[v] = v
	}
	if err := n.run(starters, nil); err != nil {
		return nil, err
	}
	return &Outcome{Messages: countMessages(p.Types, n.counts), Time: n.units(n.last), Trace: slices.Clip(n.trace)}, nil
}

// Crash is a node and a time in ticks, as the labs driven by Drive read
// their faults: a node that stops then (Net.Crash), or, in the multicast
// lab, one that joins or leaves the group then.
type Crash struct {
	Node string
	At   int64
}
