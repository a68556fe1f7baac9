package explore

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/mdp"
)

// state is a choice point of the graph, or a run's end (a terminal).
type state struct {
	// path is a run that reaches a choice point, the options taken, kept
	// until the point is expanded: only its options' runs follow it.
	path  []int
	marks bus.Marks
	// A choice point's choice and edges (nil until expanded, and for a
	// terminal).
	choice   bus.Choice
	edges    []edge
	expanded bool
	// A terminal's metrics, and with Options.Roots the index of its first
	// generation's root and self-ID order in explorer.classes.
	terminal bool
	metrics  bus.Metrics
	class    int
	// snap is the bus at the choice point, until it is expanded: its
	// options' runs go on from it (nil: from power-up).
	snap *bus.Snapshot
}

// edge is one option of a choice point: where it leads, with what
// probability (nil when an adversary chooses), and what the metrics
// measured on the way.
type edge struct {
	to     int
	option int
	p      *big.Rat
	// spent is, per time metric (bus.TimeMetrics' order), the ns of the way
	// that count toward it; rounds the contention rounds added.
	spent  [3]int64
	rounds int
}

// explorer builds the state graph of one bus.
type explorer struct {
	o Options
	// workers run the partial runs, each on its own world; the first
	// also runs the one from power-up.
	workers []*bus.Follower
	states  []state
	index   map[string]int
	queue   []int // choice points found and not yet expanded, in order
	runs    int
	events  uint64
	nondet  bool
	// bounded is set once a solution is not exact everywhere.
	bounded bool
	// longestBudget is, per time metric, the longest budget a deadline
	// asks of the first state, and budgets the step functions solved over
	// it (budgetValue).
	longestBudget [3]int64
	budgets       map[budgetKey]solvedBudget
	// initial is what the metrics measure from power-up to the first
	// state, which no edge leads to.
	initial       [3]int64
	initialRounds int
	// With Options.Roots, the distinct roots and self-ID orders of the
	// first generation that terminals end with, and their index by key.
	classes    []class
	classIndex map[string]int
	// stateBytes sums the keys and paths of the choice points, for the
	// estimate of the memory MaxStates of them take (an upper bound: a
	// path is dropped once its point is expanded); sized is set once
	// it is checked, or, with fitMemory (Options.MaxStates zero), once
	// MaxStates is set to what the memory budget holds.
	stateBytes int64
	sized      bool
	fitMemory  bool
	// snapBytes sums the snapshots kept, within snapBudget.
	snapBytes, snapBudget int64
	// mdpModel is the graph as the solver sees it, built at the first
	// solve (see model); integers the rewards it has been given.
	mdpModel *mdp.Model
	integers map[int64]*big.Rat
}

func newExplorer(topo *bus.Topology, o Options) (*explorer, error) {
	if err := checkOptions(&o); err != nil {
		return nil, err
	}
	e := &explorer{o: o, index: map[string]int{}, classIndex: map[string]int{}, budgets: map[budgetKey]solvedBudget{},
		integers: map[int64]*big.Rat{}}
	for range o.Workers {
		f, err := bus.NewFollower(topo, o.Bus, o.Space)
		if err != nil {
			return nil, err
		}
		e.workers = append(e.workers, f)
	}
	e.snapBudget = o.MaxMemory / snapshotShare
	if o.MaxStates == 0 {
		// Until the first states tell their size, no more than the budget
		// holds of the least a state takes.
		e.o.MaxStates, e.fitMemory = int(min(e.statesBudget()/stateOverhead, math.MaxInt32)), true
	}
	return e, nil
}

// interruptEvery is how many runs, or evaluations of a deadline's
// functions, go by between looks at Options.Interrupt.
const interruptEvery = 64

// interrupted reports that Options.Interrupt has closed.
func (e *explorer) interrupted() bool {
	select {
	case <-e.o.Interrupt:
		return true
	default:
		return false
	}
}

// build explores breadth first from power-up until every choice point is
// expanded or MaxStates of them are known. The partial runs of a batch of
// states at the head of the queue go to the workers together; their ends
// are then added one state after the other, in the queue's order, as one
// worker would add them, so the graph is the same at any worker count.
func (e *explorer) build() error {
	first := e.ended(nil, nil, e.workers[0])
	if _, err := e.record(first); err != nil {
		return err
	}
	e.initial, e.initialRounds = measured(bus.Marks{}, first.stop.Marks)
	start := time.Now()
	size := firstBatch
	for len(e.queue) > 0 {
		batch := slices.Clone(e.queue[:min(len(e.queue), size)])
		began := time.Now()
		runs := e.runBatch(batch)
		size = nextBatch(size, time.Since(began))
		done := 0
		for _, s := range batch {
			if err := e.checkDuration(time.Since(start)); err != nil {
				return err
			}
			if e.choicePoints() >= sampleStates && !e.sized {
				if e.fitMemory {
					e.o.MaxStates = int(min(e.statesBudget()/e.stateSize(), math.MaxInt32))
				} else if err := e.checkMemory(); err != nil {
					return err
				}
				e.sized = true
			}
			// A state's options each add a state at most: the count stops
			// within MaxOvershoot of the bound.
			if e.choicePoints() > e.o.MaxStates || e.choicePoints()+e.states[s].choice.Options > e.o.MaxStates+MaxOvershoot {
				e.queue = e.queue[done:]
				e.report(true)
				return nil
			}
			var err error
			if runs, err = e.expand(s, runs); err != nil {
				return err
			}
			done++
			e.report(false)
		}
		e.queue = e.queue[done:]
	}
	e.report(true)
	return nil
}

// report tells Options.Progress how far the exploration has gone.
func (e *explorer) report(solving bool) {
	if e.o.Progress != nil {
		n := e.choicePoints()
		e.o.Progress(Progress{States: n, Frontier: len(e.queue), MaxStates: e.o.MaxStates,
			Bytes: e.stateBytes + int64(n)*stateOverhead + e.snapBytes, Solving: solving})
	}
}

// sampleStates is how many states the estimate of a state's memory is
// taken from; stateOverhead is what a state takes besides its key and
// path: the state, its index entry, its edges, and the solver's models
// of the graph (the live heap takes 3.9 KB a state in all for the
// 1394a-2000 pair, whose solves are in large fractions, and 1.5 KB for
// the unplug window).
const (
	sampleStates  = 1000
	stateOverhead = 3000
)

// checkMemory refuses an exploration whose MaxStates states would take
// more than MaxMemory, as the states found so far take on average.
func (e *explorer) checkMemory() error {
	perState := e.stateSize()
	need := int64(e.o.MaxStates)*perState + e.snapBudget
	if need <= e.o.MaxMemory {
		return nil
	}
	return fmt.Errorf("%w: max states %d would take about %d MiB (%d bytes a state, as the first %d take, and an eighth of the budget for snapshots), more than the memory budget of %d MiB; lower max states, or raise the budget",
		ErrInvalidOptions, e.o.MaxStates, need>>20, perState, e.choicePoints(), e.o.MaxMemory>>20)
}

// statesBudget is the memory the states may take: Options.MaxMemory but
// the snapshots' share.
func (e *explorer) statesBudget() int64 { return e.o.MaxMemory - e.snapBudget }

// stateSize is the memory a state takes, on average over those found.
func (e *explorer) stateSize() int64 {
	return e.stateBytes/int64(e.choicePoints()) + stateOverhead
}

// checkDuration refuses, once elapsed passes a second, an exploration
// whose pace says MaxStates states would take longer than MaxDuration.
func (e *explorer) checkDuration(elapsed time.Duration) error {
	// A bound the memory budget sets is only a guess until the states'
	// size is known.
	if e.o.MaxDuration == 0 || elapsed < time.Second || (e.fitMemory && !e.sized) {
		return nil
	}
	need := time.Duration(float64(elapsed) * float64(e.o.MaxStates) / float64(e.choicePoints()))
	if need <= e.o.MaxDuration {
		return nil
	}
	return fmt.Errorf("%w: max states %d would take at least %v here (timed from the first %d states, %d partial runs of %d events on average), more than max duration %v",
		ErrInvalidOptions, e.o.MaxStates, need.Round(time.Second), e.choicePoints(), e.runs, e.events/uint64(e.runs), e.o.MaxDuration)
}

// choicePoints counts the choice points found.
func (e *explorer) choicePoints() int { return len(e.index) }

// partialRun is where one partial run ended, as a worker found it. A
// choice point's key is only kept when the state is new: the states known
// before the batch are found by the workers, which read the index while
// nothing writes it.
type partialRun struct {
	path []int          // the options taken, the run's own
	stop bus.FollowStop // its Key not kept: valid until the worker's next run
	err  error
	// known is the choice point's state when it was known before the
	// batch, else -1, key is its key and snap the bus there.
	known int
	key   string
	snap  *bus.Snapshot
}

// ended runs f along path, from snapshot from (nil: from power-up), and
// returns where it ended, keyed while the stop's Key is valid.
func (e *explorer) ended(from *bus.Snapshot, path []int, f *bus.Follower) partialRun {
	stop, err := f.FollowFrom(from, path)
	run := partialRun{path: path, stop: stop, err: err, known: -1}
	if e.o.Roots {
		run.stop.FirstOrder = slices.Clone(stop.FirstOrder)
	}
	run.stop.Key = nil
	if err != nil || stop.Done {
		return run
	}
	key := appendStatus(stop.Key, stop.Marks)
	if e.o.Roots && stop.Marks.First.Closed {
		key = appendClass(key, stop)
	}
	if s, ok := e.index[string(key)]; ok {
		run.known = s
	} else {
		run.key, run.snap = string(key), f.Snapshot()
	}
	return run
}

// snapshotShare is the part of Options.MaxMemory that the snapshots of the
// choice points not yet expanded may take, one over it: past it, a new
// choice point's options run from power-up. Only the frontier keeps one,
// a few kilobytes each on small buses. The tests vary it.
var snapshotShare int64 = 8

// A batch is the states at the head of the queue whose runs go to the
// workers at once: enough runs to keep them busy, few enough that a stop
// at MaxStates wastes little and that the progress and Ctrl-C are seen
// often. Its size in states starts at firstBatch and doubles, up to
// maxBatch, while a batch takes less than a tenth of a second, and halves
// when one takes more than half a second (runs through long scenarios).
// The graph does not depend on it.
const (
	firstBatch = 16
	maxBatch   = 1024
)

// nextBatch is the size of the batch after one of size states that took
// took.
func nextBatch(size int, took time.Duration) int {
	switch {
	case took < 100*time.Millisecond:
		return min(2*size, maxBatch)
	case took > 500*time.Millisecond:
		return max(size/2, 1)
	}
	return size
}

// taken lists the options of c that some run takes, with their
// probabilities (nil where an adversary chooses): one never taken has
// nothing to explore.
func (e *explorer) taken(c bus.Choice) (options []int, ps []*big.Rat) {
	for k := range c.Options {
		if p := e.probability(c, k); p == nil || p.Sign() != 0 {
			options, ps = append(options, k), append(ps, p)
		}
	}
	return options, ps
}

// job is the partial run of one option of a state: its path, and the
// state's snapshot to go on from.
type job struct {
	from *bus.Snapshot
	path []int
}

// jobs lists the runs of the options of batch's states that are taken, in
// the order expand adds their ends.
func (e *explorer) jobs(batch []int) []job {
	var jobs []job
	for _, s := range batch {
		options, _ := e.taken(e.states[s].choice)
		for _, k := range options {
			jobs = append(jobs, job{e.states[s].snap, append(clonePath(e.states[s].path), k)})
		}
	}
	return jobs
}

// runBatch runs the partial runs of batch's options on the workers and
// returns their ends, in the order of jobs.
func (e *explorer) runBatch(batch []int) []partialRun {
	jobs := e.jobs(batch)
	ends := make([]partialRun, len(jobs))
	var next atomic.Int64
	work := func(f *bus.Follower) {
		for i := int(next.Add(1) - 1); i < len(jobs); i = int(next.Add(1) - 1) {
			if i%interruptEvery == 0 && e.interrupted() {
				ends[i] = partialRun{path: jobs[i].path, err: bus.ErrInterrupted}
				continue
			}
			ends[i] = e.ended(jobs[i].from, jobs[i].path, f)
		}
	}
	var wg sync.WaitGroup
	for _, f := range e.workers[1:] {
		wg.Go(func() { work(f) })
	}
	work(e.workers[0])
	wg.Wait()
	return ends
}

// expand adds the ends of every option of choice point s, the first of
// runs, and the edges to them, and returns the runs left.
func (e *explorer) expand(s int, runs []partialRun) ([]partialRun, error) {
	options, ps := e.taken(e.states[s].choice)
	for i, k := range options {
		run := runs[i]
		to, err := e.record(run)
		if err != nil {
			return nil, err
		}
		ed := edge{to: to, option: k, p: ps[i]}
		ed.spent, ed.rounds = measured(e.states[s].marks, run.stop.Marks)
		e.states[s].edges = append(e.states[s].edges, ed)
	}
	e.states[s].expanded, e.states[s].path = true, nil
	if snap := e.states[s].snap; snap != nil {
		e.snapBytes -= snap.Bytes()
		e.states[s].snap = nil
	}
	return runs[len(options):], nil
}

// record counts a partial run in the report's totals and adds where it
// ended to the graph, refusing a choice point that could never be
// expanded within the bound. It returns the state's index.
func (e *explorer) record(run partialRun) (int, error) {
	if run.err != nil {
		return 0, run.err
	}
	stop := run.stop
	e.runs++
	e.events += stop.Events
	if c := stop.Choice; !stop.Done && c.Options >= e.o.MaxStates+MaxOvershoot {
		return 0, fmt.Errorf("%w: a %s of %s has %d options, each a state to explore: more than max states %d allows; narrow the choice (the event window, the phase grid) or raise max states",
			ErrInvalidOptions, c.Kind, orBus(c.Node), c.Options, e.o.MaxStates)
	}
	return e.add(run), nil
}

// orBus names a choice's node, "the bus" for a shift of its events.
func orBus(node string) string {
	if node == "" {
		return "the bus"
	}
	return node
}

// add records where a run stopped: a new terminal, a choice point seen
// before, or a new one to expand. It returns the state's index. With
// Options.Roots, a choice point after the first generation has closed is
// told apart by its root and self-ID order too, which its future no longer
// shows.
func (e *explorer) add(run partialRun) int {
	stop := run.stop
	if stop.Done {
		st := state{marks: stop.Marks, terminal: true, metrics: stop.Metrics, class: -1}
		if e.o.Roots {
			st.class = e.classOf(stop)
		}
		e.states = append(e.states, st)
		return len(e.states) - 1
	}
	if run.known >= 0 {
		return run.known
	}
	if s, ok := e.index[run.key]; ok {
		return s // found earlier in the same batch
	}
	e.stateBytes += int64(len(run.key) + 8*len(run.path))
	s := len(e.states)
	e.index[run.key] = s
	st := state{path: run.path, marks: stop.Marks, choice: stop.Choice}
	if run.snap != nil && e.snapBytes+run.snap.Bytes() <= e.snapBudget {
		st.snap = run.snap
		e.snapBytes += run.snap.Bytes()
	}
	e.states = append(e.states, st)
	e.queue = append(e.queue, s)
	if e.probability(stop.Choice, 0) == nil {
		e.nondet = true
	}
	return s
}

func clonePath(p []int) []int { return append([]int(nil), p...) }

// probability is the probability of option k of c, nil when an adversary
// chooses.
func (e *explorer) probability(c bus.Choice, k int) *big.Rat {
	switch c.Kind {
	case bus.ChoiceCoin:
		if k == 0 {
			return e.o.CoinBias
		}
		return new(big.Rat).Sub(big.NewRat(1, 1), e.o.CoinBias)
	case bus.ChoiceWait:
		if e.o.Timing == Random {
			// Ending on each edge with probability 1/(the counts left)
			// is the uniform wait over the window's whole counts.
			end := big.NewRat(1, c.Hi-c.Waited+1)
			if k == 0 {
				return end
			}
			return new(big.Rat).Sub(one, end)
		}
	}
	return nil
}

// Metric progress, as a state key holds it: what the metrics measure from
// a state on depends on it, not on when the marks were passed.
const (
	notStarted   byte = iota // the metric's interval has not begun
	running                  // begun, not ended
	ended                    // ended, the first generation still open
	present                  // the first generation closed with the metric
	absent                   // it closed without (or no generation began)
	notContended             // contention_ns: it closed without a contention
)

// status is the progress of time metric m (bus.TimeMetrics' index) at marks.
func status(marks bus.Marks, m int) byte {
	f := marks.First
	start, end := span(f, m)
	switch {
	case f.Closed && m == 2 && start < 0:
		return notContended
	case f.Closed && end >= 0:
		return present
	case f.Closed:
		return absent
	case f.StartNs < 0 || start < 0:
		return notStarted
	case end >= 0:
		return ended
	}
	return running
}

// span is the interval time metric m measures, in ns since power-up: -1
// for an end not reached, or a start not reached.
func span(f bus.FirstMarks, m int) (start, end int64) {
	switch m {
	case 0:
		return f.StartNs, f.TreeIDNs
	case 1:
		return f.StartNs, f.SelfIDNs
	}
	return f.ContentionStartNs, f.ContentionEndNs
}

// appendStatus appends to a state's key what the explorer measures from it
// on: each metric's progress, the outcome so far, and, during a
// contention, how many rounds the first node is ahead of the second (the
// rounds it adds next depend on it).
func appendStatus(key []byte, marks bus.Marks) []byte {
	key = append(key, 'M')
	for m := range bus.TimeMetrics {
		key = append(key, status(marks, m))
	}
	key = append(key, marks.Outcome...)
	if status(marks, 2) == running {
		key = binary.AppendVarint(key, int64(marks.First.ContentionLead))
	}
	return key
}

// measured is what the way from marks a to marks b counts toward each
// time metric (the ns of it inside the metric's interval) and the
// contention rounds it adds.
func measured(a, b bus.Marks) (spent [3]int64, rounds int) {
	for m := range bus.TimeMetrics {
		start, end := span(b.First, m)
		if start < 0 {
			continue
		}
		from, to := max(a.NowNs, start), b.NowNs
		if end >= 0 {
			to = min(to, end)
		}
		spent[m] = max(to-from, 0)
	}
	if !a.First.Closed {
		rounds = b.First.ContentionRounds - a.First.ContentionRounds
	}
	return spent, rounds
}

// describePath writes a path as the replayable choices it is.
func (e *explorer) describePath(path []int) (*bus.Path, *big.Rat, error) {
	p := &bus.Path{Space: e.o.Space}
	prob := big.NewRat(1, 1)
	s := 0
	for i, k := range path {
		st := &e.states[s]
		if st.terminal || !st.expanded {
			return nil, nil, fmt.Errorf("explore: path step %d leaves the graph", i)
		}
		p.Choices = append(p.Choices, bus.PathChoice{Kind: st.choice.Kind, Node: st.choice.Node, Option: k, Meaning: st.choice.Describe(k)})
		next := -1
		for _, ed := range st.edges {
			if ed.option == k {
				next = ed.to
				if ed.p != nil {
					prob.Mul(prob, ed.p)
				}
			}
		}
		s = next
	}
	return p, prob, nil
}
