package multicast

import (
	"fmt"

	"github.com/fwsim/fwsim/lab/netsim"
)

// Result is everything one run produced. Times are in delays.
type Result struct {
	// How the run was set, so that an output reproduces its run.
	Algo     string
	Seed     uint64
	Messages int
	Loss     float64
	// Medium is MediumBus or MediumMesh; CableLosses the cables given a
	// loss of their own.
	Medium      string
	CableLosses []CableLoss
	Stop        bool
	Sender      string
	Crashes     []Crash
	// Joins and Leaves (vsync) are the group's changes asked for.
	Joins, Leaves []Event
	// Members lists every node but the sender, in topology order.
	Members []Member
	// Sent counts the packets the nodes sent, lost ones included, by type:
	// on the bus a multicast is one packet, on the mesh one per addressee.
	Sent netsim.Messages
	// Transmissions counts, by type, what the medium carried: one per
	// cable (the bus) or link (the mesh) a packet crossed, the crossing it
	// was lost on included.
	Transmissions netsim.Messages
	// Receptions counts the copies that reached a live addressee.
	Receptions int
	// Lost counts the copies that missed their addressee because a cable
	// or link lost them; ToCrashed those that reached a node after it
	// crashed, lost there. LostData counts the DATA multicasts that missed
	// at least one addressee.
	Lost, ToCrashed, LostData int
	// NACKsSpared (srm) counts the NACKs suppression spared: messages whose
	// DATA was lost to a member and which it had repaired without sending a
	// NACK of its own, because another's NACK called for the repair.
	// RepairsSpared counts the repairs a holder dropped because another's
	// came first.
	NACKsSpared, RepairsSpared int
	Guarantees                 []Guarantee
	// Views (vsync) lists every view some node installed, by number.
	Views []View
	// Time is the last delivery.
	Time  float64
	Trace []netsim.TraceEntry
}

// Member is what one receiving node delivered.
type Member struct {
	Node      string
	Delivered int // messages delivered, in order from 1
	// Expected is the stream's length: what a member alive at the end must
	// deliver when the sender stays alive. In vsync, it is the messages of
	// the views the member saw to their end: those of every view it
	// flushed (a view it crashed in does not count), and those of the last
	// view when it is alive in it at the end.
	Expected   int
	Duplicates int // copies that arrived again and were dropped
	// Missing lists the numbers not delivered.
	Missing []int
	// GaveUp: ack's sender stopped sending to it, or (nack) it stopped
	// asking, after MaxTries.
	GaveUp    bool
	CrashedAt float64 // -1 when it did not crash
	// Views (vsync) lists the numbers of the views it installed, in order.
	Views []int
}

// View is one group view of vsync.
type View struct {
	Number int
	// Members, oldest first; the first coordinates.
	Members []string
	// Coordinator is the node that proposed it.
	Coordinator string
	// Messages are the numbers of the messages sent in it: From to To,
	// none when To < From. For every view but the last, that is the cut
	// its flush agreed on.
	From, To int
	// Installed lists the nodes that installed it.
	Installed []string
}

// Guarantee is one promise of the algorithm and whether the run kept it.
type Guarantee struct {
	Name string
	// Promised is false when a fault puts the run outside the promise
	// (the sender crashed), so that breaking it is no violation.
	Promised bool
	Held     bool
	// Detail says why it did not hold, or why it was not promised.
	Detail string
}

// Violated reports whether the run broke a promised guarantee: the verdict
// of a run, what makes fwsim multicast exit 1 (Broken says which).
func (r *Result) Violated() bool { return r.Broken() != nil }

// Format renders a time in ticks as delays, to the tick.
func Format(t int64) string { return fmt.Sprintf("%.3f", float64(t)/Delay) }

func (w *world) result(out *netsim.Outcome) *Result {
	o := w.opts
	medium := MediumBus
	if w.medium.tree == nil {
		medium = MediumMesh
	}
	res := &Result{Algo: w.algo.Name, Seed: o.Seed, Messages: o.Messages, Loss: o.Loss, Medium: medium, CableLosses: o.CableLosses,
		Stop: o.Stop, Sender: w.names[w.sender], Crashes: o.Crashes, Joins: o.Joins, Leaves: o.Leaves,
		Sent: netsim.NewMessages(w.algo.Types, w.sent), Transmissions: netsim.NewMessages(w.algo.Types, w.crossings),
		Receptions: w.receptions, Lost: w.lost, ToCrashed: out.ToCrashed, LostData: w.lostData,
		NACKsSpared: w.spared(), RepairsSpared: w.repairsSpared, Time: out.Time, Trace: out.Trace}
	ordered := Guarantee{Name: "in order, once each", Promised: true, Held: true}
	reliable := Guarantee{Name: "every live member delivered the whole stream", Promised: true, Held: true}
	if c := w.members[w.sender]; c.crashed {
		reliable.Promised = false
		reliable.Detail = fmt.Sprintf("not promised: the sender %s crashed at %s", w.names[w.sender], Format(c.crashAt))
	}
	for v, m := range w.members {
		if v == w.sender {
			continue
		}
		r := Member{Node: w.names[v], Delivered: len(m.delivered), Expected: o.Messages, Duplicates: m.duplicates,
			GaveUp: m.gaveUp, CrashedAt: -1}
		if m.crashed {
			r.CrashedAt = float64(m.crashAt) / Delay
		}
		if w.vs != nil {
			res.Members = append(res.Members, r)
			continue
		}
		for i, s := range m.delivered {
			if s != i+1 && ordered.Held {
				ordered.Held = false
				ordered.Detail = fmt.Sprintf("%s delivered message %d in place %d", r.Node, s, i+1)
			}
		}
		for s := len(m.delivered) + 1; s <= o.Messages; s++ {
			r.Missing = append(r.Missing, s)
		}
		if len(r.Missing) > 0 && !m.crashed && reliable.Held {
			reliable.Held = false
			if reliable.Promised {
				reliable.Detail = fmt.Sprintf("%s misses %d of %d messages, from %d", r.Node, len(r.Missing), o.Messages, r.Missing[0])
			}
		}
		res.Members = append(res.Members, r)
	}
	if w.vs != nil {
		w.checkViews(res)
		return res
	}
	res.Guarantees = []Guarantee{ordered, reliable}
	return res
}

// Broken is the first guarantee the algorithm promises that the run did
// not keep, nil when it kept every promise. A guarantee it does not
// promise may fail; that is what the lab shows.
func (r *Result) Broken() *Guarantee {
	for i, g := range r.Guarantees {
		if g.Promised && !g.Held {
			return &r.Guarantees[i]
		}
	}
	return nil
}
