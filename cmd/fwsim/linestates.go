package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/view"
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
		"fwsim linestates cap.vcd \\\n"+
			"      --channels a.p0.tpa.hi=D0,a.p0.tpa.lo=D1,a.p0.tpb.hi=D2,a.p0.tpb.lo=D3   # needs a capture",
		"fwsim linestates capture.csv --channels @lab.map --topology lab.yaml \\\n"+
			"      --nominal-timers   # needs a capture and its bus",
		"sigrok-cli -d fx2lafw -c samplerate=24m --time 1000 -O csv | \\\n"+
			"      fwsim linestates --channels @lab.map   # needs sigrok-cli and a logic analyzer",
	)
	var (
		format     lineFormat
		channels   string
		rate       uint64
		jsonOutput bool
		emulation  busFlags
	)
	fs.Var(&format, "format", "read the capture as `F`: sigrok-vcd or sigrok-csv, e.g. --format sigrok-csv\n(default: detected, a VCD starts with a $ keyword, a CSV with a ; comment or\ncomma-separated columns)")
	fs.StringVar(&channels, "channels", "",
		"which channel records which comparator: `MAP` is NODE.pPORT.tpa|tpb.hi|lo=CHANNEL,\ncomma-separated, or @FILE to read it from FILE, e.g. --channels\na.p0.tpa.hi=D0,a.p0.tpa.lo=D1,a.p0.tpb.hi=D2,a.p0.tpb.lo=D3 (default: the\nchannels named so)")
	fs.Var(newUint64(&rate, 0), "samplerate", "the capture's sample rate in `HZ`, at most 1000000000, for a capture that does not\nsay it (one that does must say the same), e.g. --samplerate 24000000")
	busNames := emulation.register(fs, "pair", "seed the emulation with `N`, from 1, e.g. --seed 7")
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
	if err := hwtest.CheckSampleRate(float64(rate)); err != nil {
		return fs.usageError(e, "--samplerate %d: %v", rate, err)
	}
	opts := hwtest.LineOptions{SampleRateHz: rate, SampleRateName: "--samplerate"}
	if channels != "" {
		m, err := readChannelMap(ctx, channels)
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
	report := hwtest.LineReport{Source: source, Capture: lc}
	if compare {
		topo, name, err := emulation.load(ctx)
		if err != nil {
			return fs.inputError(e, err)
		}
		runOpts := emulation.options()
		runOpts.Interrupt = ctx.Done()
		comparison, err := hwtest.CompareWithEmulation(lc, topo, runOpts)
		if ctx.Err() != nil {
			return fs.interrupt(e)
		}
		if err != nil {
			return fs.inputError(e, emulation.explain(topo, err))
		}
		report.Emulated, report.Seed = name, runOpts.Seed
		report.Comparison = comparison
	}
	if jsonOutput {
		if err := jsonout.Write(e.stdout, hwtest.NewLinestatesJSON(report)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		// The names the capture, its channel map and the command line
		// give (VCD $var names, CSV channels, --channels, the files)
		// reach the terminal escaped, as messages do; JSON escapes them
		// itself.
		view.WriteLinestatesText(&messageWriter{w: e.stdout}, report)
	}
	if c := report.Comparison; c != nil && !c.Match() {
		fmt.Fprintf(e.stderr, "fwsim linestates: the capture does not match the emulation of %s\n", report.Emulated)
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
func readChannelMap(ctx context.Context, s string) (hwtest.ChannelMap, error) {
	name, ok := strings.CutPrefix(s, "@")
	if !ok {
		return hwtest.ParseChannelMap(s)
	}
	f, err := openInput(ctx, name)
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
