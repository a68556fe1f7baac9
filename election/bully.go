package election

// Bully (Garcia-Molina 1982) on a complete graph, after the coordinator
// crashed: a node that notices sends ELECTION to every node with a larger
// ID and waits two message delays (the longest round trip); an ANSWER means
// a larger node is alive and it steps back, silence means it is the
// largest alive and it sends COORDINATOR to every smaller node. A node that
// receives ELECTION answers and holds its own election, once. Messages to
// crashed nodes are counted and lost.
var bully = &algorithm{
	name:      "bully",
	summary:   "complete graph: the largest live ID bullies the rest, after a crash",
	needs:     needComplete,
	mode:      Async,
	types:     []string{"ELECTION", "ANSWER", "COORDINATOR"},
	init:      initFirst,
	crashes:   true,
	announces: always,
	newProc:   func(*net, int) process { return &bullyNode{} },
}

const (
	bullyElection uint8 = iota
	bullyAnswer
	bullyCoordinator
)

// bullyTimeout is the wait for an ANSWER, in message delays: ELECTION there
// and ANSWER back.
const bullyTimeout = 2

type bullyNode struct {
	base
	holding, answered bool
}

func (b *bullyNode) start(n *net, v int) { b.hold(n, v) }

func (b *bullyNode) hold(n *net, v int) {
	if b.holding {
		return
	}
	b.holding = true
	for p, h := range n.g.Adj[v] {
		if n.ids[h.Peer] > n.ids[v] {
			n.send(v, p, msg{typ: bullyElection, value: n.ids[v]})
		}
	}
	n.setTimer(v, bullyTimeout)
}

func (b *bullyNode) receive(n *net, v, port int, m msg) {
	switch m.typ {
	case bullyElection:
		n.send(v, port, msg{typ: bullyAnswer, value: n.ids[v]})
		b.hold(n, v)
	case bullyAnswer:
		b.answered = true
	case bullyCoordinator:
		b.follow(n.g.Adj[v][port].Peer)
	}
}

func (b *bullyNode) timeout(n *net, v int, _ msg) {
	if b.answered || b.state != "" {
		return
	}
	b.lead(v)
	for p, h := range n.g.Adj[v] {
		if n.ids[h.Peer] < n.ids[v] {
			n.send(v, p, msg{typ: bullyCoordinator, value: n.ids[v]})
		}
	}
}
