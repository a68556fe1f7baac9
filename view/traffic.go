package view

import (
	"fmt"
	"io"

	"github.com/fwsim/fwsim/bus"
)

// writeTrafficText writes what the bus carried after initialisation: the
// cycle starts, the collisions, the utilisation and each traffic item.
func writeTrafficText(w io.Writer, t *bus.TrafficResult) {
	fmt.Fprintf(w, "traffic from %d ns to %d ns (%d µs):\n", t.StartNs, t.EndNs, (t.EndNs-t.StartNs)/1000)
	if t.CycleMaster == "" {
		fmt.Fprintln(w, "  cycle master: none (the root is no contender, or its link is off): no cycle starts")
	} else {
		fmt.Fprintf(w, "  cycle master %s: %d cycle start%s, %d skipped; late by %.0f ns on average, %d ns at most\n",
			t.CycleMaster, t.Cycles, Plural(t.Cycles), t.CyclesSkipped, t.CycleStartDelay.MeanNs, t.CycleStartDelay.MaxNs)
	}
	fmt.Fprintf(w, "  collisions %d; requests denied %d; bus busy %d ns, utilisation %.1f%%\n",
		t.Collisions, t.Denied, t.BusyNs, 100*t.Utilisation)
	fmt.Fprintf(w, "  fairness intervals %d; most requests of one node in one: %d\n", t.FairnessIntervals, t.MostInOneInterval)
	for _, f := range t.Flows {
		switch {
		case f.Ping:
			fmt.Fprintf(w, "  %s ping to %s: ", f.Node, f.To)
		case f.Iso:
			fmt.Fprintf(w, "  %s iso, %d bytes at %v: ", f.Node, f.Bytes, f.Speed)
		default:
			fmt.Fprintf(w, "  %s async to %s, %d bytes at %v: ", f.Node, f.To, f.Bytes, f.Speed)
		}
		switch {
		case f.Unsent != "":
			fmt.Fprintf(w, "sent nothing: %s\n", f.Unsent)
		case f.Ping:
			fmt.Fprintf(w, "sent %d, answered %d, unanswered %d; round trip %.0f ns on average, %d to %d ns\n",
				f.Sent, f.Acked, f.Failed, f.RoundTrip.MeanNs, f.RoundTrip.MinNs, f.RoundTrip.MaxNs)
		case f.Iso:
			fmt.Fprintf(w, "sent %d, missed %d cycle%s, broken %d\n", f.Sent, f.Missed, Plural(f.Missed), f.Broken)
		default:
			fmt.Fprintf(w, "queued %d, sent %d, acked %d, retries %d, failed %d, broken %d, acks lost %d, late %d\n",
				f.Queued, f.Sent, f.Acked, f.Retries, f.Failed, f.Broken, f.AcksLost, f.AcksLate)
		}
	}
	writeCycles(w, t.Timeline)
}

// maxTimelineLines bounds the cycles the text report lists; --json has
// them all.
const maxTimelineLines = 16

// writeCycles lists the first cycles: when each was due, when its cycle
// start went out, and what the bus carried in it.
func writeCycles(w io.Writer, lines []bus.CycleLine) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "  timeline per cycle (ns from power-up):\n  %6s %10s %10s %7s %4s %6s %5s %11s\n",
		"cycle", "due", "start", "late", "iso", "async", "acks", "collisions")
	for _, c := range lines[:min(len(lines), maxTimelineLines)] {
		start, late := "-", "-"
		if c.StartNs >= 0 {
			start, late = fmt.Sprint(c.StartNs), fmt.Sprint(c.StartNs-c.DueNs)
		}
		fmt.Fprintf(w, "  %6d %10d %10s %7s %4d %6d %5d %11d\n", c.Cycle, c.DueNs, start, late, c.Iso, c.Async, c.Acks, c.Collisions)
	}
	if more := len(lines) - maxTimelineLines; more > 0 {
		fmt.Fprintf(w, "  … %d more cycle%s in --json\n", more, Plural(more))
	}
}
