package view_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
)

// replay is a parsed waveform with every variable's value history.
type replay struct {
	file   *vcd.File
	byPath map[string]string // "pc.p0.tpa_tx" → identifier
}

func parseVCD(t *testing.T, res *bus.Result, trace []bus.TraceEvent) replay {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, view.WriteVCD(&buf, res, trace))
	f, err := vcd.Parse(&buf)
	require.NoError(t, err, "our own VCD does not parse")
	r := replay{file: f, byPath: map[string]string{}}
	for _, d := range f.Vars {
		r.byPath[d.Path()] = d.ID
	}
	return r
}

// history lists the changes of the variable at path.
func (r replay) history(t *testing.T, path string) []vcd.Change {
	t.Helper()
	id, ok := r.byPath[path]
	require.True(t, ok, "no variable %s", path)
	var out []vcd.Change
	for _, c := range r.file.Changes {
		if c.ID == id {
			out = append(out, c)
		}
	}
	return out
}

// at is the value of the variable at path once every change at time t
// has happened.
func (r replay) at(t *testing.T, path string, time int64) string {
	t.Helper()
	v := ""
	for _, c := range r.history(t, path) {
		if c.Time > time {
			break
		}
		v = c.Value
	}
	return v
}

// TestVCDStructure parses the waveform of every fixed run back: the header
// records the seed, there is a scope per node with the documented variables
// for every port, every variable starts at #0, and values are legal for what
// they show.
func TestVCDStructure(t *testing.T) {
	stateNames := map[string]bool{}
	for s := phy.R0ResetStart; s <= phy.A0Idle; s++ {
		stateNames[s.String()] = true
	}
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			r := parseVCD(t, res, trace)
			f := r.file
			assert.Equal(t, "1ns", f.Timescale)
			require.NotEmpty(t, f.Comments)
			assert.Contains(t, f.Comments[0], fmt.Sprintf("seed %d,", res.Seed))

			// One scope per node of the run, with its ports.
			ports := map[string]int{}
			for _, g := range res.Generations {
				for _, n := range g.Nodes {
					ports[n.ID] = len(n.Ports)
				}
			}
			scopes := map[string]bool{}
			for _, d := range f.Vars {
				scopes[d.Scope[0]] = true
			}
			assert.Len(t, scopes, len(ports)+1, "a scope per node and bus")
			assert.True(t, scopes["bus"])
			for id, n := range ports {
				for _, name := range []string{"state", "backoff", "self_id"} {
					assert.Contains(t, r.byPath, id+"."+name)
				}
				for p := range n {
					for _, name := range []string{"tpa_tx", "tpb_tx", "line_tx", "tpa_rx", "tpb_rx", "line_rx"} {
						assert.Contains(t, r.byPath, fmt.Sprintf("%s.p%d.%s", id, p, name))
					}
				}
				assert.NotContains(t, r.byPath, fmt.Sprintf("%s.p%d.tpa_tx", id, n), "a port the node does not have")
			}
			for i := range res.Generations {
				assert.Contains(t, r.byPath, fmt.Sprintf("bus.gen%d", i))
			}

			// Every variable has a value at #0, given once.
			require.GreaterOrEqual(t, len(f.Changes), len(f.Vars))
			initial := map[string]int{}
			for _, c := range f.Changes[:len(f.Vars)] {
				assert.Equal(t, int64(0), c.Time)
				initial[c.ID]++
			}
			assert.Len(t, initial, len(f.Vars))

			// Values mean what the names say: states are states, and each
			// port's line state names are the names of its TPA/TPB pair at
			// every time stamp.
			for _, d := range f.Vars {
				if d.Name == "state" {
					for _, c := range r.history(t, d.Path()) {
						assert.True(t, stateNames[c.Value], "%s = %q at %d", d.Path(), c.Value, c.Time)
					}
				}
			}
			times := map[int64]bool{}
			for _, c := range f.Changes {
				times[c.Time] = true
			}
			for id, n := range ports {
				for p := range n {
					for _, dir := range []string{"tx", "rx"} {
						prefix := fmt.Sprintf("%s.p%d.", id, p)
						for tm := range times {
							line := phy.MakeLineState(signal(t, r.at(t, prefix+"tpa_"+dir, tm)), signal(t, r.at(t, prefix+"tpb_"+dir, tm)))
							name := line.TxName()
							if dir == "rx" {
								name = line.RxName()
							}
							require.Equal(t, vcd.Text(name), r.at(t, prefix+"line_"+dir, tm), "%sline_%s at %d", prefix, dir, tm)
						}
					}
				}
			}

			// Each node ends in the state the result gives it.
			last := map[string]phy.State{}
			for _, g := range res.Generations {
				for _, n := range g.Nodes {
					last[n.ID] = n.State
				}
			}
			for id, s := range last {
				assert.Equal(t, s.String(), r.at(t, id+".state", f.End), id)
			}
		})
	}
}

func signal(t *testing.T, v string) phy.Signal {
	t.Helper()
	switch v {
	case "0":
		return phy.Sig0
	case "1":
		return phy.Sig1
	case "z":
		return phy.SigZ
	}
	t.Fatalf("wire value %q", v)
	return 0
}

// TestVCDShowsEveryReset: a hot-plug scenario's waveform holds every
// generation, each starting with its nodes in R0, and every scripted event.
func TestVCDShowsEveryReset(t *testing.T) {
	res, trace := runTraced(t, viewRuns[2])
	require.Greater(t, len(res.Generations), 3)
	r := parseVCD(t, res, trace)
	for i, g := range res.Generations {
		gen := r.history(t, fmt.Sprintf("bus.gen%d", i))
		require.Len(t, gen, 5, "gen%d: the initial value and four phases", i)
		assert.Equal(t, []string{"-", "reset", "tree_id", "self_id", "ok"},
			[]string{gen[0].Value, gen[1].Value, gen[2].Value, gen[3].Value, gen[4].Value})
		assert.Equal(t, g.StartNs, gen[1].Time)
		assert.Equal(t, g.StartNs+g.Timing.SelfIDDone, gen[4].Time)
		for _, n := range g.Nodes {
			// The node entered R0 between the start and the end of the
			// reset phase.
			entered := slices.ContainsFunc(r.history(t, n.ID+".state"), func(c vcd.Change) bool {
				return c.Value == "R0" && c.Time >= g.StartNs && c.Time <= g.StartNs+g.Timing.ResetEnd
			})
			assert.True(t, entered, "gen%d: %s never in R0 during the reset", i, n.ID)
		}
	}
	var scenario []string
	for _, c := range r.history(t, "bus.scenario")[1:] {
		scenario = append(scenario, c.Value)
	}
	require.Len(t, scenario, 4, "the example scripts four events")
	for i, want := range []string{"connect_hub:2-disk:0", "disconnect_", "PHY_config_", "long_reset_from_pc"} {
		assert.True(t, strings.HasPrefix(scenario[i], want), "%q, want prefix %q", scenario[i], want)
	}
}

// TestVCDContentionRounds: the back-off variable shows every wait of the
// result, each starting as its node enters T3, after it saw ROOT_CONTENTION.
func TestVCDContentionRounds(t *testing.T) {
	res, trace := runTraced(t, viewRuns[0])
	g := res.Generations[0]
	require.Len(t, g.Contention, 1)
	r := parseVCD(t, res, trace)
	waits := 0
	for _, id := range g.Contention[0].Nodes {
		for _, c := range r.history(t, id+".backoff") {
			if c.Value == "-" {
				continue
			}
			waits++
			assert.Regexp(t, `^(fast|slow)_\d+ns$`, c.Value)
			// The wait starts as the node enters T3.
			assert.True(t, slices.Contains(r.history(t, id+".state"), vcd.Change{Time: c.Time, ID: r.byPath[id+".state"], Value: "T3"}),
				"%s does not enter T3 at %d, when its wait starts", id, c.Time)
			before := r.history(t, id+".p0.line_rx")
			assert.True(t, slices.ContainsFunc(before, func(x vcd.Change) bool {
				return x.Value == "ROOT_CONTENTION/GRANT" && x.Time <= c.Time
			}), "%s never saw ROOT_CONTENTION before waiting at %d", id, c.Time)
		}
	}
	assert.Equal(t, len(g.Contention[0].Backoffs), waits)
}

// TestVCDWithoutTrace: the result alone gives a valid file with the phases
// and back-offs.
func TestVCDWithoutTrace(t *testing.T) {
	res, _ := runTraced(t, viewRuns[0])
	r := parseVCD(t, res, nil)
	assert.Len(t, r.history(t, "bus.gen0"), 5)
	assert.Len(t, r.history(t, "a.state"), 1, "no trace: the state keeps its initial value")
}
