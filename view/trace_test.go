package view_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
)

// traceLine is every field a JSONL trace line may have; decoding with
// DisallowUnknownFields keeps the names stable.
type traceLine struct {
	TimeNs      *int64   `json:"time_ns"`
	Kind        string   `json:"kind"`
	Node        *string  `json:"node"`
	Port        *int     `json:"port"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	FromSignals string   `json:"from_signals"`
	ToSignals   string   `json:"to_signals"`
	Packet      string   `json:"packet"`
	Detail      string   `json:"detail"`
	Seed        *uint64  `json:"seed"`
	Profile     string   `json:"profile"`
	Policy      string   `json:"policy"`
	CoinBias    *float64 `json:"coin_bias"`
	Timing      string   `json:"timing"`
	Clock       string   `json:"clock"`
	ForceRoot   *string  `json:"force_root"`
	PowerUp     string   `json:"power_up"`
	Initiators  []string `json:"initiators"`
}

func readTrace(t *testing.T, res *bus.Result, trace []bus.TraceEvent) []traceLine {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, view.WriteTraceJSONL(&buf, res, trace))
	var out []traceLine
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var l traceLine
		require.NoError(t, dec.Decode(&l), "line %d: %s", len(out)+1, sc.Text())
		require.NotNil(t, l.TimeNs, "line %d has no time_ns", len(out)+1)
		out = append(out, l)
	}
	return out
}

// pairFromSignals reads "(a,b)".
func pairFromSignals(t *testing.T, s string) phy.LineState {
	t.Helper()
	sig := map[byte]phy.Signal{'0': phy.Sig0, '1': phy.Sig1, 'z': phy.SigZ}
	require.Len(t, s, 5, s)
	a, okA := sig[s[1]]
	b, okB := sig[s[3]]
	require.True(t, okA && okB && s[0] == '(' && s[2] == ',' && s[4] == ')', s)
	return phy.MakeLineState(a, b)
}

// TestTraceJSONL: a header with the seed, then one line per event in time
// order; names agree with the signals; each (node, port, kind) chain is
// unbroken, every "from" the previous "to".
func TestTraceJSONL(t *testing.T) {
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, trace := runTraced(t, run)
			lines := readTrace(t, res, trace)
			require.Len(t, lines, len(trace)+1)
			head := lines[0]
			assert.Equal(t, "run", head.Kind)
			require.NotNil(t, head.Seed)
			assert.Equal(t, res.Seed, *head.Seed)
			assert.Equal(t, res.Profile, head.Profile)

			last := map[string]string{} // node/port/kind → the last "to"
			prev := int64(0)
			counts := map[string]int{}
			for i, l := range lines[1:] {
				assert.GreaterOrEqual(t, *l.TimeNs, prev, "line %d goes back in time", i+2)
				prev = *l.TimeNs
				counts[l.Kind]++
				switch l.Kind {
				case "state", "tx", "rx":
					require.NotNil(t, l.Node)
					key := fmt.Sprintf("%s/%v/%s", *l.Node, l.Port != nil, l.Kind)
					if l.Port != nil {
						key = fmt.Sprintf("%s/%d/%s", *l.Node, *l.Port, l.Kind)
					}
					if before, ok := last[key]; ok {
						assert.Equal(t, before, l.From, "line %d: %s changes from %s, but was %s", i+2, key, l.From, before)
					}
					last[key] = l.To
					assert.NotEqual(t, l.From, l.To, "line %d changes nothing", i+2)
					if l.Kind == "state" {
						assert.Nil(t, l.Port)
						continue
					}
					require.NotNil(t, l.Port)
					from, to := pairFromSignals(t, l.FromSignals), pairFromSignals(t, l.ToSignals)
					if l.Kind == "tx" {
						assert.Equal(t, []string{from.TxName(), to.TxName()}, []string{l.From, l.To})
					} else {
						assert.Equal(t, []string{from.RxName(), to.RxName()}, []string{l.From, l.To})
					}
				case "packet":
					require.NotNil(t, l.Node)
					assert.Regexp(t, `^0x[0-9a-f]{8}$`, l.Packet)
				case "scenario":
					assert.NotEmpty(t, l.Detail)
				case "link":
					require.NotNil(t, l.Node)
					assert.Nil(t, l.Port)
					assert.Equal(t, "CONFIG_TIMEOUT", l.Detail)
				default:
					t.Fatalf("line %d: kind %q", i+2, l.Kind)
				}
			}
			assert.Positive(t, counts["state"])
			assert.Positive(t, counts["tx"])
			assert.Positive(t, counts["rx"])
			if res.Generations[0].Outcome == bus.OutcomeOK {
				// Every node's link receives every self-ID quadlet.
				quadlets := 0
				for _, g := range res.Generations {
					quadlets += len(g.SelfIDs) * len(g.Nodes)
				}
				assert.Equal(t, quadlets, counts["packet"])
			}
		})
	}
}

func TestTraceJSONLRecordsHowTheRunWasSet(t *testing.T) {
	topo, err := bus.Generate("chain:3")
	require.NoError(t, err)
	bias := 0.25
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 99, ForceRoot: "n0", Initiators: []string{"n1"}, CoinBias: &bias, Observer: trace.Record})
	require.NoError(t, err)
	head := readTrace(t, res, trace.Events)[0]
	require.NotNil(t, head.ForceRoot)
	assert.Equal(t, "n0", *head.ForceRoot)
	assert.Equal(t, []string{"n1"}, head.Initiators)
	assert.Equal(t, "one", head.PowerUp)
	assert.Equal(t, 0.25, *head.CoinBias)
	assert.Equal(t, uint64(99), *head.Seed)

	res, err = bus.Run(topo, bus.Options{Seed: 99, PowerUp: bus.PowerUpAll, Observer: trace.Record})
	require.NoError(t, err)
	head = readTrace(t, res, trace.Events)[0]
	assert.Equal(t, "all", head.PowerUp)
	assert.Equal(t, []string{"n0", "n1", "n2"}, head.Initiators)
}

// TestTraceEscaping: node ids and scenario details that JSON must escape
// (quotes, backslashes, control characters, U+2028, invalid UTF-8) read
// back as encoding/json reads them, and HTML characters stay as they are,
// so that jq sees the same text.
func TestTraceEscaping(t *testing.T) {
	res, _ := runTraced(t, viewRuns[0])
	for _, s := range []string{`a"b`, `back\slash`, "tab\there", "line\u2028sep", "cam–1", "<&>", "bad\xffutf8"} {
		trace := []bus.TraceEvent{
			{TimeNs: 5, Kind: bus.TraceState, Node: s, Port: -1, FromState: phy.A0Idle, ToState: phy.R0ResetStart},
			{TimeNs: 6, Kind: bus.TraceScenario, Port: -1, Detail: s},
		}
		lines := readTrace(t, res, trace)
		require.Len(t, lines, 3)
		want := strings.ToValidUTF8(s, "\uFFFD")
		assert.Equal(t, want, *lines[1].Node)
		assert.Equal(t, want, lines[2].Detail)
		var buf bytes.Buffer
		require.NoError(t, view.WriteTraceJSONL(&buf, res, trace))
		if s == "<&>" {
			assert.Contains(t, buf.String(), `"node":"<&>"`, "no HTML escapes")
		}
	}
}
