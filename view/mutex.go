package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/lab/mutex"
)

// mutexHeader describes how a run was set, so that the output reproduces
// it.
func mutexHeader(o mutex.Options) string {
	s := fmt.Sprintf("seed %d, requests %d, cs-time %s, think %s", o.Seed, o.Requests, mutex.Format(o.CSTime), mutex.Format(o.Think))
	if o.Notify {
		s += ", notify"
	}
	if o.LoseToken {
		s += ", token lost at " + mutex.Format(o.LoseTokenAt)
	}
	if o.RequestReply {
		s += ", request-reply"
	}
	return s
}

func WriteMutexText(w io.Writer, source string, o mutex.Options, res *mutex.Result) {
	fmt.Fprintf(w, "fwsim mutex: %s, %s\n", res.Algo, mutexHeader(o))
	fmt.Fprintf(w, "topology: %s\n", source)
	switch {
	case res.Coordinator != "":
		fmt.Fprintf(w, "coordinator: %s (%s)\n", res.Coordinator, res.CoordinatorBy)
	case res.Ring != nil:
		fmt.Fprintf(w, "ring: %s\n", strings.Join(res.Ring, " → "))
	}
	if len(res.Crashes) > 0 {
		fmt.Fprintf(w, "crashes: %s\n", formatEvents(res.Crashes))
	}
	if len(res.Entries) == 0 {
		fmt.Fprintf(w, "\nentries: none\n")
	} else {
		fmt.Fprintf(w, "\nentries (delays):\n")
	}
	var entries table
	if len(res.Entries) > 0 {
		entries.add("node", "requested", "entered", "left", "wait", "timestamp")
	}
	for _, en := range res.Entries {
		left := fmt.Sprintf("%.3f", en.Left)
		if en.CrashedInside {
			left = "crashed"
		}
		stamp := "-"
		if en.Stamp != 0 {
			stamp = strconv.FormatInt(en.Stamp, 10)
		}
		entries.add(en.Node, fmt.Sprintf("%.3f", en.Requested), fmt.Sprintf("%.3f", en.Entered), left, fmt.Sprintf("%.3f", en.Wait), stamp)
	}
	entries.write(w, "  ")
	fmt.Fprintln(w)
	if len(res.Violations) == 0 {
		fmt.Fprintln(w, "safety: held, never two nodes in the critical section")
	} else {
		fmt.Fprintf(w, "safety: VIOLATED %d time%s\n", len(res.Violations), Plural(len(res.Violations)))
		for _, v := range res.Violations {
			fmt.Fprintf(w, "  %s\n", v)
		}
	}
	if res.Live {
		fmt.Fprintln(w, "liveness: held, every request served")
	} else {
		fmt.Fprintf(w, "liveness: failed, %d node%s wait for ever:\n", len(res.Unserved), Plural(len(res.Unserved)))
		// Nodes that wait for the same reason share its line.
		for i := 0; i < len(res.Unserved); {
			var who []string
			j := i
			for ; j < len(res.Unserved) && res.Unserved[j].Reason == res.Unserved[i].Reason; j++ {
				who = append(who, fmt.Sprintf("%s (asked at %.3f)", res.Unserved[j].Node, res.Unserved[j].Requested))
			}
			fmt.Fprintf(w, "  %s:\n    %s\n", strings.Join(who, ", "), res.Unserved[i].Reason)
			i = j
		}
	}
	writeOrder(w, res.Order)
	parts := make([]string, len(res.Messages.ByType))
	for i, c := range res.Messages.ByType {
		parts[i] = fmt.Sprintf("%s %d", c.Type, c.Count)
	}
	fmt.Fprintf(w, "messages: %d (%s), %s\n", res.Messages.Total, strings.Join(parts, ", "), perEntry(res, " per entry"))
	fmt.Fprintf(w, "waiting: mean %.3f, max %.3f delays\n", res.MeanWait, res.MaxWait)
	fmt.Fprintln(w, "\nnodes:")
	var nodes table
	nodes.add("node", "role", "requests", "entries", "unserved", "sent", "mean wait", "max wait", "crashed")
	for _, n := range res.Nodes {
		crashed := "-"
		if n.CrashedAt >= 0 {
			crashed = fmt.Sprintf("at %.3f", n.CrashedAt)
			if n.CrashedInside {
				crashed += ", inside"
			}
		}
		nodes.add(n.Node, n.Role, strconv.Itoa(n.Requests), strconv.Itoa(n.Entries), strconv.Itoa(n.Unserved),
			strconv.Itoa(n.Sent), fmt.Sprintf("%.3f", n.MeanWait), fmt.Sprintf("%.3f", n.MaxWait), crashed)
	}
	nodes.write(w, "  ")
	fmt.Fprintf(w, "time: %.3f delays\n", res.Time)
	if res.Trace != nil {
		writeTraceTable(w, "delays", res.Trace)
	}
}

// writeOrder says whether the entries followed the requests.
func writeOrder(w io.Writer, o mutex.Order) {
	if o.Inversions == 0 {
		fmt.Fprintln(w, "request order: followed")
	} else {
		fmt.Fprintf(w, "request order: %d of %d pairs went the other way (%s)\n", o.Inversions, o.Pairs, o.Inversion)
	}
	if o.CausalInversions == 0 {
		fmt.Fprintln(w, "happened-before: followed")
	} else {
		fmt.Fprintf(w, "happened-before: %d of %d pairs against it (%s)\n", o.CausalInversions, o.Pairs, o.CausalInversion)
	}
}

// formatEvents lists crashes, joins or leaves as "n2 at 1.500, n3 at 2.000".
func formatEvents(events []mutex.Crash) string {
	parts := make([]string, len(events))
	for i, c := range events {
		parts[i] = c.Node + " at " + mutex.Format(c.At)
	}
	return strings.Join(parts, ", ")
}

// perEntry is the messages per entry with unit, or "no entry" for a run in
// which no node entered: 0.000 a entry would read as messages for free.
func perEntry(res *mutex.Result, unit string) string {
	if len(res.Entries) == 0 {
		return "no entry"
	}
	return fmt.Sprintf("%.3f", res.PerEntry) + unit
}
