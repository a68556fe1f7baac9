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
}
