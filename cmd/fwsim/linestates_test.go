package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sigrokPair is fwsim's own sigrok-dialect VCD of run --gen pair --seed 7.
const sigrokPair = "../../view/testdata/golden/pair-seed7.sigrok.vcd"

// labCapture is the same run as a 24 MHz analyzer on D0–D7 records it,
// with its channel map.
const (
	labCapture = "testdata/linestates/pair-seed7-24MHz.csv"
	labMapFile = "testdata/linestates/lab.map"
)

func TestLinestatesGolden(t *testing.T) {
	testGoldenCases(t, []goldenCase{
		// The episodes alone, without an emulation.
		{name: "decoded", args: []string{"linestates", sigrokPair}, code: exitOK},
		// fwsim's VCD against the run that wrote it: equal to the ns.
		{name: "round-trip", args: []string{"linestates", sigrokPair, "--gen", "pair", "--seed", "7"}, code: exitOK},
		// Another seed: the back-offs differ by chance, and the reset
		// times the PHYs drew.
		{name: "other-seed", args: []string{"linestates", sigrokPair, "--gen", "pair", "--seed", "8"}, code: exitFailure,
			stderr: "fwsim linestates: the capture does not match the emulation of gen pair\n"},
		// A 24 MS/s capture: within one sample period.
		{name: "lab-24MHz", args: []string{"linestates", labCapture, "--channels", "@" + labMapFile, "--gen", "pair", "--seed", "7"}, code: exitOK},
		// Captured ports the emulated bus does not have.
		{name: "missing-ports", args: []string{"linestates", sigrokPair, "--gen", "chain:3"}, code: exitFailure,
			stderr: "fwsim linestates: the capture does not match the emulation of gen chain:3\n"},
	}, func(name, format string) string { return "linestates/" + name + "." + format })
}

func TestLinestatesUsage(t *testing.T) {
	testUsageErrors(t, []usageError{
		{"seed without a bus", []string{"linestates", sigrokPair, "--seed", "3"},
			"fwsim linestates: --seed sets up the emulation to compare with: give --topology or --gen (see 'fwsim help linestates')"},
		{"both buses", []string{"linestates", sigrokPair, "--gen", "pair", "--topology", "x.yaml"}, "fwsim linestates: --topology and --gen are mutually exclusive"},
		{"format", []string{"linestates", sigrokPair, "--format", "raw"}, `fwsim linestates: invalid value "raw" for flag --format: want sigrok-vcd or sigrok-csv`},
		{"channel map", []string{"linestates", sigrokPair, "--channels", "a.p0.tpa.hi=D0"},
			"fwsim linestates: channel map: a.p0.tpa.lo: not mapped, and a.p0.tpa.hi is: a port's line state needs both comparators of both pairs"},
		{"channel map file", []string{"linestates", sigrokPair, "--channels", "@testdata/none.map"}, "fwsim linestates: --channels testdata/none.map: no such file or directory"},
		{"unmapped channel", []string{"linestates", sigrokPair, "--channels", "@" + labMapFile},
			"fwsim linestates: " + sigrokPair + ": sigrok-vcd line 18: D0: the channel map gives it a.p0.tpa.hi, and the capture has no such channel"},
		{"no rate", []string{"linestates", labCapture, "--channels", "@" + labMapFile, "--format", "sigrok-vcd"}, "fwsim linestates: " + labCapture + `: sigrok-vcd line 1: header: ";": want $date`},
		{"directory", []string{"linestates", "testdata"}, "fwsim linestates: capture testdata: is a directory"},
		{"unknown node", []string{"linestates", sigrokPair, "--gen", "pair", "--initiator", "nobody"}, `fwsim linestates: --initiator: unknown node "nobody"`},
		{"rate above 1 GHz", []string{"linestates", labCapture, "--samplerate", "1000000000000000001"},
			"fwsim linestates: --samplerate 1000000000000000001: a sample period of 1e-09 ns is below 1 ns, fwsim's time resolution: want at most 1 GHz (1000000000 Hz) (see 'fwsim help linestates')"},
		{"rate given against the capture's", []string{"linestates", labCapture, "--channels", "@" + labMapFile, "--samplerate", "1000"},
			"fwsim linestates: " + labCapture + `: sigrok-csv line 5: Samplerate: "24 MHz": --samplerate says 1000 Hz: a capture is read at the rate it says; give that rate, or none`},
		{"rate given against a VCD's stamps", []string{"linestates", sigrokPair, "--samplerate", "1000"},
			"fwsim linestates: " + sigrokPair + ": sigrok-vcd line 30: time: #12 comes 12 ns after #0: less than a sample period, 1000000 ns at 1000 Hz (from --samplerate)"},
		{"not a capture", []string{"linestates", "testdata/malformed.yaml"},
			"fwsim linestates: testdata/malformed.yaml: line 1: input: \"# A node whose port count is not a number: line 6 is wrong.\": not a logic-analyzer capture: want a VCD (a $ keyword such as $date or $timescale first) or a sigrok CSV (';' comment lines, or comma-separated columns)"},
		{"port out of range", []string{"linestates", labCapture, "--channels", "a.p27.tpa.hi=D0"},
			"fwsim linestates: channel map: a.p27.tpa.hi=D0: port p27: want p0 to p26, without leading zeros (a PHY has at most 27 ports)"},
	})
	// A CSV without its sample rate reads with --samplerate.
	data, err := os.ReadFile(labCapture)
	require.NoError(t, err)
	noRate := filepath.Join(t.TempDir(), "no-rate.csv")
	require.NoError(t, os.WriteFile(noRate, []byte(strings.Replace(string(data), "; Samplerate: 24 MHz\n", "", 1)), 0o644))
	code, _, stderr := runCLI(t, "linestates", noRate, "--channels", "@"+labMapFile)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "line 5: Samplerate: no")
	code, stdout, stderr := runCLI(t, "linestates", noRate, "--channels", "@"+labMapFile, "--samplerate", "24000000", "--gen", "pair", "--seed", "7")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "tolerance 41.667 ns")
	// A rate given that agrees with the capture's own is no error.
	code, stdout, stderr = runCLI(t, "linestates", labCapture, "--channels", "@"+labMapFile, "--samplerate", "24000000")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "sample period 41.667 ns")
	// A CSV's time column says its rate's range: nanoseconds are not 1 kHz.
	code, _, stderr = runCLI(t, "linestates", noRate, "--channels", "@"+labMapFile, "--samplerate", "1000")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim linestates: "+noRate+": sigrok-csv line 5: nanoseconds: sigrok counts time in nanoseconds at rates above 1 MHz up to 1 GHz; at 1000 Hz (from --samplerate) it counts in milliseconds\n", stderr)
	// A capture's own rate finer than a ns.
	fast := filepath.Join(t.TempDir(), "fast.csv")
	require.NoError(t, os.WriteFile(fast, []byte(strings.Replace(string(data), "; Samplerate: 24 MHz", "; Samplerate: 5000000000 GHz", 1)), 0o644))
	code, _, stderr = runCLI(t, "linestates", fast, "--channels", "@"+labMapFile)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim linestates: "+fast+`: sigrok-csv line 5: Samplerate: "5000000000 GHz": a sample period of 2e-10 ns is below 1 ns, fwsim's time resolution: want at most 1 GHz (1000000000 Hz)`+"\n", stderr)
}
