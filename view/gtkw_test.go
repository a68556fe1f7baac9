package view_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// gtkwSave is what a test reads back from a GTKWave save file.
type gtkwSave struct {
	signals   []string // the traced variables, in order
	groups    []string // the group names, in order
	timestart int64
	zoom      float64
	primary   int64
	markers   []int64         // A–Z, -1 when unset
	names     map[byte]string // the named markers' names, by letter
	width     int
}

func parseGTKW(t *testing.T, text string) gtkwSave {
	t.Helper()
	s := gtkwSave{names: map[byte]string{}}
	open := ""
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "+{"):
			alias, name, ok := strings.Cut(strings.TrimPrefix(line, "+{"), "} ")
			require.True(t, ok, line)
			assert.Equal(t, strings.ReplaceAll(name, ".", " "), alias, "the alias is the full name, spaces for dots")
			require.NotEmpty(t, open, "%s outside a group", name)
			s.signals = append(s.signals, name)
		case strings.HasPrefix(line, "-"):
			if name := line[1:]; open == "" {
				open = name
				s.groups = append(s.groups, name)
			} else {
				require.Equal(t, open, name, "groups nest")
				open = ""
			}
		case strings.HasPrefix(line, "[markername] "):
			named := strings.TrimPrefix(line, "[markername] ")
			require.Greater(t, len(named), 1, line)
			s.names[named[0]] = named[1:]
		case strings.HasPrefix(line, "[timestart] "):
			s.timestart, _ = strconv.ParseInt(strings.TrimPrefix(line, "[timestart] "), 10, 64)
		case strings.HasPrefix(line, "[size] "):
			s.width, _ = strconv.Atoi(strings.Fields(line)[1])
		case strings.HasPrefix(line, "*"):
			f := strings.Fields(line[1:])
			require.Len(t, f, 28, "zoom, primary marker, A–Z")
			s.zoom, _ = strconv.ParseFloat(f[0], 64)
			s.primary, _ = strconv.ParseInt(f[1], 10, 64)
			for _, m := range f[2:] {
				at, err := strconv.ParseInt(m, 10, 64)
				require.NoError(t, err)
				s.markers = append(s.markers, at)
			}
		case strings.HasPrefix(line, "@"), strings.HasPrefix(line, "[*]"), strings.HasPrefix(line, "["):
		default:
			t.Errorf("unknown line %q", line)
		}
	}
	assert.Empty(t, open, "a group is not closed")
	return s
}

// TestGTKWFitsItsVCD: the save file traces only variables the VCD of the
// same run declares, groups them per node, and opens on the first
// generation's tree identify with every phase boundary marked.
func TestGTKWFitsItsVCD(t *testing.T) {
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			var vb, gb bytes.Buffer
			require.NoError(t, view.WriteVCD(&vb, res, trace))
			require.NoError(t, view.WriteGTKW(&gb, res, trace, view.GTKWOptions{DumpFile: "run.vcd"}))
			f, err := vcd.Parse(&vb)
			require.NoError(t, err)
			declared := map[string]bool{}
			nodes := []string{"bus"}
			for _, d := range f.Vars {
				declared[d.Path()] = true
				if d.Name == "state" {
					nodes = append(nodes, d.Scope[0])
				}
			}
			s := parseGTKW(t, gb.String())
			assert.Contains(t, gb.String(), "[dumpfile] \"run.vcd\"\n")
			assert.Equal(t, nodes, s.groups, "the bus, then a group per node in the VCD's order")
			for _, name := range s.signals {
				assert.True(t, declared[name], "%s is not in the VCD", name)
			}
			// Both line states of every port a cable joins.
			for _, g := range res.Generations {
				for _, l := range g.Links {
					for end := range 2 {
						port := l.Nodes[end] + ".p" + strconv.Itoa(l.Ports[end])
						assert.Contains(t, s.signals, port+".line_tx")
						assert.Contains(t, s.signals, port+".line_rx")
					}
				}
			}

			g := res.Generations[0]
			resetEnd := g.StartNs + g.Timing.ResetEnd
			assert.Equal(t, resetEnd, s.primary, "the primary marker at the reset end")
			assert.Less(t, s.timestart, resetEnd)
			// The wave pane (the window less the signal names and 70 px of
			// frames) at 2^-zoom ns per 200 pixels.
			shownTo := s.timestart + int64(float64(s.width-320-70)*math.Pow(2, -s.zoom)/200)
			if g.Timing.TreeIDDone >= 0 {
				assert.Greater(t, shownTo, g.StartNs+g.Timing.TreeIDDone, "tree identify is in view")
				assert.Less(t, shownTo-s.timestart, 2*g.Timing.TreeIDDone-g.Timing.ResetEnd+1000, "and fills it")
			}
			assert.Equal(t, g.StartNs, s.markers[0], "A: the reset starts")
			assert.Equal(t, resetEnd, s.markers[1], "B: the reset ends")
			last := int64(-1)
			for _, m := range s.markers {
				if m >= 0 {
					assert.GreaterOrEqual(t, m, last, "markers in time order")
					last = m
				}
			}

			// Each named marker is named after the value a bus.gen<i>
			// takes where it stands, and each such change is marked (up
			// to the 26 markers GTKWave has).
			genPath := map[string]string{} // by VCD id
			for _, d := range f.Vars {
				if strings.HasPrefix(d.Path(), "bus.gen") {
					genPath[d.ID] = d.Name
				}
			}
			var phases []string // "g<i> <phase>@<ns>"
			for _, c := range f.Changes {
				if name, ok := genPath[c.ID]; ok && c.Value != "-" {
					phases = append(phases, "g"+strings.TrimPrefix(name, "gen")+" "+c.Value+"@"+strconv.FormatInt(c.Time, 10))
				}
			}
			var named []string
			for i, at := range s.markers {
				if at >= 0 {
					letter := byte('A' + i)
					require.Contains(t, s.names, letter, "marker %c has no name", letter)
					named = append(named, s.names[letter]+"@"+strconv.FormatInt(at, 10))
				}
			}
			assert.Len(t, s.names, len(named), "a name for an unset marker")
			assert.ElementsMatch(t, phases[:min(len(phases), 26)], named)
		})
	}
}

func TestGTKWRejectsANarrowWindow(t *testing.T) {
	res, trace := runTraced(t, viewRuns[0])
	err := view.WriteGTKW(&bytes.Buffer{}, res, trace, view.GTKWOptions{WindowWidth: 300})
	assert.ErrorIs(t, err, bus.ErrInvalidOptions)
	assert.ErrorContains(t, err, "GTKWave window width 300")
}

// gtkwave writes run's VCD and save file to a directory, opens them in
// GTKWave under Xvfb with the Tcl script that script makes from the save
// file as written, and gives the run, what the script prints and the
// directory. It skips t when gtkwave or xvfb-run is not installed.
func gtkwave(t *testing.T, run viewRun, script func(save gtkwSave) string) (res *bus.Result, out, dir string) {
	t.Helper()
	gtkwave, err1 := exec.LookPath("gtkwave")
	xvfb, err2 := exec.LookPath("xvfb-run")
	if err1 != nil || err2 != nil {
		t.Skip("needs gtkwave and xvfb-run on PATH (apt-get install gtkwave xvfb): TestGTKWFitsItsVCD checks the file without them")
	}
	res, trace := runTraced(t, run)
	dir = t.TempDir()
	var vb, gb bytes.Buffer
	require.NoError(t, view.WriteVCD(&vb, res, trace))
	require.NoError(t, view.WriteGTKW(&gb, res, trace, view.GTKWOptions{DumpFile: "run.vcd"}))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.vcd"), vb.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.gtkw"), gb.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "q.tcl"), []byte(script(parseGTKW(t, gb.String()))+"gtkwave::/File/Quit\n"), 0o644))
	cmd := exec.Command(xvfb, "-a", gtkwave, "-S", "q.tcl", "run.gtkw")
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return res, string(b), dir
}

// TestGTKWaveOpensTheSaveFile loads a run with its save file into GTKWave,
// when gtkwave and xvfb-run are installed, asks it, through its Tcl
// interface, which signals it shows, where the markers are and at what
// zoom, and has it write the save file again: what it read, it writes back
// (the named markers' names included).
func TestGTKWaveOpensTheSaveFile(t *testing.T) {
	var s gtkwSave
	var want strings.Builder
	_, out, dir := gtkwave(t, viewRuns[0], func(save gtkwSave) string {
		s = save
		script := "puts \"SHOWN: [gtkwave::getDisplayedSignals]\"\nputs \"MARKER: [gtkwave::getMarker]\"\n" +
			"puts \"ZOOM: [gtkwave::getZoomFactor]\"\n"
		for i, at := range s.markers {
			letter := string(rune('A' + i))
			script += "puts \"NAMED " + letter + ": [gtkwave::getNamedMarker " + letter + "]\"\n"
			fmt.Fprintf(&want, "NAMED %s: %d\n", letter, at)
		}
		return script + "gtkwave::/File/Write_Save_File\n"
	})
	assert.Contains(t, out, "SHOWN: "+strings.Join(s.signals, " ")+" \n", "GTKWave shows the save file's signals, its dump file found")
	assert.Contains(t, out, "MARKER: "+strconv.FormatInt(s.primary, 10)+"\n")
	assert.Contains(t, out, want.String(), "the named markers")
	m := regexp.MustCompile(`ZOOM: (\S+)\n`).FindStringSubmatch(out)
	require.NotNil(t, m, "%s", out)
	zoom, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	assert.InDelta(t, s.zoom, zoom, 1e-5)

	rewritten, err := os.ReadFile(filepath.Join(dir, "run.gtkw"))
	require.NoError(t, err)
	again := parseGTKW(t, string(rewritten))
	assert.Equal(t, s.signals, again.signals)
	assert.Equal(t, s.groups, again.groups)
	assert.Equal(t, s.names, again.names, "GTKWave kept the markers' names")
	assert.Equal(t, s.markers, again.markers)
}

// gtkwaveTraces is a Tcl script that prints, for every trace GTKWave
// shows, "TRACE <flags> <name as shown>", then the time window of the wave
// pane.
const gtkwaveTraces = `for {set i 0} {$i < [gtkwave::getTotalNumTraces]} {incr i} {
	puts "TRACE [gtkwave::getTraceFlagsFromIndex $i] [gtkwave::getTraceNameFromIndex $i]"
}
puts "WINDOW [gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime]"
`

// TestGTKWaveShowsTreeIdentify opens every run in GTKWave (under Xvfb,
// when installed) and reads back what it shows: the time window of the
// wave pane covers the first generation's tree identify, and is no more
// than twice as long; and the names of the signals, as GTKWave prints
// them beside the waves, are all different and each names its node, and
// for a line state its port and direction: every port a cable joins, both
// ways.
func TestGTKWaveShowsTreeIdentify(t *testing.T) {
	const blank = 0x200 // GTKWave's TR_BLANK: a group's start or end
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, out, _ := gtkwave(t, run, func(gtkwSave) string { return gtkwaveTraces })

			g := res.Generations[0]
			from, to := g.StartNs+g.Timing.ResetEnd, g.StartNs+g.Timing.TreeIDDone
			if g.Timing.TreeIDDone < 0 {
				// Tree identify lasts to the run's end (a loop: config
				// timeout). GTKWave opens at 0 a window that would reach
				// past the dump's end, so the save file starts it early
				// enough for a pane without frames, and it ends that much
				// (70 of 1010 px) short of the end: less than a tenth.
				to = res.EndNs - (res.EndNs-from)/10
			}
			m := regexp.MustCompile(`WINDOW (\d+) (\d+)\n`).FindStringSubmatch(out)
			require.NotNil(t, m, "%s", out)
			start, _ := strconv.ParseInt(m[1], 10, 64)
			end, _ := strconv.ParseInt(m[2], 10, 64)
			t.Logf("GTKWave shows %d to %d ns; tree identify %d to %d ns", start, end, from, to)
			assert.LessOrEqual(t, start, from, "the window starts before tree identify")
			assert.GreaterOrEqual(t, end, to, "the window ends after tree identify")
			assert.LessOrEqual(t, end-start, 2*(to-from), "tree identify fills the window")

			want := map[string]bool{}
			for _, g := range res.Generations {
				for _, l := range g.Links {
					for end := range 2 {
						want[vcd.ScopeName(l.Nodes[end])+" p"+strconv.Itoa(l.Ports[end])] = true
					}
				}
			}
			shown := map[string]bool{}
			ports := map[string]bool{}
			group := ""
			name := regexp.MustCompile(`^(\S+) (?:(p\d+) line_[tr]x|state|backoff|gen\d+|scenario)$`)
			for _, line := range strings.Split(out, "\n") {
				f, ok := strings.CutPrefix(line, "TRACE ")
				if !ok {
					continue
				}
				flags, shownName, _ := strings.Cut(f, " ")
				flag, err := strconv.Atoi(flags)
				require.NoError(t, err, line)
				if flag&blank != 0 {
					group = shownName
					continue
				}
				assert.False(t, shown[shownName], "%q twice", shownName)
				shown[shownName] = true
				m := name.FindStringSubmatch(shownName)
				if assert.NotNil(t, m, "%q: not <node> <signal>", shownName) {
					assert.Equal(t, group, m[1], "%q names the node of its group", shownName)
					if m[2] != "" {
						ports[m[1]+" "+m[2]] = true
					}
				}
			}
			assert.Equal(t, want, ports, "every connected port's line states")
			for port := range want {
				assert.True(t, shown[port+" line_tx"] && shown[port+" line_rx"], "%s: both directions", port)
			}
		})
	}
}

// TestGTKWaveShowsTheTraffic opens a run with traffic in GTKWave (under
// Xvfb, when installed) and reads back, at instants the trace names, what
// each node's bus signal holds: the transmission reaching it, as the trace
// says, and idle after it.
func TestGTKWaveShowsTheTraffic(t *testing.T) {
	run := viewRun{"traffic", loaded("../examples/traffic.yaml"), bus.Options{Seed: 1, Until: 300 * time.Microsecond}}
	res, trace := runTraced(t, run)
	require.NotNil(t, res.Traffic)
	type probe struct {
		node, want string
		at         int64
	}
	var probes []probe
	for _, e := range trace {
		if e.Kind == bus.TraceBus && (strings.HasPrefix(e.Detail, "async ") || strings.HasPrefix(e.Detail, "cycle start") || e.Detail == "idle") &&
			(e.Node == "n15" || e.Node == "n7") && len(probes) < 6 {
			probes = append(probes, probe{e.Node, vcd.Text(e.Detail), e.TimeNs})
		}
	}
	require.Len(t, probes, 6)
	_, out, _ := gtkwave(t, run, func(gtkwSave) string {
		script := "gtkwave::addSignalsFromList {n15.bus n7.bus}\n"
		for i, p := range probes {
			script += fmt.Sprintf("gtkwave::setMarker %d\nputs \"PROBE %d: [gtkwave::getTraceValueAtMarkerFromName %s.bus]\"\n", p.at, i, p.node)
		}
		return script
	})
	for i, p := range probes {
		assert.Contains(t, out, fmt.Sprintf("PROBE %d: %s\n", i, p.want), "%s at %d ns", p.node, p.at)
	}
}
