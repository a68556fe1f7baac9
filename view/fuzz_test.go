package view_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/view"
)

// checkViews writes every view of a run and reads each back as its
// consumers would: both VCD dialects through internal/vcd, with one scope
// per node; the JSONL trace, each line a JSON object naming its event's
// node; and the DOT through parseDOT, with a cluster per generation, every
// node declared once and labelled with its id, and every edge between
// declared nodes.
func checkViews(t *testing.T, res *bus.Result, trace []bus.TraceEvent) {
	t.Helper()
	ids := map[string]bool{}
	for _, g := range res.Generations {
		for _, n := range g.Nodes {
			ids[n.ID] = true
		}
	}
	for _, e := range trace {
		if e.Node != "" {
			ids[e.Node] = true
		}
	}
	for _, d := range view.VCDDialects() {
		var buf bytes.Buffer
		require.NoError(t, view.WriteVCDWith(&buf, res, trace, view.VCDOptions{Dialect: d}), "%s dialect", d)
		f, err := vcd.Parse(&buf)
		require.NoError(t, err, "%s dialect", d)
		nodes, names := map[string]bool{}, map[string]bool{}
		for _, v := range f.Vars {
			if d == view.VCDSigrok {
				// One scope; each channel named in full, <node>.p<n>.<pair>.<hi|lo>.
				m := sigrokChannel.FindStringSubmatch(v.Name)
				require.NotNil(t, m, "sigrok dialect: %s", v.Name)
				require.False(t, names[v.Name], "sigrok dialect: %s twice", v.Name)
				names[v.Name], nodes[m[1]] = true, true
			} else {
				nodes[v.Scope[0]] = true
			}
		}
		want := len(ids)
		if d == view.VCDGTKWave {
			want++ // the bus scope
		}
		assert.Len(t, nodes, want, "%s dialect: want a scope or channels per node", d)
	}

	var buf bytes.Buffer
	require.NoError(t, view.WriteTraceJSONL(&buf, res, trace))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 1+len(trace))
	for i, line := range lines {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &obj), "line %d: %s", i+1, line)
		require.NotNil(t, obj, "line %d is not an object: %s", i+1, line)
		if i > 0 {
			var want any
			if node := trace[i-1].Node; node != "" {
				want = node
			}
			assert.Equal(t, want, obj["node"], "line %d", i+1)
		}
	}

	buf.Reset()
	require.NoError(t, view.WriteDOT(&buf, res))
	g, err := parseDOT(buf.Bytes())
	require.NoError(t, err, "%s", buf.Bytes())
	require.True(t, g.directed)
	declared := map[string]dotNodeStmt{}
	for _, n := range g.nodes {
		require.NotContains(t, declared, n.id, "node %q declared twice", n.id)
		declared[n.id] = n
	}
	for _, e := range g.edges {
		assert.Contains(t, declared, e.from, "an edge from an undeclared node")
		assert.Contains(t, declared, e.to, "an edge to an undeclared node")
	}
	for _, gen := range res.Generations {
		cluster := fmt.Sprintf("cluster_g%d", gen.Index)
		assert.Contains(t, g.subgraphs, cluster)
		for _, n := range gen.Nodes {
			name := fmt.Sprintf("g%d/%s", gen.Index, n.ID)
			require.Contains(t, declared, name)
			assert.Equal(t, cluster, declared[name].subgraph)
			id, _, _ := strings.Cut(declared[name].attrs["label"], "\n")
			assert.Equal(t, n.ID, id, "the label of %s", name)
		}
	}
}

// FuzzViews writes the views of the fuzzed buses of FuzzRunScenario, ids
// drawn from every character ids may hold included, and reads them back.
func FuzzViews(f *testing.F) {
	for _, seed := range bus.ScenarioSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, o := bus.ScenarioFromBytes(data)
		o.MaxEvents = 200_000
		var trace bus.Trace
		o.Observer = trace.Record
		res, err := bus.Run(topo, o)
		require.NoError(t, err, "a generated bus is invalid")
		checkViews(t, res, trace.Events)
	})
}

// TestViewsOfUnusualIDs: ids with letters of other scripts, a combining
// mark and every punctuation character ids may hold give views that read
// back, in Graphviz and sigrok-cli too when they are installed. The id
// "a/p3" is what the stub of a's unconnected port 3 was once called in
// DOT, merging the two.
func TestViewsOfUnusualIDs(t *testing.T) {
	kamera, cafe := "Kamera_ü-1.2+x@y#z", "cafe\u0301"
	topo := &bus.Topology{
		Nodes: []bus.Node{{ID: "a", Ports: 4}, {ID: "a/p3", Ports: 1}, {ID: kamera, Ports: 1}, {ID: cafe, Ports: 2}, {ID: "日本", Ports: 1}},
		Cables: []bus.Cable{
			{From: "a:0", To: "a/p3:0"}, {From: "a:1", To: kamera + ":0"}, {From: "a:2", To: cafe + ":0"}, {From: cafe + ":1", To: "日本:0"},
		},
	}
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 3, Observer: trace.Record})
	require.NoError(t, err)
	checkViews(t, res, trace.Events)

	var buf bytes.Buffer
	require.NoError(t, view.WriteVCD(&buf, res, trace.Events))
	f, err := vcd.Parse(&buf)
	require.NoError(t, err)
	var scopes []string
	for _, v := range f.Vars {
		if !slices.Contains(scopes, v.Scope[0]) {
			scopes = append(scopes, v.Scope[0])
		}
	}
	assert.ElementsMatch(t, []string{"Kamera_%C3%BC-1%2E2+x@y#z", "a", "a/p3", "bus", "cafe%CC%81", "%E6%97%A5%E6%9C%AC"}, scopes)
	t.Run("sigrok-cli", func(t *testing.T) {
		sigrok := sigrokCLI(t)
		buf.Reset()
		require.NoError(t, view.WriteVCDWith(&buf, res, trace.Events, view.VCDOptions{Dialect: view.VCDSigrok}))
		assertSigrokChannels(t, sigrok, buf.Bytes())
	})

	buf.Reset()
	require.NoError(t, view.WriteDOT(&buf, res))
	renderDOT(t, buf.Bytes())
}

// TestDOTLabelEscapes: quotes, backslashes and line breaks in a label
// (a cause set by hand, as no node id holds them) read back as written.
func TestDOTLabelEscapes(t *testing.T) {
	cause := `a "quoted" \ cause` + "\non two lines"
	res := &bus.Result{Generations: []bus.Generation{{Cause: bus.Cause{Text: cause}, Outcome: bus.OutcomeStalled}}}
	var buf bytes.Buffer
	require.NoError(t, view.WriteDOT(&buf, res))
	g, err := parseDOT(buf.Bytes())
	require.NoError(t, err, buf.String())
	assert.Contains(t, buf.String(), `(a \"quoted\" \\ cause\non two lines)`)
	require.Len(t, g.subgraphs, 1)
	renderDOT(t, buf.Bytes())
}

// TestParseDOT: the checker reads what WriteDOT writes and the constructs
// of the grammar, and rejects broken or ambiguous DOT with the line.
func TestParseDOT(t *testing.T) {
	goldens, err := filepath.Glob("testdata/golden/*.dot")
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, path := range goldens {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		_, err = parseDOT(data)
		assert.NoError(t, err, path)
	}
	g, err := parseDOT([]byte("strict digraph \"g\" {\n  rankdir=BT; graph [label=\"x\"]\n  node [shape=box] edge [fontsize=-1.5]\n" +
		"  subgraph cluster_a { \"node\" [label=\"a\\\\b\", width=.5]; b -> c -> \"d e\" [style=dashed] }\n}\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"rankdir": "BT", "label": "x"}, g.attrs)
	assert.Equal(t, []dotNodeStmt{{id: "node", subgraph: "cluster_a", attrs: map[string]string{"label": `a\b`, "width": ".5"}}}, g.nodes)
	assert.Equal(t, []dotEdgeStmt{
		{from: "b", to: "c", attrs: map[string]string{"style": "dashed"}},
		{from: "c", to: "d e", attrs: map[string]string{"style": "dashed"}},
	}, g.edges)

	for _, tc := range []struct{ text, want string }{
		{"digraph {\n a -- b }", "DOT line 2: edge operator \"--\" in a digraph"},
		{"graph { a -> b }", "DOT line 1: edge operator \"->\" in a graph"},
		{"digraph {\n\n \"a\\lb\" }", `DOT line 3: escape \l in "\"a\\l": want \", \\ or \n`},
		{"digraph { \"a\x1bb\" }", "DOT line 1: control character U+001B in a string"},
		{"digraph { \"a\\\" }", "DOT line 1: unterminated string"},
		{"digraph { \"a }", "DOT line 1: unterminated string"},
		{"digraph { a:p0 -> b }", `DOT line 1: a port after "a": WriteDOT writes none`},
		{"digraph { a -> b:n }", `DOT line 1: a port after "b": WriteDOT writes none`},
		{"digraph { node }", "DOT line 1: want an attribute list"},
		{"digraph { a [label=] }", "DOT line 1: want an ID"},
		{"digraph { a [label=x, label=y] }", "DOT line 1: attribute label given twice"},
		{"digraph { edge = 1 }", "DOT line 1: want an attribute list"},
		{"digraph { a = node }", `DOT line 1: keyword "node" where an ID belongs`},
		{"digraph { 10pt }", `DOT line 1: bad numeral "10p"`},
		{"digraph { a -> 1.2.3 }", `DOT line 1: bad numeral "1.2."`},
		{"digraph { { a } }", "DOT line 1: an anonymous subgraph: WriteDOT writes none"},
		{"digraph { subgraph s { a } -> b }", "DOT line 1: an edge from a subgraph: WriteDOT writes none"},
		{"digraph { a # comment\n }", `DOT line 1: unexpected '#'`},
		{"digraph { a }\n}", "DOT line 2: text after the graph"},
		{"digraph {\n a", "DOT line 2: unclosed {"},
		{"digraph { \xff }", "DOT: not UTF-8"},
		{"{ a }", "DOT line 1: want graph or digraph"},
	} {
		_, err := parseDOT([]byte(tc.text))
		if assert.Error(t, err, "%q", tc.text) {
			assert.Equal(t, tc.want, err.Error(), "%q", tc.text)
		}
	}
}
