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
		what := fmt.Sprintf("%s async to %s", f.Node, f.To)
		if f.Iso {
			what = f.Node + " iso"
		}
		fmt.Fprintf(w, "  %s, %d bytes at %v: ", what, f.Bytes, f.Speed)
		switch {
		case f.Unsent != "":
			fmt.Fprintf(w, "sent nothing: %s\n", f.Unsent)
		case f.Iso:
			fmt.Fprintf(w, "sent %d, missed %d cycle%s, broken %d\n", f.Sent, f.Missed, Plural(f.Missed), f.Broken)
		default:
			fmt.Fprintf(w, "queued %d, sent %d, acked %d, retries %d, failed %d, broken %d, acks lost %d, late %d\n",
				f.Queued, f.Sent, f.Acked, f.Retries, f.Failed, f.Broken, f.AcksLost, f.AcksLate)
		}
	}
}
