package view_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
)

var dotEdge = regexp.MustCompile(`^\s*"g(\d+)/([^"]+)" -> "g(\d+)/([^"]+)" \[taillabel="p(\d+)", headlabel="p(\d+)"\];$`)

// TestDOT: every non-root node has one cable to its parent, drawn from the
// child, labelled with the child's parent port (as the PHY reports it); the
// root is marked once; every unconnected port has a stub.
func TestDOT(t *testing.T) {
	for _, run := range viewRuns {
		t.Run(run.name, func(t *testing.T) {
			res, _ := runTraced(t, run)
			var buf bytes.Buffer
			require.NoError(t, view.WriteDOT(&buf, res))
			out := buf.String()
			assert.Contains(t, out, fmt.Sprintf(`label="fwsim run: seed %d,`, res.Seed))

			edges := map[string]string{} // "g0/child" → "parent p<child port> p<parent port>"
			for _, line := range strings.Split(out, "\n") {
				if m := dotEdge.FindStringSubmatch(line); m != nil {
					require.Equal(t, m[1], m[3], "a cable across generations: %s", line)
					key := "g" + m[1] + "/" + m[2]
					require.NotContains(t, edges, key, "two parents: %s", line)
					edges[key] = fmt.Sprintf("%s p%s p%s", m[4], m[5], m[6])
				}
			}
			wantEdges := 0
			for _, g := range res.Generations {
				assert.Contains(t, out, fmt.Sprintf("subgraph cluster_g%d {", g.Index))
				byID := map[string]bus.NodeResult{}
				for _, n := range g.Nodes {
					byID[n.ID] = n
				}
				cabled := map[string]bool{}
				for _, l := range g.Links {
					if g.Tree == nil {
						// Without a tree the cables are drawn as wired.
						assert.Contains(t, out, fmt.Sprintf(`"g%d/%s" -> "g%d/%s" [dir=none, style=dashed, taillabel="p%d `,
							g.Index, l.Nodes[0], g.Index, l.Nodes[1], l.Ports[0]))
					}
					for end := range 2 {
						cabled[fmt.Sprintf("%s/p%d", l.Nodes[end], l.Ports[end])] = true
					}
				}
				for _, n := range g.Nodes {
					for p, s := range n.Ports {
						stub := fmt.Sprintf(`"g%d/%s:p%d" [label="p%d ncon"`, g.Index, n.ID, p, p)
						if s == phy.PortNotConnected && !cabled[fmt.Sprintf("%s/p%d", n.ID, p)] {
							assert.Contains(t, out, stub)
						} else {
							assert.NotContains(t, out, stub, "a stub on a cabled port")
						}
					}
					if g.Tree == nil {
						assert.NotContains(t, edges, fmt.Sprintf("g%d/%s", g.Index, n.ID))
						continue
					}
					mark := fmt.Sprintf(`"g%d/%s" [label="%s\nphy_ID %d, root", peripheries=2`, g.Index, n.ID, n.ID, n.PhyID)
					if n.Root {
						assert.Contains(t, out, mark)
						assert.NotContains(t, edges, fmt.Sprintf("g%d/%s", g.Index, n.ID), "the root has no parent")
						continue
					}
					assert.NotContains(t, out, mark)
					wantEdges++
					edge, ok := edges[fmt.Sprintf("g%d/%s", g.Index, n.ID)]
					require.True(t, ok, "g%d: no cable from %s", g.Index, n.ID)
					parent, childPort, parentPort := "", 0, 0
					_, err := fmt.Sscanf(edge, "%s p%d p%d", &parent, &childPort, &parentPort)
					require.NoError(t, err)
					assert.Equal(t, n.ParentPort, childPort, "%s's cable leaves from its parent port", n.ID)
					assert.Equal(t, phy.PortChild, byID[parent].Ports[parentPort], "%s's cable reaches a child port of %s", n.ID, parent)
				}
			}
			assert.Len(t, edges, wantEdges)
		})
	}
}

// TestDOTRenders feeds every golden DOT file to Graphviz when it is
// installed.
func TestDOTRenders(t *testing.T) {
	for _, run := range viewRuns {
		res, _ := runTraced(t, run)
		var buf bytes.Buffer
		require.NoError(t, view.WriteDOT(&buf, res))
		renderDOT(t, buf.Bytes())
	}
}

func renderDOT(t *testing.T, dot []byte) []byte {
	t.Helper()
	path, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not on PATH (apt-get install graphviz): the DOT tests check the text without it")
	}
	cmd := exec.Command(path, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	svg, err := cmd.Output()
	require.NoError(t, err, "dot: %s", stderr.String())
	assert.Empty(t, stderr.String(), "dot warns")
	assert.Contains(t, string(svg), "<svg")
	return svg
}

// TestDOTStacksGenerations: the six generations of the hot-plug example are
// drawn one above the other, each generation's nodes below the one
// before's, so the picture is taller than wide and fits a screen's width
// (side by side it was 3560 px wide).
func TestDOTStacksGenerations(t *testing.T) {
	res, _ := runTraced(t, viewRuns[2])
	require.Equal(t, "hotplug", viewRuns[2].name)
	var buf bytes.Buffer
	require.NoError(t, view.WriteDOT(&buf, res))
	for i := 1; i < len(res.Generations); i++ {
		assert.Contains(t, buf.String(), fmt.Sprintf("\"between g%d and g%d\"", i-1, i))
	}
	assert.Contains(t, buf.String(), "labelangle=35", "port labels beside the arrowheads")
	svg := renderDOT(t, buf.Bytes())
	m := regexp.MustCompile(`<svg width="(\d+)pt" height="(\d+)pt"`).FindSubmatch(svg)
	require.NotNil(t, m)
	width, _ := strconv.Atoi(string(m[1]))
	height, _ := strconv.Atoi(string(m[2]))
	assert.Less(t, width*4/3, 1400, "px wide")
	assert.Greater(t, height, width, "stacked: taller than wide")
}
