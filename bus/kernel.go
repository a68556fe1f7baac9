package bus

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Kernel is the discrete-event core of every simulation: a priority queue of
// events on virtual time. Events at the same nanosecond run in the order
// they were scheduled, never in map or heap order: each is ordered by
// (time, origin, sequence number), where its origin is the virtual time it
// was scheduled at (ScheduleAsOf may name a later one; ScheduleFirst an
// origin before all others).
//
// Most events of a bus fall a few nanoseconds to a few microseconds ahead
// (a cable delay, the next clock edge, a back-off), so the kernel keeps
// those due within wheelSpan ns of now on a timing wheel, one slot a
// nanosecond, each slot a list in queue order: scheduling one is an append,
// popping it a look at a bitmap. Later events (reset and self-ID timers,
// scripted events) wait in a 4-ary heap of values; Next takes the earlier
// of the two heads. A small bus has only a handful pending at a time, and
// for a handful a sorted array costs less than the wheel's bookkeeping: the
// kernel keeps up to smallSpan there, moves them to the wheel and the heap
// when one more comes, and comes back when the queue empties. Scheduling
// and popping allocate nothing once all three have grown to their working
// size.
//
// E is the caller's event payload. The zero Kernel is ready to use.
type Kernel[E any] struct {
	// Discard, if set, is asked about the earliest event (and its time)
	// before it is popped or peeked at, if ScheduleMayDiscard queued it:
	// one it reports true for has become a no-op (a timer armed again
	// since) and is removed there, never returned nor counted in
	// Processed, and Now stays. Discard is told once that it discards an
	// event, and may account for it.
	Discard func(at int64, ev E) bool

	now       int64
	seq       uint64
	processed uint64

	// The wheel: slot at&wheelMask holds, from head to tail, the events
	// due at at for every at in [now, now+wheelSpan), as 1-based indexes
	// into pool (0 is none), linked by next. occupied has a bit per slot
	// that holds any.
	head, tail []int32
	occupied   [wheelSpan / 64]uint64
	onWheel    int
	pool       []kernelNode[E] // pool[0] unused
	free       int32           // a list of unused pool nodes, through next

	far []kernelEntry[E] // a 4-ary heap of the events due later

	// small holds every pending event, latest first, while big is false;
	// the wheel and the heap hold them all while it is true.
	small []kernelEntry[E]
	big   bool

	// nearest caches the slot of the wheel's earliest event, +1; 0 when
	// not known. top caches where the earliest event is, Discard asked:
	// what earliest returns, +3; 0 when not known. Both hold from a
	// PeekTime to the Next that follows it.
	nearest, top int
}

const (
	wheelSpan = 4096 // ns ahead of now that the wheel holds
	wheelMask = wheelSpan - 1
	smallSpan = 16 // events the sorted array holds
)

// Where earliest finds the earliest event: a wheel slot (≥ 0), or one of
// these.
const (
	inFar   = -1 // the heap's top
	inSmall = -2 // the sorted array's end
)

type kernelEntry[E any] struct {
	at, origin int64
	seq        uint64 // the sequence number, shifted left; bit 0 is mayDiscard
	ev         E
}

const mayDiscard = 1

type kernelNode[E any] struct {
	kernelEntry[E]
	next int32
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

// popOrder orders entries as the kernel pops them, for slices.SortFunc.
func popOrder[E any](a, b kernelEntry[E]) int {
	if a.before(&b) {
		return -1
	}
	return 1
}

// Reset empties the kernel and sets Now and Processed to zero, keeping the
// memory it has grown for the next run.
func (k *Kernel[E]) Reset() {
	if k.onWheel > 0 { // else every slot is empty already: a run usually ends with none pending
		for w, word := range k.occupied {
			for ; word != 0; word &= word - 1 {
				s := w*64 + bits.TrailingZeros64(word)
				k.head[s], k.tail[s] = 0, 0
			}
		}
		k.occupied = [wheelSpan / 64]uint64{}
	}
	clear(k.small)
	k.now, k.seq, k.processed = 0, 0, 0
	k.onWheel, k.pool, k.free = 0, k.pool[:min(len(k.pool), 1)], 0
	k.far, k.small, k.big = k.far[:0], k.small[:0], false
	k.nearest, k.top = 0, 0
}

// Now is the time of the event last popped, or the time AdvanceTo moved
// it to.
func (k *Kernel[E]) Now() int64 { return k.now }

// AdvanceTo moves Now to at with no event popped, at neither before Now
// nor after the earliest pending event: for what happens between events
// without one of its own.
func (k *Kernel[E]) AdvanceTo(at int64) {
	if next, ok := k.PeekTime(); at < k.now || ok && at > next {
		panic(fmt.Sprintf("bus: advance to %d ns, outside [now %d ns, the next event]", at, k.now))
	}
	k.now = at
}

// Len is the number of pending events.
func (k *Kernel[E]) Len() int { return k.onWheel + len(k.far) + len(k.small) }

// Processed counts the events popped so far.
func (k *Kernel[E]) Processed() uint64 { return k.processed }

// Schedule queues ev at time at, which must not be in the past: an event
// scheduled before Now would break causality, and that is a bug in the
// caller, not a condition to recover from.
func (k *Kernel[E]) Schedule(at int64, ev E) { k.schedule(at, k.now, ev, k.nextSeq(0)) }

// ScheduleMayDiscard is Schedule for an event that may have become a
// no-op by the time it comes to the top: Discard is asked about it there.
// (Asking about every event would cost every event a call.)
func (k *Kernel[E]) ScheduleMayDiscard(at int64, ev E) {
	k.schedule(at, k.now, ev, k.nextSeq(mayDiscard))
}

// ScheduleFirst queues ev at time at, before every event that Schedule
// queues at the same instant, whenever it was queued; events that
// ScheduleFirst queues at one instant run in the order they were queued.
func (k *Kernel[E]) ScheduleFirst(at int64, ev E) { k.schedule(at, math.MinInt64, ev, k.nextSeq(0)) }

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
	k.schedule(at, origin, ev, k.nextSeq(0))
}

// nextSeq is the next sequence number, shifted left, with flags.
func (k *Kernel[E]) nextSeq(flags uint64) uint64 {
	k.seq++
	return k.seq<<1 | flags
}

// schedule queues ev at time at as of origin with sequence number seq
// (nextSeq): in the sorted array while it has room, else on the wheel or
// the heap.
func (k *Kernel[E]) schedule(at, origin int64, ev E, seq uint64) {
	if at < k.now {
		panic(fmt.Sprintf("bus: event scheduled at %d ns, before now (%d ns)", at, k.now))
	}
	k.top = 0
	if !k.big {
		if len(k.small) < smallSpan {
			k.insertSmall(kernelEntry[E]{at: at, origin: origin, seq: seq, ev: ev})
			return
		}
		k.grow()
	}
	k.nearest = 0
	if k.head == nil { // the zero Kernel's first event
		k.head, k.tail = make([]int32, wheelSpan), make([]int32, wheelSpan)
		k.pool = make([]kernelNode[E], 1, 64)
	}
	s := int(at & wheelMask)
	h, t := k.head[s], k.tail[s]
	switch {
	case at-k.now >= wheelSpan:
		k.push(kernelEntry[E]{at: at, origin: origin, seq: seq, ev: ev}) // beyond the wheel
		return
	case t != 0 && origin < k.pool[t].origin && origin >= k.pool[h].origin:
		// Its place is inside the slot's list (as of earlier than an
		// event queued as of later): a walk to it could be long on a
		// big bus, where thousands of events share a nanosecond; the
		// heap orders it as well, and Next takes the earlier head.
		k.push(kernelEntry[E]{at: at, origin: origin, seq: seq, ev: ev})
		return
	}
	x := k.free
	if x != 0 {
		k.free = k.pool[x].next
	} else {
		x = int32(len(k.pool))
		k.pool = append(k.pool, kernelNode[E]{})
	}
	node := &k.pool[x]
	node.at, node.origin, node.seq, node.ev, node.next = at, origin, seq, ev, 0
	k.onWheel++
	switch {
	case t == 0:
		k.head[s], k.tail[s] = x, x
		k.occupied[s/64] |= 1 << (s % 64)
	case origin >= k.pool[t].origin:
		k.pool[t].next, k.tail[s] = x, x // the common case: last at its instant
	default:
		node.next, k.head[s] = h, x // before all of its instant (ScheduleFirst)
	}
}

// insertSmall puts e in its place in the sorted array.
func (k *Kernel[E]) insertSmall(e kernelEntry[E]) {
	if k.small == nil {
		k.small = make([]kernelEntry[E], 0, smallSpan)
	}
	// schedule keeps len below smallSpan, the capacity; e is written
	// once, where an append would copy it to the end first.
	i := len(k.small)
	s := k.small[:i+1]
	for i > 0 && s[i-1].before(&e) { // nearer the end, earlier
		s[i] = s[i-1]
		i--
	}
	s[i] = e
	k.small = s
}

// grow moves the events of the sorted array to the wheel and the heap.
func (k *Kernel[E]) grow() {
	k.big, k.nearest = true, 0
	for i := len(k.small) - 1; i >= 0; i-- {
		e := &k.small[i]
		k.schedule(e.at, e.origin, e.ev, e.seq)
	}
	clear(k.small)
	k.small = k.small[:0]
}

// push queues an event on the heap.
func (k *Kernel[E]) push(e kernelEntry[E]) {
	n := len(k.far)
	if n == cap(k.far) {
		k.far = slices.Grow(k.far, 1)
	}
	k.far = k.far[:n+1] // up writes the new slot
	k.up(n, e)
}

// nearestSlot is the slot of the wheel's earliest event, -1 if the wheel
// is empty: the first occupied one from now's on, round the wheel.
func (k *Kernel[E]) nearestSlot() int {
	if k.nearest != 0 {
		return k.nearest - 1
	}
	if k.onWheel == 0 {
		return -1
	}
	from := int(k.now & wheelMask)
	w := from / 64
	if word := k.occupied[w] &^ (1<<(from%64) - 1); word != 0 {
		k.nearest = w*64 + bits.TrailingZeros64(word) + 1
		return k.nearest - 1
	}
	for i := 1; i <= len(k.occupied); i++ {
		w := (from/64 + i) % len(k.occupied)
		if word := k.occupied[w]; word != 0 {
			k.nearest = w*64 + bits.TrailingZeros64(word) + 1
			return k.nearest - 1
		}
	}
	panic("bus: the kernel's wheel counts events it does not hold")
}

// earliest is where the earliest pending event is, those Discard takes
// removed: the wheel slot, inFar or inSmall; ok is false when none is
// pending.
func (k *Kernel[E]) earliest() (slot int, ok bool) {
	if k.top != 0 {
		return k.top - 3, true
	}
	if !k.big {
		for n := len(k.small); n > 0; n = len(k.small) {
			e := &k.small[n-1]
			if e.seq&mayDiscard == 0 || k.Discard == nil || !k.Discard(e.at, e.ev) {
				k.top = inSmall + 3
				return inSmall, true
			}
			k.popSmall()
		}
		return inSmall, false
	}
	for {
		s := k.nearestSlot()
		var e *kernelEntry[E]
		switch {
		case s >= 0 && (len(k.far) == 0 || !k.far[0].before(&k.pool[k.head[s]].kernelEntry)):
			e = &k.pool[k.head[s]].kernelEntry
		case len(k.far) > 0:
			s, e = inFar, &k.far[0]
		default:
			return inFar, false
		}
		if e.seq&mayDiscard == 0 || k.Discard == nil || !k.Discard(e.at, e.ev) {
			k.top = s + 3
			return s, true
		}
		if s >= 0 {
			k.popSlot(s)
		} else {
			k.popFar()
		}
	}
}

// Next pops the earliest event and advances Now to its time. ok is false
// when no event is pending.
func (k *Kernel[E]) Next() (at int64, ev E, ok bool) {
	s, ok := k.earliest()
	if !ok {
		return k.now, ev, false
	}
	switch s {
	case inSmall:
		at, ev = k.popSmall()
	case inFar:
		at, ev = k.popFar()
	default:
		at, ev = k.popSlot(s)
	}
	if k.big && k.onWheel == 0 && len(k.far) == 0 {
		k.big = false // empty: back to the sorted array
	}
	k.top = 0
	k.now = at
	k.processed++
	return at, ev, true
}

// popSlot takes the first event of wheel slot s. (The pops return the
// event's time and payload, not its entry: a copy of the whole entry costs
// every event.)
func (k *Kernel[E]) popSlot(s int) (int64, E) {
	x := k.head[s]
	node := &k.pool[x]
	at, ev := node.at, node.ev
	k.head[s] = node.next
	if node.next == 0 {
		k.tail[s] = 0
		k.occupied[s/64] &^= 1 << (s % 64)
		k.nearest = 0
	}
	*node = kernelNode[E]{next: k.free} // no payload outlives its event
	k.free = x
	k.onWheel--
	return at, ev
}

// popSmall takes the sorted array's last (earliest) event.
func (k *Kernel[E]) popSmall() (int64, E) {
	n := len(k.small) - 1
	e := &k.small[n]
	at, ev := e.at, e.ev
	*e = kernelEntry[E]{} // no payload outlives its event
	k.small = k.small[:n]
	return at, ev
}

// popFar takes the heap's top.
func (k *Kernel[E]) popFar() (int64, E) {
	n := len(k.far)
	at, ev, last := k.far[0].at, k.far[0].ev, k.far[n-1]
	k.far = k.far[:n-1]
	if n > 1 {
		k.down(0, last)
	}
	return at, ev
}

// PeekTime is the time of the earliest pending event; ok is false when none is.
func (k *Kernel[E]) PeekTime() (at int64, ok bool) {
	s, ok := k.earliest()
	switch {
	case !ok:
		return 0, false
	case s == inSmall:
		return k.small[len(k.small)-1].at, true
	case s == inFar:
		return k.far[0].at, true
	}
	return k.pool[k.head[s]].at, true
}

// Drop removes every pending event for which stale reports true, and
// returns how many it removed. The others keep their order: it is for
// events that would do nothing when popped, whose place in the queue costs
// memory and time.
func (k *Kernel[E]) Drop(stale func(E) bool) int {
	dropped := 0
	k.nearest, k.top = 0, 0
	kept := k.small[:0]
	for _, e := range k.small {
		if !stale(e.ev) {
			kept = append(kept, e)
		}
	}
	dropped += len(k.small) - len(kept)
	clear(k.small[len(kept):])
	k.small = kept
	for w, word := range k.occupied {
		for ; word != 0; word &= word - 1 {
			s := w*64 + bits.TrailingZeros64(word)
			prev := int32(0)
			for cur := k.head[s]; cur != 0; {
				next := k.pool[cur].next
				if !stale(k.pool[cur].ev) {
					prev, cur = cur, next
					continue
				}
				if prev == 0 {
					k.head[s] = next
				} else {
					k.pool[prev].next = next
				}
				if k.tail[s] == cur {
					k.tail[s] = prev
				}
				k.pool[cur] = kernelNode[E]{next: k.free}
				k.free = cur
				k.onWheel--
				dropped++
				cur = next
			}
			if k.head[s] == 0 {
				k.occupied[w] &^= 1 << (s % 64)
			}
		}
	}
	kept = k.far[:0]
	for _, e := range k.far {
		if !stale(e.ev) {
			kept = append(kept, e)
		}
	}
	dropped += len(k.far) - len(kept)
	clear(k.far[len(kept):]) // no payload outlives its event
	k.far = kept
	for i := (len(kept) - 2) / 4; i >= 0 && len(kept) > 1; i-- {
		k.down(i, kept[i])
	}
	return dropped
}

// appendPending appends every pending event to dst, in no particular
// order.
func (k *Kernel[E]) appendPending(dst []kernelEntry[E]) []kernelEntry[E] {
	for w, word := range k.occupied {
		for ; word != 0; word &= word - 1 {
			for cur := k.head[w*64+bits.TrailingZeros64(word)]; cur != 0; cur = k.pool[cur].next {
				dst = append(dst, k.pool[cur].kernelEntry)
			}
		}
	}
	dst = append(dst, k.small...)
	return append(dst, k.far...)
}

// restore empties the kernel and sets it to a state saved with
// appendPending: the time, the counts, and the pending events with their
// order (time, origin, sequence number), in the order they pop, which
// keeps every slot's list in that order: they pop as they would have.
func (k *Kernel[E]) restore(now int64, seq, processed uint64, pending []kernelEntry[E]) {
	k.Reset()
	k.now, k.seq, k.processed = now, seq, processed
	for _, e := range pending {
		k.schedule(e.at, e.origin, e.ev, e.seq)
	}
}

// up puts e, for slot i of the heap, where it belongs on the way to the
// root. e is passed rather than read from slot i: writing an entry and
// reading it straight back stalls the load on the store, a cost per event.
func (k *Kernel[E]) up(i int, e kernelEntry[E]) {
	h := k.far
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

// down puts e, for slot i of the heap, where it belongs on the way to the
// leaves (e passed for the reason up gives).
func (k *Kernel[E]) down(i int, e kernelEntry[E]) {
	h := k.far
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
