package hwtest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// lineRun is an emulation whose line states the tests capture.
type lineRun struct {
	name string
	topo func(t testing.TB) *bus.Topology
	opts bus.Options
}

func generatedTopology(spec string) func(t testing.TB) *bus.Topology {
	return func(t testing.TB) *bus.Topology {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		return topo
	}
}

var lineRuns = []lineRun{
	{"pair-seed7", generatedTopology("pair"), bus.Options{Seed: 7}}, // five contention rounds
	{"pair-seed3", generatedTopology("pair"), bus.Options{Seed: 3}},
	{"chain3", generatedTopology("chain:3"), bus.Options{Seed: 1, Initiators: []string{"n2"}}},
	{"star5", generatedTopology("star:5"), bus.Options{Seed: 2}},
	{"tree9", generatedTopology("tree:9"), bus.Options{Seed: 4}},
	{"ring3", generatedTopology("ring:3"), bus.Options{Seed: 1}}, // a loop: no tree
	{"hotplug", func(t testing.TB) *bus.Topology {
		topo, err := bus.LoadTopology("../examples/hotplug.yaml")
		require.NoError(t, err)
		return topo
	}, bus.Options{Seed: 1}},
}

// emulate runs r and gives the run and its trace.
func emulate(t testing.TB, topo *bus.Topology, opts bus.Options) (*bus.Result, []bus.TraceEvent) {
	t.Helper()
	var trace bus.Trace
	opts.Observer = trace.Record
	res, err := bus.Run(topo, opts)
	require.NoError(t, err)
	return res, trace.Events
}

func sigrokVCD(t testing.TB, res *bus.Result, trace []bus.TraceEvent) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteSigrokVCD(&buf, res, trace))
	return buf.Bytes()
}

// TestLinesVCDRoundTrip: fwsim's sigrok-dialect VCD reads back, without a
// channel map, to exactly the line states the emulation gave every port,
// and compares with the emulation without a difference.
func TestLinesVCDRoundTrip(t *testing.T) {
	contention := 0
	for _, r := range lineRuns {
		t.Run(r.name, func(t *testing.T) {
			res, trace := emulate(t, r.topo(t), r.opts)
			want := EmulatedLines(res, trace)
			got, err := ReadLines(bytes.NewReader(sigrokVCD(t, res, trace)), "", LineOptions{})
			require.NoError(t, err)
			assert.Equal(t, FormatSigrokVCD, got.Format)
			assert.Equal(t, 1.0, got.SamplePeriodNs, "fwsim's timescale is 1 ns")
			assert.Equal(t, want.EndNs, got.EndNs)
			assert.Equal(t, want.Ports, got.Ports)

			c := CompareLines(got, want)
			assert.True(t, c.Match(), "%v", c.Rows)
			for _, row := range c.Rows {
				assert.True(t, row.Within, "%s", row)
				if row.Event == "contention rounds" {
					contention++
				}
			}
			assert.NotEmpty(t, c.Rows)
		})
	}
	assert.Positive(t, contention, "no run has a root contention")
}

// TestLinesCSVRoundTrip: the same run as sigrok-cli -O csv writes it at
// 1 GS/s, in each of its label styles, reads back to the emulated line
// states exactly.
func TestLinesCSVRoundTrip(t *testing.T) {
	for _, r := range lineRuns[:4] {
		for _, style := range []csvStyle{{label: "units", dedup: true}, {label: "channel", dedup: true}, {label: "off", dedup: true},
			{label: "channel", trigger: true, dedup: true}, {label: "units", noTime: true}} {
			t.Run(fmt.Sprintf("%s/%+v", r.name, style), func(t *testing.T) {
				res, trace := emulate(t, r.topo(t), r.opts)
				want := EmulatedLines(res, trace)
				data, m := sigrokCSV(want, 1e9, style)
				got, err := ReadLines(bytes.NewReader(data), "", LineOptions{Channels: m})
				require.NoError(t, err)
				assert.Equal(t, FormatSigrokCSV, got.Format)
				assert.Equal(t, want.Ports, got.Ports)
			})
		}
	}
}

// TestLinesResampled: a logic analyzer sampling at 24 MS/s sees every
// handshake, reset and contention round of the emulation, each time
// within one sample period.
func TestLinesResampled(t *testing.T) {
	for _, r := range lineRuns[:5] {
		t.Run(r.name, func(t *testing.T) {
			res, trace := emulate(t, r.topo(t), r.opts)
			want := EmulatedLines(res, trace)
			data, m := sigrokCSV(want, 24e6, csvStyle{label: "units"})
			got, err := ReadLines(bytes.NewReader(data), "", LineOptions{Channels: m})
			require.NoError(t, err)
			assert.InDelta(t, 1e9/24e6, got.SamplePeriodNs, 1e-9)
			c := CompareLines(got, want)
			assert.True(t, c.Match(), "%v", c.Rows)
			for _, row := range c.Rows {
				assert.True(t, row.Within, "%s", row)
			}
		})
	}
}

// csvStyle is how sigrokCSV writes: sigrok-cli -O csv's options.
type csvStyle struct {
	label   string // units (the default), channel or off
	noTime  bool   // time=false
	trigger bool   // trigger=true
	dedup   bool   // dedup=true: only the first and last row and those that change
}

// sigrokCSV samples a timeline at rate as a logic analyzer on channels
// D0… would, and writes it as sigrok-cli -O csv does, with the channel
// map from the comparators to the channels (D0–D3 the first port's TPA
// hi, lo, TPB hi, lo, and so on).
func sigrokCSV(lc *LineCapture, rate uint64, style csvStyle) ([]byte, ChannelMap) {
	var m ChannelMap
	var names []string
	for _, pl := range lc.Ports {
		for _, b := range []ChannelBind{{pl.Port, TPA, true, ""}, {pl.Port, TPA, false, ""}, {pl.Port, TPB, true, ""}, {pl.Port, TPB, false, ""}} {
			b.Channel = fmt.Sprintf("D%d", len(m))
			m = append(m, b)
			names = append(names, b.Channel)
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "; CSV generated by libsigrok 0.6.0\n; from Saleae Logic on Thu Nov 26 01:00:00 2026\n")
	fmt.Fprintf(&buf, "; Channels (%d/%d): %s\n", len(names), len(names), strings.Join(names, ", "))
	fmt.Fprintf(&buf, "; Samplerate: %s\n", rateString(rate))
	clock := newCSVClock(rate)
	labels := []string{csvUnits[csvStep(rate)]}
	if style.noTime {
		labels = nil
	}
	for _, n := range names {
		switch style.label {
		case "units":
			labels = append(labels, "logic")
		case "channel":
			labels[0] = "Time"
			labels = append(labels, n)
		}
	}
	if style.trigger {
		labels = append(labels, "Trigger")
	}
	if style.label != "off" {
		buf.WriteString(strings.Join(labels, ",") + "\n")
	}
	// The samples written: every one, or with dedup those that can differ
	// from the one before, the first and the last.
	final := uint64(lc.EndNs) * rate / 1e9
	samples := []uint64{0, final}
	for _, pl := range lc.Ports {
		for _, c := range pl.Changes {
			samples = append(samples, min(final, (uint64(c.AtNs)*rate+1e9-1)/1e9))
		}
	}
	if !style.dedup {
		samples = samples[:0]
		for k := range final + 1 {
			samples = append(samples, k)
		}
	}
	slices.Sort(samples)
	samples = slices.Compact(samples)
	next := make([]int, len(lc.Ports))
	last := ""
	for _, k := range samples {
		at := int64(math.Ceil(float64(k) * 1e9 / float64(rate)))
		var row []string
		for p, pl := range lc.Ports {
			for next[p]+1 < len(pl.Changes) && pl.Changes[next[p]+1].AtNs <= at {
				next[p]++
			}
			s := pl.Changes[next[p]].State
			for _, sig := range []phy.Signal{s.A(), s.B()} {
				row = append(row, bit(sig == phy.Sig1), bit(sig == phy.Sig0))
			}
		}
		if style.trigger {
			row = append(row, "0")
		}
		values := strings.Join(row, ",")
		if style.dedup && values == last && k != final {
			continue
		}
		last = values
		if !style.noTime {
			values = fmt.Sprint((k+1)*clock.period) + "," + values
		}
		buf.WriteString(values + "\n")
	}
	return buf.Bytes(), m
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// rateString writes a rate as sigrok does: "24 MHz", "1 GHz".
func rateString(rate uint64) string {
	for _, u := range []struct {
		div  uint64
		name string
	}{{1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"}} {
		if rate >= u.div && rate%u.div == 0 {
			return fmt.Sprintf("%d %s", rate/u.div, u.name)
		}
	}
	return fmt.Sprintf("%d Hz", rate)
}

// TestLinesSigrokCLI reads what sigrok-cli itself exports from fwsim's
// sigrok dialect, when it is installed: its CSV and its VCD give the
// emulated line states exactly, and its CSV downsampled to 24.4 MS/s
// compares with the emulation within one sample period.
func TestLinesSigrokCLI(t *testing.T) {
	cli, err := exec.LookPath("sigrok-cli")
	if err != nil {
		t.Skip("sigrok-cli is not on PATH (apt-get install sigrok-cli): TestLinesCSVRoundTrip writes its format instead")
	}
	for _, r := range lineRuns[:3] {
		t.Run(r.name, func(t *testing.T) {
			res, trace := emulate(t, r.topo(t), r.opts)
			want := EmulatedLines(res, trace)
			path := filepath.Join(t.TempDir(), "run.vcd")
			require.NoError(t, os.WriteFile(path, sigrokVCD(t, res, trace), 0o644))
			export := func(input, output string) *LineCapture {
				t.Helper()
				var out, errOut bytes.Buffer
				cmd := exec.Command(cli, "-I", input, "-i", path, "-O", output)
				cmd.Stdout, cmd.Stderr = &out, &errOut
				require.NoError(t, cmd.Run(), "sigrok-cli: %s", errOut.String())
				got, err := ReadLines(&out, "", LineOptions{})
				require.NoError(t, err, "sigrok-cli -I %s -O %s", input, output)
				return got
			}
			for _, output := range []string{"csv", "vcd", "csv:label=channel"} {
				got := export("vcd", output)
				assert.Equal(t, want.Ports, got.Ports, output)
				assert.Equal(t, 1.0, got.SamplePeriodNs, output)
			}
			got := export("vcd:downsample=41", "csv")
			assert.InDelta(t, 41, got.SamplePeriodNs, 0.01)
			c := CompareLines(got, want)
			for _, row := range c.Rows {
				assert.True(t, row.Within || row.Chance, "%s", row)
			}
			assert.True(t, c.Match(), "%v", c.Rows)
		})
	}

	// Its rates, as it writes them: 30-fold downsampling is 33333333 Hz,
	// "33.333333 MHz" in the VCD's $comment and 33333333 in the META line,
	// one rate; a 100 ps timescale is 10 GHz, finer than fwsim's ns.
	res, trace := emulate(t, lineRuns[0].topo(t), lineRuns[0].opts)
	dir := t.TempDir()
	run := sigrokVCD(t, res, trace)
	for _, c := range []struct {
		input, timescale, output string
		period                   float64
		err                      string
	}{
		{"vcd:downsample=30", "1ns", "vcd", 1e9 / 33_333_333, ""},
		{"vcd:downsample=30", "1ns", "csv", 1e9 / 33_333_333, ""},
		{"vcd", "100ps", "csv", 0, "sigrok-csv line 4: samplerate: 10000000000: a sample period of 0.1 ns is below 1 ns"},
		{"vcd", "100ps", "vcd", 0, "sigrok-vcd line 1: samplerate: 10000000000: a sample period of 0.1 ns is below 1 ns"},
	} {
		path := filepath.Join(dir, c.timescale+".vcd")
		require.NoError(t, os.WriteFile(path, bytes.Replace(run, []byte("$timescale 1ns $end"), []byte("$timescale "+c.timescale+" $end"), 1), 0o644))
		var out, errOut bytes.Buffer
		cmd := exec.Command(cli, "-I", c.input, "-i", path, "-O", c.output)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Run(), "sigrok-cli: %s", errOut.String())
		got, err := ReadLines(&out, "", LineOptions{})
		if c.err != "" {
			require.ErrorContains(t, err, c.err, "%s, -I %s -O %s", c.timescale, c.input, c.output)
			continue
		}
		require.NoError(t, err, "-I %s -O %s", c.input, c.output)
		assert.Equal(t, c.period, got.SamplePeriodNs, "-I %s -O %s", c.input, c.output)
	}
}

// TestEpisodes splits a hand-made timeline: a reset the capture begins in,
// a contention round whose (0,0) fell between samples, its back-off, the
// handshake (the parent's 1 answers at +40 ns) running into self-ID, an
// idle line, a self-ID stretch, and a second reset the capture cuts.
func TestEpisodes(t *testing.T) {
	z, p0, p1 := phy.SigZ, phy.Sig0, phy.Sig1
	s := phy.MakeLineState
	pl := PortLines{Port: PortRef{"a", 0}, Changes: []LineChange{
		{0, s(p1, p1)}, {100, s(z, z)},
		{150, s(p0, z)}, {170, s(z, p0)}, {190, s(z, z)}, // contention
		{400, s(p0, z)}, {440, s(p0, p1)}, {470, s(z, p1)}, {500, s(p0, z)}, {520, s(z, z)}, // handshake, then grant
		{600, s(p1, p0)}, {700, s(z, z)}, // self-ID
		{900, s(p1, p1)},
	}}
	assert.Equal(t, []Episode{
		{Kind: EpisodeReset, StartNs: 0, EndNs: 100, HighNs: 0, Reset: 1, Begun: true},
		{Kind: EpisodeContention, StartNs: 150, EndNs: 190, HighNs: -1, Reset: 1},
		{Kind: EpisodeHandshake, StartNs: 400, EndNs: 520, HighNs: 440, Reset: 1},
		{Kind: EpisodeSelfID, StartNs: 600, EndNs: 700, HighNs: 600, Reset: 1},
		{Kind: EpisodeReset, StartNs: 900, EndNs: 1000, HighNs: 900, Reset: 2, Cut: true},
	}, Episodes(pl, 1000))

	// The same port in an emulation that drew another back-off and a
	// second round: chance, and a match; a port the emulation lacks is not.
	emu := PortLines{Port: pl.Port, Changes: []LineChange{
		{0, s(z, z)}, {10, s(p1, p1)}, {100, s(z, z)},
		{150, s(p0, z)}, {170, s(z, p0)}, {190, s(z, z)},
		{300, s(p0, z)}, {320, s(z, p0)}, {340, s(z, z)}, // a second round
		{600, s(p0, z)}, {640, s(p0, p1)}, {700, s(z, z)},
		{900, s(p1, p1)},
	}}
	c := CompareLines(&LineCapture{SamplePeriodNs: 10, EndNs: 1000, Ports: []PortLines{pl}},
		&LineCapture{SamplePeriodNs: 1, EndNs: 1000, Ports: []PortLines{emu}})
	assert.True(t, c.Match(), "%v", c.Rows)
	assert.Equal(t, 10.0, c.ToleranceNs)
	var shown []string
	for _, r := range c.Rows {
		shown = append(shown, fmt.Sprintf("%s %v %v", r, r.Chance, r.Within))
	}
	assert.Equal(t, []string{
		"a.p0 reset 1 contention rounds count: real 1, emulated 2 true false",
		"a.p0 reset 1 contention 1 duration: real 40 ns, emulated 40 ns true true",
		"a.p0 reset 1 back-off 1 duration: real 210 ns, emulated 110 ns true false",
		"a.p0 reset 1 handshake start: real 300 ns, emulated 500 ns true false",
		"a.p0 reset 1 handshake answer: real 40 ns, emulated 40 ns false true",
	}, shown, "the begun reset has neither start nor duration, the cut one no duration")

	c = CompareLines(&LineCapture{SamplePeriodNs: 10, EndNs: 1000, Ports: []PortLines{pl, {Port: PortRef{"x", 1}, Changes: pl.Changes}}},
		&LineCapture{SamplePeriodNs: 1, EndNs: 1000, Ports: []PortLines{emu}})
	assert.False(t, c.Match())
	assert.Equal(t, []PortRef{{"x", 1}}, c.Missing)
}
