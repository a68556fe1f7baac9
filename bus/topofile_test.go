package bus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutSource drops what ParseTopology remembers of the file, to compare
// topologies read from different files.
func withoutSource(t *Topology) *Topology {
	c := *t
	c.source = topologySource{}
	return &c
}

func examplePaths(t testing.TB) []string {
	var paths []string
	for _, pattern := range []string{"../examples/*.yaml", "../examples/*.json"} {
		found, err := filepath.Glob(pattern)
		require.NoError(t, err)
		paths = append(paths, found...)
	}
	require.NotEmpty(t, paths)
	return paths
}

func TestExamplesResolve(t *testing.T) {
	for _, path := range examplePaths(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			topo, err := LoadTopology(path)
			require.NoError(t, err)
			// The published root-contention models' 30 ns and 360 ns wires
			// and the 300 ns one beyond the correctness conditions are
			// longer than a 4.5 m cable; those examples say so and need
			// the flag.
			outOfSpec := slices.Contains([]string{"prism-pair.yaml", "prism-pair-360.yaml", "far-pair.yaml"}, filepath.Base(path))
			rt := mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: outOfSpec})
			assert.Equal(t, outOfSpec, len(rt.outOfSpec) > 0, rt.outOfSpec)
			assert.Equal(t, filepath.Base(path) == "loop.yaml", rt.hasLoop)
		})
	}
}

func TestHotplugExampleHasEveryEventKind(t *testing.T) {
	topo, err := LoadTopology("../examples/hotplug.yaml")
	require.NoError(t, err)
	rt := mustResolve(t, topo, ResolveOptions{})
	var kinds []eventKind
	for _, e := range rt.events {
		kinds = append(kinds, e.kind)
	}
	assert.Equal(t, []eventKind{eventConnect, eventDisconnect, eventPhyConfig, eventReset}, kinds)
	phyConfig := rt.events[2]
	assert.Equal(t, "disk", rt.nodes[phyConfig.root].id)
	assert.Equal(t, 7, phyConfig.gapCount)
}

func TestYAMLAndJSONAgree(t *testing.T) {
	fromJSON, err := LoadTopology("../examples/hub-and-devices.json")
	require.NoError(t, err)
	fromYAML, err := LoadTopology("testdata/hub-and-devices.yaml")
	require.NoError(t, err)
	assert.Equal(t, withoutSource(fromYAML), withoutSource(fromJSON))
	assert.Len(t, fromJSON.Nodes, 5)
	assert.Len(t, fromJSON.Events, 3)
}

// TestEncodeRoundTrip writes topologies in both formats and reads them back.
func TestEncodeRoundTrip(t *testing.T) {
	topologies := map[string]*Topology{"default": DefaultTopology()}
	for _, path := range examplePaths(t) {
		topo, err := LoadTopology(path)
		require.NoError(t, err)
		topologies[filepath.Base(path)] = topo
	}
	for _, spec := range []string{"pair", "chain:1", "tree:20:3", "complete:4"} {
		topo, err := Generate(spec)
		require.NoError(t, err)
		topologies[spec] = topo
	}
	for name, topo := range topologies {
		for _, format := range []string{"yaml", "json"} {
			t.Run(name+"."+format, func(t *testing.T) {
				var buf bytes.Buffer
				require.NoError(t, topo.Encode(&buf, format))
				back, err := ParseTopology(buf.Bytes(), "out."+format)
				require.NoError(t, err, buf.String())
				assert.Equal(t, withoutSource(topo), withoutSource(back))
			})
		}
	}
}

func TestEncodeFormat(t *testing.T) {
	topo := &Topology{
		Nodes:  []Node{{ID: "a", Ports: 1, GapCount: ptrTo(5)}, {ID: "b", Ports: 1}},
		Cables: []Cable{{From: "a:0", To: "b:0", LengthM: ptrTo(1.5)}},
		Events: []Event{{At: 1500 * 1000, Reset: &ResetEvent{Node: "a"}}},
	}
	var buf bytes.Buffer
	require.NoError(t, topo.Encode(&buf, "yaml"))
	assert.Equal(t, `nodes:
  - id: a
    ports: 1
    gap_count: 5
  - id: b
    ports: 1
cables:
  - from: a:0
    to: b:0
    length_m: 1.5
events:
  - at: 1.5ms
    reset:
      node: a
`, buf.String())
	buf.Reset()
	require.NoError(t, topo.Encode(&buf, "json"))
	assert.Contains(t, buf.String(), `"at": "1.5ms"`)
	assert.Error(t, topo.Encode(&buf, "toml"))
}

// TestParseErrors pins the messages for malformed files that the fixtures in
// testdata/invalid cannot hold: JSON, and YAML that needs no comment line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown.json", "{\n  \"nodes\": [\n    {\"id\": \"a\", \"ports\": 1, \"colour\": \"red\"}\n  ]\n}",
			`unknown.json:3: nodes[0]: unknown field "colour" (want id, ports, speed, link, contender, power_class, force_root, gap_count, uid, clock_ppm, phy)`},
		{"type.json", "{\"nodes\": [\n{\"id\": \"a\",\n \"ports\": \"3\"}]}",
			`type.json:3: nodes[0].ports: want an integer, got "3"`},
		{"float.json", `{"nodes": [{"id": "a", "ports": 1e3}]}`,
			`float.json:1: nodes[0].ports: want an integer, got "1e3"`},
		{"bool.json", `{"nodes": [{"id": "a", "ports": 1, "link": 1}]}`,
			`bool.json:1: nodes[0].link: want true or false, got "1"`},
		{"negative-uid.json", `{"nodes": [{"id": "a", "ports": 1, "uid": -1}]}`,
			`negative-uid.json:1: nodes[0].uid: want an integer from 0 to 18446744073709551615, got "-1"`},
		{"huge-ports.yaml", "nodes:\n  - {id: a, ports: 99999999999999999999999}\n",
			`huge-ports.yaml:2: nodes[0].ports: want an integer from -9223372036854775808 to 9223372036854775807, got "99999999999999999999999"`},
		{"clock-text.yaml", "timing:\n  clock_hz: fast\n", `clock-text.yaml:2: timing.clock_hz: want an integer, got "fast"`},
		{"clock-huge.json", "{\"timing\": {\n\"clock_hz\": 1e10}}", `clock-huge.json:2: timing.clock_hz: want an integer, got "1e10"`},
		{"syntax.json", "{\n  \"nodes\": [\n    {\"id\": \"a\" \"ports\": 1}\n  ]\n}",
			`syntax.json:3: invalid character '"' after object key:value pair`},
		{"truncated.json", "{\n  \"nodes\": [\n", `truncated.json:3: unexpected end of JSON input`},
		{"trailing.json", "{\"nodes\": []}\n{}", `trailing.json:2: data after the top-level value`},
		{"array.json", `[{"id": "a"}]`, `array.json:1: want a mapping with fields profile, timing, nodes, cables, events, bus_manager, traffic, got a list`},
		{"empty.json", ``, `empty.json:1: unexpected end of JSON input`},
		{"deep.json", `{"nodes": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
			`deep.json:1: nested deeper than 64 levels`},
		{"twice.json", `{"nodes": [], "nodes": []}`, `twice.json:1: field "nodes" given twice`},
		{"sniffed", "  {\"nodes\": [{\"id\": \"a\", \"ports\": true}]}", `sniffed:1: nodes[0].ports: want an integer, got "true"`},
		{"merge.yaml", "base: &b {ports: 1}\n", `merge.yaml:1: unknown field "base" (want profile, timing, nodes, cables, events, bus_manager, traffic)`},
		{"merge-key.yaml", "nodes:\n  - {id: a, ports: 1}\n  - <<: {ports: 1}\n    id: b\n", `merge-key.yaml:3: nodes[1]: merge keys (<<) are not supported`},
		{"two-docs.yaml", "nodes: []\n---\nnodes: []\n", `two-docs.yaml:2: more than one YAML document`},
		{"scalar.yaml", "just text\n", `scalar.yaml:1: want a mapping with fields profile, timing, nodes, cables, events, bus_manager, traffic, got "just text"`},
		{"list-for-string.yaml", "nodes:\n  - id: [a]\n", `list-for-string.yaml:2: nodes[0].id: want a string, got a list`},
		{"event-mapping.yaml", "events:\n  - {at: {ms: 2}}\n", `event-mapping.yaml:2: events[0].at: want a duration such as 2ms or 500us, or an integer number of nanoseconds, got a mapping`},
		{"tagged.yaml", "nodes:\n  - {id: a, ports: !!str 1}\n", `tagged.yaml:2: nodes[0].ports: want an integer, got "1"`},
		// What is not text is named at its line and column: YAML said
		// neither, JSON quoted the U+FFFD it reads invalid UTF-8 as.
		{"nul.yaml", "nodes:\n  - {id: a\x00b, ports: 1}\n", `nul.yaml:2: column 11: the control character U+0000; only tabs and line breaks are allowed`},
		{"escape.json", "{\"nodes\": [{\"id\": \"\x1b[2J\"}]}", `escape.json:1: column 20: the control character U+001B; only tabs and line breaks are allowed`},
		{"latin1.yaml", "nodes:\n  - {id: caf\xe9, ports: 1}\n", `latin1.yaml:2: column 13: the byte 0xe9, which is not UTF-8 text`},
		{"latin1.json", "{\"nodes\": [\n {\"id\": \"\u00e9\xff\"}]}", `latin1.json:2: column 11: the byte 0xff, which is not UTF-8 text`},
		// The parser's own messages for these were another cause ("could
		// not find expected ':'") or came without a line.
		{"long-key.yaml", "nodes:\n  - id: a\n    " + strings.Repeat("k", 1100) + ": 1\n", `long-key.yaml:3: a key of 1100 characters: YAML allows keys of up to 1024`},
		{"long-flow-key.yaml", "nodes:\n  - {id: a, " + strings.Repeat("k", 1025) + ": 1}\n", `long-flow-key.yaml:2: a key of 1025 characters: YAML allows keys of up to 1024`},
		{"long-first-key.yaml", strings.Repeat("k", 1100) + ": 1\n", `long-first-key.yaml:1: a key of 1100 characters: YAML allows keys of up to 1024`},
		{"anchor.yaml", "nodes:\n  - {id: a, ports: 1}\n  - *nope\n", `anchor.yaml:3: unknown anchor 'nope' referenced`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopology([]byte(tc.text), tc.name)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformedFile)
			assert.ErrorIs(t, err, ErrInvalidTopology)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// A leading byte-order mark is skipped in either format, as YAML always
// did; JSON quoted it as "ï", a character the file does not hold.
func TestParseSkipsAByteOrderMark(t *testing.T) {
	for _, name := range []string{"bom.json", "bom.yaml", "bom"} {
		text := `{"nodes": [{"id": "a", "ports": 1}, {"id": "b", "ports": 1}], "cables": [{"from": "a:0", "to": "b:0"}]}`
		want, err := ParseTopology([]byte(text), name)
		require.NoError(t, err)
		got, err := ParseTopology([]byte("\uFEFF"+text), name)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err := ParseTopology([]byte("\uFEFF{\n\x01"), "late.json")
	assert.EqualError(t, err, "late.json:2: column 1: the control character U+0001; only tabs and line breaks are allowed")
}

func TestParseYAMLConveniences(t *testing.T) {
	topo := mustParse(t, `
nodes:
  - {id: 1, ports: &two 2, link: ~}   # numbers read as ids, null as absent
  - {id: b, ports: *two}
cables: []
`, "t.yaml")
	assert.Equal(t, []Node{{ID: "1", Ports: 2}, {ID: "b", Ports: 2}}, topo.Nodes)
	assert.Nil(t, topo.Cables, "an empty list reads as nil, as Encode writes nil")

	empty, err := ParseTopology(nil, "empty.yaml")
	require.NoError(t, err)
	assert.ErrorIs(t, empty.Validate(ResolveOptions{}), ErrEmptyBus)
}

// TestSemanticErrorsNameLines checks resolve finds the line of the offending
// item in both formats, or of its node when the field is absent.
func TestSemanticErrorsNameLines(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"bus.json", "{\"nodes\": [\n {\"id\": \"a\", \"ports\": 1},\n {\"id\": \"b\"}\n]}",
			`bus.json:3: nodes[1].ports: node "b" has 0 ports, want at least 1`},
		{"bus.json", "{\"nodes\": [{\"id\": \"a\", \"ports\": 1}, {\"id\": \"b\", \"ports\": 1}],\n\"cables\": [\n {\"from\": \"a:0\",\n  \"to\": \"b:1\"}]}",
			`bus.json:4: cables[0].to: "b:1": node "b" has only port 0`},
		{"bus.yaml", "nodes:\n  - id: a\n    ports: 1\n  - id: b\n    ports: 1\n    uid: 1\n",
			`bus.yaml:6: nodes[1].uid: node "b" has uid 1, the uid of nodes[0] "a" by default (index+1)`},
	} {
		topo := mustParse(t, tc.text, tc.name)
		assert.Equal(t, tc.want, topo.Validate(ResolveOptions{}).Error())
	}
}

func TestLoadTopology(t *testing.T) {
	_, err := LoadTopology("testdata/no-such-file.yaml")
	assert.ErrorIs(t, err, os.ErrNotExist)

	topo, err := LoadTopology("../examples/default.yaml")
	require.NoError(t, err)
	err = (&Topology{Nodes: topo.Nodes[:1], Cables: topo.Cables, source: topo.source}).Validate(ResolveOptions{})
	assert.ErrorContains(t, err, "../examples/default.yaml:32: cables[0].to: ")
}

// FuzzParseTopology reads anything as a topology and resolves what parses:
// no input may panic or hang, and what parses must survive Encode.
func FuzzParseTopology(f *testing.F) {
	for _, path := range examplePaths(f) {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data, filepath.Base(path))
	}
	fixtures, err := filepath.Glob("testdata/invalid/*.yaml")
	require.NoError(f, err)
	for _, path := range fixtures {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data, filepath.Base(path))
	}
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		topo, err := ParseTopology(data, name)
		if err != nil {
			assert.ErrorIs(t, err, ErrMalformedFile)
			return
		}
		for _, o := range []ResolveOptions{{}, {Profile: "1394a-2000"}} {
			if err := topo.Validate(o); err != nil {
				assert.ErrorAs(t, err, new(*TopologyError))
			}
		}
		if topo.Validate(ResolveOptions{AllowOutOfSpec: true}) != nil {
			_ = topo.Encode(io.Discard, "json") // may fail (NaN has no JSON), must not panic
			return
		}
		for _, format := range []string{"yaml", "json"} {
			var first, second bytes.Buffer
			require.NoError(t, topo.Encode(&first, format))
			back, err := ParseTopology(first.Bytes(), "x."+format)
			require.NoError(t, err, first.String())
			require.NoError(t, back.Encode(&second, format))
			assert.Equal(t, first.String(), second.String())
		}
	})
}

func ExampleTopology_Validate() {
	topo, err := ParseTopology([]byte(`
nodes:
  - {id: pc, ports: 2}
  - {id: camera, ports: 1}
cables:
  - {from: "pc:0", to: "camera:1"}
`), "bus.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	err = topo.Validate(ResolveOptions{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrPortOutOfRange), errors.Is(err, ErrInvalidTopology))
	// Output:
	// bus.yaml:6: cables[0].to: "camera:1": node "camera" has only port 0
	// true true
}

// A file over the size limit is refused before it is parsed; one at the
// limit is read.
func TestLoadTopologySizeLimit(t *testing.T) {
	dir := t.TempDir()
	valid := "nodes: [{id: a, ports: 1}]\n"
	atLimit := filepath.Join(dir, "at-limit.yaml")
	require.NoError(t, os.WriteFile(atLimit, []byte(valid+strings.Repeat("#", maxTopologyFileSize-len(valid)-1)+"\n"), 0o644))
	_, err := LoadTopology(atLimit)
	require.NoError(t, err)

	over := filepath.Join(dir, "over.yaml")
	require.NoError(t, os.WriteFile(over, []byte(valid+strings.Repeat("#", maxTopologyFileSize-len(valid))+"\n"), 0o644))
	_, err = LoadTopology(over)
	require.ErrorIs(t, err, ErrMalformedFile)
	assert.Contains(t, err.Error(), "larger than 4 MiB")
}
