package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/view"
)

// labTrace is the trace flags of a lab, as run's: --trace FILE writes
// every message and node event as JSON lines, --trace-table lists them in
// the report (the text's table, or "trace" in --json).
type labTrace struct {
	file  string
	table bool
	// html is --html's file, the page that plays the run; graph, the
	// run's, draws it.
	html string
	// maxEntries bounds the trace a run holds for them
	// (--max-trace-events).
	maxEntries int
	graph      *netsim.Graph
	down       []string // the nodes down before the run, for the page
	out        outputs
	f          *outputFile
	page       *outputFile
}

// register adds --trace and --trace-table; what says what a lab's trace
// holds, for the help.
func (t *labTrace) register(fs *flags, what string) {
	fs.StringVar(&t.file, "trace", "",
		"write what --trace-table lists to `FILE` as JSON lines: a header, then one entry a\nline as in the report, as run --trace writes the bus's, e.g. --trace run.jsonl")
	fs.BoolVar(&t.table, "trace-table", false,
		"list "+what+" in the report:\na table, or \"trace\" in --json, e.g. --trace-table")
	fs.StringVar(&t.html, "html", "",
		"write a page that plays the run to `FILE`: the graph, every message on its way and\nwhat each node did, on a time axis with a slider, each explained; one\nself-contained HTML file, opened at an instant by FILE#t=T, e.g. --html run.html")
	fs.Func("max-trace-events", fmt.Sprintf("with --trace, --trace-table or --html, stop a run whose trace passes `N` entries,\nwhich it holds in memory, and write no file (default %d),\ne.g. --max-trace-events 5000000", defaultMaxTraceEvents),
		func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return errors.New("want a whole number from 1")
			}
			t.maxEntries = n
			return nil
		})
	t.maxEntries = defaultMaxTraceEvents
}

// wanted reports whether the run must record its trace.
func (t *labTrace) wanted() bool { return t.file != "" || t.table || t.html != "" }

// open creates the --trace file and the --html page before the run, which
// may be long; the page draws topo's graph.
func (t *labTrace) open(e *env, topo *bus.Topology) error {
	t.out = outputs{env: e}
	if t.html != "" {
		g, err := netsim.NewGraph(topo)
		if err != nil {
			return err
		}
		t.graph = g
		page, err := t.out.create("html", t.html)
		if err != nil {
			return err
		}
		t.page = page
	}
	if t.file == "" {
		return nil
	}
	f, err := t.out.create("trace", t.file)
	t.f = f
	return err
}

// labTraceHeader is the first line of a lab's --trace file: what ran, and
// the unit of its times.
type labTraceHeader struct {
	Command  string `json:"command"`   // elect, mutex or multicast
	Algo     string `json:"algo"`      // the algorithm that ran
	Source   string `json:"source"`    // the topology, as the report names it
	Seed     uint64 `json:"seed"`      // the seed of the run
	TimeUnit string `json:"time_unit"` // the unit of every entry's sent and arrived
}

// take writes the run's trace to the --trace file, for commit to put in
// place once the report is written, and leaves it in the result for the
// report only with --trace-table.
func (t *labTrace) take(h labTraceHeader, trace *[]netsim.TraceEntry) error {
	entries := *trace
	if !t.table {
		*trace = nil
	}
	return t.write(h, entries)
}

// write writes the --trace file and the --html page.
func (t *labTrace) write(h labTraceHeader, trace []netsim.TraceEntry) error {
	if t.page != nil {
		run := view.LabRun{Command: h.Command, Algo: h.Algo, Source: h.Source, Seed: h.Seed, TimeUnit: h.TimeUnit, Down: t.down}
		if err := view.WriteLabHTML(t.page, run, t.graph, trace); err != nil {
			return fmt.Errorf("--html %s: %w", t.html, err)
		}
	}
	if t.f == nil {
		return nil
	}
	enc := json.NewEncoder(t.f)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, m := range trace {
		if err := enc.Encode(netsim.NewTraceJSON(m)); err != nil {
			return err
		}
	}
	return nil
}
