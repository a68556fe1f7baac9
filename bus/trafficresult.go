package bus

import (
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/phy"
)

// TrafficResult is what the bus carried after initialisation
// (docs/protocol.md §9.6): the run's Options.Until from the end of its last
// generation.
type TrafficResult struct {
	// StartNs and EndNs bound the traffic phase, in ns from power-up.
	StartNs, EndNs int64
	// CycleMaster is the node that sent cycle starts, "" when the root
	// cannot be cycle master (no contender bit or its link off).
	CycleMaster string
	// Cycles counts the cycle starts sent, CyclesSkipped the cycles whose
	// cycle start was still waiting for the bus when the next was due, and
	// CycleStartDelay how late each was sent after its 125 µs tick.
	Cycles, CyclesSkipped int
	CycleStartDelay       DelayStats
	// Collisions counts the pairs of transmissions that met on the bus:
	// each pair broke for the nodes beyond the meeting point.
	Collisions int
	// Denied counts the requests denied: data was passing a PHY on their
	// way, or the root had granted another node whose data had not yet
	// reached it.
	Denied int
	// BusyNs is the time data passed the root; Utilisation its share of
	// the phase (averaged over the roots when the bus is in parts).
	BusyNs      int64
	Utilisation float64
	// FairnessIntervals counts the fairness intervals the roots saw: idle
	// times of at least the shortest arbitration reset gap, less twice the
	// bus's one-way delay (a node may see an idle time that much longer
	// than the root), delimit them. MostInOneInterval is the most
	// asynchronous requests one node sent in one of them: fair arbitration
	// allows 1. Where that threshold is not positive (a gap count far too
	// small for the bus) every transmission is an interval of its own.
	FairnessIntervals, MostInOneInterval int
	// Flows are the topology's traffic items, in order.
	Flows []FlowResult
	// Timeline has a line per isochronous cycle: what the bus carried in
	// it. Empty without a cycle master.
	Timeline []CycleLine
}

// CycleLine is one isochronous cycle: from its 125 µs tick to the next.
type CycleLine struct {
	// Cycle counts from 1; DueNs is its tick and StartNs when its cycle
	// start went out, -1 when it never did (skipped, or the run ended).
	Cycle      int
	DueNs      int64
	StartNs    int64
	Iso, Async int // isochronous packets and asynchronous requests sent in it
	Acks       int // acknowledgements sent in it
	Collisions int // collisions of transmissions sent in it
}

// TimelineJSON is one cycle of "timeline": a CycleLine.
type TimelineJSON struct {
	Cycle      int   `json:"cycle"`      // from 1
	DueNs      int64 `json:"due_ns"`     // its 125 µs tick, in ns from power-up
	StartNs    int64 `json:"start_ns"`   // when its cycle start went out, -1 when it never did
	Iso        int   `json:"iso"`        // isochronous packets sent in it
	Async      int   `json:"async"`      // asynchronous requests sent in it
	Acks       int   `json:"acks"`       // acknowledgements sent in it
	Collisions int   `json:"collisions"` // collisions of transmissions sent in it
}

// FlowResult is what one traffic item sent and what came of it.
type FlowResult struct {
	Node, To string // To: the destination of requests or pings, "" for a talker
	Iso      bool
	Ping     bool
	Speed    phy.Speed
	Bytes    int // the payload of each packet
	// Unsent says why the item sent nothing; "" when it could send.
	Unsent string
	// Queued counts the requests queued; Sent the transmissions, retries
	// included (for a talker, its packets); Acked the acknowledged ones;
	// Retries the requests sent again after an acknowledgement went
	// missing; Failed those given up after the last retry.
	Queued, Sent, Acked, Retries, Failed int
	// Broken counts the transmissions that reached their destination
	// broken by a collision, AcksLost the acknowledgements that reached the
	// sender broken, AcksLate those that reached it after it had seen a
	// subaction gap and taken them missing, and Missed the cycles a talker
	// did not win the bus in.
	Broken, AcksLost, AcksLate, Missed int
	// RoundTrip is, for a ping, the time from the end of each ping to the
	// start of its answer, as the sender's PHY times it.
	RoundTrip DelayStats
}

// DelayStats summarises delays in ns.
type DelayStats struct {
	Count        int
	MeanNs       float64
	MinNs, MaxNs int64
	totalNs      int64
}

func (d *DelayStats) add(ns int64) {
	if d.Count == 0 || ns < d.MinNs {
		d.MinNs = ns
	}
	d.Count++
	d.totalNs += ns
	d.MaxNs = max(d.MaxNs, ns)
	d.MeanNs = float64(d.totalNs) / float64(d.Count)
}

// TrafficJSON is "traffic" in fwsim run --json: Result.Traffic.
type TrafficJSON struct {
	StartNs     int64   `json:"start_ns"`     // when traffic began: the end of initialisation, in ns from power-up
	EndNs       int64   `json:"end_ns"`       // when the run stopped: start_ns plus --until
	CycleMaster *string `json:"cycle_master"` // the node that sent cycle starts, null when the root cannot be cycle master
	Cycles      int     `json:"cycles"`       // cycle starts sent
	// CyclesSkipped counts cycles whose cycle start still waited for the
	// bus when the next was due; the delays are how late each cycle start
	// went out after its 125 µs tick.
	CyclesSkipped         int        `json:"cycles_skipped"`
	CycleStartDelayMeanNs float64    `json:"cycle_start_delay_mean_ns"`
	CycleStartDelayMaxNs  int64      `json:"cycle_start_delay_max_ns"`
	Collisions            int        `json:"collisions"`  // pairs of transmissions that met on the bus
	Denied                int        `json:"denied"`      // requests denied: the bus was busy where they passed
	BusyNs                int64      `json:"busy_ns"`     // time data passed the root
	Utilisation           float64    `json:"utilisation"` // busy_ns over the traffic phase, 0 to 1
	FairnessIntervals     int        `json:"fairness_intervals"`
	MostInOneInterval     int        `json:"most_in_one_interval"` // the most requests one node sent in one fairness interval: 1 when fair
	Flows                 []FlowJSON `json:"flows"`
	// Timeline has a line per isochronous cycle, [] without a cycle
	// master.
	Timeline []TimelineJSON `json:"timeline"`
}

// FlowJSON is one traffic item's outcome.
type FlowJSON struct {
	Node     string  `json:"node"`      // the sender
	Kind     string  `json:"kind"`      // async, iso or ping
	To       *string `json:"to"`        // async, ping: the destination; null for iso
	Speed    string  `json:"speed"`     // S100, S200 or S400
	Bytes    int     `json:"bytes"`     // the payload of each packet
	Unsent   *string `json:"unsent"`    // why it sent nothing, null when it could send
	Queued   int     `json:"queued"`    // requests queued
	Sent     int     `json:"sent"`      // transmissions, retries included
	Acked    int     `json:"acked"`     // requests acknowledged
	Retries  int     `json:"retries"`   // requests sent again after their acknowledgement went missing
	Failed   int     `json:"failed"`    // requests given up after the last retry
	Broken   int     `json:"broken"`    // transmissions that reached the destination broken by a collision
	AcksLost int     `json:"acks_lost"` // acknowledgements that reached the sender broken
	AcksLate int     `json:"acks_late"` // acknowledgements that reached the sender after it had taken them missing
	Missed   int     `json:"missed"`    // cycles an isochronous talker did not win the bus in
	// RoundTripNs is, for a ping, the time from the end of each ping to
	// the start of its answer; null for requests and talkers.
	RoundTripNs *RoundTripJSON `json:"round_trip_ns"`
}

// RoundTripJSON summarises a ping's round trips.
type RoundTripJSON struct {
	Count int     `json:"count"` // pings answered
	Mean  float64 `json:"mean"`  // in ns
	Min   int64   `json:"min"`   // in ns
	Max   int64   `json:"max"`   // in ns
}

// NewTrafficJSON is the JSON form of t; nil for nil.
func NewTrafficJSON(t *TrafficResult) *TrafficJSON {
	if t == nil {
		return nil
	}
	out := &TrafficJSON{
		StartNs: t.StartNs, EndNs: t.EndNs, CycleMaster: jsonout.NullIfEmpty(t.CycleMaster), Cycles: t.Cycles,
		CyclesSkipped: t.CyclesSkipped, CycleStartDelayMeanNs: t.CycleStartDelay.MeanNs, CycleStartDelayMaxNs: t.CycleStartDelay.MaxNs,
		Collisions: t.Collisions, Denied: t.Denied, BusyNs: t.BusyNs, Utilisation: t.Utilisation,
		FairnessIntervals: t.FairnessIntervals, MostInOneInterval: t.MostInOneInterval, Flows: []FlowJSON{},
		Timeline: []TimelineJSON{},
	}
	for _, c := range t.Timeline {
		out.Timeline = append(out.Timeline, TimelineJSON(c))
	}
	for _, f := range t.Flows {
		fj := FlowJSON{Node: f.Node, Kind: f.Kind(), To: jsonout.NullIfEmpty(f.To), Speed: f.Speed.String(), Bytes: f.Bytes,
			Unsent: jsonout.NullIfEmpty(f.Unsent), Queued: f.Queued, Sent: f.Sent, Acked: f.Acked, Retries: f.Retries,
			Failed: f.Failed, Broken: f.Broken, AcksLost: f.AcksLost, AcksLate: f.AcksLate, Missed: f.Missed}
		if f.Ping {
			rt := f.RoundTrip
			fj.RoundTripNs = &RoundTripJSON{Count: rt.Count, Mean: rt.MeanNs, Min: rt.MinNs, Max: rt.MaxNs}
		}
		out.Flows = append(out.Flows, fj)
	}
	return out
}

// Kind is "iso" for a talker, "ping" for pings, "async" for requests.
func (f FlowResult) Kind() string {
	switch {
	case f.Iso:
		return "iso"
	case f.Ping:
		return "ping"
	}
	return "async"
}

// TrafficMetrics are the totals of a traffic phase that timing analysis
// takes from a run (TrafficMetricNames); Present is false for a run
// without one.
type TrafficMetrics struct {
	Present                             bool
	Collisions, Acked, AcksLate, Failed int
	BusyNs                              int64
}

// Metrics totals t over its flows.
func (t *TrafficResult) Metrics() TrafficMetrics {
	m := TrafficMetrics{Present: true, Collisions: t.Collisions, BusyNs: t.BusyNs}
	for _, f := range t.Flows {
		m.Acked += f.Acked
		m.AcksLate += f.AcksLate
		m.Failed += f.Failed
	}
	return m
}

// Value is the traffic metric name of m.
func (m TrafficMetrics) Value(name string) int64 {
	switch name {
	case MetricCollisions:
		return int64(m.Collisions)
	case MetricAcked:
		return int64(m.Acked)
	case MetricAcksLate:
		return int64(m.AcksLate)
	case MetricFailed:
		return int64(m.Failed)
	case MetricBusy:
		return m.BusyNs
	}
	panic("bus: no traffic metric " + name)
}
