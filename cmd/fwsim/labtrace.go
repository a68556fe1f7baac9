package main

import (
	"encoding/json"

	"github.com/fwsim/fwsim/lab/netsim"
)

// labTrace is the trace flags of a lab, as run's: --trace FILE writes
// every message and node event as JSON lines, --trace-table lists them in
// the report (the text's table, or "trace" in --json).
type labTrace struct {
	file  string
	table bool
	out   outputs
	f     *outputFile
}

// register adds --trace and --trace-table; what says what a lab's trace
// holds, for the help.
func (t *labTrace) register(fs *flags, what string) {
	fs.StringVar(&t.file, "trace", "",
		"write what --trace-table lists to `FILE` as JSON lines: a header, then one entry a\nline as in the report, as run --trace writes the bus's, e.g. --trace run.jsonl")
	fs.BoolVar(&t.table, "trace-table", false,
		"list "+what+" in the report:\na table, or \"trace\" in --json, e.g. --trace-table")
}

// wanted reports whether the run must record its trace.
func (t *labTrace) wanted() bool { return t.file != "" || t.table }

// open creates the --trace file before the run, which may be long.
func (t *labTrace) open(e *env) error {
	t.out = outputs{env: e}
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

// write writes the --trace file.
func (t *labTrace) write(h labTraceHeader, trace []netsim.TraceEntry) error {
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
