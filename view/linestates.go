package view

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/fwsim/fwsim/hwtest"
)

// rowValue shows a compared quantity: ns or a count, "none" when absent.
func rowValue(row hwtest.LineRow, v int64) string {
	switch {
	case v < 0:
		return "none"
	case row.Measure == "count":
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10) + " ns"
}

// formatNs shows a time in ns to the ps.
func formatNs(ns float64) string { return strconv.FormatFloat(math.Round(ns*1000)/1000, 'f', -1, 64) }

// WriteLinestatesText writes what fwsim linestates found.
func WriteLinestatesText(w io.Writer, r hwtest.LineReport) {
	lc := r.Capture
	fmt.Fprintf(w, "fwsim linestates: %s (%s), %d port%s, sample period %s ns, %d ns long\n",
		r.Source, lc.Format, len(lc.Ports), Plural(len(lc.Ports)), formatNs(lc.SamplePeriodNs), lc.EndNs)
	for _, pl := range lc.Ports {
		fmt.Fprintf(w, "\n%s\n", pl.Port)
		var t table
		t.add("episode", "reset", "start ns", "end ns", "duration ns", "first 1 after ns")
		for _, ep := range hwtest.Episodes(pl, lc.EndNs) {
			start, end := strconv.FormatInt(ep.StartNs, 10), strconv.FormatInt(ep.EndNs, 10)
			if ep.Begun {
				start += " (capture begins)"
			}
			if ep.Cut {
				end += " (capture ends)"
			}
			high := "-"
			if ep.HighNs >= 0 {
				high = "+" + strconv.FormatInt(ep.HighNs-ep.StartNs, 10)
			}
			t.add(string(ep.Kind), strconv.Itoa(ep.Reset), start, end, strconv.FormatInt(ep.EndNs-ep.StartNs, 10), high)
		}
		t.write(w, "  ")
	}
	c := r.Comparison
	if c == nil {
		return
	}
	verdict := "match"
	if !c.Match() {
		verdict = "MISMATCH"
	}
	fmt.Fprintf(w, "\nagainst the emulation of %s, seed %d: %s\n", r.Emulated, r.Seed, verdict)
	fmt.Fprintf(w, "  tolerance %s ns (the sample period); starts count from the first reset, at %d ns in the capture and %d ns in the emulation\n",
		formatNs(c.ToleranceNs), c.RealOriginNs, c.EmulatedOriginNs)
	for _, p := range c.Missing {
		fmt.Fprintf(w, "  %s: not a port of the emulated bus\n", p)
	}
	var t table
	t.add("port", "reset", "event", "measure", "real", "emulated", "verdict")
	differ, chance := 0, 0
	for _, row := range c.Rows {
		v := "ok"
		switch {
		case row.Within:
		case row.Chance:
			v, chance = "chance", chance+1
		default:
			v, differ = "DIFFERS", differ+1
		}
		t.add(row.Port.String(), strconv.Itoa(row.Reset), row.Event, row.Measure, rowValue(row, row.Real), rowValue(row, row.Emulated), v)
	}
	t.write(w, "  ")
	fmt.Fprintf(w, "%d compared: %d within the tolerance, %d differ, %d differ by chance (the back-offs the PHYs draw)\n",
		len(c.Rows), len(c.Rows)-differ-chance, differ, chance)
}
