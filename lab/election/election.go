package election

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// need is the kind of graph an algorithm runs on.
type need uint8

const (
	needRing need = iota
	// needLogicalRing: a ring of cables, or a complete graph, where the
	// nodes in order form a logical ring and every node can address every
	// other, as the ring algorithm with a list assumes.
	needLogicalRing
	needTree
	needComplete
	needConnected
)

var needNames = []string{
	needRing:        "a ring",
	needLogicalRing: "a ring or a complete graph",
	needTree:        "a tree",
	needComplete:    "a complete graph",
	needConnected:   "a connected graph",
}

// initiators is who starts an algorithm when Options leave it open.
type initiators uint8

const (
	initAll   initiators = iota
	initFirst            // the first node along the ID order that has not crashed
)

// algorithm describes one election algorithm to the runtime.
type algorithm struct {
	name    string
	summary string
	needs   need
	mode    Mode // the mode it was designed for
	only    bool // mode is the only one it has
	types   []string
	init    initiators
	single  bool // it starts from exactly one initiator
	// allStart: every node must start, in round 1 (the synchronous
	// algorithms count rounds from a common start).
	allStart bool
	noIDs    bool // its nodes have no IDs
	crashes  bool // it runs after a crash (Options.Crashed)
	// faults: it takes crashes during the run (Options.Crashes), and with
	// recovers recoveries too (Options.Recoveries).
	faults, recovers bool
	// announces says whether every node learns the leader with these
	// options.
	announces func(o *Options) bool
	newProc   func(n *net, v int) process
	// diameter: its nodes know the graph's diameter (net.diam).
	diameter bool
	// direct replaces the message-passing runtime (1394 runs on the PHY
	// model).
	direct func(t *bus.Topology, g *netsim.Graph, o *Options, res *Result) error
	// noLeader explains why a run elected nobody, when that is the point.
	noLeader func(n *net) string
	// report adds what the algorithm reports besides the outcome.
	report func(n *net, res *Result)
}

func always(*Options) bool       { return true }
func never(*Options) bool        { return false }
func ifAnnounce(o *Options) bool { return o.Announce }

// algorithms is the registry, in the order --compare lists them.
var algorithms = []*algorithm{
	changRoberts, changRobertsBidi, changRobertsMin, leLann, ringList, syncRing, anonymous,
	bully, echo, treeMin, floodMax, dfsToken, adoption, virtualTree, ieee1394,
}

// Info describes an algorithm.
type Info struct {
	Name    string
	Summary string
	// Needs names the graph it runs on; Mode is the mode it was designed
	// for, and ModeOnly says it has no other.
	Needs    string
	Mode     Mode
	ModeOnly bool
	// Types lists its message types.
	Types []string
	// Crashes says it runs after a crash, so Options.Crashed applies.
	Crashes bool
	// Faults says it takes crashes during the run (Options.Crashes), and
	// Recovers recoveries too (Options.Recoveries).
	Faults, Recovers bool
}

// Algorithms lists every algorithm Run knows, in a fixed order.
func Algorithms() []Info {
	infos := make([]Info, len(algorithms))
	for i, a := range algorithms {
		infos[i] = Info{Name: a.name, Summary: a.summary, Needs: needNames[a.needs], Mode: a.mode, ModeOnly: a.only, Types: a.types,
			Crashes: a.crashes, Faults: a.faults, Recovers: a.recovers}
	}
	return infos
}

func lookup(name string) (*algorithm, error) {
	for _, a := range algorithms {
		if a.name == name {
			return a, nil
		}
	}
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownAlgorithm, name, strings.Join(names, ", "))
}

// check returns the ring view when there is one, or why a cannot run on g
// in mode.
func (a *algorithm) check(g *netsim.Graph, mode Mode) (*netsim.Ring, error) {
	ring, ringErr := g.Ring()
	if mode != DefaultMode && mode != a.mode {
		switch {
		case a.only:
			return nil, fmt.Errorf("%w: %s has no %s form (it is %s only)", ErrUnsupportedMode, a.name, mode, a.mode)
		case mode == Timed:
			return nil, fmt.Errorf("%w: %s has no timed form (it runs on message delays or rounds)", ErrUnsupportedMode, a.name)
		}
	}
	var ok bool
	switch a.needs {
	case needRing:
		ok = ringErr == nil
	case needLogicalRing:
		ok = ringErr == nil || g.IsComplete()
	case needTree:
		ok = g.IsTree()
	case needComplete:
		ok = g.IsComplete()
	default:
		ok = true
	}
	if !ok {
		got := describe(g, ringErr == nil)
		if a.needs == needRing && strings.HasSuffix(got, "loops") {
			got += " (" + ringErr.Error() + ")"
		}
		return nil, fmt.Errorf("%w: %s needs %s, got %s", ErrUnsupportedTopology, a.name, needNames[a.needs], got)
	}
	return ring, nil
}

// describe names the kind of graph g is.
func describe(g *netsim.Graph, isRing bool) string {
	n := len(g.Nodes)
	switch {
	case isRing:
		return fmt.Sprintf("a ring of %d nodes", n)
	case g.IsTree():
		return fmt.Sprintf("a tree of %d node%s", n, plural(n))
	case g.IsComplete():
		return fmt.Sprintf("a complete graph of %d nodes", n)
	}
	return fmt.Sprintf("a graph of %d nodes and %d cables, with loops", n, g.Edges)
}

// Run runs the election o.Algo on the topology t. It returns an error for
// bad input (the topology, the options, an algorithm that does not apply);
// an election that elects nobody is a Result that says so.
func Run(t *bus.Topology, o Options) (*Result, error) {
	a, err := lookup(o.Algo)
	if err != nil {
		return nil, err
	}
	g, err := netsim.NewGraph(t)
	if err != nil {
		return nil, err
	}
	return a.run(t, g, o)
}

// run is Run on the graph of t, derived once.
func (a *algorithm) run(t *bus.Topology, g *netsim.Graph, o Options) (*Result, error) {
	ring, err := a.check(g, o.Mode)
	if err != nil {
		return nil, err
	}
	mode := o.Mode
	if mode == DefaultMode {
		mode = a.mode
	}
	order := make([]int, len(g.Nodes)) // the ID order
	for i := range order {
		order[i] = i
	}
	if ring != nil {
		order = ring.Order
	}
	res := &Result{Algo: a.name, Mode: mode, Seed: o.Seed, IDOrder: o.IDOrder.String(),
		UnitDelays: o.UnitDelays && mode == Async, Suppress: o.Suppress, Announce: o.Announce}
	if o.IDs != nil {
		res.IDOrder = "explicit"
	}
	ids := make([]int64, len(g.Nodes))
	if a.noIDs {
		res.IDOrder = "none"
	} else if ids, err = assignIDs(g, order, o.IDOrder, o.IDs, o.Seed); err != nil {
		return nil, err
	}
	crashed, err := a.crashed(g, ids, o.Crashed)
	if err != nil {
		return nil, err
	}
	faults, err := a.faultEvents(g, crashed, &o, mode, res)
	if err != nil {
		return nil, err
	}
	starters, err := a.initiators(g, order, crashed, &o)
	if err != nil {
		return nil, err
	}
	for _, v := range starters {
		res.Initiators = append(res.Initiators, g.Nodes[v])
	}
	for v, c := range crashed {
		if c {
			res.Crashed = append(res.Crashed, g.Nodes[v])
		}
	}
	if a.direct != nil {
		if err := a.direct(t, g, &o, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	n := &net{g: g, ring: ring, ids: ids, opts: &o, algo: a, procs: make([]process, len(g.Nodes))}
	if a.diameter {
		if n.diam, err = g.Diameter(o.Interrupt); err != nil {
			return nil, runError(err)
		}
	}
	n.Sim = netsim.New(netsim.Config{Name: a.name, Types: a.types, Graph: g, Sync: mode == Sync,
		UnitDelays: o.UnitDelays, Seed: o.Seed, Crashed: crashed, Trace: o.Trace, MaxTrace: o.MaxTrace, MaxEvents: o.MaxEvents, Interrupt: o.Interrupt,
		Restart: func(v int) { n.procs[v] = a.newProc(n, v) }})
	for v := range g.Nodes {
		n.procs[v] = a.newProc(n, v)
	}
	if err := n.Run(nodes{n}, starters, faults); err != nil {
		return nil, runError(err)
	}
	n.fill(res)
	if a.report != nil {
		a.report(n, res)
	}
	return res, nil
}

// crashed marks the crashed nodes of an algorithm that runs after a crash:
// by default the node with the largest ID, the old coordinator.
func (a *algorithm) crashed(g *netsim.Graph, ids []int64, names []string) ([]bool, error) {
	crashed := make([]bool, len(g.Nodes))
	if !a.crashes {
		if len(names) > 0 {
			return nil, fmt.Errorf("%w: %s has no crashed nodes", ErrBadOptions, a.name)
		}
		return crashed, nil
	}
	if names == nil {
		crashed[slices.Index(ids, slices.Max(ids))] = true
		return crashed, nil
	}
	for _, name := range names {
		v := slices.Index(g.Nodes, name)
		switch {
		case v < 0:
			return nil, fmt.Errorf("%w: crashed node %q is not on the bus", ErrBadOptions, name)
		case crashed[v]:
			return nil, fmt.Errorf("%w: crashed node %q is named twice", ErrBadOptions, name)
		}
		crashed[v] = true
	}
	if !slices.Contains(crashed, false) {
		return nil, fmt.Errorf("%w: every node has crashed; nobody is left to elect", ErrBadOptions)
	}
	return crashed, nil
}

// faultEvents checks o.Crashes and o.Recoveries against the nodes crashed from
// the start and records them in res; it returns them in time order. Each
// node must alternate: up nodes crash, down nodes recover.
func (a *algorithm) faultEvents(g *netsim.Graph, crashed []bool, o *Options, mode Mode, res *Result) ([]netsim.Fault, error) {
	if len(o.Crashes)+len(o.Recoveries) == 0 {
		return nil, nil
	}
	switch {
	case !a.faults:
		return nil, fmt.Errorf("%w: %s has no crashes or recoveries", ErrBadOptions, a.name)
	case !a.recovers && len(o.Recoveries) > 0:
		return nil, fmt.Errorf("%w: %s has crashes but no recoveries", ErrBadOptions, a.name)
	case mode != Async:
		return nil, fmt.Errorf("%w: %s's crashes and recoveries are timed in message delays: not in %s mode", ErrBadOptions, a.name, mode)
	}
	var fs []netsim.Fault
	for i, e := range slices.Concat(o.Crashes, o.Recoveries) {
		what := "crash"
		if i >= len(o.Crashes) {
			what = "recovery"
		}
		v := slices.Index(g.Nodes, e.Node)
		switch {
		case v < 0:
			return nil, fmt.Errorf("%w: %s of %q: not a node of the bus", ErrBadOptions, what, e.Node)
		case e.At < 0:
			return nil, fmt.Errorf("%w: %s of %s at %s delays: want a time from 0", ErrBadOptions, what, e.Node, delaysOf(e.At))
		}
		fs = append(fs, netsim.Fault{V: v, At: e.At, Recover: i >= len(o.Crashes)})
	}
	slices.SortStableFunc(fs, func(x, y netsim.Fault) int { return cmp.Or(cmp.Compare(x.At, y.At), cmp.Compare(x.V, y.V)) })
	for i := 1; i < len(fs); i++ {
		if p, f := fs[i-1], fs[i]; p.V == f.V && p.At == f.At && p.Recover != f.Recover {
			return nil, fmt.Errorf("%w: %s crashes and recovers at %s delays: say which comes first", ErrBadOptions, g.Nodes[f.V], delaysOf(f.At))
		}
	}
	down := slices.Clone(crashed)
	for _, f := range fs {
		name, at := g.Nodes[f.V], delaysOf(f.At)
		switch {
		case f.Recover && !down[f.V]:
			return nil, fmt.Errorf("%w: %s recovers at %s delays but is up then", ErrBadOptions, name, at)
		case !f.Recover && down[f.V]:
			return nil, fmt.Errorf("%w: %s crashes at %s delays but is down then", ErrBadOptions, name, at)
		}
		down[f.V] = !f.Recover
		e := NodeEvent{Node: name, At: f.At}
		if f.Recover {
			res.Recoveries = append(res.Recoveries, e)
		} else {
			res.Crashes = append(res.Crashes, e)
		}
	}
	return fs, nil
}

// delaysOf renders ticks as message delays, to the tick.
func delaysOf(ticks int64) string {
	return strconv.FormatFloat(float64(ticks)/netsim.TicksPerDelay, 'f', -1, 64)
}

// initiators resolves who starts, as vertices in start order.
func (a *algorithm) initiators(g *netsim.Graph, order []int, crashed []bool, o *Options) ([]int, error) {
	var vs []int
	switch {
	case len(o.Initiators) > 0:
		for _, name := range o.Initiators {
			v := slices.Index(g.Nodes, name)
			if v < 0 {
				return nil, fmt.Errorf("%w: initiator %q is not on the bus", ErrBadOptions, name)
			}
			if crashed[v] {
				return nil, fmt.Errorf("%w: initiator %q has crashed", ErrBadOptions, name)
			}
			if slices.Contains(vs, v) {
				return nil, fmt.Errorf("%w: initiator %q is named twice", ErrBadOptions, name)
			}
			vs = append(vs, v)
		}
	case o.InitiatorCount != 0:
		// The first K live nodes along the ID order; a crashed node cannot
		// start, so K counts live nodes only.
		live := make([]int, 0, len(order))
		for _, v := range order {
			if !crashed[v] {
				live = append(live, v)
			}
		}
		k := o.InitiatorCount
		if k == AllNodes {
			k = len(live)
		}
		switch {
		case k < 1:
			return nil, fmt.Errorf("%w: %s cannot start at %d nodes", ErrBadOptions, a.name, o.InitiatorCount)
		case k > len(live) && len(live) < len(order):
			return nil, fmt.Errorf("%w: %s cannot start at %d nodes: %d are live", ErrBadOptions, a.name, k, len(live))
		case k > len(live):
			return nil, fmt.Errorf("%w: %s cannot start at %d nodes: the bus has %d", ErrBadOptions, a.name, k, len(live))
		}
		vs = live[:k]
	case a.init == initAll:
		vs = slices.Clone(order)
	default:
		for _, v := range order {
			if !crashed[v] {
				vs = append(vs, v)
				break
			}
		}
	}
	if a.single && len(vs) != 1 {
		return nil, fmt.Errorf("%w: %s starts from exactly one initiator, got %d", ErrBadOptions, a.name, len(vs))
	}
	if a.allStart && len(vs) != len(order) {
		when := ""
		if a.mode == Sync {
			when = " in round 1"
		}
		return nil, fmt.Errorf("%w: %s starts at every node%s, got %d initiator%s of %d nodes",
			ErrBadOptions, a.name, when, len(vs), plural(len(vs)), len(order))
	}
	return vs, nil
}

// noneBecameLeader is why a run elected nobody when no algorithm says more.
const noneBecameLeader = "no node became leader"

// fill copies the outcome of the run into res.
func (n *net) fill(res *Result) {
	res.Announced = n.algo.announces(n.opts)
	var leaders []string
	res.Nodes = make([]NodeResult, 0, len(n.procs))
	for v, p := range n.procs {
		state, l := p.status()
		switch {
		case n.Crashed(v):
			state = Crashed
		case state == "" && !n.Awake(v):
			state = Asleep
		case state == "":
			state = Undecided
		}
		nr := NodeResult{Node: n.g.Nodes[v], ID: n.ids[v], State: state}
		if l >= 0 {
			nr.Leader = n.g.Nodes[l]
		}
		if state == Leader {
			leaders = append(leaders, nr.Node)
			res.LeaderID = n.ids[v]
		}
		res.Nodes = append(res.Nodes, nr)
	}
	switch {
	case len(leaders) == 1:
		res.Leader = leaders[0]
	case len(leaders) > 1:
		res.LeaderID = 0
		res.NoLeader = fmt.Sprintf("%d nodes claim to lead: %s", len(leaders), strings.Join(leaders, ", "))
	case n.algo.noLeader != nil:
		res.NoLeader = n.algo.noLeader(n)
	default:
		res.NoLeader = noneBecameLeader
	}
	res.Messages = n.Messages()
	res.Time = n.Time()
	res.TimeUnit = "delays"
	if n.Sync() {
		res.TimeUnit = "rounds"
		res.Rounds = n.Rounds()
	}
	res.Trace = n.Trace()
}
