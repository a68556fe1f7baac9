package view

import (
	"fmt"
	"io"
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
// the command line gave them, and the rows of election.Compare.
func ElectComparison(header, options, source string, rows []election.CompareRow) *Comparison {
	c := &Comparison{Command: "elect", Header: header, Source: source}
	if options != "" { // a line of its own: the header is long already
		c.Lines = []string{"options: " + options}
	}
	width := len("algorithm")
	for _, r := range rows {
		width = max(width, len(r.Algo))
	}
	c.Table.add(fmt.Sprintf("%-*s", width, "algorithm"), "mode", "messages", "time", "leader")
	for _, r := range rows {
		if res := r.Result; res != nil {
			c.Table.add(r.Algo, res.Mode.String(), strconv.Itoa(res.Messages.Total), formatTime(res.Time, res.TimeUnit), compareLeader(res))
		} else {
			// The reason takes the place of the columns, which it would
			// widen.
			c.After = append(c.After, fmt.Sprintf("%-*s  not applicable: %s", width, r.Algo, r.Reason))
		}
	}
	return c
}

// compareLeader names the leader with its ID, or says why there is none.
func compareLeader(res *election.Result) string {
	switch {
	case res.Leader == "":
		return "none"
	case res.IDOrder == "none":
		return res.Leader
	}
	return fmt.Sprintf("%s (id %d)", res.Leader, res.LeaderID)
}

// MutexComparison is the text of mutex --compare: the results of
// mutex.Compare with o.
func MutexComparison(o mutex.Options, source string, results []*mutex.Result) *Comparison {
	c := &Comparison{Command: "mutex", Header: mutexHeader(o), Source: source, Lines: eventLines(o.Crashes, nil, nil, "")}
	c.Table.add("algorithm      ", "entries", "messages", "per entry", "mean wait", "max wait", "unserved", "out of order", "causal", "safety")
	for _, r := range results {
		safety := "held"
		if len(r.Violations) > 0 {
			safety = "VIOLATED"
		}
		c.Table.add(r.Algo, strconv.Itoa(len(r.Entries)), strconv.Itoa(r.Messages.Total), perEntry(r, ""),
			fmt.Sprintf("%.3f", r.MeanWait), fmt.Sprintf("%.3f", r.MaxWait), strconv.Itoa(len(r.Unserved)),
			fmt.Sprintf("%d/%d", r.Order.Inversions, r.Order.Pairs), strconv.Itoa(r.Order.CausalInversions), safety)
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

// nacksPerLoss is r's NACK packets per DATA multicast lost, to two places,
// or - when r has no NACK or lost no DATA.
func nacksPerLoss(r *multicast.Result) string {
	if r.LostData == 0 || r.Algo != "nack" && r.Algo != "srm" {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(r.Sent.Count("NACK"))/float64(r.LostData))
}
