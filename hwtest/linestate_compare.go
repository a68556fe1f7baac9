package hwtest

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// FormatEmulation names a LineCapture that EmulatedLines made.
const FormatEmulation Format = "emulation"

// EmulatedLines is the line-state timeline of every port of an emulated
// run, as fwsim's sigrok-dialect VCD of the run records it: res gives the
// nodes and their ports, trace (recorded with bus.Options.Observer during
// the run) every received line state. Times are exact, at 1 ns.
func EmulatedLines(res *bus.Result, trace []bus.TraceEvent) *LineCapture {
	out := &LineCapture{Format: FormatEmulation, SamplePeriodNs: 1, EndNs: res.EndNs}
	index := map[PortRef]int{}
	add := func(p PortRef) {
		if _, ok := index[p]; !ok {
			index[p] = len(out.Ports)
			out.Ports = append(out.Ports, PortLines{Port: p, Changes: []LineChange{{0, phy.RxIdle}}})
		}
	}
	for _, g := range res.Generations {
		for _, n := range g.Nodes {
			for p := range n.Ports {
				add(PortRef{n.ID, p})
			}
		}
	}
	for _, e := range trace {
		if e.Kind != bus.TraceReceive {
			continue
		}
		p := PortRef{e.Node, e.Port}
		add(p)
		pl := &out.Ports[index[p]]
		last := &pl.Changes[len(pl.Changes)-1]
		switch {
		case last.AtNs == e.TimeNs:
			last.State = e.ToLine // the instant is not over
			if n := len(pl.Changes); n > 1 && pl.Changes[n-2].State == last.State {
				pl.Changes = pl.Changes[:n-1]
			}
		case last.State != e.ToLine:
			pl.Changes = append(pl.Changes, LineChange{e.TimeNs, e.ToLine})
		}
		out.EndNs = max(out.EndNs, e.TimeNs)
	}
	slices.SortFunc(out.Ports, func(a, b PortLines) int { return comparePorts(a.Port, b.Port) })
	return out
}

// EpisodeKind is what a stretch of a port's line states is.
type EpisodeKind string

// The episodes of tree identify a line-state capture resolves.
const (
	// EpisodeReset: the port receives BUS_RESET (1,1).
	EpisodeReset EpisodeKind = "reset"
	// EpisodeContention: after a reset and before the handshake, a
	// stretch in which the pairs are only driven to 0: both ends sent
	// PARENT_NOTIFY, ROOT_CONTENTION (0,0) where it is long enough to be
	// sampled. The idle after it is the back-off.
	EpisodeContention EpisodeKind = "contention"
	// EpisodeHandshake: the first stretch after a reset with a pair
	// driven to 1: the child's PARENT_NOTIFY answered by the parent's
	// CHILD_NOTIFY, until both ends are idle again.
	EpisodeHandshake EpisodeKind = "handshake"
	// EpisodeSelfID: any later stretch before the next reset: self-ID
	// grants and packets, whose bits a comparator does not resolve.
	EpisodeSelfID EpisodeKind = "self-id"
)

// Episode is a stretch of a port's timeline between idle lines; a reset
// is always one of its own.
type Episode struct {
	Kind           EpisodeKind
	StartNs, EndNs int64
	// HighNs is when a pair is first driven to 1 in the episode, -1 if
	// never: in a handshake, the parent's CHILD_NOTIFY answering the
	// child's PARENT_NOTIFY. Where the handshake ends is not as clear:
	// when self-ID follows it without an idle line, the pair the parent
	// stops driving to 1 can be driven to 1 by the child's DATA_PREFIX
	// within nanoseconds, and the episode runs on to the end of self-ID.
	HighNs int64
	// Reset counts the resets the port has received up to this
	// episode, its own included: 0 before the first.
	Reset int
	// Begun: the capture began during the episode, so StartNs is the
	// capture's start, not the episode's.
	Begun bool
	// Cut: the capture ended during the episode, so EndNs is the
	// capture's end, not the episode's.
	Cut bool
}

// Episodes splits a port's timeline, which ends at end, into episodes.
func Episodes(pl PortLines, end int64) []Episode {
	var out []Episode
	open, one := false, false // an episode is open; it has a pair driven to 1
	resets := 0
	handshake := false // the current reset's handshake is past
	closeAt := func(at int64) {
		if !open {
			return
		}
		e := &out[len(out)-1]
		e.EndNs = at
		if e.Kind != EpisodeReset {
			switch {
			case handshake:
				e.Kind = EpisodeSelfID
			case one:
				e.Kind, handshake = EpisodeHandshake, true
			default:
				e.Kind = EpisodeContention
			}
		}
		open = false
	}
	for _, c := range pl.Changes {
		reset, high := c.State == phy.RxBusReset, c.State.A() == phy.Sig1 || c.State.B() == phy.Sig1
		if c.State == phy.RxIdle || open && (out[len(out)-1].Kind == EpisodeReset) != reset {
			closeAt(c.AtNs)
		}
		if open && high && !one {
			out[len(out)-1].HighNs = c.AtNs
		}
		if c.State == phy.RxIdle || open {
			one = one || high
			continue
		}
		kind := EpisodeKind("")
		if reset {
			kind, handshake = EpisodeReset, false
			resets++
		}
		highAt := int64(-1)
		if high {
			highAt = c.AtNs
		}
		out = append(out, Episode{Kind: kind, StartNs: c.AtNs, HighNs: highAt, Reset: resets})
		open, one = true, high
	}
	if open {
		out[len(out)-1].Cut = true
	}
	if len(out) > 0 && len(pl.Changes) > 0 && out[0].StartNs == pl.Changes[0].AtNs {
		out[0].Begun = true
	}
	closeAt(end)
	return out
}

// LineRow is one quantity compared between a capture and an emulation.
type LineRow struct {
	Port PortRef
	// Reset is the bus reset the quantity follows, 1 for the first the
	// port receives in the capture.
	Reset int
	// Event is "reset", "handshake", "contention N" or "back-off N" (the
	// Nth round), "resets" or "contention rounds".
	Event string
	// Measure is "start" (since the first reset's start, or for a
	// handshake since its reset's end), "duration", "count", or for a
	// handshake "answer": from the child's PARENT_NOTIFY to the parent's
	// CHILD_NOTIFY.
	Measure        string
	Real, Emulated int64 // ns, or a count; -1 when that side has no such event
	// Chance: the emulator draws this at random (a back-off, or what
	// follows one), so a difference is no error of either side.
	Chance bool
	Within bool // equal counts, times within the tolerance, or no such event on either side
}

func (r LineRow) String() string {
	unit := " ns"
	if r.Measure == "count" {
		unit = ""
	}
	show := func(v int64) string {
		if v < 0 {
			return "none"
		}
		return strconv.FormatInt(v, 10) + unit
	}
	return fmt.Sprintf("%s reset %d %s %s: real %s, emulated %s", r.Port, r.Reset, r.Event, r.Measure, show(r.Real), show(r.Emulated))
}

// LineComparison is a line-state capture against an emulation.
type LineComparison struct {
	// ToleranceNs is the capture's sample period: a time within it of
	// the emulated one matches.
	ToleranceNs float64
	// RealOriginNs and EmulatedOriginNs are the starts of the first reset
	// at the compared ports, which the starts of resets count from on
	// each side; -1 without a port whose first reset both sides hold
	// from its start.
	RealOriginNs, EmulatedOriginNs int64
	Rows                           []LineRow
	// Missing lists the captured ports the emulation does not have.
	Missing []PortRef
}

// Match reports a capture whose every port is emulated and whose every
// quantity the emulator predicts is within the tolerance: a back-off, and
// the rounds and handshakes that follow one, are the emulator's draw and
// do not count.
func (c *LineComparison) Match() bool {
	return len(c.Missing) == 0 && !slices.ContainsFunc(c.Rows, func(r LineRow) bool { return !r.Within && !r.Chance })
}

// CompareLines compares a line-state capture with an emulation of the same
// bus, port by port and reset by reset: each reset's start and duration,
// the contention rounds and back-offs, and when the handshake starts and
// the parent answers it. Self-ID stretches are not compared: the
// emulator's self-ID data is abstract. Nor is the start of a stretch
// either capture begins in, or the duration of one it begins or ends in.
func CompareLines(real, emulated *LineCapture) *LineComparison {
	c := &LineComparison{ToleranceNs: max(real.SamplePeriodNs, emulated.SamplePeriodNs)}
	emu := map[PortRef][]Episode{}
	for _, pl := range emulated.Ports {
		emu[pl.Port] = Episodes(pl, emulated.EndNs)
	}
	captured := map[PortRef][]Episode{}
	var order []PortRef
	for _, pl := range real.Ports {
		if _, ok := emu[pl.Port]; !ok {
			c.Missing = append(c.Missing, pl.Port)
			continue
		}
		captured[pl.Port] = Episodes(pl, real.EndNs)
		order = append(order, pl.Port)
	}
	c.RealOriginNs, c.EmulatedOriginNs = firstResets(captured, emu, order)
	for _, p := range order {
		c.comparePort(p, bySegment(captured[p]), bySegment(emu[p]), c.RealOriginNs, c.EmulatedOriginNs)
	}
	return c
}

// whole reports an episode the capture holds from start to end.
func (e Episode) whole() bool { return !e.Begun && !e.Cut }

// firstResets is, on each side, the earliest start of a first reset at the
// ports, -1 if none. A port where either side's first reset began before
// the capture is left out of both, so that both count from the same port.
func firstResets(real, emu map[PortRef][]Episode, ports []PortRef) (int64, int64) {
	first := func(eps []Episode) (Episode, bool) {
		i := slices.IndexFunc(eps, func(e Episode) bool { return e.Kind == EpisodeReset })
		if i < 0 {
			return Episode{}, false
		}
		return eps[i], true
	}
	realFirst, emuFirst := int64(-1), int64(-1)
	for _, p := range ports {
		r, okR := first(real[p])
		e, okE := first(emu[p])
		if !okR || !okE || r.Begun || e.Begun {
			continue
		}
		if realFirst < 0 || r.StartNs < realFirst {
			realFirst = r.StartNs
		}
		if emuFirst < 0 || e.StartNs < emuFirst {
			emuFirst = e.StartNs
		}
	}
	return realFirst, emuFirst
}

// segment is what a port shows from one reset to the next.
type segment struct {
	reset      Episode
	contention []Episode
	backoffs   []int64 // after each round, until the next stretch; -1 at the end of the capture
	handshake  *Episode
}

// bySegment groups episodes by the reset they follow; those before the
// first reset are left out.
func bySegment(eps []Episode) []segment {
	var out []segment
	for i, e := range eps {
		if e.Reset == 0 {
			continue
		}
		if e.Kind == EpisodeReset {
			out = append(out, segment{reset: e})
			continue
		}
		s := &out[len(out)-1]
		switch e.Kind {
		case EpisodeContention:
			s.contention = append(s.contention, e)
			backoff := int64(-1)
			if i+1 < len(eps) {
				backoff = eps[i+1].StartNs - e.EndNs
			}
			s.backoffs = append(s.backoffs, backoff)
		case EpisodeHandshake:
			s.handshake = &eps[i]
		}
	}
	return out
}

func (c *LineComparison) comparePort(p PortRef, real, emu []segment, realOrigin, emuOrigin int64) {
	add := func(reset int, event, measure string, r, e int64, chance bool) {
		within := r == e
		if measure != "count" && r >= 0 && e >= 0 {
			within = math.Abs(float64(r-e)) <= c.ToleranceNs
		}
		c.Rows = append(c.Rows, LineRow{Port: p, Reset: reset, Event: event, Measure: measure, Real: r, Emulated: e, Chance: chance, Within: within})
	}
	if len(real) != len(emu) {
		add(0, "resets", "count", int64(len(real)), int64(len(emu)), false)
	}
	for i := range min(len(real), len(emu)) {
		r, e, n := real[i], emu[i], i+1
		if realOrigin >= 0 && emuOrigin >= 0 && !r.reset.Begun && !e.reset.Begun {
			add(n, "reset", "start", r.reset.StartNs-realOrigin, e.reset.StartNs-emuOrigin, false)
		}
		if r.reset.whole() && e.reset.whole() {
			add(n, "reset", "duration", r.reset.EndNs-r.reset.StartNs, e.reset.EndNs-e.reset.StartNs, false)
		}
		contended := len(r.contention) > 0 || len(e.contention) > 0
		if contended {
			add(n, "contention rounds", "count", int64(len(r.contention)), int64(len(e.contention)), true)
		}
		for k := range min(len(r.contention), len(e.contention)) {
			round := strconv.Itoa(k + 1)
			if r.contention[k].whole() && e.contention[k].whole() {
				add(n, "contention "+round, "duration", r.contention[k].EndNs-r.contention[k].StartNs, e.contention[k].EndNs-e.contention[k].StartNs, true)
			}
			add(n, "back-off "+round, "duration", r.backoffs[k], e.backoffs[k], true)
		}
		if r.handshake == nil && e.handshake == nil {
			continue // a loop, or a capture cut before the handshake: nothing to compare
		}
		rs, ra := r.handshakeTimes()
		es, ea := e.handshakeTimes()
		add(n, "handshake", "start", rs, es, contended)
		add(n, "handshake", "answer", ra, ea, false)
	}
}

// handshakeTimes is the handshake's start, since the reset's end, and how
// long after it the parent answers; -1 for both without a handshake.
func (s segment) handshakeTimes() (start, answer int64) {
	if s.handshake == nil {
		return -1, -1
	}
	return s.handshake.StartNs - s.reset.EndNs, s.handshake.HighNs - s.handshake.StartNs
}

// CompareWithEmulation runs topo with opts and compares the capture lc with
// the line states the run received (CompareLines). Only receive events are
// traced, all the comparison reads, so a long run's trace stays small;
// opts.Observer is replaced.
func CompareWithEmulation(lc *LineCapture, topo *bus.Topology, opts bus.Options) (*LineComparison, error) {
	var trace bus.Trace
	opts.Observer = func(ev bus.TraceEvent) {
		if ev.Kind == bus.TraceReceive {
			trace.Record(ev)
		}
	}
	res, err := bus.Run(topo, opts)
	if err != nil {
		return nil, err
	}
	return CompareLines(lc, EmulatedLines(res, trace.Events)), nil
}
