package netsim

import "fmt"

// Machine is one node of a protocol that Drive runs. Like a Process it
// reads no clock and no random source: it is told that it starts, that a
// message arrived from a node, or that one of its timers fired, and it
// answers through the Net.
type Machine interface {
	Start(x *Net, v int)
	Receive(x *Net, v, from int, m Message)
	Timer(x *Net, v int, tag Message)
}

// Net is what the machines of a driven protocol share: the links between
// every two nodes, the timers and the clock.
type Net struct {
	s    *Sim
	port [][]int // port[v][u]: v's port to u
}

// Send sends m from node v to node u, with a delay drawn from the seed; the
// link from v to u is FIFO. A message to a crashed node is counted and lost.
func (x *Net) Send(v, u int, m Message) {
	x.s.Send(v, x.port[v][u], m)
}

// Lose counts and traces m from v to u as sent and lost on the way.
func (x *Net) Lose(v, u int, m Message) { x.s.Lose(v, u, m) }

// TimerAt fires v's Timer with tag at kernel time at, in ticks (not
// before Now).
func (x *Net) TimerAt(v int, at int64, tag Message) {
	x.s.SetTimerAt(v, at, tag)
}

// Now is the kernel time of the event being handled, in ticks.
func (x *Net) Now() int64 { return x.s.Now() }

// Note traces an event of node v now (Sim.Note).
func (x *Net) Note(v int, event, what, detail string) { x.s.Note(v, event, what, detail) }

// Crash makes every message sent to v from now on lost. The machine of v
// still hears what was already on its way and must ignore it.
func (x *Net) Crash(v int) { x.s.Crash(v) }

// Protocol is a run of a driven protocol: every node a Machine, every two
// nodes joined by a link, asynchronous delays of up to one time unit.
type Protocol struct {
	Name     string
	Types    []string // the message types, in the order counts are reported
	Nodes    []string // the node names, for the trace
	Machines []Machine
	// Seed draws the delays, as Config.Seed does.
	Seed  uint64
	Trace bool
	// MaxTrace bounds the trace (Config.MaxTrace).
	MaxTrace int
	// TimerNames name the timers' tags in the trace (Config.TimerNames).
	TimerNames []string
	MaxEvents  uint64 // default DefaultMaxEvents; beyond it Drive returns ErrNoTermination
	Interrupt  <-chan struct{}
	// Done, when set, is asked after every event; true ends the run.
	Done func() bool
}

// Outcome is what the runtime counted in a driven run.
type Outcome struct {
	Messages Messages
	// ToCrashed counts the messages lost because their receiver had
	// crashed (Sim.ToCrashed).
	ToCrashed int
	// Time is the last delivery, in delays.
	Time  float64
	Trace []TraceEntry
}

// driven runs a protocol's Machines as the runtime's processes.
type driven struct {
	p Protocol
	x *Net
}

func (d *driven) Start(_ *Sim, v int) { d.p.Machines[v].Start(d.x, v) }

func (d *driven) Receive(s *Sim, v, port int, m Message) {
	d.p.Machines[v].Receive(d.x, v, s.g.Adj[v][port].Peer, m)
}

func (d *driven) Timer(_ *Sim, v int, tag Message) { d.p.Machines[v].Timer(d.x, v, tag) }

// MaxDriveNodes bounds the nodes of a driven protocol. Drive holds a link
// between every two nodes, DriveBytesPerLink for each ordered pair: 4096
// nodes take 0.8 GB, and the 10,000 of a large ring would take 4.8 GB.
const MaxDriveNodes = 4096

// DriveBytesPerLink is what Drive holds for each ordered pair of nodes: the
// link's end (a Half), the port table's entry and the FIFO clock.
const DriveBytesPerLink = 32 + 8 + 8

// Drive runs p: every machine starts at time 0, in node order, and the run
// ends when no event is left or p.Done says so. More than MaxDriveNodes
// nodes is ErrTooLarge, before anything is allocated.
func Drive(p Protocol) (*Outcome, error) {
	nodes := len(p.Nodes)
	if nodes > MaxDriveNodes {
		return nil, fmt.Errorf("%w: %s links every two of its %d nodes, which would take about %.1f GB of memory; it runs at most %d nodes (%.1f GB): use a smaller topology",
			ErrTooLarge, p.Name, nodes, driveGB(nodes), MaxDriveNodes, driveGB(MaxDriveNodes))
	}
	g := &Graph{Nodes: p.Nodes, Adj: make([][]Half, nodes), Edges: nodes * (nodes - 1) / 2}
	x := &Net{port: make([][]int, nodes)}
	// v's ports lead to the other nodes in order: its port to u is u, or
	// u-1 past v itself. Thousands of nodes take seconds to link: an
	// interrupt is heard between two nodes.
	for v := range nodes {
		select {
		case <-p.Interrupt:
			return nil, ErrInterrupted
		default:
		}
		x.port[v] = make([]int, nodes)
		g.Adj[v] = make([]Half, 0, nodes-1) // no slack from growing: the estimate holds
		for u := range nodes {
			if u == v {
				continue
			}
			back := v // u's port to v
			if v > u {
				back--
			}
			x.port[v][u] = len(g.Adj[v])
			g.Adj[v] = append(g.Adj[v], Half{Peer: u, PeerPort: back, Port: len(g.Adj[v])})
		}
	}
	x.s = New(Config{Name: p.Name, Types: p.Types, Graph: g, Seed: p.Seed, Trace: p.Trace, MaxTrace: p.MaxTrace,
		TimerNames: p.TimerNames, MaxEvents: p.MaxEvents, Interrupt: p.Interrupt, Done: p.Done})
	starters := make([]int, nodes)
	for v := range nodes {
		starters[v] = v
	}
	if err := x.s.Run(&driven{p: p, x: x}, starters, nil); err != nil {
		return nil, err
	}
	return &Outcome{Messages: x.s.Messages(), ToCrashed: x.s.ToCrashed(), Time: x.s.Time(), Trace: x.s.Trace()}, nil
}

// driveGB is the memory, in GB, of Drive's links between n nodes.
func driveGB(n int) float64 { return float64(n) * float64(n-1) * DriveBytesPerLink / 1e9 }
