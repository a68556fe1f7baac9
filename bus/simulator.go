package bus

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// Metrics are the figures timing analysis takes from one run, the same as
// those the Result of Run gives, without building the Result.
type Metrics struct {
	// Outcome is OutcomeOK when every generation ended ok, else the outcome
	// of the first that did not.
	Outcome Outcome
	// Everything below is about the first generation. Root is its single
	// root, "" when it elected none or several.
	Root string
	// TreeIDNs and SelfIDNs are its PhaseTiming.TreeIDDone and SelfIDDone:
	// -1 when the phase did not finish.
	TreeIDNs, SelfIDNs int64
	// Contended reports a root contention (its first Contention, on the
	// lowest-numbered cable); ContentionRounds and ContentionNs are that
	// contention's Rounds and EndNs−StartNs, -1 if it never resolved.
	Contended        bool
	ContentionRounds int
	ContentionNs     int64
	// Events is the Result's Events.
	Events uint64
	// Traffic totals the traffic phase (Options.Until) of the run.
	Traffic TrafficMetrics
}

// Simulator runs one topology with one set of options again and again, one
// seed per run, for Monte Carlo analysis. It builds the world once and
// reuses it, so that a run in steady state allocates nothing; only after a
// run that did not leave every PHY idle, or on a topology that scripts
// events, does it build a fresh set of PHYs. A Simulator is not safe for
// concurrent use: give each goroutine its own.
type Simulator struct {
	w     *world
	until int64 // the traffic phase's length, 0 for none
}

// NewSimulator checks t and o as Run does and returns a simulator for them.
// o.Seed is ignored (each Run names its seed) and o.Observer must be nil.
func NewSimulator(t *Topology, o Options) (*Simulator, error) {
	if o.Observer != nil {
		return nil, fmt.Errorf("%w: a Simulator does not trace: Options.Observer must be nil", ErrInvalidOptions)
	}
	if o.Replay != nil {
		return nil, fmt.Errorf("%w: a Simulator draws its choices: Options.Replay must be nil", ErrInvalidOptions)
	}
	w, err := build(t, o)
	if err != nil {
		return nil, err
	}
	w.lean = true
	return &Simulator{w: w, until: int64(o.until(len(w.topo.traffic) > 0))}, nil
}

// Run emulates the bus with seed (0 is DefaultSeed) and returns its
// metrics: the same as Run(t, o) with o.Seed = seed would give. When Options.Interrupt closes
// during the run, the run stops early, Interrupted reports true and the
// metrics mean nothing.
func (s *Simulator) Run(seed uint64) Metrics {
	w := s.w
	w.rebuild = w.rebuild || !w.reusable()
	if err := w.start(seed); err != nil {
		// NewSimulator built these PHYs once with the same configuration;
		// the seed only moves clock phases, which are always valid.
		panic("bus: rebuilding the simulator's world: " + err.Error())
	}
	w.metrics = Metrics{}
	w.run()
	m := w.metrics
	m.Outcome = OutcomeOK
	if len(w.gens) == 0 {
		// The event budget ran out before any PHY entered R0: nothing was
		// measured, which must not count as a fast, successful run.
		m.Outcome, m.TreeIDNs, m.SelfIDNs = OutcomeBudgetExhausted, -1, -1
	}
	for _, g := range w.gens {
		if g.outcome != OutcomeOK {
			m.Outcome = g.outcome
			break
		}
	}
	m.Events = w.events()
	if s.until > 0 && !w.interrupted {
		m.Traffic = w.runTraffic(s.until).Metrics()
	}
	return m
}

// HasTraffic reports whether the simulator's runs have a traffic phase,
// whose totals Metrics.Traffic holds.
func (s *Simulator) HasTraffic() bool { return s.until > 0 }

// Interrupted reports whether the last Run stopped because Options.Interrupt
// closed.
func (s *Simulator) Interrupted() bool { return s.w.interrupted }

// firstMetrics takes the metrics of the first generation g as it closes,
// as snapshot would record them in its Generation; it builds no Generation,
// so that a Simulator run allocates nothing.
func (w *world) firstMetrics(g *generation, f FirstMarks) Metrics {
	m := Metrics{
		TreeIDNs:     relative(f.TreeIDNs, g.startNs),
		SelfIDNs:     relative(f.SelfIDNs, g.startNs),
		ContentionNs: -1,
	}
	if roots := w.rootClaims(g); len(roots) == 1 {
		m.Root = roots[0]
	}
	if f.ContentionStartNs >= 0 {
		m.Contended, m.ContentionRounds = true, f.ContentionRounds
		if f.ContentionEndNs >= 0 {
			m.ContentionNs = f.ContentionEndNs - f.ContentionStartNs
		}
	}
	return m
}

// FirstMarks are the instants, in ns since power-up, between which the
// metrics of the first generation are measured (Metrics), as far as the
// run has got: -1 until reached.
type FirstMarks struct {
	// StartNs is the generation's start; -1 before the first reset.
	StartNs int64
	// Closed reports that the generation has ended: the marks are final.
	Closed bool
	// TreeIDNs and SelfIDNs are the ends of tree and self identify.
	TreeIDNs, SelfIDNs int64
	// ContentionStartNs and ContentionEndNs bound its first root
	// contention (the one Metrics measures) and ContentionRounds counts its
	// rounds so far.
	ContentionStartNs, ContentionEndNs int64
	ContentionRounds                   int
	// ContentionLead is how many more rounds the cable's first end has
	// begun than its second: with the state, it says how the next rounds
	// change ContentionRounds.
	ContentionLead int
}

// readFirstMarks reads the marks of generation g as it stands.
func (w *world) readFirstMarks(g *generation) FirstMarks {
	f := FirstMarks{StartNs: g.startNs, Closed: g.done, TreeIDNs: g.treeIDDoneNs(), SelfIDNs: g.selfIDEnd,
		ContentionStartNs: -1, ContentionEndNs: -1}
	if cable := w.firstContendedCable(g); cable >= 0 {
		var start, end int64
		f.ContentionRounds, f.ContentionLead, start, end = w.contentionSpan(cable, g)
		f.ContentionStartNs = g.startNs + start
		if end >= 0 {
			f.ContentionEndNs = g.startNs + end
		}
	}
	return f
}

// firstContendedCable is the lowest-numbered cable with a root contention
// in g, the one Generation.Contention lists first; -1 when there is none.
func (w *world) firstContendedCable(g *generation) int {
	cable := -1
	for _, i := range g.members {
		n := &w.nodes[i]
		for _, r := range n.election.Rounds() {
			if c := n.cable[r.Port]; c >= 0 && (cable < 0 || c < cable) {
				cable = c
			}
		}
	}
	return cable
}

// contentionSpan gives the Rounds, StartNs and EndNs of the contention on
// cable in g, as contentions computes them (end is -1 if it never
// resolved), and how many more rounds the cable's first end began than its
// second.
func (w *world) contentionSpan(cable int, g *generation) (rounds, lead int, start, end int64) {
	start = -1
	for side, e := range [2]portRef{w.cables[cable].a, w.cables[cable].b} {
		n := &w.nodes[e.node]
		own := 0
		for _, r := range n.election.Rounds() {
			if n.cable[r.Port] != cable {
				continue
			}
			own++
			if at := n.clock.Edge(r.Start) - g.startNs; start < 0 || at < start {
				start = at
			}
		}
		rounds = max(rounds, own)
		lead += own * (1 - 2*side)
	}
	_, end = w.contentionEnd(cable, g)
	return rounds, lead, start, end
}

// builtTree is a self-ID stream verify checked, and what treeid.Build made
// of it.
type builtTree struct {
	selfIDs []phy.SelfID
	tree    *treeid.Tree
	err     error
}

// treeCache is how many checked self-ID streams a Simulator remembers. A bus
// has few distinct streams from run to run (they change with the root and
// the tree, not with timing, and the one PHY that initiated the reset only
// changes i bits, which no check reads), so a handful saves rebuilding each
// time.
const treeCache = 8

// sameButInitiated reports whether two self-ID streams are the same but
// for the i bits of their packet #0s.
func sameButInitiated(a, b []phy.SelfID) bool {
	if len(a) != len(b) {
		return false
	}
	const initiated = 1 << 1 // the i bit of a packet #0 (docs/protocol.md §9.1)
	for k := range a {
		if x := a[k] ^ b[k]; x != 0 && (x != initiated || a[k].IsExtended()) {
			return false
		}
	}
	return true
}

// buildTree reads the self-IDs back into a tree. A Simulator remembers the
// streams it has read: the tree is never handed out, so it can be shared.
func (w *world) buildTree(selfIDs []phy.SelfID) (*treeid.Tree, error) {
	if !w.lean {
		return treeid.Build(selfIDs)
	}
	for _, b := range w.trees {
		if sameButInitiated(b.selfIDs, selfIDs) {
			return b.tree, b.err
		}
	}
	tree, err := treeid.Build(selfIDs)
	b := builtTree{slices.Clone(selfIDs), tree, err}
	if len(w.trees) < treeCache {
		w.trees = append(w.trees, b)
	} else {
		w.trees[w.treeAt] = b
		w.treeAt = (w.treeAt + 1) % treeCache
	}
	return tree, err
}
