package bus_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeVCD(t *testing.T, res *bus.Result, trace []bus.TraceEvent, d bus.VCDDialect) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, bus.WriteVCDWith(&buf, res, trace, bus.VCDOptions{Dialect: d}))
	return buf.Bytes()
}

// parseLegend reads the sigrok dialect's legend back: per variable name,
// the text of each number. Words "name:" open a group, words "N=text" add to
// it.
func parseLegend(t *testing.T, comment string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	group := ""
	for _, w := range strings.Fields(comment) {
		if n, text, ok := strings.Cut(w, "="); ok && group != "" {
			i, err := strconv.Atoi(n)
			require.NoError(t, err, "legend entry %q", w)
			require.Equal(t, len(out[group]), i, "legend %s: numbers in order from 0", group)
			out[group] = append(out[group], text)
			continue
		}
		if name, ok := strings.CutSuffix(w, ":"); ok {
			group = name
		}
	}
	return out
}

// TestVCDSigrokDialect: the sigrok dialect holds only what libsigrok's VCD
// input reads without a warning — one-bit wires with 0, 1 or z, and reals
// (64 bits, "r<number> <id>") — and loses nothing: its numbers, read back
// through the legend, give the GTKWave dialect's file change for change.
func TestVCDSigrokDialect(t *testing.T) {
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			gtk, err := vcd.Parse(bytes.NewReader(writeVCD(t, res, trace, bus.VCDGTKWave)))
			require.NoError(t, err)
			sig, err := vcd.Parse(bytes.NewReader(writeVCD(t, res, trace, bus.VCDSigrok)))
			require.NoError(t, err)

			// The dialect's rules.
			require.Len(t, sig.Comments, 2, "the run, then the legend")
			assert.Equal(t, gtk.Comments[0], sig.Comments[0])
			legend := parseLegend(t, sig.Comments[1])
			kinds := map[string]vcd.Kind{}
			names := map[string]string{} // identifier → legend group
			for _, d := range sig.Vars {
				kinds[d.ID] = d.Kind
				switch d.Kind {
				case vcd.Wire:
					assert.Equal(t, 1, d.Size, d.Path())
				case vcd.Real:
					assert.Equal(t, 64, d.Size, "%s: libsigrok notes any other width", d.Path())
					names[d.ID] = strings.TrimRight(d.Name, "0123456789")
					assert.Contains(t, legend, names[d.ID], "%s has no legend", d.Path())
				default:
					t.Errorf("%s is a %s: libsigrok skips it with a warning", d.Path(), d.Kind)
				}
			}
			for _, c := range sig.Changes {
				if kinds[c.ID] == vcd.Wire {
					assert.Contains(t, []string{"0", "1", "z"}, c.Value, "wire %s at %d", c.ID, c.Time)
				}
			}

			// Nothing lost: the same variables, and the same changes once
			// the numbers are read through the legend.
			require.Len(t, sig.Vars, len(gtk.Vars))
			for i, d := range gtk.Vars {
				assert.Equal(t, d.Path(), sig.Vars[i].Path())
				assert.Equal(t, d.ID, sig.Vars[i].ID)
				if d.Kind == vcd.String {
					assert.Equal(t, vcd.Real, sig.Vars[i].Kind, d.Path())
				}
			}
			require.Len(t, sig.Changes, len(gtk.Changes))
			for i, c := range sig.Changes {
				if kinds[c.ID] == vcd.Real {
					n, err := strconv.Atoi(c.Value)
					require.NoError(t, err, "real %s = %q at %d: want a number of the legend", c.ID, c.Value, c.Time)
					texts := legend[names[c.ID]]
					require.True(t, n >= 0 && n < len(texts), "%s = %d at %d: not in the legend of %s", c.ID, n, c.Time, names[c.ID])
					c.Value = texts[n]
				}
				assert.Equal(t, gtk.Changes[i], c, "change %d", i)
			}
			assert.Equal(t, gtk.End, sig.End)
		})
	}
}

// TestVCDSigrokCLI opens the waveforms with sigrok-cli, when it is
// installed: the sigrok dialect must draw no warning at all, and the GTKWave
// dialect, which it must warn about, shows that warnings are seen.
func TestVCDSigrokCLI(t *testing.T) {
	cli, err := exec.LookPath("sigrok-cli")
	if err != nil {
		t.Skip("sigrok-cli is not on PATH (apt install sigrok-cli): TestVCDSigrokDialect checks the dialect's rules without it")
	}
	open := func(t *testing.T, data []byte) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "run.vcd")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		var stderr bytes.Buffer
		cmd := exec.Command(cli, "--loglevel", "2", "-I", "vcd", "-i", path, "-O", "null")
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), "sigrok-cli: %s", stderr.String())
		return stderr.String()
	}
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			assert.Empty(t, open(t, writeVCD(t, res, trace, bus.VCDSigrok)), "sigrok dialect")
			assert.NotEmpty(t, open(t, writeVCD(t, res, trace, bus.VCDGTKWave)), "GTKWave dialect: string variables")
		})
	}
}

func TestVCDDialectRejected(t *testing.T) {
	res, trace := runTraced(t, viewRuns[0])
	err := bus.WriteVCDWith(&bytes.Buffer{}, res, trace, bus.VCDOptions{Dialect: 9})
	assert.ErrorIs(t, err, bus.ErrInvalidOptions)
	assert.ErrorContains(t, err, "VCD dialect 9")
}
