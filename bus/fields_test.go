package bus

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fields of the topology format, by path as the docs spell them:
// "timing.clock_hz", "nodes[].uid", "events[].connect.length_m". The fuzz
// targets' seeds must hold an example of each, so that the fuzzer starts
// from every field.

// undocumentedFields are fields of the Go types that the format forbids: a
// disconnect names ports only (docs/topology.md), and an invalid fixture
// tries it.
var undocumentedFields = []string{"events[].disconnect.length_m", "events[].disconnect.delay_ns"}

// topologyFields lists every field a topology file can hold.
func topologyFields() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i, name := range fieldNames(t) {
			if name == "" {
				continue
			}
			path, ft := joinPath(prefix, name), t.Field(i).Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Slice {
				ft, path = ft.Elem(), path+"[]"
			}
			if ft.Kind() == reflect.Struct && !slices.Contains(undocumentedFields, path) {
				walk(ft, path)
			} else if !slices.Contains(undocumentedFields, path) {
				out = append(out, path)
			}
		}
	}
	walk(reflect.TypeFor[Topology](), "")
	return out
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// fieldsSet adds the path of every field topo sets to set: a pointer that
// is not nil (link: false sets link), any other value that is not zero.
func fieldsSet(topo *Topology, set map[string]bool) {
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for i, name := range fieldNames(v.Type()) {
			if name == "" {
				continue
			}
			path, f := joinPath(prefix, name), v.Field(i)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					continue
				}
				f = f.Elem()
				if f.Kind() != reflect.Struct {
					set[path] = true
					continue
				}
			}
			switch f.Kind() {
			case reflect.Slice:
				for j := range f.Len() {
					walk(f.Index(j), path+"[]")
				}
			case reflect.Struct:
				walk(f, path)
			default:
				if !f.IsZero() {
					set[path] = true
				}
			}
		}
	}
	walk(reflect.ValueOf(topo).Elem(), "")
}

// missingFields lists the fields of the format no topology of topos sets.
func missingFields(topos ...*Topology) []string {
	set := map[string]bool{}
	for _, topo := range topos {
		fieldsSet(topo, set)
	}
	var missing []string
	for _, path := range topologyFields() {
		if !set[path] {
			missing = append(missing, path)
		}
	}
	return missing
}

// TestEveryFieldFile reads the file of every field in both formats: each
// field decodes (the fields of every type the format uses), both formats
// give the same topology, and it is valid and runs.
func TestEveryFieldFile(t *testing.T) {
	var topos []*Topology
	for _, name := range []string{"every-field.yaml", "every-field.json"} {
		topo, err := LoadTopology("testdata/" + name)
		require.NoError(t, err)
		assert.Empty(t, missingFields(topo), "%s leaves fields out", name)
		require.NoError(t, topo.Validate(ResolveOptions{}), name)
		_, err = Run(topo, Options{Seed: 1})
		require.NoError(t, err, name)
		topos = append(topos, withoutSource(topo))
	}
	assert.Equal(t, topos[0], topos[1], "the YAML and the JSON file differ")
}

// TestScenarioSeedsReachEveryField: the seeds of the scenario fuzz targets
// build buses that, together, set every field of the format.
func TestScenarioSeedsReachEveryField(t *testing.T) {
	var topos []*Topology
	for _, seed := range ScenarioSeeds {
		topo, o := ScenarioFromBytes(seed)
		_, err := Run(topo, o)
		require.NoError(t, err, "seed %x", seed)
		topos = append(topos, topo)
	}
	assert.Empty(t, missingFields(topos...))
}

// docField is a field name as the docs write one: in backquotes.
var docField = regexp.MustCompile("`([a-z_]+)`")

// TestDocsListEveryField: docs/topology.md names every field of the format.
func TestDocsListEveryField(t *testing.T) {
	doc, err := os.ReadFile("../docs/topology.md")
	require.NoError(t, err)
	named := map[string]bool{}
	for _, m := range docField.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	for _, path := range topologyFields() {
		for _, name := range strings.Split(strings.ReplaceAll(path, "[]", ""), ".") {
			assert.True(t, named[name], "docs/topology.md does not name %s (of %s)", name, path)
		}
	}
}
