package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/mutex"
)

// The JSON Schemas in docs/schema are generated from the types each command
// encodes, with the Go comments of their fields as descriptions:
// TestSchemasAreCurrent fails when a type changes and the schema does not
// (go test ./cmd/fwsim -run TestSchemasAreCurrent -update rewrites them),
// and TestOutputsMatchTheirSchemas validates real outputs of every command
// against them, so that a field cannot change silently.

// schemaDir holds the schemas, relative to this package.
const schemaDir = "../../docs/schema"

// outputTypes are the values each command writes with --json (several for
// a command with several kinds of output).
var outputTypes = map[string][]any{
	"run":        {bus.ResultJSON{}},
	"analyze":    {analysis.Summary{}},
	"merge":      {analysis.Summary{}},
	"sweep":      {sweep.JSON{}},
	"elect":      {election.JSON{}, election.CompareJSON{}, election.SweepJSON{}},
	"decode":     {hwtest.DecodeJSON{}},
	"crosscheck": {hwtest.CrosscheckJSON{}},
	"probe":      {hwtest.ProbeJSON{}, hwtest.USBListJSON{}, hwtest.DecodeJSON{}},
	"explore":    {explore.JSON{}},
	"mutex":      {mutex.JSON{}, mutex.CompareJSON{}},
	"multicast":  {multicast.JSON{}, multicast.CompareJSON{}},
	"linestates": {hwtest.LinestatesJSON{}},
}

var outputTitles = map[string]string{
	"run":        "fwsim run --json: one run, every generation of it",
	"analyze":    "fwsim analyze --json (and every shard of --shard): the summary of many runs",
	"merge":      "fwsim merge: the summary of an analysis from its shards, as analyze writes it",
	"sweep":      "fwsim sweep --json: the summary at every point of a parameter grid",
	"elect":      "fwsim elect --json: one election, with --compare a row per algorithm, or with --sweep a row per case and size",
	"decode":     "fwsim decode --json: the buses of a capture",
	"crosscheck": "fwsim crosscheck --json: a capture against the emulation of its buses",
	"probe":      "fwsim probe --json: the local bus; with --usb list the USB devices; with --usb a capture device's stream, as decode writes it",
	"explore":    "fwsim explore --json: every reachable outcome, deadline probabilities and expectations, exact or as bounds",
	"mutex":      "fwsim mutex --json: one mutual-exclusion run, or with --compare a row per algorithm",
	"multicast":  "fwsim multicast --json: one reliable multicast run, or with --compare a row per algorithm",
	"linestates": "fwsim linestates --json: a logic analyzer's capture of the line states, and its comparison with an emulation",
}

// schemaOverrides are the types that encode themselves.
var schemaOverrides = map[reflect.Type]map[string]any{
	reflect.TypeFor[analysis.Bin](): {
		"description": "[value, count]: a distinct value and how many runs had it",
		"type":        "array", "items": map[string]any{"type": "integer"}, "minItems": 2, "maxItems": 2,
	},
}

// fieldDocs reads the comments of struct fields from the Go sources of the
// packages the output types use, keyed "import/path.Type.Field".
type fieldDocs map[string]string

func (d fieldDocs) load(t *testing.T, pkgPath string) {
	t.Helper()
	if _, done := d[pkgPath]; done {
		return
	}
	d[pkgPath] = ""
	const module = "github.com/fwsim/fwsim/"
	dir := filepath.Join("../..", strings.TrimPrefix(pkgPath, module))
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok {
				return true
			}
			// A comment above a run of fields with no blank line between
			// them documents each field of the run that has none of its own,
			// e.g. "Mean and Std are ..." above Mean and Std.
			groupDoc, prevLine := "", -1
			for _, field := range st.Fields.List {
				line := fset.Position(field.Pos()).Line
				if field.Doc != nil {
					groupDoc = field.Doc.Text()
				} else if line != prevLine+1 {
					groupDoc = ""
				}
				prevLine = fset.Position(field.End()).Line
				if len(field.Names) == 0 {
					groupDoc = "" // an embedded struct's comment is not about the fields after it
					continue
				}
				doc := field.Comment.Text()
				if field.Doc != nil || doc == "" {
					doc = strings.TrimSpace(groupDoc + " " + doc)
				}
				for _, name := range field.Names {
					d[pkgPath+"."+spec.Name.Name+"."+name.Name] = strings.Join(strings.Fields(doc), " ")
				}
			}
			return true
		})
	}
}

// schemaOf is the JSON Schema of what encoding/json writes for t.
func (d fieldDocs) schemaOf(t *testing.T, typ reflect.Type) map[string]any {
	if s, ok := schemaOverrides[typ]; ok {
		return s
	}
	switch typ.Kind() {
	case reflect.Pointer:
		s := d.schemaOf(t, typ.Elem())
		nullable := map[string]any{}
		for k, v := range s {
			nullable[k] = v
		}
		nullable["type"] = []any{s["type"], "null"}
		return nullable
	case reflect.Struct:
		props, required := map[string]any{}, []string{}
		d.fields(t, typ, props, &required)
		sort.Strings(required)
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": d.schemaOf(t, typ.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": d.schemaOf(t, typ.Elem()), "minItems": typ.Len(), "maxItems": typ.Len()}
	case reflect.Map:
		require.Equal(t, reflect.String, typ.Key().Kind(), "%s: JSON object keys are strings", typ)
		return map[string]any{"type": "object", "additionalProperties": d.schemaOf(t, typ.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	t.Fatalf("no JSON Schema for %s", typ)
	return nil
}

// fields adds the JSON fields of struct typ, embedded structs inlined. As
// encoding/json does, a field hides the fields of the same name that lie
// deeper in embedded structs, so the structs are read a depth at a time.
func (d fieldDocs) fields(t *testing.T, typ reflect.Type, props map[string]any, required *[]string) {
	for level := []reflect.Type{typ}; len(level) > 0; {
		var deeper []reflect.Type
		for _, typ := range level {
			deeper = append(deeper, d.ownFields(t, typ, props, required)...)
		}
		level = deeper
	}
}

// ownFields adds the fields of typ that are not embedded structs, unless a
// field no deeper took their name first, and returns the embedded structs.
func (d fieldDocs) ownFields(t *testing.T, typ reflect.Type, props map[string]any, required *[]string) []reflect.Type {
	d.load(t, typ.PkgPath())
	var embedded []reflect.Type
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			embedded = append(embedded, f.Type)
			continue
		}
		name := f.Name
		if tag != "" {
			name = tag
		}
		if _, taken := props[name]; taken {
			continue
		}
		doc := d[typ.PkgPath()+"."+typ.Name()+"."+f.Name]
		if doc == "" {
			t.Errorf("%s.%s (%q) has no comment, which its description in the schema would be", typ, f.Name, name)
		}
		withDoc := map[string]any{"description": jsonNames(typ, doc)}
		for k, v := range d.schemaOf(t, f.Type) {
			withDoc[k] = v
		}
		if f.Type.Kind() == reflect.Map {
			keys, known := mapKeys()[typ.PkgPath()+"."+typ.Name()+"."+f.Name]
			if !known {
				t.Errorf("%s.%s (%q) is a map: say in mapKeys which keys it has, or nil for keys no list holds", typ, f.Name, name)
			}
			if keys != nil {
				withDoc["propertyNames"] = map[string]any{"enum": keys}
			}
		}
		props[name] = withDoc
		if !strings.Contains(opts, "omitempty") {
			*required = append(*required, name)
		}
	}
	return embedded
}

// mapKeys are the keys each map field of an output may have, so that the
// schema lists them (propertyNames) and a key renamed in the code fails
// validation: by package path, type and field. nil marks keys no list
// holds (the nodes of a bus).
func mapKeys() map[string][]string {
	var types []string
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(types, n) {
				types = append(types, n)
			}
		}
	}
	for _, a := range election.Algorithms() {
		add(a.Types...)
	}
	for _, a := range mutex.Algorithms() {
		add(a.Types...)
	}
	add("NOTE") // mutex's notice to the waiting (--notify)
	for _, a := range multicast.Algorithms() {
		add(a.Types...)
	}
	slices.Sort(types)
	var outcomes []string
	for _, o := range bus.Outcomes {
		outcomes = append(outcomes, string(o))
	}
	return map[string][]string{
		"github.com/fwsim/fwsim/lab/netsim.CountJSON.ByType":       types,
		"github.com/fwsim/fwsim/explore.JSON.Expected":             bus.MetricNames,
		"github.com/fwsim/fwsim/analysis.Summary.Metrics":          bus.MetricNames,
		"github.com/fwsim/fwsim/analysis.Summary.Roots":            nil,
		"github.com/fwsim/fwsim/analysis.Summary.Failures":         outcomes,
		"github.com/fwsim/fwsim/analysis/sweep.PointJSON.Values":   sweep.ParamNames(),
		"github.com/fwsim/fwsim/analysis/sweep.PointJSON.Failures": outcomes,
		"github.com/fwsim/fwsim/analysis/sweep.PointJSON.Metrics":  bus.MetricNames,
	}
}

// jsonNames replaces the Go names of typ's fields, as its comments use
// them, with the names JSON readers see, e.g. CauseKind with cause_kind.
// Abbreviations (ID, IDs, N, CI95) stay: as words they mean the same, and
// "self-ID" is no field.
func jsonNames(typ reflect.Type, doc string) string {
	abbreviation := regexp.MustCompile(`^[A-Z0-9]+s?$`)
	names := map[string]string{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" && !abbreviation.MatchString(f.Name) {
			names[f.Name] = tag
		}
	}
	if len(names) == 0 {
		return doc
	}
	words := regexp.MustCompile(`\b(` + strings.Join(slices.Sorted(maps.Keys(names)), "|") + `)\b`)
	return words.ReplaceAllStringFunc(doc, func(name string) string { return names[name] })
}

// schemaFor is the whole schema document of command.
func schemaFor(t *testing.T, command string) []byte {
	docs := fieldDocs{}
	var variants []any
	for _, v := range outputTypes[command] {
		variants = append(variants, docs.schemaOf(t, reflect.TypeOf(v)))
	}
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://github.com/fwsim/fwsim/docs/schema/" + command + ".json",
		"title":   outputTitles[command],
		"description": fmt.Sprintf("Generated from the Go types of the output (schema_version %d); times ending in _ns are integer nanoseconds.",
			bus.SchemaVersion),
	}
	if len(variants) == 1 {
		for k, v := range variants[0].(map[string]any) {
			doc[k] = v
		}
	} else {
		doc["oneOf"] = variants
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}

func TestSchemasAreCurrent(t *testing.T) {
	for _, command := range slices.Sorted(maps.Keys(outputTypes)) {
		got := schemaFor(t, command)
		path := filepath.Join(schemaDir, command+".json")
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "missing schema; run go test ./cmd/fwsim -run TestSchemasAreCurrent -update")
		assert.Equal(t, string(want), string(got), "%s is not the schema of the current types; run go test ./cmd/fwsim -run TestSchemasAreCurrent -update and review the diff", path)
	}
}

// validate checks doc against schema, for the keywords the generated
// schemas use; any other keyword is an error, so a schema cannot rely on
// one the check ignores. It returns every violation with its JSON path.
func validate(schema map[string]any, doc any, path string) []string {
	var problems []string
	for k := range schema {
		switch k {
		case "$schema", "$id", "title", "description", "type", "properties", "required", "additionalProperties",
			"items", "minItems", "maxItems", "minimum", "oneOf", "propertyNames":
		default:
			return []string{fmt.Sprintf("%s: the schema uses %q, which the check does not know", path, k)}
		}
	}
	if variants, ok := schema["oneOf"].([]any); ok {
		matching, first := 0, []string(nil)
		for _, v := range variants {
			p := validate(v.(map[string]any), doc, path)
			if len(p) == 0 {
				matching++
			} else if first == nil {
				first = p
			}
		}
		if matching != 1 {
			return append([]string{fmt.Sprintf("%s: matches %d of the %d variants, not one", path, matching, len(variants))}, first...)
		}
	}
	if typ, ok := schema["type"]; ok && !typeMatches(typ, doc) {
		return []string{fmt.Sprintf("%s: %s, want %v", path, jsonType(doc), typ)}
	}
	switch v := doc.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, name := range asStrings(schema["required"]) {
			if _, ok := v[name]; !ok {
				problems = append(problems, fmt.Sprintf("%s: no %q", path, name))
			}
		}
		if names, ok := schema["propertyNames"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(v)) {
				if !slices.Contains(asStrings(names["enum"]), name) {
					problems = append(problems, fmt.Sprintf("%s: key %q is not one of %v", path, name, names["enum"]))
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(v)) {
			sub, ok := props[name].(map[string]any)
			if !ok {
				switch extra := schema["additionalProperties"].(type) {
				case bool:
					if !extra {
						problems = append(problems, fmt.Sprintf("%s: %q is not in the schema", path, name))
					}
					continue
				case map[string]any:
					sub = extra
				default:
					continue
				}
			}
			problems = append(problems, validate(sub, v[name], path+"."+name)...)
		}
	case []any:
		if n, ok := schema["minItems"].(float64); ok && float64(len(v)) < n {
			problems = append(problems, fmt.Sprintf("%s: %d items, want at least %v", path, len(v), n))
		}
		if n, ok := schema["maxItems"].(float64); ok && float64(len(v)) > n {
			problems = append(problems, fmt.Sprintf("%s: %d items, want at most %v", path, len(v), n))
		}
		if items, ok := schema["items"].(map[string]any); ok {
			for i, item := range v {
				problems = append(problems, validate(items, item, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case float64:
		if m, ok := schema["minimum"].(float64); ok && v < m {
			problems = append(problems, fmt.Sprintf("%s: %v, want at least %v", path, v, m))
		}
	}
	return problems
}

func typeMatches(want, doc any) bool {
	if list, ok := want.([]any); ok {
		return slices.ContainsFunc(list, func(w any) bool { return typeMatches(w, doc) })
	}
	got := jsonType(doc)
	return got == want || (want == "number" && got == "integer")
}

func jsonType(doc any) string {
	switch v := doc.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func asStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		out = append(out, s.(string))
	}
	return out
}

func loadSchema(t *testing.T, command string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaDir, command+".json"))
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

func decodeJSONDoc(t *testing.T, text string) any {
	t.Helper()
	var doc any
	d := json.NewDecoder(strings.NewReader(text))
	require.NoError(t, d.Decode(&doc), "%.300s", text)
	return doc
}

// TestOutputsMatchTheirSchemas runs every command in its JSON variants and
// validates what it wrote.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	dir := t.TempDir()
	shards := writeShards(t, dir, []string{"analyze", "--gen", "pair", "--runs", "40", "--deadline", "1us"}, "1/2", "2/2")
	cases := map[string][][]string{
		"run": {
			{"run", "--gen", "pair", "--json"},
			{"run", "--gen", "ring:3", "--json"},
			{"run", "--topology", "../../examples/hotplug.yaml", "--json"},
			{"run", "--topology", "../../examples/default.yaml", "--force-root", "camera", "--json"},
		},
		"analyze": {
			{"analyze", "--gen", "pair", "--runs", "50", "--deadline", "1us", "--json"},
			{"analyze", "--gen", "ring:3", "--runs", "3", "--json"},
			{"analyze", "--gen", "pair", "--runs", "40", "--shard", "1/2"},
		},
		"merge":  {append([]string{"merge", "--json"}, shards...)},
		"sweep":  {{"sweep", "--gen", "pair", "--param", "delay=0..200:100", "--runs", "20", "--deadline", "2us", "--json"}},
		"decode": {},
		"crosscheck": {{"crosscheck", "--capture", captures + "ohci-two-resets.log", "--max-states", "0", "--json"}, {"crosscheck", "--capture", captures + "raw-port-absent.txt", "--max-states", "0", "--json"},
			{"crosscheck", "--capture", "testdata/crosscheck/chain3.txt", "--json"}},
		"elect": {{"elect", "--compare", "--gen", "ring:5", "--json"}, {"elect", "--sweep", "n=2..20", "--max-messages", "100", "--json"}},
		"mutex": {
			{"mutex", "--compare", "--gen", "ring:5", "--lose-token-at", "2", "--json"},
			{"mutex", "--algo", "central", "--gen", "tree:6:2", "--crash", "n0@1", "--trace-table", "--json"},
			{"mutex", "--algo", "ricart-agrawala", "--gen", "ring:4", "--crash", "n1@3", "--request-reply", "--json"},
			{"mutex", "--algo", "token-ring", "--gen", "ring:4", "--lose-token-at", "1", "--json"},
		},
		"multicast": {
			{"multicast", "--compare", "--gen", "ring:6", "--messages", "8", "--loss", "0.1", "--crash", "n2@3", "--join", "n5@1", "--stop", "--json"},
			{"multicast", "--compare", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--json"},
			{"multicast", "--algo", "ack", "--gen", "ring:5", "--messages", "3", "--loss", "0.3", "--crash", "n2@1", "--trace-table", "--json"},
			{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--json"},
			{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--stop", "--json"},
			{"multicast", "--algo", "srm", "--gen", "ring:8", "--messages", "10", "--loss", "0.2", "--stop", "--json"},
			{"multicast", "--algo", "vsync", "--gen", "ring:6", "--messages", "8", "--loss", "0.3", "--crash", "n0@3.5", "--join", "n5@1", "--leave", "n2@2", "--trace-table", "--json"},
		},
		"linestates": {
			{"linestates", sigrokPair, "--json"},
			{"linestates", sigrokPair, "--gen", "pair", "--seed", "8", "--json"},
			{"linestates", labCapture, "--channels", "@" + labMapFile, "--gen", "chain:3", "--json"},
		},
		"explore": {
			{"explore", "--gen", "pair", "--clock", "ideal", "--timing", "max", "--deadline", "2us", "--json"},
			{"explore", "--gen", "pair", "--clock", "ideal", "--max-states", "20", "--json"},
		},
	}
	for algo, gen := range map[string]string{"chang-roberts": "ring:5", "lelann": "ring:5", "anonymous": "ring:5",
		"bully": "complete:5", "echo": "tree:6:2", "floodmax": "tree:6:2", "1394": "tree:6:2"} {
		cases["elect"] = append(cases["elect"], []string{"elect", "--algo", algo, "--gen", gen, "--trace-table", "--json"})
	}
	// Every capture format, and captures with problems.
	captureFiles, err := filepath.Glob(captures + "*.*")
	require.NoError(t, err)
	for _, file := range captureFiles {
		cases["decode"] = append(cases["decode"], []string{"decode", file, "--json"})
	}
	// The probe reaches the fake devices.
	fakeSystem(t, nil)
	fakeUSBCapture(t)
	cases["probe"] = [][]string{{"probe", "--json"}, {"probe", "--usb", "list", "--json"}, {"probe", "--usb", "1d50:6018,2", "--duration", "20ms", "--json"}}
	checked := 0
	for command, runs := range cases {
		schema := loadSchema(t, command)
		for _, args := range runs {
			_, stdout, stderr := runCLI(t, args...)
			require.NotEmpty(t, stdout, "%v: %s", args, stderr)
			doc := decodeJSONDoc(t, stdout)
			assert.Empty(t, validate(schema, doc, "$"), "%v", args)
			assertVersions(t, doc, args)
			checked++
		}
	}
	assert.Greater(t, checked, 30)
}

// assertVersions checks the two fields every JSON output starts with: the
// schema version of this fwsim and the fwsim that wrote it.
func assertVersions(t *testing.T, doc any, args []string) {
	t.Helper()
	top, ok := doc.(map[string]any)
	require.True(t, ok, "%v: not an object", args)
	assert.Equal(t, float64(bus.SchemaVersion), top["schema_version"], "%v", args)
	assert.NotEmpty(t, top["fwsim_version"], "%v", args)
	assert.Equal(t, bus.FwsimVersion(), top["fwsim_version"], "%v", args)
}

// The check fails a document with a field the schema does not have, one
// without a required field, and one with a value of the wrong type.
func TestSchemaCheckCanFail(t *testing.T) {
	schema := loadSchema(t, "run")
	_, stdout, _ := runCLI(t, "run", "--gen", "pair", "--json")
	good := decodeJSONDoc(t, stdout).(map[string]any)
	require.Empty(t, validate(schema, good, "$"))
	edit := func(change func(m map[string]any)) any {
		var b bytes.Buffer
		require.NoError(t, json.NewEncoder(&b).Encode(good))
		doc := decodeJSONDoc(t, b.String()).(map[string]any)
		change(doc)
		return doc
	}
	assert.Contains(t, validate(schema, edit(func(m map[string]any) { m["extra"] = 1 }), "$"), `$: "extra" is not in the schema`)
	assert.Contains(t, validate(schema, edit(func(m map[string]any) { delete(m, "seed") }), "$"), `$: no "seed"`)
	assert.Contains(t, validate(schema, edit(func(m map[string]any) { m["seed"] = "7" }), "$"), `$.seed: string, want integer`)
	nested := edit(func(m map[string]any) { m["nodes"].([]any)[0].(map[string]any)["phy_id"] = 1.5 })
	assert.NotEmpty(t, validate(schema, nested, "$"))
	assert.Equal(t, []string{`$: the schema uses "pattern", which the check does not know`}, validate(map[string]any{"pattern": "x"}, 1, "$"))
}

// A map whose keys are known lists them in its schema, so a key renamed in
// the code fails validation: a metric of analyze, an outcome of sweep's
// failures, a message type of a lab's counts.
func TestRenamedMapKeyFailsValidation(t *testing.T) {
	rename := func(t *testing.T, command string, args []string, path []string, from, to string) {
		t.Helper()
		schema := loadSchema(t, command)
		_, stdout, _ := runCLI(t, args...)
		doc := decodeJSONDoc(t, stdout)
		require.Empty(t, validate(schema, doc, "$"), "%v", args)
		m := doc.(map[string]any)
		for _, p := range path {
			m = m[p].(map[string]any)
		}
		require.Contains(t, m, from, "%v", args)
		m[to], m[from] = m[from], nil
		delete(m, from)
		problems := validate(schema, doc, "$")
		assert.NotEmpty(t, problems, "%v: %s renamed %s", args, from, to)
		assert.Contains(t, strings.Join(problems, "\n"), fmt.Sprintf("key %q is not one of", to), "%v", args)
	}
	rename(t, "analyze", []string{"analyze", "--gen", "pair", "--runs", "20", "--json"}, []string{"metrics"}, "tree_id_ns", "tree_id")
	rename(t, "analyze", []string{"analyze", "--gen", "pair", "--runs", "20", "--json"}, []string{"failures"}, "stalled", "stall")
	rename(t, "mutex", []string{"mutex", "--algo", "central", "--gen", "ring:4", "--json"}, []string{"messages", "by_type"}, "REQUEST", "REQ")
	rename(t, "explore", []string{"explore", "--gen", "pair", "--max-states", "20", "--json"}, []string{"expected"}, "self_id_ns", "selfid_ns")
}
