package multicast

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

// The media a run can use (Options.Medium).
const (
	// MediumBus is the topology's bus: the cables of its spanning tree
	// (netsim.Graph.SpanningTree from the first node), over which a packet
	// is repeated by every node it reaches, so that a multicast crosses
	// every cable toward its addressees once and a loss on a cable is
	// shared by every addressee behind it.
	MediumBus = "bus"
	// MediumMesh is a link between every two nodes: a multicast is one
	// packet to each addressee, each lost on its own.
	MediumMesh = "mesh"
)

// Media lists the media, the default first.
func Media() []string { return []string{MediumBus, MediumMesh} }

// CableLoss is a loss probability of its own for the cable, or the mesh's
// link, between nodes A and B (Options.CableLosses).
type CableLoss struct {
	A, B string
	P    float64
}

// medium carries the packets of a run: it routes each from its sender to
// its addressees, crossing cables, and draws each crossing's fate from the
// packet's key (fate), so that two runs that send the same packet over the
// same cable lose it alike.
type medium struct {
	tree *netsim.Tree // nil on the mesh
	// loss is every cable's probability, by its two ends (the smaller
	// first); a cable not in it loses with Options.Loss.
	loss map[[2]int]float64
	// Buffers of route, reused from one packet to the next.
	order, parent []int
	want, reached []bool
	path          [][2]int
}

// packet is what decides a crossing's fate besides the cable: a hash of
// the seed, the message's type (by name) and value, its sender and its
// addressee (-1: a multicast), and how many times that sender sent the
// same before.
type packet struct {
	key     uint64
	attempt uint64
}

// newPacket is the packet of m from v to dest (-1: a multicast), counting
// its sending in w.attempts.
func (w *world) newPacket(m netsim.Message, v, dest int) packet {
	key := w.opts.Seed
	for _, x := range [...]uint64{w.typeKeys[m.Type], uint64(m.Value), uint64(v), uint64(dest)} {
		key = mix(key, x)
	}
	p := packet{key: key, attempt: w.attempts[key]}
	w.attempts[key]++
	return p
}

// newMedium builds o's medium over g and checks o's cable losses against it.
func newMedium(g *netsim.Graph, o Options) (*medium, error) {
	n := len(g.Nodes)
	m := &medium{loss: map[[2]int]float64{}, parent: make([]int, n), want: make([]bool, n), reached: make([]bool, n)}
	switch o.Medium {
	case "", MediumBus:
		m.tree = g.SpanningTree(0)
	case MediumMesh:
	default:
		return nil, fmt.Errorf("%w: medium %q (want %s or %s)", ErrBadOptions, o.Medium, MediumBus, MediumMesh)
	}
	for _, c := range o.CableLosses {
		a, b := slices.Index(g.Nodes, c.A), slices.Index(g.Nodes, c.B)
		ends := [2]int{min(a, b), max(a, b)}
		switch {
		case a < 0 || b < 0:
			return nil, fmt.Errorf("%w: cable %s-%s: node %q is not on the bus", ErrBadOptions, c.A, c.B, map[bool]string{true: c.A, false: c.B}[a < 0])
		case a == b:
			return nil, fmt.Errorf("%w: cable %s-%s joins a node to itself", ErrBadOptions, c.A, c.B)
		case m.tree != nil && m.tree.Parent[a] != b && m.tree.Parent[b] != a:
			return nil, fmt.Errorf("%w: no cable %s-%s on the bus's tree (a loss is for a cable of the tree; --medium mesh has a link between every two nodes)",
				ErrBadOptions, c.A, c.B)
		case !(c.P >= 0 && c.P <= MaxLoss):
			return nil, fmt.Errorf("%w: cable %s-%s: loss %v (want a probability from 0 to %v)", ErrBadOptions, c.A, c.B, c.P, MaxLoss)
		}
		if _, twice := m.loss[ends]; twice {
			return nil, fmt.Errorf("%w: cable %s-%s has two losses", ErrBadOptions, c.A, c.B)
		}
		m.loss[ends] = c.P
	}
	return m, nil
}

// typeKey is the hash of a message type's name that keys its fates: DATA is
// DATA in every algorithm, whatever its index.
func typeKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// mix is a step of SplitMix64 from state h ^ x: every bit of the key moves
// every bit of the result.
func mix(h, x uint64) uint64 {
	z := (h ^ x) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// drops reports whether the crossing of p from vertex a to vertex b is lost:
// a draw from the seed keyed by p and the crossing, below the cable's loss
// probability.
func (w *world) drops(p packet, a, b int) bool {
	prob := w.opts.Loss
	if len(w.medium.loss) > 0 {
		if p, ok := w.medium.loss[[2]int{min(a, b), max(a, b)}]; ok {
			prob = p
		}
	}
	if prob == 0 {
		return false
	}
	h := mix(mix(mix(p.key, p.attempt), uint64(a)), uint64(b))
	return float64(h>>11)/(1<<53) < prob
}

// cross draws the crossing of p from a to b, counting it.
func (w *world) cross(p packet, typ uint8, a, b int) bool {
	w.crossings[typ]++
	return !w.drops(p, a, b)
}

// route carries p, of type typ, from v to the addressees to, and returns
// which of them it reached (medium.reached, by vertex: only the
// addressees' entries are meant).
func (w *world) route(p packet, typ uint8, v int, to []int) []bool {
	m := w.medium
	switch {
	case m.tree == nil: // the mesh: a link to each
		for _, u := range to {
			m.reached[u] = w.cross(p, typ, v, u)
		}
	case len(to) == 1: // one addressee: the tree path
		m.reached[to[0]] = true
		m.path = m.tree.Path(m.path[:0], v, to[0])
		for _, c := range m.path {
			if !w.cross(p, typ, c[0], c[1]) {
				m.reached[to[0]] = false
				break
			}
		}
	default:
		w.flood(p, typ, v, to)
	}
	return m.reached
}

// flood carries p from v over the tree toward every addressee in to: down
// every cable behind which an addressee lies, from a node the packet
// reached, each crossing drawn once. A cable lost cuts off everything
// behind it.
func (w *world) flood(p packet, typ uint8, v int, to []int) {
	m := w.medium
	clear(m.want)
	clear(m.reached)
	for _, u := range to {
		m.want[u] = true
	}
	// order lists the vertices from v outward, parent[u] being u's
	// neighbour toward v.
	m.order = append(m.order[:0], v)
	m.parent[v] = -1
	for i := 0; i < len(m.order); i++ {
		u := m.order[i]
		for _, c := range m.tree.Adj[u] {
			if c != m.parent[u] {
				m.parent[c] = u
				m.order = append(m.order, c)
			}
		}
	}
	for i := len(m.order) - 1; i > 0; i-- { // want: an addressee at or behind u
		if u := m.order[i]; m.want[u] {
			m.want[m.parent[u]] = true
		}
	}
	m.reached[v] = true
	for _, u := range m.order[1:] {
		if up := m.parent[u]; m.want[u] && m.reached[up] {
			m.reached[u] = w.cross(p, typ, up, u)
		}
	}
}
