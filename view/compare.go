package view

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/mutex"
)

// Comparison is the text of a lab's --compare: a header, a row per
// algorithm, and lines after the table.
type Comparison struct {
	Command, Header, Source string
	Lines                   []string // settings beyond the header, such as the faults asked for
	Table                   table
	After                   []string // what follows the table, such as the algorithms that do not apply
}

// WriteText writes the comparison as fwsim COMMAND --compare prints it.
func (c *Comparison) WriteText(w io.Writer) {
	fmt.Fprintf(w, "fwsim %s --compare: %s\n", c.Command, c.Header)
	for _, l := range c.Lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "topology: %s\n\n", c.Source)
	c.Table.write(w, "")
	for _, l := range c.After {
		fmt.Fprintln(w, l)
	}
}

// ElectComparison is the text of elect --compare: header and options as
// the command line gave them, and the rows of election.Compare. Every row
// runs the one scenario the header states, or says "differs" and, under
// the table, how; the rows that did not run, and the rows without a
// leader, are listed under the table with the reason.
func ElectComparison(header, options, source string, rows []election.CompareRow) *Comparison {
	c := &Comparison{Command: "elect", Header: header, Source: source}
	if options != "" { // a line of its own: the header is long already
		c.Lines = []string{"options: " + options}
	}
	width := len("algorithm")
	for _, r := range rows {
		width = max(width, len(r.Algo))
	}
	c.Table.add(fmt.Sprintf("%-*s", width, "algorithm"), "mode", "initiators", "messages", "time", "leader", "scenario")
	// The reasons take the place of the columns, which they would widen.
	var notRun, notes []string
	for _, r := range rows {
		res := r.Result
		if res == nil {
			what := "not applicable"
			if r.NotRun {
				what = "not run"
			}
			notRun = append(notRun, fmt.Sprintf("%-*s  %s: %s", width, r.Algo, what, r.Reason))
			continue
		}
		scenario := "same"
		if len(r.Differs) > 0 {
			scenario = "differs"
			c.After = append(c.After, fmt.Sprintf("%-*s  differs: %s", width, r.Algo, strings.Join(r.Differs, "; ")))
		}
		c.Table.add(r.Algo, res.Mode.String(), initiatorsCell(res), strconv.Itoa(res.Messages.Total), compareTime(res), compareLeader(res), scenario)
		failed := ""
		if r.Failed() {
			failed = " (failed)"
		}
		switch {
		case res.Leader == "":
			notes = append(notes, fmt.Sprintf("%s%s: no leader: %s", r.Algo, failed, res.NoLeader))
		case res.Unaware() != "":
			notes = append(notes, fmt.Sprintf("%s%s: %s, up, never learnt the leader", r.Algo, failed, res.Unaware()))
		}
	}
	if len(c.Table.rows) == 1 { // a header and no row: say so instead
		c.Table = table{}
		c.After = append(c.After, "no algorithm ran this scenario here:")
	}
	c.After = append(c.After, notRun...)
	if len(notes) > 0 {
		c.After = append(append(c.After, ""), notes...)
	}
	return c
}

// initiatorsCell names a row's initiators: all (the live nodes), the one
// node, or how many.
func initiatorsCell(res *election.Result) string {
	switch k := len(res.Initiators); {
	case res.Initiators == nil || k == len(res.Nodes)-len(res.Crashed):
		return "all"
	case k == 1:
		return res.Initiators[0]
	default:
		return strconv.Itoa(k)
	}
}

// compareTime is a row's time with its unit, and a timed row's ns beside.
func compareTime(res *election.Result) string {
	t := formatTime(res.Time, res.TimeUnit)
	if res.Mode == election.Timed {
		t += fmt.Sprintf(" (%d ns)", res.TimeNs)
	}
	return t
}

// MutexComparison is the text of mutex --compare: the results of
// mutex.Compare with o.
func MutexComparison(o mutex.Options, source string, results []*mutex.Result) *Comparison {
	c := &Comparison{Command: "mutex", Header: mutexHeader(o), Source: source, Lines: eventLines(o.Crashes, nil, nil, "")}
	head := []string{"algorithm      ", "entries", "messages", "hops", "per entry", "mean wait", "max wait", "unserved", "out of order", "causal", "safety"}
	if o.Loss > 0 {
		head = slices.Insert(head, 4, "lost")
	}
	c.Table.add(head...)
	for _, r := range results {
		safety := "held"
		if len(r.Violations) > 0 {
			safety = "VIOLATED"
		}
		row := []string{r.Algo, strconv.Itoa(len(r.Entries)), strconv.Itoa(r.Messages.Total), strconv.FormatInt(r.Hops, 10), perEntry(r, ""),
			fmt.Sprintf("%.3f", r.MeanWait), fmt.Sprintf("%.3f", r.MaxWait), strconv.Itoa(len(r.Unserved)),
			fmt.Sprintf("%d/%d", r.Order.Inversions, r.Order.Pairs), strconv.Itoa(r.Order.CausalInversions), safety}
		if o.Loss > 0 {
			row = slices.Insert(row, 4, strconv.Itoa(len(r.Lost)))
		}
		c.Table.add(row...)
	}
	for _, r := range results {
		if !r.Live {
			c.After = append(c.After, fmt.Sprintf("%s deadlocked: %s", r.Algo, r.Deadlock))
		}
	}
	return c
}

// MulticastComparison is the text of multicast --compare: the results of
// multicast.Compare with o, and their JSON form js, which counts the
// deliveries.
func MulticastComparison(o multicast.Options, source string, results []*multicast.Result, js multicast.CompareJSON) *Comparison {
	header := multicastSettings(results[0], o.Stop)
	c := &Comparison{Command: "multicast", Header: header, Source: source,
		Lines: append([]string{"sender: " + js.Sender}, eventLines(o.Crashes, o.Joins, o.Leaves, " (vsync)")...)}
	c.Table.add("algorithm", "delivered", "expected", "duplicates", "packets", "crossings", "receptions", "lost",
		"DATA lost", "NACKs/DATA lost", "time", "guarantees", "packets by type")
	for i, r := range results {
		row := js.Results[i]
		// The types a run did not use would only widen the line.
		var types []string
		for _, t := range r.Sent.ByType {
			if t.Count > 0 {
				types = append(types, fmt.Sprintf("%s %d", t.Type, t.Count))
			}
		}
		c.Table.add(r.Algo, strconv.Itoa(row.Delivered), strconv.Itoa(row.Expected), strconv.Itoa(row.Duplicates), strconv.Itoa(r.Sent.Total),
			strconv.Itoa(r.Transmissions.Total), strconv.Itoa(r.Receptions), strconv.Itoa(r.Lost), strconv.Itoa(r.LostData),
			nacksPerLoss(r), fmt.Sprintf("%.3f", r.Time), guaranteesCell(r.Guarantees), strings.Join(types, ", "))
	}
	c.After = []string{"",
		"packets: sent by the nodes (" + packetUnit(results[0].Medium) + "); crossings: " + crossingUnit(results[0].Medium) + ";",
		"receptions: copies that reached a live addressee; lost: copies that missed theirs; DATA lost: multicasts",
		"that missed some member; NACKs/DATA lost: NACK packets per DATA lost (nack, srm); time in delays.",
		"Every run draws each packet's fate on each cable from the seed and the packet (type, number, sender,",
		"addressee, how often sent before): a packet two algorithms both send, such as DATA k, is lost alike",
		"on every cable both send it over."}
	return c
}

// compareLeader names the leader with its ID, or says there is none.
func compareLeader(res *election.Result) string {
	switch {
	case res.Leader == "":
		return "none"
	case res.IDOrder == "none":
		return res.Leader
	}
	return fmt.Sprintf("%s (id %d)", res.Leader, res.LeaderID)
}

// nacksPerLoss is r's NACK packets per DATA multicast lost, to two places,
// or - when r has no NACK or lost no DATA.
func nacksPerLoss(r *multicast.Result) string {
	if r.LostData == 0 || r.Algo != "nack" && r.Algo != "srm" {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(r.Sent.Count("NACK"))/float64(r.LostData))
}
