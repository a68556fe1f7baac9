package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/internal/testenv"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/mutex"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view/player"
)

// harness is a page that opens the run's page in a frame and drives it as
// a user does: it moves the slider to each instant (an input event) and
// reads what the page draws, then presses Home and → steps times and
// reads the event shown after each. It writes what it saw as JSON into its
// own DOM, which --dump-dom prints.
const harness = `<!DOCTYPE html><html><body>
<iframe id="p" src="page.html" style="width:1200px;height:800px;border:0"></iframe>
<pre id="out"></pre>
<script>
var instants = %s, steps = %d;
document.getElementById("p").onload = function () {
  var w = this.contentWindow, d = this.contentDocument, out = {errors: [], instants: [], steps: []};
  try {
    var slider = d.getElementById("slider");
    instants.forEach(function (t) {
      slider.value = t;
      slider.dispatchEvent(new w.Event("input"));
      var nodes = {}, drives = {};
      d.querySelectorAll("g.node").forEach(function (g) {
        nodes[g.getAttribute("data-id")] = [g.getAttribute("data-state"), g.querySelector(".badge").textContent];
      });
      d.querySelectorAll("path.drive").forEach(function (p) {
        var v = p.getAttribute("data-value");
        if (v && v !== "IDLE") drives[p.id] = v;
      });
      out.instants.push({t: +d.getElementById("now").getAttribute("data-t"), nodes: nodes, drives: drives,
        msgs: d.querySelectorAll("circle.msg").length});
    });
    d.dispatchEvent(new w.KeyboardEvent("keydown", {key: "Home", bubbles: true}));
    for (var i = 0; i < steps; i++) {
      d.dispatchEvent(new w.KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
      var now = d.getElementById("now");
      out.steps.push([+now.getAttribute("data-event"), +now.getAttribute("data-t"), d.getElementById("text").textContent]);
    }
  } catch (e) { out.errors.push(String(e)); }
  out.errors = out.errors.concat(w.playerErrors || []);
  document.getElementById("out").textContent = JSON.stringify(out);
};
</script></body></html>`

// seen is what the harness read.
type seen struct {
	Errors   []string
	Instants []struct {
		T      int64
		Nodes  map[string][2]string
		Drives map[string]string
		Msgs   int
	}
	Steps [][3]any
}

var harnessOut = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// drive runs the harness on the page in dir and returns what it saw, and
// Chromium's log, where the page's console errors would be.
func drive(t *testing.T, bin, dir string, instants []int64, steps int) (seen, string) {
	t.Helper()
	list, err := json.Marshal(instants)
	require.NoError(t, err)
	h := filepath.Join(dir, "harness.html")
	require.NoError(t, os.WriteFile(h, fmt.Appendf(nil, harness, list, steps), 0o644))
	cmd := testenv.Headless(bin, "file://"+h, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=60000", "--window-size=1300,900", "--dump-dom")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	m := harnessOut.FindSubmatch(out)
	require.NotNil(t, m, "the harness wrote nothing: %s", out)
	var s seen
	require.NoError(t, json.Unmarshal([]byte(htmlUnescape(string(m[1]))), &s))
	return s, stderr.String()
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// expected is what the trace says at instant t: every node's state, and
// what every cabled port drives (by the page's element id), IDLE left out.
func expected(b *runPage, res *bus.Result, trace []bus.TraceEvent, t int64) (map[string]string, map[string]string) {
	states := map[string]string{}
	for _, n := range bus.TracedNodes(res, trace) {
		states[n.ID] = n.State.String()
	}
	current := map[string]phy.State{}
	drives := map[string]string{}
	for _, e := range trace {
		if e.TimeNs > t {
			break
		}
		switch e.Kind {
		case bus.TraceState:
			states[e.Node] = e.ToState.String()
			current[e.Node] = e.ToState
		case bus.TraceTransmit:
			end, ok := b.ends[nodePort{e.Node, e.Port}]
			if !ok {
				continue
			}
			id := "drive-" + strconv.Itoa(end[0]) + "-" + strconv.Itoa(end[1])
			if e.ToLine == phy.TxIdle {
				delete(drives, id)
			} else {
				drives[id] = txName(e.ToLine, current[e.Node])
			}
		}
	}
	return states, drives
}

// instantsOf are the instants of the trace's events, each also 1 ns
// before, at most max of them, spread over the run.
func instantsOf(trace []bus.TraceEvent, most int) []int64 {
	var all []int64
	for i, e := range trace {
		if i == 0 || e.TimeNs != trace[i-1].TimeNs {
			all = append(all, max(e.TimeNs-1, 0), e.TimeNs)
		}
	}
	if len(all) <= most {
		return all
	}
	out := make([]int64, 0, most)
	for i := range most {
		out = append(out, all[i*len(all)/most])
	}
	return out
}

// TestRunPageInABrowser opens the page of three runs (the default bus, a
// 63-node tree and a hot-plug scenario) in headless Chromium and drives it:
// at each chosen instant the slider shows every node in the state, and
// every port driving the line state, that the trace says; the root and
// phy_IDs appear as the result says; stepping from the start visits the
// events in order; the page reports no error.
func TestRunPageInABrowser(t *testing.T) {
	t.Parallel()
	bin := testenv.Chromium(t)
	for _, c := range []struct {
		name         string
		run          func(t *testing.T) (*bus.Result, []bus.TraceEvent)
		most, steps  int
		wantMinNodes int
		long         bool // FWSIM_LONG only: each page takes a browser a second or two
	}{
		{"default", traced("../examples/default.yaml"), 1000, 1000, 6, false},
		{"tree63", traced("tree:63:4"), 150, 300, 63, true},
		{"hotplug", traced("../examples/hotplug.yaml"), 400, 400, 4, true},
		// A counterexample of fwsim explore, as fwsim run --replay runs it:
		// the far pair's stall.
		{"replay", replayed("testdata/replay-stalled.json"), 400, 400, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.long && !testenv.Long() {
				t.Skip("FWSIM_LONG=1 opens this page too")
			}
			t.Parallel()
			res, trace := c.run(t)
			page := RunPage(c.name, res, trace)
			dir := t.TempDir()
			var buf bytes.Buffer
			require.NoError(t, page.Write(&buf))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "page.html"), buf.Bytes(), 0o644))
			instants := instantsOf(trace, c.most)
			instants = append(instants, res.EndNs)
			s, log := drive(t, bin, dir, instants, c.steps)
			assert.Empty(t, s.Errors, "the page's errors")
			assert.NotContains(t, log, "Uncaught", "a console error")

			b := newRunPage(res, trace)
			require.Len(t, s.Instants, len(instants))
			for i, at := range instants {
				got := s.Instants[i]
				require.Equal(t, at, got.T, "the slider's instant")
				require.GreaterOrEqual(t, len(got.Nodes), c.wantMinNodes)
				states, drives := expected(b, res, trace, at)
				for id, st := range states {
					require.Equal(t, st, got.Nodes[id][0], "%s at %d ns", id, at)
				}
				require.Equal(t, drives, got.Drives, "what the ports drive at %d ns", at)
			}
			// At the end, the last generation's root and phy_IDs.
			last := res.Generations[len(res.Generations)-1]
			end := s.Instants[len(s.Instants)-1].Nodes
			for _, n := range last.Nodes {
				if n.PhyID < 0 {
					continue // a bus that never identified
				}
				badge := end[n.ID][1]
				assert.Contains(t, badge, "phy "+strconv.Itoa(n.PhyID), n.ID)
				assert.Equal(t, n.Root, strings.HasPrefix(badge, "root"), "%s: %q", n.ID, badge)
			}

			steps := min(c.steps, len(page.Events))
			require.Len(t, s.Steps, c.steps)
			for i := range steps {
				assert.Equal(t, float64(i), s.Steps[i][0], "step %d", i)
				assert.Equal(t, float64(page.Events[i].At), s.Steps[i][1], "step %d", i)
				assert.Equal(t, page.Events[i].Text, s.Steps[i][2], "step %d", i)
			}
		})
	}
}

// TestLabPagesInABrowser opens the page of a run of each lab (an election
// with a crash and a recovery, mutual exclusion, a lossy multicast with a
// crash) in headless Chromium: at each chosen instant the slider shows as
// many messages on their way as the trace has sent and not yet delivered
// between neighbours, the crashed nodes crashed and the decided nodes
// decided; stepping visits the events in order; no error.
func TestLabPagesInABrowser(t *testing.T) {
	t.Parallel()
	bin := testenv.Chromium(t)
	for _, c := range []struct {
		name string
		long bool // FWSIM_LONG only
		run  func(t *testing.T) (LabRun, *netsim.Graph, []netsim.TraceEntry)
	}{
		{"elect", false, func(t *testing.T) (LabRun, *netsim.Graph, []netsim.TraceEntry) {
			topo := generatedLab(t, "complete:6")
			res, err := election.Run(topo, election.Options{Algo: "bully", InitiatorCount: 1, Seed: 1, Trace: true,
				Crashes: []election.NodeEvent{{Node: "n4", At: 2500}}, Recoveries: []election.NodeEvent{{Node: "n5", At: 12000}}})
			require.NoError(t, err)
			return LabRun{Command: "elect", Algo: res.Algo, Source: "gen complete:6", Seed: res.Seed, TimeUnit: res.TimeUnit, Down: res.Crashed}, labGraph(t, topo), res.Trace
		}},
		{"mutex", true, func(t *testing.T) (LabRun, *netsim.Graph, []netsim.TraceEntry) {
			topo := generatedLab(t, "ring:5")
			res, err := mutex.Run(topo, mutex.Options{Algo: "ricart-agrawala", Requests: 2, Seed: 1, Trace: true})
			require.NoError(t, err)
			return LabRun{Command: "mutex", Algo: res.Algo, Source: "gen ring:5", Seed: res.Seed, TimeUnit: "delays"}, labGraph(t, topo), res.Trace
		}},
		{"multicast", true, func(t *testing.T) (LabRun, *netsim.Graph, []netsim.TraceEntry) {
			topo := generatedLab(t, "tree:6:2")
			res, err := multicast.Run(topo, multicast.Options{Algo: "ack", Messages: 5, Loss: 0.2, Seed: 1, Trace: true,
				Crashes: []netsim.Crash{{Node: "n2", At: 1500}}})
			require.NoError(t, err)
			return LabRun{Command: "multicast", Algo: res.Algo, Source: "gen tree:6:2", Seed: res.Seed, TimeUnit: "delays"}, labGraph(t, topo), res.Trace
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.long && !testenv.Long() {
				t.Skip("FWSIM_LONG=1 opens this page too")
			}
			t.Parallel()
			run, g, trace := c.run(t)
			page := LabPage(run, g, trace)
			dir := t.TempDir()
			var buf bytes.Buffer
			require.NoError(t, page.Write(&buf))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "page.html"), buf.Bytes(), 0o644))
			end := int64(0)
			for _, e := range page.Events {
				end = max(end, e.At, e.Until)
			}
			var instants []int64
			for _, e := range trace {
				for _, at := range []int64{labTime(e.Sent) - 1, labTime(e.Sent), labTime(e.Sent) + 1} {
					if at >= 0 && at <= end {
						instants = append(instants, at)
					}
				}
			}
			s, log := drive(t, bin, dir, instants, len(page.Events))
			assert.Empty(t, s.Errors, "the page's errors")
			assert.NotContains(t, log, "Uncaught", "a console error")
			adjacent := map[[2]string]bool{}
			for v, halves := range g.Adj {
				for _, h := range halves {
					adjacent[[2]string{g.Nodes[v], g.Nodes[h.Peer]}] = true
				}
			}
			require.Len(t, s.Instants, len(instants))
			for i, at := range instants {
				got := s.Instants[i]
				require.Equal(t, at, got.T, "the slider's instant")
				flying := 0
				state := map[string]string{}
				for _, e := range trace {
					sent, arrived := labTime(e.Sent), labTime(e.Arrived)
					switch {
					case e.Event == "" && !e.Lost && adjacent[[2]string{e.From, e.To}] && sent <= at && at < arrived:
						flying++
					case (e.Event == netsim.EventCrash || e.Event == netsim.EventRecover || e.Event == netsim.EventDecide) && sent <= at:
						state[e.From] = e.Event
						if e.Event == netsim.EventDecide {
							state[e.From] = e.Type
						}
					}
				}
				assert.Equal(t, flying, got.Msgs, "messages on their way at %d", at)
				for id, want := range state {
					switch want {
					case netsim.EventCrash:
						assert.Equal(t, "crashed", got.Nodes[id][0], "%s at %d", id, at)
					case netsim.EventRecover:
						assert.NotEqual(t, "crashed", got.Nodes[id][0], "%s at %d", id, at)
					}
				}
			}
			require.Len(t, s.Steps, len(page.Events))
			for i, e := range page.Events {
				assert.Equal(t, float64(i), s.Steps[i][0], "step %d", i)
				assert.Equal(t, float64(e.At), s.Steps[i][1], "step %d", i)
			}
		})
	}
}

func generatedLab(t *testing.T, spec string) *bus.Topology {
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	return topo
}

func labGraph(t *testing.T, topo *bus.Topology) *netsim.Graph {
	g, err := netsim.NewGraph(topo)
	require.NoError(t, err)
	return g
}

// TestRunPageStills captures the page as a still at two instants of the
// default bus's run, as a reader opens a link with #t=: during the reset
// every node is drawn in the reset colour; at the end none is, and every
// node is idle (A0).
func TestRunPageStills(t *testing.T) {
	if !testenv.Long() {
		t.Skip("FWSIM_LONG=1 captures the stills: a browser each")
	}
	t.Parallel()
	bin := testenv.Chromium(t)
	res, trace := tracedRun(t, "../examples/default.yaml")
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "page.html"))
	require.NoError(t, err)
	require.NoError(t, WriteRunHTML(f, "default", res, trace))
	require.NoError(t, f.Close())
	resetFill := color.RGBA{0xf6, 0xd3, 0xd3, 0xff}
	idleFill := color.RGBA{0xe9, 0xe9, 0xe9, 0xff}
	g := res.Generations[0]
	for _, c := range []struct {
		at          int64
		reset, idle bool
	}{
		{g.StartNs + g.Timing.ResetEnd/2, true, false},
		{res.EndNs, false, true},
	} {
		t.Run(strconv.FormatInt(c.at, 10), func(t *testing.T) {
			t.Parallel()
			shot := filepath.Join(dir, fmt.Sprintf("at-%d.png", c.at))
			cmd := testenv.Headless(bin, "file://"+filepath.Join(dir, "page.html")+"#t="+strconv.FormatInt(c.at, 10),
				"--hide-scrollbars", "--virtual-time-budget=5000", "--window-size=1200,800", "--screenshot="+shot)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			img := readPNG(t, shot)
			// A node's box is 84×52 px at least, less its text and border.
			const box = 84 * 52 / 2
			nodes := len(g.Nodes)
			if c.reset {
				assert.Greater(t, countColour(img, resetFill), nodes*box, "at %d ns every node is in the reset colour", c.at)
			} else {
				assert.Zero(t, countColour(img, resetFill), "at %d ns no node is in the reset colour", c.at)
			}
			if c.idle {
				assert.Greater(t, countColour(img, idleFill), nodes*box, "at %d ns every node is idle", c.at)
			}
		})
	}
}

// tracedRun runs a topology file or a --gen spec with seed 1, traced.
func tracedRun(t *testing.T, topology string) (*bus.Result, []bus.TraceEvent) {
	t.Helper()
	var topo *bus.Topology
	var err error
	if strings.HasSuffix(topology, ".yaml") {
		topo, err = bus.LoadTopology(topology)
	} else {
		topo, err = bus.Generate(topology)
	}
	require.NoError(t, err)
	return runWithTrace(t, topo, bus.Options{Seed: 1})
}

func traced(topology string) func(t *testing.T) (*bus.Result, []bus.TraceEvent) {
	return func(t *testing.T) (*bus.Result, []bus.TraceEvent) { return tracedRun(t, topology) }
}

// replayed runs a counterexample file of fwsim explore, traced.
func replayed(file string) func(t *testing.T) (*bus.Result, []bus.TraceEvent) {
	return func(t *testing.T) (*bus.Result, []bus.TraceEvent) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		topo, opts, err := explore.ReadReplayFile(file, data)
		require.NoError(t, err)
		res, trace := runWithTrace(t, topo, opts)
		require.Equal(t, bus.OutcomeStalled, res.Generations[0].Outcome, "the counterexample's outcome")
		return res, trace
	}
}

func runWithTrace(t *testing.T, topo *bus.Topology, opts bus.Options) (*bus.Result, []bus.TraceEvent) {
	t.Helper()
	var trace bus.Trace
	opts.Observer = trace.Record
	res, err := bus.Run(topo, opts)
	require.NoError(t, err)
	return res, trace.Events
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}

func countColour(img image.Image, c color.RGBA) int {
	n := 0
	r0, g0, b0, _ := c.RGBA()
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r == r0 && g == g0 && b == b0 {
				n++
			}
		}
	}
	return n
}

// Every wait of a root contention is told at the entry into T3 that began
// it, with its round and its length, as the result lists them.
func TestRunPageTellsEveryWait(t *testing.T) {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	res, trace := runWithTrace(t, topo, bus.Options{Seed: 7})
	page := RunPage("gen pair", res, trace)
	var told []string
	for _, e := range page.Events {
		if e.Kind == "state" && e.Value == "T3" {
			told = append(told, e.Text)
		}
	}
	c := res.Generations[0].Contention[0]
	require.Len(t, told, len(c.Backoffs), "an entry into T3 per wait")
	for i, w := range c.Backoffs {
		assert.True(t, strings.HasPrefix(told[i], w.Node+" enters T3"), told[i])
		assert.Contains(t, told[i], fmt.Sprintf("it waits %d ns (%s)", w.WaitNs, fastOrSlow(w.Fast)))
	}
}

// The pages name only the colour classes the player defines, and a lab's
// axis marks each delay.
func TestPagesUseThePlayersClasses(t *testing.T) {
	res, trace := tracedRun(t, "../examples/hotplug.yaml")
	topo := generatedLab(t, "complete:6")
	lab, err := election.Run(topo, election.Options{Algo: "bully", InitiatorCount: 1, Seed: 1, Trace: true,
		Crashes: []election.NodeEvent{{Node: "n4", At: 2500}}})
	require.NoError(t, err)
	labPage := LabPage(LabRun{Command: "elect", Algo: lab.Algo, TimeUnit: lab.TimeUnit, Down: lab.Crashed}, labGraph(t, topo), lab.Trace)
	for _, p := range []*player.Page{RunPage("hotplug", res, trace), labPage} {
		used := map[string]bool{}
		for _, n := range p.Nodes {
			used[n.Class] = true
		}
		for _, e := range p.Events {
			used[e.Class] = true
		}
		for _, ph := range p.Phases {
			used[ph.Class] = true
		}
		for _, l := range p.Legend {
			used[l.Class] = true
		}
		delete(used, "")
		for c := range used {
			assert.Contains(t, player.Classes, c, p.Title)
		}
	}
	require.NotEmpty(t, labPage.Phases)
	assert.Equal(t, "delay 0", labPage.Phases[0].Name)
	last := labPage.Events[len(labPage.Events)-1].At
	assert.Greater(t, labPage.Phases[len(labPage.Phases)-1].End, last, "the delays cover the run")
}
