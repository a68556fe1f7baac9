package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
)

const linestatesIntro = `Usage: fwsim linestates [FILE|-] [--channels MAP] [--topology FILE | --gen SPEC] [flags]

Reads a logic analyzer's capture of the TPA/TPB line states (FILE, or stdin
when FILE is - or absent), as sigrok exports it: a VCD (sigrok-cli -O vcd,
PulseView's export, or fwsim run --vcd-dialect sigrok) or a CSV (sigrok-cli
-O csv). Each pair of a port is two channels, the window comparators
"driven high" and "driven low"; --channels says which channel is which
(without it, channels named as fwsim's sigrok dialect names them,
NODE.pPORT.tpa.hi, are used). It decodes the line states each port
receives and splits them into episodes: resets, root-contention rounds,
the child-parent handshake, and the self-ID stretches after it.

With --topology or --gen it emulates that bus with the run flags, and
compares, port by port and reset by reset: each reset's start and duration,
the contention rounds and their back-offs, when the handshake starts after
the reset and when the parent answers it. A time matches within the
capture's sample period. Back-offs are drawn at random by the PHYs and by
the emulator alike: a different back-off, or number of rounds, is reported
as chance, not as a mismatch. The emulator also draws each PHY's
RESET_TIME from the standard's range: give --nominal-timers (or a topology
with the PHYs' own timers) to compare reset durations. docs/hardware.md
shows how to wire the comparators.

Exit status: 0 the capture was read (and matches the emulation); 1 it does
not match; 2 usage error or a capture that cannot be read.`

func runLinestates(ctx context.Context, e *env, args []string) int {
	fs := newFlags("linestates", linestatesIntro,
		"fwsim linestates cap.vcd --channels a.p0.tpa.hi=D0,a.p0.tpa.lo=D1,a.p0.tpb.hi=D2,a.p0.tpb.lo=D3",
		"fwsim linestates capture.csv --channels @lab.map --topology lab.yaml --nominal-timers",
		"sigrok-cli -d fx2lafw -c samplerate=24m --time 1000 -O csv | fwsim linestates --channels @lab.map",
	)
	var (
		format     lineFormat
		channels   string
		rate       uint64
		jsonOutput bool
		emulation  busFlags
	)
	fs.Var(&format, "format", "read the capture as `F`: sigrok-vcd or sigrok-csv, e.g. --format sigrok-csv\n(default: detected, a VCD starts with a $ keyword)")
	fs.StringVar(&channels, "channels", "",
		"which channel records which comparator: `MAP` is NODE.pPORT.tpa|tpb.hi|lo=CHANNEL,\ncomma-separated, or @FILE to read it from FILE, e.g. --channels\na.p0.tpa.hi=D0,a.p0.tpa.lo=D1,a.p0.tpb.hi=D2,a.p0.tpb.lo=D3 (default: the\nchannels named so)")
	fs.Var(newUint64(&rate, 0), "samplerate", "the capture's sample rate in `HZ`, for a CSV without one, e.g. --samplerate 24000000")
	busNames := emulation.register(fs, "pair", "seed the emulation with `N`, e.g. --seed 7")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .comparison.rows")
	fs.order(append(append([]string{"format", "channels", "samplerate"}, busNames...), "json")...)
	file, code, done := parseFileArg(fs, e, args)
	if done {
		return code
	}
	if err := emulation.check(); err != nil {
		return fs.usageError(e, "%v", err)
	}
	compare := emulation.file != "" || emulation.gen != ""
	for _, name := range busNames {
		if !compare && fs.isSet(name) {
			return fs.usageError(e, "--%s sets up the emulation to compare with: give --topology or --gen", name)
		}
	}
	opts := hwtest.LineOptions{SampleRateHz: rate}
	if channels != "" {
		m, err := readChannelMap(channels)
		if err != nil {
			return fs.inputError(e, err)
		}
		opts.Channels = m
	}
	source, r, closeFile, err := openCapture(e, file)
	if err != nil {
		return fs.inputError(e, err)
	}
	lc, err := hwtest.ReadLines(r, hwtest.Format(format), opts)
	closeFile()
	if err != nil {
		return fs.inputError(e, captureError(source, err))
	}
	report := lineReport{source: source, capture: lc}
	if compare {
		topo, name, err := emulation.load()
		if err != nil {
			return fs.inputError(e, err)
		}
		runOpts := emulation.options()
		var trace bus.Trace
		runOpts.Observer = func(ev bus.TraceEvent) {
			if ev.Kind == bus.TraceReceive { // all the comparison reads: a long run's trace stays small
				trace.Record(ev)
			}
		}
		runOpts.Interrupt = ctx.Done()
		res, err := bus.Run(topo, runOpts)
		if ctx.Err() != nil {
			return fs.interrupt(e)
		}
		if err != nil {
			return fs.inputError(e, emulation.explain(topo, err))
		}
		report.emulated, report.seed = name, runOpts.Seed
		report.comparison = hwtest.CompareLines(lc, hwtest.EmulatedLines(res, trace.Events))
	}
	if jsonOutput {
		if err := jsonout.Write(e.stdout, report.json()); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		report.writeText(e.stdout)
	}
	if c := report.comparison; c != nil && !c.Match() {
		fmt.Fprintf(e.stderr, "fwsim linestates: the capture does not match the emulation of %s\n", report.emulated)
		return exitFailure
	}
	return exitOK
}

// lineFormat is linestates' --format flag.
type lineFormat string

func (f *lineFormat) String() string { return string(*f) }

func (f *lineFormat) Set(s string) error {
	for _, lf := range hwtest.LineFormats() {
		if string(lf) == s {
			*f = lineFormat(s)
			return nil
		}
	}
	return fmt.Errorf("want %s or %s", hwtest.FormatSigrokVCD, hwtest.FormatSigrokCSV)
}

// maxChannelMapSize bounds a channel map file: 63 nodes of 27 ports take
// a few hundred KiB.
const maxChannelMapSize = 1 << 20

// readChannelMap reads --channels: the map, or @FILE holding it (on one
// line or several).
func readChannelMap(s string) (hwtest.ChannelMap, error) {
	name, ok := strings.CutPrefix(s, "@")
	if !ok {
		return hwtest.ParseChannelMap(s)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--channels %s: %w", name, withoutPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxChannelMapSize+1))
	if err == nil && len(data) > maxChannelMapSize {
		err = fmt.Errorf("larger than %d KiB: no channel map", maxChannelMapSize>>10)
	}
	if err != nil {
		return nil, fmt.Errorf("--channels %s: %w", name, withoutPath(err))
	}
	m, err := hwtest.ParseChannelMap(strings.Join(strings.Fields(strings.ReplaceAll(string(data), ",", " ")), ","))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// lineReport is what linestates found: the capture, and its comparison
// with an emulation when one was asked for.
type lineReport struct {
	source     string
	capture    *hwtest.LineCapture
	emulated   string // the bus emulated, as busFlags.load names it
	seed       uint64
	comparison *hwtest.LineComparison
}

func (r lineReport) writeText(w io.Writer) {
	lc := r.capture
	fmt.Fprintf(w, "fwsim linestates: %s (%s), %d port%s, sample period %s ns, %d ns long\n",
		r.source, lc.Format, len(lc.Ports), plural(len(lc.Ports)), formatNs(lc.SamplePeriodNs), lc.EndNs)
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
	c := r.comparison
	if c == nil {
		return
	}
	verdict := "match"
	if !c.Match() {
		verdict = "MISMATCH"
	}
	fmt.Fprintf(w, "\nagainst the emulation of %s, seed %d: %s\n", r.emulated, r.seed, verdict)
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

// linestatesJSON is the --json output of linestates.
type linestatesJSON struct {
	bus.VersionJSON
	Source string `json:"source"` // the capture file, or "stdin"
	Format string `json:"format"` // sigrok-vcd or sigrok-csv
	// SamplePeriodPs is the time between two samples, in ps: the
	// resolution of every time of the capture.
	SamplePeriodPs int64          `json:"sample_period_ps"`
	EndNs          int64          `json:"end_ns"`     // the last instant the capture covers, ns from its start
	Ports          []linePortJSON `json:"ports"`      // every port the channels record, in node then port order
	Comparison     *lineCompJSON  `json:"comparison"` // against the emulation; null without --topology or --gen
}

// linePortJSON is one port's line states, as episodes.
type linePortJSON struct {
	Port     string        `json:"port"`     // NODE.pPORT
	Episodes []episodeJSON `json:"episodes"` // in time order
}

// episodeJSON is a stretch of a port's line states between idle lines.
type episodeJSON struct {
	Kind    string `json:"kind"`     // reset, contention, handshake or self-id
	Reset   int    `json:"reset"`    // the resets the port has received up to it, its own included; 0 before the first
	StartNs int64  `json:"start_ns"` // ns from the capture's start
	EndNs   int64  `json:"end_ns"`   // ns from the capture's start: the next idle line, or the capture's end
	// HighNs is when a pair is first driven to 1 in the episode (in a
	// handshake, the parent's CHILD_NOTIFY), ns from the capture's start;
	// null if never.
	HighNs *int64 `json:"high_ns"`
	Begun  bool   `json:"begun"` // the capture begins during the episode: start_ns is its start
	Cut    bool   `json:"cut"`   // the capture ends during the episode: end_ns is its end
}

// lineCompJSON is a capture against the emulation of its bus.
type lineCompJSON struct {
	Emulated string `json:"emulated"` // the bus emulated: the topology file, or gen SPEC
	Seed     uint64 `json:"seed"`     // the emulation's seed
	// Match: every captured port is emulated, and every quantity the
	// emulator predicts is within the tolerance.
	Match       bool  `json:"match"`
	TolerancePs int64 `json:"tolerance_ps"` // the capture's sample period, in ps
	// RealOriginNs is the start of the capture's first reset, ns from the
	// capture's start, which the starts of its resets count from; null
	// without a reset.
	RealOriginNs *int64 `json:"real_origin_ns"`
	// EmulatedOriginNs is the start of the emulation's first reset, ns
	// from power-up; null without a reset.
	EmulatedOriginNs *int64        `json:"emulated_origin_ns"`
	Missing          []string      `json:"missing_ports"` // captured ports the emulated bus does not have
	Rows             []lineRowJSON `json:"rows"`          // every quantity compared
}

// lineRowJSON is one quantity compared.
type lineRowJSON struct {
	Port  string `json:"port"`  // NODE.pPORT
	Reset int    `json:"reset"` // the reset it follows, 1 for the first the port receives; 0 for the count of resets
	// Event is reset, handshake, "contention N" or "back-off N" (the Nth
	// round), resets or "contention rounds".
	Event string `json:"event"`
	// Measure is start (since the first reset's start, or for a handshake
	// since its reset's end), duration, count, or answer (from the
	// child's PARENT_NOTIFY to the parent's CHILD_NOTIFY).
	Measure  string `json:"measure"`
	Real     *int64 `json:"real"`     // ns, or a count; null when the capture has no such event
	Emulated *int64 `json:"emulated"` // ns, or a count; null when the emulation has no such event
	Chance   bool   `json:"chance"`   // the emulator draws it at random: a difference is no mismatch
	Within   bool   `json:"within"`   // equal counts, times within the tolerance, or absent on both sides
}

func (r lineReport) json() linestatesJSON {
	lc := r.capture
	out := linestatesJSON{VersionJSON: bus.NewVersionJSON(), Source: r.source, Format: string(lc.Format),
		SamplePeriodPs: int64(math.Round(lc.SamplePeriodNs * 1000)), EndNs: lc.EndNs, Ports: []linePortJSON{}}
	for _, pl := range lc.Ports {
		p := linePortJSON{Port: pl.Port.String(), Episodes: []episodeJSON{}}
		for _, ep := range hwtest.Episodes(pl, lc.EndNs) {
			p.Episodes = append(p.Episodes, episodeJSON{Kind: string(ep.Kind), Reset: ep.Reset, StartNs: ep.StartNs, EndNs: ep.EndNs,
				HighNs: jsonout.NullIfNegative(ep.HighNs), Begun: ep.Begun, Cut: ep.Cut})
		}
		out.Ports = append(out.Ports, p)
	}
	if c := r.comparison; c != nil {
		cj := &lineCompJSON{Emulated: r.emulated, Seed: r.seed, Match: c.Match(), TolerancePs: int64(math.Round(c.ToleranceNs * 1000)),
			RealOriginNs: jsonout.NullIfNegative(c.RealOriginNs), EmulatedOriginNs: jsonout.NullIfNegative(c.EmulatedOriginNs), Missing: []string{}, Rows: []lineRowJSON{}}
		for _, p := range c.Missing {
			cj.Missing = append(cj.Missing, p.String())
		}
		for _, row := range c.Rows {
			cj.Rows = append(cj.Rows, lineRowJSON{Port: row.Port.String(), Reset: row.Reset, Event: row.Event, Measure: row.Measure,
				Real: jsonout.NullIfNegative(row.Real), Emulated: jsonout.NullIfNegative(row.Emulated), Chance: row.Chance, Within: row.Within})
		}
		out.Comparison = cj
	}
	return out
}
