package bus

import "fmt"

// Kernel is the discrete-event core of every simulation: a priority queue of
// events on virtual time, ordered by (time, sequence number) so that events at
// the same nanosecond run in the order they were scheduled (those queued with
// ScheduleFirst before the others), never in map or heap order. It is a
// 4-ary heap of values: scheduling and popping allocate nothing once the
// heap has grown to its working size.
//
// E is the caller's event payload. The zero Kernel is ready to use.
type Kernel[E any] struct {
	heap      []kernelEntry[E]
	seq       uint64
	now       int64
	processed uint64
}

type kernelEntry[E any] struct {
	at  int64
	seq uint64
	ev  E
}

func (a *kernelEntry[E]) before(b *kernelEntry[E]) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
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
func (k *Kernel[E]) Schedule(at int64, ev E) { k.schedule(at, ev, later) }

// ScheduleFirst queues ev at time at, before every event that Schedule
// queues at the same instant, whenever it was queued; events that
// ScheduleFirst queues at one instant run in the order they were queued.
// The world queues line-state arrivals so: what arrives at the instant of
// a clock edge is sampled on that edge, however early the evaluation of
// that edge was queued.
func (k *Kernel[E]) ScheduleFirst(at int64, ev E) { k.schedule(at, ev, 0) }

// later is the sequence bit that puts the events Schedule queues after
// those ScheduleFirst queues at the same instant.
const later = 1 << 63

func (k *Kernel[E]) schedule(at int64, ev E, class uint64) {
	if at < k.now {
		panic(fmt.Sprintf("bus: event scheduled at %d ns, before now (%d ns)", at, k.now))
	}
	k.seq++
	k.heap = append(k.heap, kernelEntry[E]{at: at, seq: k.seq | class, ev: ev})
	k.up(len(k.heap) - 1)
}

// Next pops the earliest event and advances Now to its time. ok is false
// when no event is pending.
func (k *Kernel[E]) Next() (at int64, ev E, ok bool) {
	n := len(k.heap)
	if n == 0 {
		return k.now, ev, false
	}
	top := k.heap[0]
	k.heap[0] = k.heap[n-1]
	k.heap = k.heap[:n-1]
	if n > 1 {
		k.down(0)
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
		k.down(i)
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

func (k *Kernel[E]) up(i int) {
	h := k.heap
	e := h[i]
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

func (k *Kernel[E]) down(i int) {
	h := k.heap
	n := len(h)
	e := h[i]
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
