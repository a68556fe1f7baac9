package view

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fwsim/fwsim/bus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTableAlignsWithoutTrailingBlanks(t *testing.T) {
	var tab table
	tab.add("id", "ports", "state")
	tab.add("camera", "p0:parent")
	tab.add("n1", "p0:ncon", "T0")
	var b bytes.Buffer
	tab.write(&b, "  ")
	assert.Equal(t, "  id      ports      state\n  camera  p0:parent\n  n1      p0:ncon    T0\n", b.String())
}

// A cabled port that tree identify never resolved is no "ncon" in the run
// text: "loop" on a cable of a loop, "cabled" on one toward it; the JSON
// keeps the self-ID status.
func TestRunTextNamesLoopPorts(t *testing.T) {
	res, text := runText(t, "loop.yaml", `nodes:
  - {id: a, ports: 3}
  - {id: b, ports: 2}
  - {id: c, ports: 2}
  - {id: d, ports: 2}
  - {id: e, ports: 1}
cables:
  - {from: "a:0", to: "b:0"}
  - {from: "b:1", to: "c:0"}
  - {from: "c:1", to: "a:1"}
  - {from: "a:2", to: "d:0"}
  - {from: "d:1", to: "e:0"}
`)
	require.Equal(t, bus.OutcomeConfigTimeout, res.Generations[0].Outcome)
	assert.Regexp(t, `\n  b +- +- +- +0 +p0:loop p1:loop `, text)
	assert.Regexp(t, `\n  c +- +- +- +0 +p0:loop p1:loop `, text)
	assert.Regexp(t, `\n  a +- +- +- +0 +p0:loop p1:loop p2:(child|cabled) `, text)
	assert.NotContains(t, text, "ncon")
}

// A generation that holds only part of the nodes (a split bus, an
// unplugged node) says which nodes it holds and which are not on it.
func TestRunTextNamesTheNodesOfAPart(t *testing.T) {
	res, text := runText(t, "split.yaml", `nodes:
  - {id: a, ports: 1}
  - {id: b, ports: 2}
  - {id: c, ports: 2}
  - {id: d, ports: 1}
cables:
  - {from: "a:0", to: "b:0"}
  - {from: "b:1", to: "c:0"}
  - {from: "c:1", to: "d:0"}
events:
  - {at: 400us, disconnect: {from: "b:1", to: "c:0"}}
`)
	require.Len(t, res.Generations, 3)
	parts := strings.Split(text, "\ngeneration ")
	require.Len(t, parts, 4)
	assert.NotContains(t, parts[1], "  bus: ", "the whole bus needs no line")
	for _, part := range parts[2:] {
		assert.Regexp(t, `\n  bus: ([abcd], [abcd]), 2 of the 4 nodes; not on it: ([abcd], [abcd])\n`, part)
	}
	assert.Contains(t, parts[2]+parts[3], "bus: d, c, 2 of the 4 nodes; not on it: a, b")
	assert.Contains(t, parts[2]+parts[3], "bus: b, a, 2 of the 4 nodes; not on it: d, c")
}

// runText runs the topology file text, named name, at seed 1 and returns
// the result and its run text.
func runText(t *testing.T, name, text string) (*bus.Result, string) {
	t.Helper()
	topo, err := bus.ParseTopology([]byte(text), name)
	require.NoError(t, err)
	res, err := bus.Run(topo, bus.Options{Seed: 1})
	require.NoError(t, err)
	var out strings.Builder
	WriteRunText(&out, name, res)
	return res, out.String()
}
