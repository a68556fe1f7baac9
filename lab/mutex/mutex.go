package mutex

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// Delay is one time unit in ticks, the kernel's unit: a message takes at
// most one Delay.
const Delay = netsim.TicksPerDelay

// Crash is a node that stops at a time, in ticks: it sends nothing more and
// every message to it is lost.
type Crash = netsim.Crash

// Options control one run. Only Algo is required.
type Options struct {
	// Algo is central, ricart-agrawala, majority or token-ring: see
	// Algorithms.
	Algo string
	// Requests is how many times every requesting node enters the critical
	// section (default 1).
	Requests int
	// Requesters, when not nil, are the only nodes that request; by default
	// every node does.
	Requesters []string
	// CSTime is how long a node stays in the critical section, in ticks.
	CSTime int64
	// Think is how long a node waits before each request, in ticks: a
	// request is made a wait drawn uniformly from [0, Think) after the start
	// or after the node left the critical section. Zero makes every first
	// request at time 0, all at once.
	Think int64
	// Seed draws the message delays, the waits before requests and the
	// losses, each from a stream of its own; the 1394 root that coordinates
	// central is elected with it too.
	Seed uint64
	// Crashes stop nodes at given times.
	Crashes []Crash
	// LoseToken loses the first TOKEN sent at or after LoseTokenAt, in ticks
	// (token-ring).
	LoseToken   bool
	LoseTokenAt int64
	// Regenerate is the token ring's recovery: a coordinator (Coordinator,
	// or the elected leader as central's) that has not seen the token for
	// the longest round trip it can take regenerates it.
	Regenerate bool
	// Loss is the probability that a message is lost, from 0 to 1; no
	// algorithm resends. The draw is keyed by the message's type, its link
	// and its attempt on that link, from a stream of the seed of its own.
	Loss float64
	// RequestReply is the remedy of Ricart–Agrawala against crashes: every
	// REQUEST is answered at once, with REPLY or DEFER, and a node that stays
	// silent for two delays is taken for crashed and no longer waited for.
	RequestReply bool
	// Notify makes every node that asks for the critical section tell its
	// predecessor on the logical ring (a NOTE, carrying its Lamport clock);
	// a predecessor with no request open and more to make asks at once. Its
	// request then happened after the sender's: the test of ordering by
	// happened-before.
	Notify bool
	// Coordinator names central's coordinator instead of the elected one.
	Coordinator string
	// Clocks sets the Lamport clocks of Ricart–Agrawala and the majority
	// at the start (default 0).
	Clocks map[string]int64
	// Trace records every message in Result.Trace, and what the nodes do:
	// their timers (named), entries and exits, crashes, regenerations.
	Trace bool
	// MaxTrace, when not 0, stops a run whose trace passes it with
	// netsim.ErrTraceFull.
	MaxTrace int
	// MaxEvents bounds the run's kernel events (default
	// netsim.DefaultMaxEvents); a run that needs more is ErrTooLong.
	MaxEvents uint64
	// Interrupt, when not nil, stops the run soon after it closes: Run
	// returns netsim.ErrInterrupted.
	Interrupt <-chan struct{}
}

// Errors; each error Run returns wraps one of them (test with errors.Is).
var (
	ErrUnknownAlgorithm = errors.New("unknown mutual-exclusion algorithm")
	ErrBadOptions       = errors.New("bad mutual-exclusion options")
	// ErrTooLong: the run needed more than Options.MaxEvents events (the
	// token circling through long waits, or the remedy's re-asks through a
	// long critical section).
	ErrTooLong = errors.New("run too long")
)

// Info describes an algorithm.
type Info struct {
	Name, Summary string
	Types         []string // its message types
	// Token and RequestReply say which of the options of one algorithm it
	// takes: LoseToken, RequestReply. Compare gives each only those.
	Token, RequestReply bool
}

// algorithm is one entry of the registry.
type algorithm struct {
	Info
	newMachine func(w *world, v int) machine
	// Timers name the machine's timers in the trace, from tagAlgo on.
	Timers []string
	// circulates: its messages never stop by themselves (the token), so
	// the run ends when every request is served.
	circulates bool
}

var algorithms = []algorithm{
	{Info{"central", "a coordinator (the elected leader) grants the critical section from a FIFO queue", centralTypes, false, false}, newCentral, nil, false},
	{Info{"ricart-agrawala", "every node asks all others; the smaller (timestamp, id) goes first", raTypes, false, true}, newRA, []string{"SUSPECT"}, false},
	{Info{"majority", "asks a majority; a node votes for one at a time, INQUIRE/YIELD against deadlock", majorityTypes, false, false}, newMajority, nil, false},
	{Info{"token-ring", "one token travels the logical ring; its holder may enter once per visit", tokenTypes, true, false}, newTokenNode, []string{"TOKEN", "TIMEOUT"}, true},
}

// Algorithms lists the algorithms in the order --compare runs them.
func Algorithms() []Info {
	infos := make([]Info, len(algorithms))
	for i, a := range algorithms {
		infos[i] = a.Info
	}
	return infos
}

func lookup(name string) (*algorithm, error) {
	names := make([]string, len(algorithms))
	for i := range algorithms {
		if algorithms[i].Name == name {
			return &algorithms[i], nil
		}
		names[i] = algorithms[i].Name
	}
	return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownAlgorithm, name, strings.Join(names, ", "))
}

// Streams of the seed: the delays use election's stream 1.
const (
	streamWaits = 10
	streamLoss  = 11
)

// Run runs o.Algo on the nodes of t. It returns an error for bad input only;
// a run that breaks safety or leaves requests unserved is a Result that says
// so.
func Run(t *bus.Topology, o Options) (*Result, error) {
	w, out, err := drive(t, o)
	if err != nil {
		return nil, err
	}
	return w.result(out), nil
}

// drive is Run before the result is gathered.
func drive(t *bus.Topology, o Options) (*world, *netsim.Outcome, error) {
	a, err := lookup(o.Algo)
	if err != nil {
		return nil, nil, err
	}
	g, err := netsim.NewGraph(t)
	if err != nil {
		return nil, nil, err
	}
	w, err := newWorld(t, g, a, o)
	if err != nil {
		return nil, nil, err
	}
	machines := make([]netsim.Machine, len(g.Nodes))
	for v := range machines {
		machines[v] = &node{w: w, v: v, m: w.machines[v]}
	}
	types := a.Types
	if o.Notify {
		types = append(slices.Clip(types), "NOTE")
	}
	p := netsim.Protocol{Name: a.Name, Types: types, Nodes: g.Nodes, Machines: machines,
		Seed: o.Seed, Trace: o.Trace, MaxTrace: o.MaxTrace, MaxEvents: o.MaxEvents, Interrupt: o.Interrupt,
		TimerNames: append([]string{"WANT", "EXIT", "CRASH"}, a.Timers...)}
	if a.circulates {
		p.Done = w.done
	}
	out, err := netsim.Drive(p)
	if errors.Is(err, netsim.ErrNoTermination) {
		return nil, nil, fmt.Errorf("%w: %s ran past its budget of %d events; ask for fewer requests or shorter times", ErrTooLong, a.Name, w.maxEvents())
	}
	return w, out, err
}

// newWorld checks o against the graph and sets up the run.
func newWorld(t *bus.Topology, g *netsim.Graph, a *algorithm, o Options) (*world, error) {
	n := len(g.Nodes)
	if o.Requests == 0 {
		o.Requests = 1
	}
	switch {
	case o.Requests < 0:
		return nil, fmt.Errorf("%w: %d requests per node (want at least 1)", ErrBadOptions, o.Requests)
	case o.CSTime < 0 || o.Think < 0 || o.LoseTokenAt < 0:
		return nil, fmt.Errorf("%w: a negative time", ErrBadOptions)
	case o.LoseToken && !a.Token:
		return nil, fmt.Errorf("%w: %s has no token to lose", ErrBadOptions, a.Name)
	case o.Regenerate && !a.Token:
		return nil, fmt.Errorf("%w: %s has no token to regenerate", ErrBadOptions, a.Name)
	case !(o.Loss >= 0 && o.Loss <= 1):
		return nil, fmt.Errorf("%w: loss %v (want a probability from 0 to 1)", ErrBadOptions, o.Loss)
	case o.RequestReply && !a.RequestReply:
		return nil, fmt.Errorf("%w: the request-reply remedy is ricart-agrawala's", ErrBadOptions)
	case n < 2:
		return nil, fmt.Errorf("%w: mutual exclusion needs at least 2 nodes, the bus has %d", ErrBadOptions, n)
	}
	w := &world{opts: o, algo: a, g: g, nodes: make([]nodeState, n),
		rng: rand.New(rand.NewPCG(o.Seed, streamWaits)), noteType: uint8(len(a.Types)), gaveUp: -1}
	index := func(what, name string) (int, error) {
		v := slices.Index(g.Nodes, name)
		if v < 0 {
			return 0, fmt.Errorf("%w: %s %q is not on the bus", ErrBadOptions, what, name)
		}
		return v, nil
	}
	for v := range w.nodes {
		w.nodes[v] = nodeState{wants: o.Requests, crashAt: -1}
		if o.Requesters != nil {
			w.nodes[v].wants = 0
		}
	}
	for _, name := range o.Requesters {
		v, err := index("requester", name)
		if err != nil {
			return nil, err
		}
		w.nodes[v].wants = o.Requests
	}
	for _, c := range o.Crashes {
		v, err := index("crashed node", c.Node)
		switch {
		case err != nil:
			return nil, err
		case w.nodes[v].crashAt >= 0:
			return nil, fmt.Errorf("%w: node %q crashes twice", ErrBadOptions, c.Node)
		case c.At < 0:
			return nil, fmt.Errorf("%w: node %q crashes before the start", ErrBadOptions, c.Node)
		}
		w.nodes[v].crashAt = c.At
	}
	for name, c := range o.Clocks {
		v, err := index("clock of", name)
		if err != nil {
			return nil, err
		}
		if c < 0 {
			return nil, fmt.Errorf("%w: node %q's clock %d is negative", ErrBadOptions, name, c)
		}
		w.nodes[v].clock = c
	}
	w.order = make([]int, n)
	for v := range w.order {
		w.order[v] = v
	}
	if ring, err := g.Ring(); err == nil {
		w.order = ring.Order
	}
	w.token = tokenTrail{from: -1, to: w.order[0]}
	if a.Name == "central" || o.Regenerate {
		if err := w.elect(t, o.Coordinator); err != nil {
			return nil, err
		}
	}
	w.machines = make([]machine, n)
	for v := range n {
		w.machines[v] = a.newMachine(w, v)
	}
	return w, nil
}

// elect picks central's coordinator: the named node, or the leader an
// election on this topology elects.
func (w *world) elect(t *bus.Topology, name string) error {
	if name != "" {
		v := slices.Index(w.g.Nodes, name)
		if v < 0 {
			return fmt.Errorf("%w: coordinator %q is not on the bus", ErrBadOptions, name)
		}
		w.coord, w.coordBy = v, "named"
		return nil
	}
	if !w.g.IsTree() {
		// Other graphs elect with floodmax, which runs on any and elects
		// the largest ID: with IDs ascending along the ring (or the
		// topology's order), the last node.
		w.coord, w.coordBy = w.order[len(w.order)-1], "floodmax, ids ascending"
		return nil
	}
	// A tree is what a 1394 bus is: its coordinator is the root tree
	// identify elects when every PHY powers up.
	bo := bus.Options{Seed: w.opts.Seed, AllowOutOfSpec: true, PowerUp: bus.PowerUpAll, Interrupt: w.opts.Interrupt}
	r, err := bus.Run(t, bo)
	if errors.Is(err, bus.ErrInterrupted) {
		return netsim.ErrInterrupted
	}
	if err != nil {
		return err
	}
	gen := r.Generations[0]
	if gen.Outcome == bus.OutcomeBudgetExhausted {
		return fmt.Errorf("%w: central's coordinator is 1394's root, and tree identify ran past its budget of %d events or its time budget",
			ErrTooLong, bo.EventBudget(len(t.Nodes)))
	}
	if gen.Root == "" {
		return fmt.Errorf("%w: 1394 elected no coordinator: tree identify ended %s: %s", ErrBadOptions, gen.Outcome, strings.Join(gen.Problems, "; "))
	}
	w.coord, w.coordBy = slices.Index(w.g.Nodes, gen.Root), fmt.Sprintf("1394 root, seed %d", w.opts.Seed)
	return nil
}

func (w *world) maxEvents() uint64 {
	if w.opts.MaxEvents == 0 {
		return netsim.DefaultMaxEvents
	}
	return w.opts.MaxEvents
}
