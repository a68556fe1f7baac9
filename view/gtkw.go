package view

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
)

// GTKWOptions sets what WriteGTKW writes.
type GTKWOptions struct {
	// DumpFile is the name of the VCD file the save file opens, as
	// GTKWave will be given it (usually relative to where gtkwave runs);
	// "" leaves it out, and gtkwave then needs both files on its command
	// line: gtkwave run.vcd run.gtkw.
	DumpFile string
	// WindowWidth is the width of the GTKWave window in pixels, which the
	// zoom is computed for; 0 means 1400.
	WindowWidth int
}

// Layout of the GTKWave window the save file sets up.
const (
	gtkwDefaultWidth = 1400
	gtkwSignalsWidth = 320 // wide enough for the longest full signal name
	gtkwWindowHeight = 900
	// gtkwChrome is how much narrower than the window less the signal
	// names the wave pane is: the pane divider, the frames and the
	// vertical scroll bar, 70 px as measured with GTKWave 3.3.118 (GTK 2,
	// its default theme).
	gtkwChrome = 70
	// gtkwPixelsPerStep is how many pixels GTKWave draws 2^-zoom time
	// units over (its pixelsperframe; see WriteGTKW).
	gtkwPixelsPerStep = 200
	// gtkwMargin is how much of the window before the reset end and after
	// tree identify the zoom shows, as a share of tree identify's length.
	gtkwMargin = 0.1
)

// GTKWave trace flags (the "@" lines of a save file).
const (
	gtkwFlagHex       = 0x2
	gtkwFlagRJustify  = 0x20
	gtkwFlagBlank     = 0x200
	gtkwFlagGroupOpen = 0x800000
	gtkwFlagGroupEnd  = 0x1000000
)

// WriteGTKW writes a GTKWave save file for the VCD that WriteVCD writes of
// the same run (the GTKWave dialect), so that GTKWave opens on the
// handshake rather than on an empty pane at 0 ns:
//
//   - the bus group: the phase of every generation (bus.gen<i>) and the
//     scripted events (bus.scenario);
//   - a group per node, in the VCD's order: its PHY state, its root-
//     contention back-off, and for each port that is ever connected the
//     transmitted and received line-state names;
//   - every signal shown under its full name with spaces for dots
//     ("b p0 line_tx" for b.p0.line_tx): GTKWave shows only the last
//     dotted part of a name or alias (its default hier_max_level 1), which
//     would read line_tx for every port;
//   - the window zoomed to the first generation's tree identify, from a
//     little before its reset ends to a little after a root is elected
//     (where tree identify lasts to the run's end, a loop's, the window
//     ends up to gtkwChrome pixels short of it: GTKWave opens at 0 a
//     window that might reach past the dump's end);
//   - the primary marker at that reset end, and the named markers A, B, C,
//     D … at the phase boundaries of the generations in time order, the
//     first 26, each named after the generation and the value bus.gen<i>
//     takes there: "g0 reset", "g0 tree_id", "g0 self_id", then its
//     outcome ("g0 ok").
func WriteGTKW(w io.Writer, res *bus.Result, trace []bus.TraceEvent, opts GTKWOptions) error {
	width := opts.WindowWidth
	if width == 0 {
		width = gtkwDefaultWidth
	}
	if width <= gtkwSignalsWidth {
		return fmt.Errorf("%w: GTKWave window width %d: want more than the %d px of the signal names", bus.ErrInvalidOptions, width, gtkwSignalsWidth)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "[*] fwsim: GTKWave save file for the VCD of this run\n[*] %s\n", res.Summary())
	if opts.DumpFile != "" {
		fmt.Fprintf(bw, "[dumpfile] %s\n", strconv.Quote(opts.DumpFile))
	}
	markers := gtkwMarkers(res)
	from, to, primary := gtkwWindow(res)
	// GTKWave's zoom (wavewindow.c, calczoom): a zoom z draws
	// zoombase^-z time units over 200 pixels (zoombase is 2 unless a
	// gtkwaverc sets it; zoombase^-z below 1 counts as 1; zoom_pow10_snap
	// moves the ticks, not the scale), so a wave pane pane pixels wide
	// shows pane·2^-z/200 time units from [timestart] (rounded down to a
	// tick), and the window from..to needs z = -log2(200·(to-from)/pane).
	// pane is the window less the signal names and gtkwChrome.
	pane := float64(width - gtkwSignalsWidth - gtkwChrome)
	perPixel := float64(to-from) / pane
	zoom := -math.Log2(gtkwPixelsPerStep * perPixel)
	// GTKWave ignores a [timestart] that leaves the pane reaching past the
	// dump's end (it opens at 0 then), so the window starts early enough
	// for the widest pane there can be, the one without chrome.
	start := max(min(from, res.EndNs-int64(math.Ceil(float64(width-gtkwSignalsWidth)*perPixel))), 0)
	fmt.Fprintf(bw, "[size] %d %d\n[pos] -1 -1\n", width, gtkwWindowHeight)
	fmt.Fprintf(bw, "[timestart] %d\n", start)
	fmt.Fprintf(bw, "*%.6f %d", zoom, primary)
	for i := range 26 {
		at := int64(-1)
		if i < len(markers) {
			at = markers[i].at
		}
		fmt.Fprintf(bw, " %d", at)
	}
	bw.WriteByte('\n')
	// GTKWave draws a named marker's name above its line.
	for i, m := range markers {
		fmt.Fprintf(bw, "[markername] %c%s\n", 'A'+i, m.name)
	}
	fmt.Fprintf(bw, "[sst_expanded] 0\n[signals_width] %d\n", gtkwSignalsWidth)

	group := func(name string, signals []string) {
		fmt.Fprintf(bw, "@%x\n-%s\n@%x\n", gtkwFlagGroupOpen|gtkwFlagBlank, name, gtkwFlagHex|gtkwFlagRJustify)
		for _, s := range signals {
			// The alias: node ids have no spaces, and their scopes no dots.
			fmt.Fprintf(bw, "+{%s} %s\n", strings.ReplaceAll(s, ".", " "), s)
		}
		fmt.Fprintf(bw, "@%x\n-%s\n", gtkwFlagGroupEnd|gtkwFlagBlank, name)
	}
	var busSignals []string
	for i := range res.Generations {
		busSignals = append(busSignals, "bus.gen"+strconv.Itoa(i))
	}
	group("bus", append(busSignals, "bus.scenario"))
	connected := gtkwConnectedPorts(res)
	for _, n := range bus.TracedNodes(res, trace) {
		scope := vcd.ScopeName(n.ID)
		signals := []string{scope + ".state", scope + ".backoff"}
		for _, p := range connected[n.ID] {
			prefix := scope + ".p" + strconv.Itoa(p)
			signals = append(signals, prefix+".line_tx", prefix+".line_rx")
		}
		group(scope, signals)
	}
	return bw.Flush()
}

// gtkwMarker is a phase boundary the save file marks.
type gtkwMarker struct {
	at   int64
	name string
}

// gtkwMarkers lists the phase boundaries of every generation in time order
// (the parts of a split bus run side by side), the first 26: as many as
// GTKWave's named markers hold.
func gtkwMarkers(res *bus.Result) []gtkwMarker {
	var out []gtkwMarker
	for i := range res.Generations {
		for _, ph := range generationPhases(&res.Generations[i]) {
			out = append(out, gtkwMarker{ph.at, "g" + strconv.Itoa(i) + " " + ph.phase})
		}
	}
	slices.SortStableFunc(out, func(a, b gtkwMarker) int { return cmp.Compare(a.at, b.at) })
	return out[:min(len(out), 26)]
}

// gtkwWindow is the time range the save file shows, and where its primary
// marker goes: the first generation's tree identify with a margin, up to
// the run's end at most, the marker at its reset end. A generation that
// never left its reset shows the reset.
func gtkwWindow(res *bus.Result) (from, to, primary int64) {
	if len(res.Generations) == 0 {
		return 0, max(res.EndNs, 1), -1
	}
	g := res.Generations[0]
	start, end := g.StartNs, g.EndNs
	if g.Timing.ResetEnd >= 0 {
		start = g.StartNs + g.Timing.ResetEnd
		if g.Timing.TreeIDDone >= 0 {
			end = g.StartNs + g.Timing.TreeIDDone
		}
	}
	end = max(end, start+1)
	margin := max(int64(float64(end-start)*gtkwMargin), 20)
	return max(start-margin, 0), min(end+margin, max(res.EndNs, 1)), start
}

// gtkwConnectedPorts lists, per node, the ports a cable joins in any
// generation, ascending.
func gtkwConnectedPorts(res *bus.Result) map[string][]int {
	out := map[string][]int{}
	for _, g := range res.Generations {
		for _, l := range g.Links {
			for end := range 2 {
				if id, p := l.Nodes[end], l.Ports[end]; !slices.Contains(out[id], p) {
					out[id] = append(out[id], p)
				}
			}
		}
	}
	for _, ports := range out {
		slices.Sort(ports)
	}
	return out
}

// DumpFileFrom names the VCD at vcd as a save file at gtkw finds it: by its
// path relative to the save file's directory when there is one.
func DumpFileFrom(gtkw, vcd string) string {
	if rel, err := filepath.Rel(filepath.Dir(gtkw), vcd); err == nil && !filepath.IsAbs(vcd) == !filepath.IsAbs(gtkw) {
		return rel
	}
	return vcd
}
