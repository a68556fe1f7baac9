package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
// module or the standard library.
func local(path string) string {
	if path == module {
		return "."
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return rel
}

// TestNothingImportsALayerAbove holds every package's imports against the
// allow-list, its external tests' against the layers, and the allow-list
// against the layers.
func TestNothingImportsALayerAbove(t *testing.T) {
	rules := readRules(t, "../../docs/architecture.md")
	for name, r := range rules {
		for _, imp := range r.mayImport {
			below, ok := rules[imp]
			require.True(t, ok, "docs/architecture.md: %s may import %s, which has no row", name, imp)
			require.LessOrEqual(t, below.layer, r.layer,
				"docs/architecture.md: %s (layer %d) may import %s of layer %d, above it", name, r.layer, imp, below.layer)
		}
	}
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		name := local(p.ImportPath)
		r, ok := rules[name]
		if !ok {
			t.Errorf("%s has no row in docs/architecture.md's allow-list: give it its layer and imports there", name)
			continue
		}
		seen[name] = true
		for _, imp := range p.Imports {
			if imp = local(imp); imp != "" && !slices.Contains(r.mayImport, imp) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow it", name, imp)
			}
		}
		// Tests may import what the package may, the packages their row
		// names, and (external tests, which stand outside the package as a
		// user does) any package of the package's layer or below, e.g. phy's
		// tests drive a PHY with treeid's election.
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			imp = local(imp)
			below, known := rules[imp]
			ok := imp == "" || imp == name || slices.Contains(r.mayImport, imp) || slices.Contains(r.testsAlso, imp) ||
				(slices.Contains(p.XTestImports, module+"/"+imp) && known && below.layer <= r.layer)
			if !ok {
				t.Errorf("%s's tests import %s, which docs/architecture.md does not allow them", name, imp)
			}
		}
	}
	for name := range rules {
		if !seen[name] {
			t.Errorf("docs/architecture.md lists %s, which go list does not find", name)
		}
	}
}
