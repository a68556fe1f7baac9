package view_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/view"
)

func writeVCD(t *testing.T, res *bus.Result, trace []bus.TraceEvent, d view.VCDDialect) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, view.WriteVCDWith(&buf, res, trace, view.VCDOptions{Dialect: d}))
	return buf.Bytes()
}

// sigrokChannel is the name of a channel of the sigrok dialect.
var sigrokChannel = regexp.MustCompile(`^(.+)\.p(\d+)\.(tpa|tpb)\.(hi|lo)$`)

// levelAt is a pair's level from some time on: "0", "1" or "z".
type levelAt struct {
	at    int64
	level string
}

// pairLevels replays f: for every pair, keyed "<node>.p<n>.tpa", each level
// it takes and when. pair names a variable's pair and the part it holds
// ("" for the level itself, "hi" or "lo"), ok false for other variables.
func pairLevels(f *vcd.File, pair func(d vcd.Declaration) (key, part string, ok bool)) map[string][]levelAt {
	type part struct{ key, part string }
	parts := map[string]part{}
	for _, d := range f.Vars {
		if key, p, ok := pair(d); ok {
			parts[d.ID] = part{key, p}
		}
	}
	now := map[string]map[string]string{}
	out := map[string][]levelAt{}
	for i, c := range f.Changes {
		if p, ok := parts[c.ID]; ok {
			if now[p.key] == nil {
				now[p.key] = map[string]string{}
			}
			now[p.key][p.part] = c.Value
		}
		if i+1 < len(f.Changes) && f.Changes[i+1].Time == c.Time {
			continue // the instant is not over
		}
		for key, v := range now {
			level := v[""]
			if level == "" {
				level = map[string]string{"10": "1", "01": "0", "00": "z", "11": "both"}[v["hi"]+v["lo"]]
			}
			if l := out[key]; len(l) == 0 || l[len(l)-1].level != level {
				out[key] = append(out[key], levelAt{c.Time, level})
			}
		}
	}
	return out
}

// TestVCDSigrokDialect: the sigrok dialect is what window comparators on
// every pair record — per pair a .hi and a .lo one-bit channel, 0 or 1
// only, never both 1, named in full — and at every instant it shows the
// levels the GTKWave dialect's tpa_rx and tpb_rx give (Z: both 0).
func TestVCDSigrokDialect(t *testing.T) {
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			gtk, err := vcd.Parse(bytes.NewReader(writeVCD(t, res, trace, view.VCDGTKWave)))
			require.NoError(t, err)
			sig, err := vcd.Parse(bytes.NewReader(writeVCD(t, res, trace, view.VCDSigrok)))
			require.NoError(t, err)
			assert.Equal(t, gtk.Comments[0], sig.Comments[0], "the run's settings")

			names := map[string]bool{}
			for _, d := range sig.Vars {
				assert.Equal(t, vcd.Wire, d.Kind, d.Name)
				assert.Equal(t, 1, d.Size, d.Name)
				assert.Regexp(t, sigrokChannel, d.Name, "libsigrok names a channel by its variable alone")
				assert.False(t, names[d.Name], "%s twice", d.Name)
				names[d.Name] = true
			}
			// Every port of the GTKWave file has its four channels.
			rxPorts := 0
			for _, d := range gtk.Vars {
				if d.Name == "tpa_rx" {
					rxPorts++
					prefix := strings.Join(d.Scope, ".") + ".tpa"
					assert.True(t, names[prefix+".hi"] && names[prefix+".lo"], "%s has no channels", prefix)
				}
			}
			assert.Equal(t, 4*rxPorts, len(sig.Vars))

			want := pairLevels(gtk, func(d vcd.Declaration) (string, string, bool) {
				pair, ok := strings.CutSuffix(d.Name, "_rx")
				return strings.Join(d.Scope, ".") + "." + pair, "", ok && pair != "line"
			})
			got := pairLevels(sig, func(d vcd.Declaration) (string, string, bool) {
				m := sigrokChannel.FindStringSubmatch(d.Name)
				return strings.TrimSuffix(d.Name, "."+m[4]), m[4], true
			})
			assert.Equal(t, want, got)
		})
	}
}

// TestVCDSigrokCLI reads the sigrok dialect with sigrok-cli, when it is
// installed: no warning, every channel by its full name, and root
// contention — both pairs pulled to 0 by the two ends — in the samples.
// The GTKWave dialect, which sigrok warns about, shows that warnings are
// seen.
func TestVCDSigrokCLI(t *testing.T) {
	sigrok := sigrokCLI(t)
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			if res.EndNs > time.Millisecond.Nanoseconds() {
				// sigrok samples every ns: 9 million samples for the
				// hot-plug run, which TestVCDSigrokDialect checks alone.
				t.Skipf("%d ns: too many samples for a quick test", res.EndNs)
			}
			data := writeVCD(t, res, trace, view.VCDSigrok)
			assertSigrokChannels(t, sigrok, data)

			_, warnings := sigrok(t, writeVCD(t, res, trace, view.VCDGTKWave), "-O", "null")
			assert.NotEmpty(t, warnings, "GTKWave dialect: string variables")

			if len(res.Generations[0].Contention) == 0 {
				return
			}
			c := res.Generations[0].Contention[0]
			samples, _ := sigrok(t, data, "-O", "csv")
			contended := 0
			var header []string
			scanner := bufio.NewScanner(strings.NewReader(samples))
			for scanner.Scan() {
				line := scanner.Text()
				if channels, ok := strings.CutPrefix(line, "; Channels ("); ok {
					_, list, _ := strings.Cut(channels, "): ")
					header = strings.Split(list, ", ")
				}
				values := strings.Split(line, ",")
				if len(values) != len(header) || values[0] == "logic" {
					continue
				}
				prefix := c.Nodes[0] + ".p" + strconv.Itoa(c.Ports[0]) + "."
				tpaLo, tpbLo := slices.Index(header, prefix+"tpa.lo"), slices.Index(header, prefix+"tpb.lo")
				require.True(t, tpaLo >= 0 && tpbLo >= 0, "sigrok's CSV has no %stpa.lo or %[1]stpb.lo: %v", prefix, header)
				if values[tpaLo] == "1" && values[tpbLo] == "1" {
					contended++
				}
			}
			assert.Positive(t, contended, "no sample shows ROOT_CONTENTION (0,0) at %s:%d", c.Nodes[0], c.Ports[0])
		})
	}
}

// sigrokCLI returns a function that runs sigrok-cli on a VCD file holding
// data, with args, and gives its output and warnings; it skips t when
// sigrok-cli is not installed.
func sigrokCLI(t *testing.T) func(t *testing.T, data []byte, args ...string) (stdout, stderr string) {
	cli, err := exec.LookPath("sigrok-cli")
	if err != nil {
		t.Skip("sigrok-cli is not on PATH (apt-get install sigrok-cli): TestVCDSigrokDialect checks the dialect without it")
	}
	return func(t *testing.T, data []byte, args ...string) (stdout, stderr string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "run.vcd")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		var out, errOut bytes.Buffer
		cmd := exec.Command(cli, append([]string{"--loglevel", "2", "-I", "vcd", "-i", path}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Run(), "sigrok-cli: %s", errOut.String())
		return out.String(), errOut.String()
	}
}

// assertSigrokChannels: sigrok reads the sigrok dialect in data without a
// warning and lists every variable as a channel of the same name.
func assertSigrokChannels(t *testing.T, sigrok func(t *testing.T, data []byte, args ...string) (string, string), data []byte) {
	t.Helper()
	file, err := vcd.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	var want []string
	for _, d := range file.Vars {
		want = append(want, d.Name)
	}
	show, warnings := sigrok(t, data, "--show")
	assert.Empty(t, warnings)
	var got []string
	for _, line := range strings.Split(show, "\n") {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			got = append(got, strings.TrimSuffix(name, ": logic"))
		}
	}
	assert.Equal(t, want, got, "the channels sigrok sees")
}

func TestVCDDialectRejected(t *testing.T) {
	res, trace := runTraced(t, viewRuns[0])
	err := view.WriteVCDWith(&bytes.Buffer{}, res, trace, view.VCDOptions{Dialect: 9})
	assert.ErrorIs(t, err, bus.ErrInvalidOptions)
	assert.ErrorContains(t, err, "VCD dialect 9")
}
