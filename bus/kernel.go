package bus

import (
	"fmt"
	"math"
	"slices"
)

// Kernel is the discrete-event core of every simulation: a priority queue of
// events on virtual time. Events at the same nanosecond run in the order
// they were scheduled, never in map or heap order: each is ordered by
// (time, origin, sequence number), where its origin is the virtual time it
// was scheduled at (ScheduleAsOf may name a later one; ScheduleFirst an
// origin before all others). It is a 4-ary heap of values: scheduling and
// popping allocate nothing once the heap has grown to its working size.
//
// E is the caller's event payload. The zero Kernel is ready to use.
type Kernel[E any] struct {
	heap      []kernelEntry[E]
	seq       uint64
	now       int64
	processed uint64
}

type kernelEntry[E any] struct {
	at, origin int64
	seq        uint64
	ev         E
}

func (a *kernelEntry[E]) before(b *kernelEntry[E]) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.origin != b.origin {
		return a.origin < b.origin
	}
	return a.seq < b.seq
}

// Now is the time of the event last popped.
func (k *Kernel[E]) Now() int64 { return k.now }

// Len is the number of pending events.
func (k *Kernel[E]) Len() int { return len(k.heap) }

// Processed counts the events popped so far.
func (k *Kernel[E]) Processed() uint64 { return k.processed }

// Schedule queues ev at time at, which must not be in the past: an event
// scheduled before Now would break causality, and that is a bug in the
// caller, not a condition to recover from.
func (k *Kernel[E]) Schedule(at int64, ev E) { k.schedule(at, k.now, ev) }

// ScheduleFirst queues ev at time at, before every event that Schedule
// queues at the same instant, whenever it was queued; events that
// ScheduleFirst queues at one instant run in the order they were queued.
func (k *Kernel[E]) ScheduleFirst(at int64, ev E) { k.schedule(at, math.MinInt64, ev) }

// ScheduleAsOf queues ev at time at where Schedule would have queued it
// had it been called at virtual time origin, which is neither before Now
// nor after at: after what is queued for at before origin, and before what
// is queued for at from origin on. It is for an event that something at
// origin would queue, when that something needs no event of its own: the
// world queues the evaluation a line state's arrival calls for when the
// line state is sent, as the arrival itself would have queued it.
func (k *Kernel[E]) ScheduleAsOf(at, origin int64, ev E) {
	if origin < k.now || origin > at {
		panic(fmt.Sprintf("bus: event at %d ns scheduled as of %d ns, outside [now %d ns, its time]", at, origin, k.now))
	}
	k.schedule(at, origin, ev)
}

func (k *Kernel[E]) schedule(at, origin int64, ev E) {
	if at < k.now {
		panic(fmt.Sprintf("bus: event scheduled at %d ns, before now (%d ns)", at, k.now))
	}
	k.seq++
	n := len(k.heap)
	if n == cap(k.heap) {
		k.heap = slices.Grow(k.heap, 1)
	}
	k.heap = k.heap[:n+1] // up writes the new slot
	k.up(n, kernelEntry[E]{at: at, origin: origin, seq: k.seq, ev: ev})
}

// Next pops the earliest event and advances Now to its time. ok is false
// when no event is pending.
func (k *Kernel[E]) Next() (at int64, ev E, ok bool) {
	n := len(k.heap)
	if n == 0 {
		return k.now, ev, false
	}
	top, last := k.heap[0], k.heap[n-1]
	k.heap = k.heap[:n-1]
	if n > 1 {
		k.down(0, last)
	}
	k.now = top.at
	k.processed++
	return top.at, top.ev, true
}

// Drop removes every pending event for which stale reports true, and
// returns how many it removed. The others keep their order: it is for
// events that would do nothing when popped, whose place in the queue costs
// memory and time.
func (k *Kernel[E]) Drop(stale func(E) bool) int {
	kept := k.heap[:0]
	for _, e := range k.heap {
		if !stale(e.ev) {
			kept = append(kept, e)
		}
	}
	dropped := len(k.heap) - len(kept)
	clear(k.heap[len(kept):]) // no payload outlives its event
	k.heap = kept
	for i := (len(kept) - 2) / 4; i >= 0; i-- {
		k.down(i, kept[i])
	}
	return dropped
}

// PeekTime is the time of the earliest pending event; ok is false when none is.
func (k *Kernel[E]) PeekTime() (at int64, ok bool) {
	if len(k.heap) == 0 {
		return 0, false
	}
	return k.heap[0].at, true
}

// up puts e, for slot i, where it belongs on the way to the root. e is
// passed rather than read from slot i: writing an entry and reading it
// straight back stalls the load on the store, a cost per event.
func (k *Kernel[E]) up(i int, e kernelEntry[E]) {
	h := k.heap
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down puts e, for slot i, where it belongs on the way to the leaves (e
// passed for the reason up gives).
func (k *Kernel[E]) down(i int, e kernelEntry[E]) {
	h := k.heap
	n := len(h)
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		best := first
		last := min(first+4, n)
		for c := first + 1; c < last; c++ {
			if h[c].before(&h[best]) {
				best = c
			}
		}
		if !h[best].before(&e) {
			break
		}
		h[i] = h[best]
		i = best
	}
	h[i] = e
}
