package bus

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKernelOrdersByTimeThenSchedulingOrder(t *testing.T) {
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(1, 2))
	type item struct {
		at  int64
		ord int
	}
	var want []item
	for i := range 2000 {
		at := rng.Int64N(50) // many ties
		k.Schedule(at, i)
		want = append(want, item{at, i})
	}
	sort.SliceStable(want, func(a, b int) bool { return want[a].at < want[b].at })
	for i, w := range want {
		at, ev, ok := k.Next()
		require.True(t, ok, "event %d missing", i)
		assert.Equal(t, w.at, at)
		require.Equal(t, w.ord, ev, "at %d ns ties must pop in scheduling order", at)
		assert.Equal(t, at, k.Now())
	}
	_, _, ok := k.Next()
	assert.False(t, ok)
	assert.Equal(t, uint64(2000), k.Processed())
}

// Events queued with ScheduleFirst pop before every event Schedule queued
// at the same instant, even one queued long before; among themselves, and
// among the others, in scheduling order.
func TestKernelScheduleFirstRunsFirstAtItsInstant(t *testing.T) {
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(3, 4))
	type item struct {
		at    int64
		first bool
		ord   int
	}
	var want []item
	for i := range 2000 {
		at, first := rng.Int64N(50), rng.IntN(2) == 0
		if first {
			k.ScheduleFirst(at, i)
		} else {
			k.Schedule(at, i)
		}
		want = append(want, item{at, first, i})
	}
	sort.SliceStable(want, func(a, b int) bool {
		if want[a].at != want[b].at {
			return want[a].at < want[b].at
		}
		return want[a].first && !want[b].first
	})
	for i, w := range want {
		at, ev, ok := k.Next()
		require.True(t, ok, "event %d missing", i)
		require.Equal(t, w.at, at)
		require.Equal(t, w.ord, ev, "at %d ns: arrivals first, then scheduling order", at)
	}
}

func TestKernelInterleavedScheduling(t *testing.T) {
	var k Kernel[int64]
	rng := rand.New(rand.NewPCG(3, 4))
	k.Schedule(0, 0)
	last := int64(-1)
	for k.Len() > 0 {
		at, ev, _ := k.Next()
		require.GreaterOrEqual(t, at, last)
		require.Equal(t, at, ev)
		last = at
		if k.Processed() < 10000 {
			for range rng.IntN(3) {
				d := rng.Int64N(100)
				k.Schedule(at+d, at+d)
			}
			if k.Len() == 0 {
				k.Schedule(at+1, at+1)
			}
		}
	}
}

func TestKernelRejectsThePast(t *testing.T) {
	var k Kernel[int]
	k.Schedule(10, 1)
	k.Next()
	assert.Panics(t, func() { k.Schedule(9, 2) })
}

func TestKernelDoesNotAllocatePerEvent(t *testing.T) {
	var k Kernel[[3]int64]
	for i := range 1024 {
		k.Schedule(int64(i), [3]int64{})
	}
	for k.Len() > 0 {
		k.Next()
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 512 {
			k.Schedule(k.Now()+int64(i%37), [3]int64{})
		}
		for k.Len() > 0 {
			k.Next()
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkKernel(b *testing.B) {
	var k Kernel[simEvent]
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 256 {
		k.Schedule(int64(i), simEvent{})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		at, ev, _ := k.Next()
		k.Schedule(at+1+rng.Int64N(200), ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// kernelOp is one pop of a recorded run and the pushes its dispatch made.
type kernelOp struct {
	pushes    []kernelPush
	discarded bool // a stale timer the kernel discarded: a pop that is no event
}

type kernelPush struct{ at, origin int64 }

// recordKernelOps runs the bus of sim once with seed and records the
// kernel's work: the events queued before the first pop, then, per pop,
// the events its dispatch queued.
func recordKernelOps(tb testing.TB, sim *Simulator, seed uint64) (initial []kernelPush, ops []kernelOp) {
	tb.Helper()
	w := sim.w
	w.rebuild = w.rebuild || !w.reusable()
	require.NoError(tb, w.start(seed))
	pushedSince := func(seq uint64) []kernelPush {
		var p []kernelPush
		var order []uint64
		for _, e := range w.k.appendPending(nil) {
			if e.seq>>1 > seq {
				p = append(p, kernelPush{at: e.at, origin: e.origin})
				order = append(order, e.seq)
			}
		}
		// The heap holds them out of order: queue them as they came.
		sort.Sort(bySeq{p, order})
		return p
	}
	initial = pushedSince(0)
	// A stale timer the kernel discards is a pop that queues nothing.
	discard := w.k.Discard
	defer func() { w.k.Discard = discard }()
	w.k.Discard = func(at int64, ev simEvent) bool {
		d := discard(at, ev)
		if d {
			ops = append(ops, kernelOp{discarded: true})
		}
		return d
	}
	for w.k.Len() > 0 {
		seq := w.k.seq
		_, ev, ok := w.k.Next()
		if !ok {
			break // the last ones were discarded
		}
		w.dispatch(ev)
		ops = append(ops, kernelOp{pushes: pushedSince(seq)})
	}
	return initial, ops
}

type bySeq struct {
	p   []kernelPush
	seq []uint64
}

func (s bySeq) Len() int           { return len(s.p) }
func (s bySeq) Less(a, b int) bool { return s.seq[a] < s.seq[b] }
func (s bySeq) Swap(a, b int) {
	s.p[a], s.p[b] = s.p[b], s.p[a]
	s.seq[a], s.seq[b] = s.seq[b], s.seq[a]
}

// bareHeap is the yardstick of the simulator's cost per event: a 4-ary heap
// of values with entries the size of the kernel's, ordered as the kernel
// orders them, and nothing else.
type bareHeap []bareEntry

type bareEntry struct {
	at, origin int64
	seq        uint64
	_          simEvent // the payload's size, never read
}

func (a *bareEntry) before(b *bareEntry) bool {
	return a.at < b.at || a.at == b.at && (a.origin < b.origin || a.origin == b.origin && a.seq < b.seq)
}

func (h *bareHeap) push(e bareEntry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if s[p].before(&e) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

func (h *bareHeap) pop() bareEntry {
	s := *h
	top, e := s[0], s[len(s)-1]
	s = s[:len(s)-1]
	*h = s
	i, n := 0, len(s)
	for n > 0 {
		first := 4*i + 1
		if first >= n {
			break
		}
		best := first
		for c := first + 1; c < min(first+4, n); c++ {
			if s[c].before(&s[best]) {
				best = c
			}
		}
		if e.before(&s[best]) {
			break
		}
		s[i] = s[best]
		i = best
	}
	if n > 0 {
		s[i] = e
	}
	return top
}

// BenchmarkBareHeapInit63 replays on bareHeap the pushes and pops the
// kernel makes in one 63-node initialisation (BenchmarkSimulatorInit63's
// first run): the same number of push/pop pairs at the same queue sizes.
// Its ns/event against BenchmarkSimulatorInit63's is what the rest of the
// simulator costs per event.
func BenchmarkBareHeapInit63(b *testing.B) {
	sim, err := NewSimulator(benchTree(b), Options{})
	require.NoError(b, err)
	initial, ops := recordKernelOps(b, sim, 0)
	h := make(bareHeap, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		h = h[:0]
		var seq uint64
		push := func(p kernelPush) {
			seq++
			h.push(bareEntry{at: p.at, origin: p.origin, seq: seq})
		}
		for _, p := range initial {
			push(p)
		}
		for _, op := range ops {
			h.pop()
			for _, p := range op.pushes {
				push(p)
			}
		}
	}
	b.ReportMetric(float64(len(ops)), "events/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ops)), "ns/event")
}

func TestRecordedKernelOpsReplayTheRun(t *testing.T) {
	sim, err := NewSimulator(mustGenerate(t, "tree:63:3"), Options{})
	require.NoError(t, err)
	want := sim.Run(7)
	initial, ops := recordKernelOps(t, sim, 7)
	pushes := len(initial)
	for _, op := range ops {
		pushes += len(op.pushes)
	}
	events := 0
	for _, op := range ops {
		if !op.discarded {
			events++
		}
	}
	assert.Equal(t, want.Events, uint64(events), "one recorded op per event the run processed, and one per stale timer discarded")
	assert.Less(t, events, len(ops), "no stale timer was discarded")
	assert.Equal(t, len(ops), pushes, "every event queued is popped: the run ends with an empty queue")
}

func TestKernelDropKeepsTheOrderOfTheRest(t *testing.T) {
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		k.Schedule(rng.Int64N(100), i)
	}
	assert.Equal(t, 1000, k.Drop(func(i int) bool { return i%3 == 0 }))
	last, lastEv := int64(-1), -1
	for k.Len() > 0 {
		at, ev, _ := k.Next()
		require.NotZero(t, ev%3, "event %d was dropped", ev)
		require.True(t, at > last || (at == last && ev > lastEv), "event %d at %d after %d at %d", ev, at, lastEv, last)
		last, lastEv = at, ev
	}
}

// A bus of thousands of nodes re-arms more timers than the queue holds live
// events: dropping the stale ones early changes nothing, but how many the
// kernel discards when they come to the top. (At the default threshold it
// takes about 20,000 nodes; a low one shows the same on fewer.)
func TestDroppingStaleTimersChangesNoResult(t *testing.T) {
	topo := mustGenerate(t, "tree:2000:1")
	defer func(kept int) { staleTimersKept = kept }(staleTimersKept)
	run := func(kept int) (discarded int, res *Result) {
		staleTimersKept = kept
		w, err := build(topo, Options{Seed: 1, AllowOutOfSpec: true})
		require.NoError(t, err)
		discard := w.k.Discard
		w.k.Discard = func(at int64, ev simEvent) bool {
			d := discard(at, ev)
			if d {
				discarded++
			}
			return d
		}
		w.run()
		res = &Result{Events: w.events(), EndNs: w.lastActive}
		for _, g := range w.gens {
			res.Generations = append(res.Generations, g.result)
		}
		return discarded, res
	}
	atTop, dropped := run(256)
	allAtTop, kept := run(math.MaxInt)
	assert.Less(t, atTop, allAtTop, "no stale timer was dropped before it came to the top")
	assert.Equal(t, kept, dropped)
}

// The kernel moves its payload on every step of a sift: a field added to
// simEvent that grows it past 16 bytes costs every event.
func TestSimEventStaysSixteenBytes(t *testing.T) {
	assert.Equal(t, uintptr(16), unsafe.Sizeof(simEvent{}))
}

// An event queued as of a later origin takes, among the events of its
// instant, the place an event queued at that origin would take: after
// those queued before it, before those queued from it on.
func TestKernelScheduleAsOfTakesTheOriginsPlace(t *testing.T) {
	var k Kernel[string]
	k.Schedule(10, "queued at 0")
	k.ScheduleAsOf(10, 5, "as of 5")
	k.Schedule(5, "at 5")
	at, ev, _ := k.Next()
	require.Equal(t, "at 5", ev)
	require.Equal(t, int64(5), at)
	k.Schedule(10, "queued at 5")
	k.ScheduleFirst(10, "first")
	k.ScheduleAsOf(10, 7, "as of 7")
	var order []string
	for k.Len() > 0 {
		_, ev, _ := k.Next()
		order = append(order, ev)
	}
	assert.Equal(t, []string{"first", "queued at 0", "as of 5", "queued at 5", "as of 7"}, order)
	assert.Panics(t, func() { k.ScheduleAsOf(20, 9, "before now") }, "origin before now")
	assert.Panics(t, func() { k.ScheduleAsOf(20, 21, "after its time") }, "origin after the event")
}

// The wheel and the heap behind it pop in exactly the order one sorted
// list of (time, origin, sequence) would: near and far times, the three
// ways to schedule, drops and resets mixed, checked against that list.
func TestKernelMatchesASortedList(t *testing.T) {
	type ref struct {
		at, origin int64
		seq        uint64
		id         int
	}
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(11, 12))
	for round := range 4 {
		var want []ref
		var seq uint64
		id := 0
		schedule := func() {
			now := k.Now()
			var at int64
			switch rng.IntN(4) {
			case 0:
				at = now + rng.Int64N(4) // ties at and near now
			case 1:
				at = now + rng.Int64N(wheelSpan+64) // either side of the wheel's reach
			case 2:
				at = now + wheelSpan - 1 + rng.Int64N(3) // its edge
			default:
				at = now + rng.Int64N(20*wheelSpan) // the heap
			}
			seq++
			r := ref{at: at, origin: now, seq: seq, id: id}
			switch rng.IntN(5) {
			case 0:
				r.origin = math.MinInt64
				k.ScheduleFirst(at, id)
			case 1:
				r.origin = now + rng.Int64N(at-now+1)
				k.ScheduleAsOf(at, r.origin, id)
			default:
				k.Schedule(at, id)
			}
			want = append(want, r)
			id++
		}
		// A long queue, and short ones that wander across smallSpan:
		// the kernel moves its events to the wheel and back.
		for range []int{300, 5, smallSpan - 2, 40}[round] {
			schedule()
		}
		for k.Len() > 0 {
			slices.SortFunc(want, func(a, b ref) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.origin, b.origin), cmp.Compare(a.seq, b.seq))
			})
			require.Equal(t, len(want), k.Len())
			peek, ok := k.PeekTime()
			require.True(t, ok)
			at, ev, _ := k.Next()
			require.Equal(t, want[0].at, peek, "round %d", round)
			require.Equal(t, want[0].at, at, "round %d", round)
			require.Equal(t, want[0].id, ev, "round %d: event %d at %d ns", round, ev, at)
			want = want[1:]
			if k.Processed()%97 == 0 {
				drop := rng.IntN(3)
				n := k.Drop(func(id int) bool { return id%3 == drop })
				kept := want[:0]
				for _, r := range want {
					if r.id%3 != drop {
						kept = append(kept, r)
					}
				}
				require.Equal(t, len(want)-len(kept), n)
				want = kept
			}
			if k.Processed() < 3000 {
				for range rng.IntN(3) {
					schedule()
				}
			}
		}
		_, ok := k.PeekTime()
		assert.False(t, ok)
		k.Reset()
		assert.Zero(t, k.Now())
		assert.Zero(t, k.Processed())
	}
}

func TestKernelAdvanceToStaysBetweenNowAndTheNextEvent(t *testing.T) {
	var k Kernel[int]
	k.Schedule(10, 1)
	k.AdvanceTo(10)
	assert.Equal(t, int64(10), k.Now())
	assert.Panics(t, func() { k.AdvanceTo(11) }, "past the next event")
	k.Next()
	k.AdvanceTo(50)
	assert.Panics(t, func() { k.AdvanceTo(49) }, "back in time")
	assert.Equal(t, uint64(1), k.Processed(), "advancing pops nothing")
}

// Discard is asked only about events ScheduleMayDiscard queued, when they
// come to the top; those it takes are never returned nor counted.
func TestKernelDiscardsOnlyWhatMayBeDiscarded(t *testing.T) {
	var k Kernel[int]
	var asked []int
	k.Discard = func(_ int64, id int) bool {
		asked = append(asked, id)
		return id%2 == 0
	}
	for id := range 6 {
		at := int64(10 * id)
		if id >= 3 {
			at += 5000 // beyond the wheel: the heap
		}
		if id%3 == 0 {
			k.Schedule(at, id)
		} else {
			k.ScheduleMayDiscard(at, id)
		}
	}
	var got []int
	for {
		_, id, ok := k.Next()
		if !ok {
			break
		}
		got = append(got, id)
	}
	assert.Equal(t, []int{0, 1, 3, 5}, got)
	assert.Equal(t, []int{1, 2, 4, 5}, asked)
	assert.Equal(t, uint64(4), k.Processed())
}

// A run that stops on a budget leaves events pending: Reset must forget
// them wherever they wait (the sorted array, the wheel, the heap), and the
// next run must find none of them.
func TestKernelResetForgetsPendingEvents(t *testing.T) {
	var k Kernel[int]
	for _, pending := range []int{3, smallSpan + 5, 200} {
		for i := range pending {
			k.Schedule(int64(i*37)%(2*wheelSpan), -1) // near and far
		}
		k.Next()
		k.Reset()
		require.Zero(t, k.Len(), "%d pending", pending)
		_, ok := k.PeekTime()
		require.False(t, ok, "%d pending", pending)
		for id := range 20 {
			k.Schedule(int64(id%7), id)
		}
		var want []int // by time, then scheduling order: 0, 7, 14 at 0 ns, 1, 8, 15 at 1 ns, ...
		for at := range 7 {
			for id := at; id < 20; id += 7 {
				want = append(want, id)
			}
		}
		for _, id := range want {
			at, ev, ok := k.Next()
			require.True(t, ok)
			require.Equal(t, id, ev, "%d pending before Reset: event at %d ns", pending, at)
		}
		_, _, ok = k.Next()
		require.False(t, ok)
		k.Reset()
	}
}
