package multicast

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// Delay is one time unit in ticks: a message takes at most one Delay.
const Delay = netsim.TicksPerDelay

// Crash is a node that stops at a time, in ticks, as in the mutual-exclusion
// lab: it sends nothing more and every message to it is lost.
type Crash = netsim.Crash

// Event is a node and a time, in ticks, read as a Crash is: when a node
// joins or leaves the group (vsync).
type Event = netsim.Crash

// MaxMessages bounds Options.Messages.
const MaxMessages = 1000

// MaxLoss bounds Options.Loss: beyond one half, a round trip fails more often
// than not, and MaxTries sendings no longer make a give-up rare.
const MaxLoss = 0.5

// MaxTries is how many times a message is sent to a member (ack), or how
// many times a member asks for one (nack), before giving up.
const MaxTries = 30

// Options control one run. Only Algo is required.
type Options struct {
	// Algo is ack, nack, srm or vsync: see Algorithms.
	Algo string
	// Messages is how many messages the sender multicasts, one every delay
	// from time 0 (default 1).
	Messages int
	// Medium is what carries the packets: MediumBus (the default when
	// empty) or MediumMesh.
	Medium string
	// Loss is the probability that a cable (the bus) or a link (the mesh)
	// loses a packet that crosses it, from 0 to MaxLoss. Each crossing's
	// fate is drawn from the seed keyed by the packet (type, value, sender,
	// addressee, how many times the sender sent it before) and the cable,
	// so that runs that send the same packet over the same cable lose it
	// alike.
	Loss float64
	// CableLosses give cables (the bus: of its tree) or links (the mesh)
	// a probability of their own instead of Loss.
	CableLosses []CableLoss
	// Sender is the node that multicasts; by default the first node.
	Sender string
	// Stop: nack's sender repeats a stop signal with the last number.
	Stop    bool
	Crashes []Crash
	// Joins and Leaves (vsync only): a node named in Joins starts outside
	// the group and asks to join at its time; a node in Leaves asks to
	// leave at its time, after its join if it joins.
	Joins, Leaves []Event
	Seed          uint64
	Trace         bool
	// MaxTrace, when not 0, stops a run whose trace passes it with
	// netsim.ErrTraceFull.
	MaxTrace int
	// MaxEvents bounds the run (default netsim.DefaultMaxEvents).
	MaxEvents uint64
	Interrupt <-chan struct{}
	// breakFlush (tests only) makes vsync's flush forget the unstable
	// messages, so that the tests can show the checks catch it.
	breakFlush bool
}

// Errors of bad input.
var (
	ErrUnknownAlgorithm = errors.New("unknown multicast algorithm")
	ErrBadOptions       = errors.New("bad multicast options")
)

// Info names an algorithm and its message types.
type Info struct {
	Name    string
	Summary string
	Types   []string
	// Stop and Groups say which of the options of some algorithms it
	// takes: Stop, Joins and Leaves. Compare gives each only those.
	Stop, Groups bool
}

var algorithms = []Info{
	{"ack", "every member acknowledges every message; the sender retransmits what is not acknowledged", []string{"DATA", "RETRANS", "ACK"}, false, false},
	{"nack", "members find gaps in the sequence numbers and ask for what is missing", []string{"DATA", "RETRANS", "NACK", "STOP"}, true, false},
	{"srm", "NACKs and repairs to all after random back-offs, one sparing the others; any holder repairs", []string{"DATA", "REPAIR", "NACK", "STOP"}, true, false},
	{"vsync", "group views changed by a flush: a message reaches all survivors of its view or none", vsyncTypes, false, true},
}

// Message types, indices into Info.Types.
const (
	typeData    uint8 = iota
	typeRetrans       // srm's REPAIR
	typeAck           // ack
	typeNack    = typeAck
	typeStop    = typeAck + 1
)

// Timer tags.
const (
	tagSend uint8 = iota
	tagCrash
	tagRetry // ack: Value is the sequence number; nack: the member asks again
	tagStop
	tagRequest // srm: Value is the sequence number, Aux the timer's generation
	tagRepair  // srm: as tagRequest
)

// Algorithms lists the algorithms.
func Algorithms() []Info { return slices.Clone(algorithms) }

func lookup(name string) (*Info, error) {
	if i := slices.IndexFunc(algorithms, func(a Info) bool { return a.Name == name }); i >= 0 {
		return &algorithms[i], nil
	}
	return nil, fmt.Errorf("%w %q (want ack, nack, srm, vsync)", ErrUnknownAlgorithm, name)
}

// streamBackoff is the seed's stream of srm's back-offs: the runtime's
// delays use stream 1 (the losses are not drawn from a stream: see lost).
const streamBackoff = 20

// attemptsHint bounds the room made at first for the packets' sendings
// (world.attempts): a run sends a few distinct packets per message and
// node (a DATA, an ACK or NACK, a retransmission), and making room for them
// at once spares the table's growth; beyond the bound it grows.
const attemptsHint = 1 << 16

// timerNames name the timer tags in the trace.
var timerNames = []string{"SEND", "CRASH", "RETRY", "STOP", "REQUEST", "REPAIR", "BEAT", "JOIN", "LEAVE", "CHANGE"}

// member is one node's state.
type member struct {
	crashAt int64 // -1: it does not crash
	crashed bool
	// got[s] says message s (from 1) has arrived; next is the first not yet
	// delivered, delivered lists them in delivery order.
	got        []bool
	next       int
	delivered  []int
	duplicates int
	last       int // the highest number it knows was sent
	asks       int // nack: times it asked since its last progress
	asking     bool
	gaveUp     bool // nack, srm: it stopped asking; ack: the sender gave it up
	srm        *recovery
}

// world is one run.
type world struct {
	opts    Options
	algo    *Info
	names   []string
	sender  int
	members []member
	rng     *rand.Rand
	medium  *medium
	// sent and crossings count, by type, the packets sent and the cables
	// they crossed; lost the copies that missed their addressee,
	// lostData the DATA multicasts that missed some addressee, and
	// receptions the copies that reached a live node.
	sent, crossings []int
	lost, lostData  int
	receptions      int
	attempts        map[uint64]uint64 // by packet key (newPacket): the sendings so far
	typeKeys        []uint64
	everyone        []int // every node, in order
	others          []int // a buffer: the addressees of a multicast, a retry or a heartbeat
	one             [1]int
	// repairsSpared (srm) counts the repairs another's spared.
	repairsSpared int
	// acked[s][v] (ack, vsync): v acknowledged message s; tries[s][v]:
	// sendings (ack).
	acked, tries [][]int
	vs           *group // vsync
}

// node drives one node for the runtime.
type node struct{ w *world }

// Run runs o.Algo on the nodes of t. It returns an error for bad input only;
// a run that breaks a guarantee is a Result that says so.
func Run(t *bus.Topology, o Options) (*Result, error) {
	a, err := lookup(o.Algo)
	if err != nil {
		return nil, err
	}
	g, err := netsim.NewGraph(t)
	if err != nil {
		return nil, err
	}
	w, err := newWorld(g.Nodes, a, o)
	if err != nil {
		return nil, err
	}
	if w.medium, err = newMedium(g, o); err != nil {
		return nil, err
	}
	machines := make([]netsim.Machine, len(g.Nodes))
	for v := range machines {
		machines[v] = node{w}
	}
	p := netsim.Protocol{Name: a.Name, Types: a.Types, Nodes: g.Nodes, Machines: machines,
		Seed: o.Seed, Trace: o.Trace, MaxTrace: o.MaxTrace, TimerNames: timerNames, MaxEvents: o.MaxEvents, Interrupt: o.Interrupt}
	switch {
	case o.Stop:
		p.Done = w.done
	case w.vs != nil:
		p.Done = w.settled
	}
	out, err := netsim.Drive(p)
	if err != nil {
		return nil, err
	}
	return w.result(out), nil
}

// newWorld checks o against the nodes and sets up the run.
func newWorld(names []string, a *Info, o Options) (*world, error) {
	if o.Messages == 0 {
		o.Messages = 1
	}
	switch {
	case o.Messages < 0 || o.Messages > MaxMessages:
		return nil, fmt.Errorf("%w: %d messages (want 1 to %d)", ErrBadOptions, o.Messages, MaxMessages)
	case !(o.Loss >= 0 && o.Loss <= MaxLoss):
		return nil, fmt.Errorf("%w: loss %v (want a probability from 0 to %v)", ErrBadOptions, o.Loss, MaxLoss)
	case o.Stop && !a.Stop:
		return nil, fmt.Errorf("%w: the stop signal is for nack and srm", ErrBadOptions)
	case len(o.Joins)+len(o.Leaves) > 0 && !a.Groups:
		return nil, fmt.Errorf("%w: joins and leaves are for vsync", ErrBadOptions)
	case len(names) < 2:
		return nil, fmt.Errorf("%w: a group needs at least 2 nodes, the bus has %d", ErrBadOptions, len(names))
	}
	w := &world{opts: o, algo: a, names: names, members: make([]member, len(names)),
		rng: rand.New(rand.NewPCG(o.Seed, streamBackoff)), sent: make([]int, len(a.Types)),
		crossings: make([]int, len(a.Types)), attempts: make(map[uint64]uint64, min(2*o.Messages*len(names), attemptsHint))}
	for v := range names {
		w.everyone = append(w.everyone, v)
	}
	for _, typ := range a.Types {
		w.typeKeys = append(w.typeKeys, typeKey(typ))
	}
	for v := range w.members {
		w.members[v] = member{crashAt: -1, got: make([]bool, o.Messages+1), next: 1}
	}
	if o.Sender != "" {
		w.sender = slices.Index(names, o.Sender)
		if w.sender < 0 {
			return nil, fmt.Errorf("%w: sender %q is not on the bus", ErrBadOptions, o.Sender)
		}
	}
	for _, c := range o.Crashes {
		v := slices.Index(names, c.Node)
		switch {
		case v < 0:
			return nil, fmt.Errorf("%w: crashed node %q is not on the bus", ErrBadOptions, c.Node)
		case w.members[v].crashAt >= 0:
			return nil, fmt.Errorf("%w: node %q crashes twice", ErrBadOptions, c.Node)
		}
		w.members[v].crashAt = c.At
	}
	if a.Name == "ack" || a.Name == "vsync" {
		w.acked, w.tries = make([][]int, o.Messages+1), make([][]int, o.Messages+1)
		for s := range w.acked {
			w.acked[s], w.tries[s] = make([]int, len(names)), make([]int, len(names))
		}
	}
	if a.Name == "srm" {
		for v := range w.members {
			w.members[v].srm = newRecovery(o.Messages)
		}
	}
	if a.Name == "vsync" {
		if err := w.newGroup(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// send sends m from v to u alone: on the bus, along the tree path between
// them.
func (w *world) send(x *netsim.Net, v, u int, m netsim.Message) {
	w.one[0] = u
	w.transmit(x, v, u, w.one[:], m)
}

// multicast sends m from v to every other node.
func (w *world) multicast(x *netsim.Net, v int, m netsim.Message) {
	w.cast(x, v, w.othersIn(v, w.everyone), m)
}

// othersIn is members without v, in w.others.
func (w *world) othersIn(v int, members []int) []int {
	w.others = w.others[:0]
	for _, u := range members {
		if u != v {
			w.others = append(w.others, u)
		}
	}
	return w.others
}

// cast multicasts m from v to the nodes to: one packet on the bus, one per
// addressee on the mesh.
func (w *world) cast(x *netsim.Net, v int, to []int, m netsim.Message) {
	w.transmit(x, v, -1, to, m)
}

// transmit sends m from v to the addressees to, as a unicast to dest or a
// multicast (dest -1), and hands every copy that arrives to the runtime,
// which draws its delay; a copy the medium lost is traced lost.
func (w *world) transmit(x *netsim.Net, v, dest int, to []int, m netsim.Message) {
	p := w.newPacket(m, v, dest)
	if w.medium.tree == nil {
		w.sent[m.Type] += len(to)
	} else {
		w.sent[m.Type]++
	}
	reached := w.route(p, m.Type, v, to)
	missed := false
	for _, u := range to {
		if reached[u] {
			x.Send(v, u, m)
			continue
		}
		missed = true
		w.lost++
		if m.Type == typeData && w.members[u].srm != nil {
			w.members[u].srm.dataLost[m.Value] = true
		}
		x.Lose(v, u, m)
	}
	if missed && m.Type == typeData {
		w.lostData++
	}
}

// roundTrip is the wait for an answer: two delays and a tick, so that an
// answer sent at the latest arrives first.
const roundTrip = 2*Delay + 1

func (n node) Start(x *netsim.Net, v int) {
	w := n.w
	if at := w.members[v].crashAt; at >= 0 {
		x.TimerAt(v, at, netsim.Message{Type: tagCrash})
	}
	if w.vs != nil {
		w.startMember(x, v)
	}
	if v != w.sender {
		return
	}
	for s := 1; s <= w.opts.Messages; s++ {
		x.TimerAt(v, int64(s-1)*Delay, netsim.Message{Type: tagSend, Value: int64(s)})
	}
	if w.opts.Stop {
		x.TimerAt(v, int64(w.opts.Messages-1)*Delay, netsim.Message{Type: tagStop})
	}
}

func (n node) Timer(x *netsim.Net, v int, tag netsim.Message) {
	w := n.w
	m := &w.members[v]
	switch {
	case tag.Type == tagCrash:
		m.crashed = true
		x.Crash(v)
		x.Note(v, netsim.EventCrash, "CRASH", "")
	case m.crashed:
	case w.vs != nil:
		w.vsTimer(x, v, tag)
	case tag.Type == tagSend && w.algo.Name != "ack":
		m.last = int(tag.Value)
		w.multicast(x, v, netsim.Message{Type: typeData, Value: tag.Value})
	case tag.Type == tagStop:
		w.multicast(x, v, netsim.Message{Type: typeStop, Value: int64(w.opts.Messages)})
		x.TimerAt(v, x.Now()+roundTrip, tag)
	case tag.Type == tagRequest:
		w.request(x, v, int(tag.Value), tag.Aux)
	case tag.Type == tagRepair:
		w.repair(x, v, int(tag.Value), tag.Aux)
	case w.algo.Name == "ack": // the first sending or a retry
		w.retry(x, int(tag.Value))
	default:
		m.asking = false
		w.ask(x, v)
	}
}

// retry (ack) sends message s to every member that has not acknowledged it
// and has not been given up: at first one multicast (DATA) to them all,
// then every round trip a RETRANS to each; a member that let MaxTries
// sendings pass is given up.
func (w *world) retry(x *netsim.Net, s int) {
	to := w.others[:0]
	for u := range w.members {
		if u == w.sender || w.acked[s][u] > 0 || w.members[u].gaveUp {
			continue
		}
		if w.tries[s][u] == MaxTries {
			w.members[u].gaveUp = true
			continue
		}
		w.tries[s][u]++
		to = append(to, u)
	}
	w.others = to
	switch {
	case len(to) == 0:
		return
	case w.tries[s][to[0]] == 1: // the first sending, to every member alike
		w.cast(x, w.sender, to, netsim.Message{Type: typeData, Value: int64(s)})
	default:
		for _, u := range to {
			w.send(x, w.sender, u, netsim.Message{Type: typeRetrans, Value: int64(s)})
		}
	}
	x.TimerAt(w.sender, x.Now()+roundTrip, netsim.Message{Type: tagRetry, Value: int64(s)})
}

func (n node) Receive(x *netsim.Net, v, from int, m netsim.Message) {
	w := n.w
	me := &w.members[v]
	if me.crashed {
		return
	}
	w.receptions++
	s := int(m.Value)
	switch {
	case w.vs != nil:
		w.vsReceive(x, v, from, m)
	case w.algo.Name == "srm":
		w.hear(x, v, m)
	case v == w.sender && m.Type == typeAck && w.algo.Name == "ack":
		w.acked[s][from]++
	case v == w.sender: // a NACK
		w.send(x, v, from, netsim.Message{Type: typeRetrans, Value: m.Value})
	case m.Type == typeStop:
		me.last = max(me.last, s)
		w.ask(x, v)
	default:
		w.arrive(x, v, s)
		if w.algo.Name == "ack" {
			w.send(x, v, from, netsim.Message{Type: typeAck, Value: m.Value})
		} else {
			w.ask(x, v)
		}
	}
}

// arrive takes message s at member v and delivers what is in order.
func (w *world) arrive(x *netsim.Net, v, s int) {
	me := &w.members[v]
	if me.got[s] {
		me.duplicates++
		return
	}
	me.got[s] = true
	me.last = max(me.last, s)
	for me.next < len(me.got) && me.got[me.next] {
		me.delivered = append(me.delivered, me.next)
		x.Note(v, netsim.EventDeliver, "DELIVER", strconv.Itoa(me.next))
		me.next++
		me.asks = 0
	}
}

// ask (nack) asks the sender for every message member v misses below the
// highest it knows was sent, unless a round trip of asking is under way;
// after MaxTries asks without progress it gives up.
func (w *world) ask(x *netsim.Net, v int) {
	me := &w.members[v]
	if me.asking || me.gaveUp || me.next > me.last {
		return
	}
	if me.asks == MaxTries {
		me.gaveUp = true
		return
	}
	me.asks++
	for s := me.next; s <= me.last; s++ {
		if !me.got[s] {
			w.send(x, v, w.sender, netsim.Message{Type: typeNack, Value: int64(s)})
		}
	}
	me.asking = true
	x.TimerAt(v, x.Now()+roundTrip, netsim.Message{Type: tagRetry})
}

// done ends a run with the stop signal, which would repeat for ever, once
// every live member has the whole stream or gave up and no crash is to
// come.
func (w *world) done() bool {
	for v, m := range w.members {
		if m.crashAt >= 0 && !m.crashed || v != w.sender && !m.crashed && m.next <= w.opts.Messages && !m.gaveUp {
			return false
		}
	}
	return true
}
