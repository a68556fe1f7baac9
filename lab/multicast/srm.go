package multicast

import "github.com/fwsim/fwsim/lab/netsim"

// recovery is a node's state in srm (Floyd et al. 1997), per sequence
// number. A timer is cancelled by moving on its generation: the runtime's
// timers cannot be taken back, so a timer whose generation is no longer
// current passes unheeded.
type recovery struct {
	// Requests: the pending NACK's generation (0: none), its back-off
	// factor, the NACKs sent, and whether the pending one was put off by
	// another's NACK already (SRM ignores further NACKs of that round).
	reqGen, backoff, asked []int64
	putOff                 []bool
	// Repairs: the generation of the last REPAIR timer, whether it is
	// pending, and when this node last repaired.
	repGen, repaired []int64
	repairing        []bool
	// dataLost: the sender's DATA to this node was lost.
	dataLost []bool
}

func newRecovery(messages int) *recovery {
	n := messages + 1
	return &recovery{reqGen: make([]int64, n), backoff: make([]int64, n), asked: make([]int64, n),
		putOff: make([]bool, n), repGen: make([]int64, n), repaired: make([]int64, n), repairing: make([]bool, n),
		dataLost: make([]bool, n)}
}

// maxBackoff bounds the back-off factor: doubled MaxTries times without
// bound, it would reach 2³⁰ delays, and a member nobody can repair (the
// sender crashed, or every copy lost) would keep the stop signal going for
// as long before it gives up.
const maxBackoff = 64

// wait draws a back-off of factor k: uniform in [k, 2k) delays, SRM's
// [C1·d, (C1+C2)·d] with C1 = C2 = 1 and d, the distance to the sender,
// one delay.
func (w *world) wait(k int64) int64 { return k*Delay + w.rng.Int64N(k*Delay) }

// holds reports whether v has message s: the sender once it sent it, a
// member once it arrived.
func (w *world) holds(v, s int) bool {
	if v == w.sender {
		return s <= w.members[v].last
	}
	return w.members[v].got[s]
}

// hear handles a message at v in srm.
func (w *world) hear(x *netsim.Net, v int, m netsim.Message) {
	s := int(m.Value)
	switch m.Type {
	case typeNack:
		w.heardRequest(x, v, s)
	case typeStop:
		w.notice(x, v, s)
	default: // DATA or REPAIR
		r := w.members[v].srm
		if m.Type == typeRetrans && r.repairing[s] {
			r.repairing[s] = false // another's repair spares this node its own
			w.repairsSpared++
		}
		if v != w.sender {
			w.arrive(x, v, s)
			w.notice(x, v, s)
		}
	}
}

// notice: v knows that messages up to s were sent; every one it misses and
// has not scheduled a NACK for gets one, after a back-off.
func (w *world) notice(x *netsim.Net, v, s int) {
	me := &w.members[v]
	if v == w.sender {
		return
	}
	me.last = max(me.last, s)
	r := me.srm
	for t := me.next; t <= me.last; t++ {
		if !me.got[t] && r.reqGen[t] == 0 && r.asked[t] == 0 {
			r.backoff[t] = 1
			w.schedule(x, v, t)
		}
	}
}

// schedule arms v's NACK for t after a back-off of the current factor.
func (w *world) schedule(x *netsim.Net, v, t int) {
	r := w.members[v].srm
	r.reqGen[t]++
	x.TimerAt(v, x.Now()+w.wait(r.backoff[t]), netsim.Message{Type: tagRequest, Value: int64(t), Aux: r.reqGen[t]})
}

// request: v's NACK timer for s fired. Still missing s, it multicasts the
// NACK, and asks again after a doubled back-off unless the repair comes;
// after MaxTries NACKs it gives up.
func (w *world) request(x *netsim.Net, v, s int, gen int64) {
	me := &w.members[v]
	r := me.srm
	if gen != r.reqGen[s] || me.got[s] {
		return
	}
	r.putOff[s] = false
	if r.asked[s] == MaxTries {
		me.gaveUp = true
		r.reqGen[s] = 0
		return
	}
	r.asked[s]++
	w.multicast(x, v, netsim.Message{Type: typeNack, Value: int64(s)})
	r.backoff[s] = min(2*r.backoff[s], maxBackoff)
	w.schedule(x, v, s)
}

// heardRequest: another node asked for s. A node that misses s too and was
// about to ask puts its NACK off, doubling its back-off, so that the repair
// the other's NACK calls for has time to come. A node that holds s schedules a
// repair, unless one is pending or it repaired s within a round trip (the
// NACK may predate that repair).
func (w *world) heardRequest(x *netsim.Net, v, s int) {
	me := &w.members[v]
	r := me.srm
	if !w.holds(v, s) {
		if r.reqGen[s] > 0 && !r.putOff[s] {
			r.putOff[s] = true
			r.backoff[s] = min(2*r.backoff[s], maxBackoff)
			w.schedule(x, v, s)
		}
		return
	}
	if r.repairing[s] || r.repaired[s] > 0 && x.Now()-r.repaired[s] < roundTrip {
		return
	}
	r.repairing[s] = true
	r.repGen[s]++
	x.TimerAt(v, x.Now()+w.wait(1), netsim.Message{Type: tagRepair, Value: int64(s), Aux: r.repGen[s]})
}

// repair: v's repair timer for s fired and no other repair came first: it
// multicasts the REPAIR.
func (w *world) repair(x *netsim.Net, v, s int, gen int64) {
	r := w.members[v].srm
	if !r.repairing[s] || gen != r.repGen[s] {
		return
	}
	r.repairing[s] = false
	r.repaired[s] = x.Now()
	w.multicast(x, v, netsim.Message{Type: typeRetrans, Value: int64(s)})
}

// spared counts the NACKs suppression spared: the messages whose DATA was
// lost to a member and which it had repaired without sending a NACK of its
// own.
func (w *world) spared() int {
	n := 0
	for v, m := range w.members {
		if v == w.sender || m.srm == nil {
			continue
		}
		for s, lost := range m.srm.dataLost {
			if lost && m.srm.asked[s] == 0 && m.got[s] {
				n++
			}
		}
	}
	return n
}
