package mutex

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// machine is one node of an algorithm. The world runs the workload around
// it (when the node wants the critical section, how long it stays, when it
// crashes) and watches what it does; the machine only decides when the
// node may enter, by calling world.enter, and sends its messages through
// world.send.
type machine interface {
	// start: time 0, before any request.
	start(x *netsim.Net)
	// want: the node asks for the critical section.
	want(x *netsim.Net)
	// release: the node has left the critical section.
	release(x *netsim.Net)
	receive(x *netsim.Net, from int, m netsim.Message)
	// timer: a timer the machine set with world.timer fired.
	timer(x *netsim.Net, tag netsim.Message)
	// why says, at the end of a run, why the node's request was never
	// served.
	why() string
}

// Timer tags below tagAlgo are the workload's; the machines number theirs
// from tagAlgo.
const (
	tagWant uint8 = iota
	tagExit
	tagCrash
	tagAlgo
)

// request is one request for the critical section, as the world saw it.
type request struct {
	node    int
	at      int64   // when it was made
	vc      []int32 // the vector clock of the request: what happened before it
	stamp   int64   // its Lamport timestamp (ricart-agrawala), else 0
	entered int64   // -1 until it is served
	left    int64   // -1 until the node leaves (or while it is inside)
}

// nodeState is the world's view of one node.
type nodeState struct {
	wants   int   // requests it still has to make, the current one included
	crashAt int64 // -1: it does not crash
	crashed bool
	clock   int64 // its Lamport clock at the start (ricart-agrawala)
	// wantGen numbers the node's next request: a NOTE that makes it ask
	// early leaves the timer of the old number to pass unheeded.
	wantGen int64
	current int // the index of its open request in world.requests, -1 if none
	sent    int
}

// world is one run: the workload, the monitor of the critical section, and
// what the machines share.
type world struct {
	opts     Options
	algo     *algorithm
	g        *netsim.Graph
	nodes    []nodeState
	machines []machine
	order    []int // the logical ring: the graph's ring order, else node order
	coord    int   // central's coordinator
	coordBy  string
	rng      *rand.Rand

	requests   []request
	entries    []int // indices into requests, in the order they entered
	inside     []int // the nodes in the critical section: more than one breaks safety
	violations []string

	vc    [][]int32 // every node's vector clock
	slots [][]int32 // the vector clocks of messages in flight, by Message.Aux
	free  []int

	// token is where the token ring's token went last.
	token tokenTrail
	// noteType is the type of Options.Notify's NOTE, after the
	// algorithm's own.
	noteType uint8

	// lost lists the messages Options.Loss lost; sentOn counts the
	// messages of each type sent on each link, the attempt that keys a
	// loss.
	lost   []lostMessage
	sentOn map[linkType]int64
	// hops is the length on the topology of every message sent, lost ones
	// included; dist caches shortest paths from each sender.
	hops int64
	dist [][]uint16
	// tokens is how many tokens exist (held or in flight) and maxTokens
	// the most there ever were: the token ring's safety.
	tokens, maxTokens int
	// regenerated lists when the coordinator regenerated the token;
	// gaveUp is when it stopped, -1 if it did not.
	regenerated []int64
	gaveUp      int64
	// tokenLostAt: Options.LoseTokenAt's token is lost.
	tokenLostAt bool
}

// lostMessage is a message Options.Loss lost.
type lostMessage struct {
	typ      uint8
	from, to int
	at       int64
	value    int64
}

// linkType is a message type on a link.
type linkType struct {
	typ      uint8
	from, to int
}

// node drives a machine for the runtime.
type node struct {
	w *world
	v int
	m machine
}

func (n *node) Start(x *netsim.Net, v int) {
	w := n.w
	if at := w.nodes[v].crashAt; at >= 0 {
		x.TimerAt(v, at, netsim.Message{Type: tagCrash})
	}
	w.nodes[v].current = -1
	if w.vc == nil {
		w.vc = make([][]int32, len(w.nodes))
		for u := range w.vc {
			w.vc[u] = make([]int32, len(w.nodes))
		}
	}
	// The want first: a node that wants at once and starts with the token
	// enters.
	if w.nodes[v].wants > 0 {
		x.TimerAt(v, w.think(), netsim.Message{Type: tagWant})
	}
	n.m.start(x)
}

// ask makes v's next request, and with Options.Notify tells its
// predecessor on the logical ring, carrying its Lamport clock where it has
// one.
func (n *node) ask(x *netsim.Net) {
	w, v := n.w, n.v
	s := &w.nodes[v]
	s.wantGen++
	w.vc[v][v]++
	s.current = len(w.requests)
	w.requests = append(w.requests, request{node: v, at: x.Now(), vc: append([]int32(nil), w.vc[v]...), entered: -1, left: -1})
	n.m.want(x)
	if w.opts.Notify {
		var clock int64
		if c, ok := n.m.(lamport); ok {
			clock = c.lamport()
		}
		w.send(x, v, w.along(v, -1), netsim.Message{Type: w.noteType, Value: clock})
	}
}

// noted: a NOTE came. A node with no request open and more to make asks
// at once: the request happened after the sender's.
func (n *node) noted(x *netsim.Net, m netsim.Message) {
	if c, ok := n.m.(lamport); ok {
		c.witness(m.Value)
	}
	s := &n.w.nodes[n.v]
	if s.current < 0 && s.wants > 0 {
		n.ask(x)
	}
}

// lamport is a machine with a Lamport clock, which NOTEs carry.
type lamport interface {
	lamport() int64
	witness(ts int64)
}

// along is the node step places after v on the logical ring (-1: its
// predecessor).
func (w *world) along(v, step int) int {
	n := len(w.order)
	return w.order[((slices.Index(w.order, v)+step)%n+n)%n]
}

func (n *node) Receive(x *netsim.Net, v, from int, m netsim.Message) {
	w := n.w
	if w.nodes[v].crashed {
		return
	}
	if m.Aux > 0 {
		slot := int(m.Aux - 1)
		for i, c := range w.slots[slot] {
			w.vc[v][i] = max(w.vc[v][i], c)
		}
		w.free = append(w.free, slot)
	}
	w.vc[v][v]++
	if w.opts.Notify && m.Type == w.noteType {
		n.noted(x, m)
		return
	}
	n.m.receive(x, from, m)
}

func (n *node) Timer(x *netsim.Net, v int, tag netsim.Message) {
	w := n.w
	s := &w.nodes[v]
	switch {
	case tag.Type == tagCrash:
		s.crashed = true
		x.Crash(v)
		x.Note(v, netsim.EventCrash, "CRASH", "")
		w.leave(v)
	case s.crashed:
	case tag.Type == tagWant:
		if tag.Value == s.wantGen {
			n.ask(x)
		}
	case tag.Type == tagExit:
		r := &w.requests[s.current]
		r.left = x.Now()
		s.current = -1
		s.wants--
		w.leave(v)
		x.Note(v, netsim.EventExit, "EXIT", "")
		n.m.release(x)
		if s.wants > 0 {
			x.TimerAt(v, x.Now()+w.think(), netsim.Message{Type: tagWant, Value: s.wantGen})
		}
	default:
		n.m.timer(x, tag)
	}
}

// think draws the wait before a request.
func (w *world) think() int64 {
	if w.opts.Think == 0 {
		return 0
	}
	return w.rng.Int64N(w.opts.Think)
}

// send sends m from v to u, carrying v's vector clock, or loses it with
// probability Options.Loss; it reports whether m went on its way.
func (w *world) send(x *netsim.Net, v, u int, m netsim.Message) bool {
	w.hops += int64(w.distance(v, u))
	if w.lose(v, u, m.Type) {
		w.nodes[v].sent++
		w.lost = append(w.lost, lostMessage{typ: m.Type, from: v, to: u, at: x.Now(), value: m.Value})
		x.Lose(v, u, m)
		return false
	}
	w.vc[v][v]++
	var slot int
	if len(w.free) > 0 {
		slot = w.free[len(w.free)-1]
		w.free = w.free[:len(w.free)-1]
		copy(w.slots[slot], w.vc[v])
	} else {
		slot = len(w.slots)
		w.slots = append(w.slots, append([]int32(nil), w.vc[v]...))
	}
	m.Aux = int64(slot + 1)
	w.nodes[v].sent++
	x.Send(v, u, m)
	return true
}

// timer sets one of v's machine timers, at ticks from now.
func (w *world) timer(x *netsim.Net, v int, after int64, tag netsim.Message) {
	x.TimerAt(v, x.Now()+after, tag)
}

// enter lets v into the critical section, which it leaves after CSTime; a
// node already inside is a violation of safety.
func (w *world) enter(x *netsim.Net, v int) {
	now := x.Now()
	r := &w.requests[w.nodes[v].current]
	for _, u := range w.inside {
		other := &w.requests[w.nodes[u].current]
		w.violations = append(w.violations, fmt.Sprintf("%s entered at %s while %s was inside (since %s)",
			w.g.Nodes[v], Format(now), w.g.Nodes[u], Format(other.entered)))
	}
	w.inside = append(w.inside, v)
	r.entered = now
	detail := ""
	if r.stamp != 0 {
		detail = fmt.Sprintf("timestamp %d", r.stamp)
	}
	x.Note(v, netsim.EventEnter, "ENTER", detail)
	w.entries = append(w.entries, w.nodes[v].current)
	x.TimerAt(v, now+w.opts.CSTime, netsim.Message{Type: tagExit})
}

// leave takes v out of the critical section, if it is inside.
func (w *world) leave(v int) {
	w.inside = slices.DeleteFunc(w.inside, func(u int) bool { return u == v })
}

// done says that every node that is alive has made all its entries and no
// crash is still to come: the token ring, whose token would circulate for
// ever, stops there.
func (w *world) done() bool {
	for _, s := range w.nodes {
		if !s.crashed && (s.wants > 0 || s.crashAt >= 0) {
			return false
		}
	}
	return true
}

// live reports whether v has not crashed.
func (w *world) live(v int) bool { return !w.nodes[v].crashed }

// crashNote is ", which crashed at T" for a crashed node, else "".
func (w *world) crashNote(v int) string {
	if !w.nodes[v].crashed {
		return ""
	}
	return fmt.Sprintf(", which crashed at %s", Format(w.nodes[v].crashAt))
}

// lose draws whether the next message of type typ from v to u is lost. The
// draw is keyed by the type's name, the link and the attempt (the k-th
// message of that type on that link), from the seed's stream of losses:
// two algorithms that send the same message on the same link lose it
// alike, and the delays, drawn from another stream, do not shift.
func (w *world) lose(v, u int, typ uint8) bool {
	if w.opts.Loss <= 0 {
		return false
	}
	if w.sentOn == nil {
		w.sentOn = map[linkType]int64{}
	}
	k := linkType{typ, v, u}
	attempt := w.sentOn[k]
	w.sentOn[k] = attempt + 1
	h := fnv.New64a()
	h.Write([]byte(w.typeName(typ)))
	key := h.Sum64() ^ mix(uint64(v)<<42^uint64(u)<<21^uint64(attempt))
	p := rand.NewPCG(w.opts.Seed^mix(key), streamLoss)
	return float64(p.Uint64()>>11)/(1<<53) < w.opts.Loss
}

// mix is splitmix64's finalizer: nearby keys give unrelated seeds.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// typeName is the name of message type typ: the algorithm's, or NOTE.
func (w *world) typeName(typ uint8) string {
	if int(typ) < len(w.algo.Types) {
		return w.algo.Types[typ]
	}
	return "NOTE"
}

// distance is the hops from v to u on the topology: the length of a
// shortest path.
func (w *world) distance(v, u int) int {
	if w.dist == nil {
		w.dist = make([][]uint16, len(w.nodes))
	}
	if w.dist[v] == nil {
		hops := w.g.Hops(v)
		w.dist[v] = make([]uint16, len(hops))
		for i, h := range hops {
			w.dist[v][i] = uint16(h)
		}
	}
	return int(w.dist[v][u])
}

// lostLast is the last message of type typ lost from v to u with value
// (any value when value < 0), and whether there is one.
func (w *world) lostLast(typ uint8, v, u int, value int64) (lostMessage, bool) {
	for i := len(w.lost) - 1; i >= 0; i-- {
		l := w.lost[i]
		if l.typ == typ && l.from == v && l.to == u && (value < 0 || l.value == value) {
			return l, true
		}
	}
	return lostMessage{}, false
}
