package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/fwsim/fwsim"

// rule is one row of the table: a package's layer (its rank in the stack,
// 0 at the bottom), the fwsim packages it may import, and those its tests
// may import besides (a round trip through a layer above, named so in the
// table).
type rule struct {
	layer     int
	mayImport []string
	testsAlso []string
}

// readRules parses the table under "## The allow-list" in
// docs/architecture.md: | `package` | layer | `a`, `b` or — | `c` or — |.
// The layer cell starts with the layer's number.
func readRules(t *testing.T, path string) map[string]rule {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rules := map[string]rule{}
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## The allow-list"
			continue
		case !in || !strings.HasPrefix(line, "| `"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 4, "%s:%d: want | `package` | layer | imports | tests also import |", path, n)
		name := strings.Trim(strings.TrimSpace(cells[0]), "`")
		var r rule
		layer := strings.Fields(cells[1])
		require.NotEmpty(t, layer, "%s:%d: %s: no layer", path, n, name)
		r.layer, err = strconv.Atoi(layer[0])
		require.NoError(t, err, "%s:%d: %s: layer %q: want a number first", path, n, name, cells[1])
		r.mayImport, r.testsAlso = packageList(cells[2]), packageList(cells[3])
		_, dup := rules[name]
		require.False(t, dup, "%s:%d: %s has two rows", path, n, name)
		rules[name] = r
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rules, "%s: no allow-list table", path)
	return rules
}

// packageList reads "`a`, `b`" or "—" (none); text after the packages, in
// parentheses, is the reason and is skipped.
func packageList(cell string) []string {
	cell, _, _ = strings.Cut(cell, "(")
	var out []string
	for _, imp := range strings.Split(cell, ",") {
		if imp = strings.Trim(strings.TrimSpace(imp), "`"); imp != "—" && imp != "" {
			out = append(out, imp)
		}
	}
	return out
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
}

// local is path relative to the module, or "" for a package of another
// module or the standard library. A package built for a main package with
// a profile (cmd/fwsim's default.pgo) is listed as "path [main]": the
// suffix goes.
func local(path string) string {
	path, _, _ = strings.Cut(path, " ")
	if path == module {
		return "."
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return rel
}

// violations are the breaches of the allow-list rules by pkgs, and of the
// layers by rules itself, one message each.
func violations(rules map[string]rule, pkgs []pkg) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		r := rules[name]
		for _, imp := range r.mayImport {
			if below, ok := rules[imp]; !ok {
				out = append(out, fmt.Sprintf("docs/architecture.md: %s may import %s, which has no row", name, imp))
			} else if below.layer > r.layer {
				out = append(out, fmt.Sprintf("docs/architecture.md: %s (layer %d) may import %s of layer %d, above it", name, r.layer, imp, below.layer))
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := local(p.ImportPath)
		r, ok := rules[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s has no row in docs/architecture.md's allow-list: give it its layer and imports there", name))
			continue
		}
		seen[name] = true
		for _, imp := range p.Imports {
			if imp = local(imp); imp != "" && !slices.Contains(r.mayImport, imp) {
				out = append(out, fmt.Sprintf("%s imports %s, which docs/architecture.md does not allow it", name, imp))
			}
		}
		// Tests may import what the package may and what their row names;
		// external tests (package x_test), which stand outside the package
		// as a user does, also any package of its layer or below, e.g.
		// phy's tests drive a PHY with treeid's election.
		external := map[string]bool{}
		for _, imp := range p.XTestImports {
			external[local(imp)] = true
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			imp = local(imp)
			below, known := rules[imp]
			if imp == "" || imp == name || slices.Contains(r.mayImport, imp) || slices.Contains(r.testsAlso, imp) ||
				(external[imp] && known && below.layer <= r.layer) {
				continue
			}
			out = append(out, fmt.Sprintf("%s's tests import %s, which docs/architecture.md does not allow them", name, imp))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		if !seen[name] {
			out = append(out, fmt.Sprintf("docs/architecture.md lists %s, which go list does not find", name))
		}
	}
	return out
}

// TestNothingImportsALayerAbove holds every package of the module against
// docs/architecture.md's allow-list.
func TestNothingImportsALayerAbove(t *testing.T) {
	for _, v := range violations(readRules(t, "../../docs/architecture.md"), listPackages(t)) {
		t.Error(v)
	}
}

// TestViolationsAreFound: each kind of breach is reported, so that the
// test above can fail.
func TestViolationsAreFound(t *testing.T) {
	rules := map[string]rule{
		"phy":  {layer: 1},
		"bus":  {layer: 2, mayImport: []string{"phy"}},
		"view": {layer: 6, mayImport: []string{"bus"}},
		"lab":  {layer: 4, mayImport: []string{"view"}}, // a row that lets a lab import a view
	}
	pkgs := []pkg{
		{ImportPath: module + "/phy"},
		{ImportPath: module + "/bus", Imports: []string{"fmt", module + "/phy", module + "/view [" + module + "/cmd/fwsim]"}},
		{ImportPath: module + "/view", Imports: []string{module + "/bus"}, XTestImports: []string{module + "/phy"}},
		{ImportPath: module + "/lab", TestImports: []string{module + "/view"}, XTestImports: []string{module + "/cmd"}},
		{ImportPath: module + "/cmd"},
	}
	require.Equal(t, []string{
		"docs/architecture.md: lab (layer 4) may import view of layer 6, above it",
		"bus imports view, which docs/architecture.md does not allow it",
		"lab's tests import cmd, which docs/architecture.md does not allow them",
		"cmd has no row in docs/architecture.md's allow-list: give it its layer and imports there",
	}, violations(rules, pkgs))
}
