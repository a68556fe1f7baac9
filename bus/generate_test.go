package bus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// degrees counts each node's cables, in node order.
func degrees(t *testing.T, rt *resolvedTopology) []int {
	t.Helper()
	d := make([]int, len(rt.nodes))
	for _, c := range rt.cables {
		d[c.a.node]++
		d[c.b.node]++
	}
	return d
}

func repeat(n, v int) []int { return slices.Repeat([]int{v}, n) }

func TestGeneratorShapes(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		ports   []int
		cables  int
		degrees []int
	}{
		{"pair", []int{1, 1}, 1, []int{1, 1}},
		{"chain:1", []int{2}, 0, []int{0}},
		{"chain:4", repeat(4, 2), 3, []int{1, 2, 2, 1}},
		{"star:2", []int{1, 1}, 1, []int{1, 1}},
		{"star:5", []int{4, 1, 1, 1, 1}, 4, []int{4, 1, 1, 1, 1}},
		{"tree:1", []int{3}, 0, []int{0}},
		{"ring:2", []int{2, 2}, 2, []int{2, 2}},
		{"ring:5", repeat(5, 2), 5, repeat(5, 2)},
		{"complete:2", []int{1, 1}, 1, []int{1, 1}},
		{"complete:5", repeat(5, 4), 10, repeat(5, 4)},
		{"complete:17", repeat(17, 16), 136, repeat(17, 16)},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			topo, err := Generate(tc.spec)
			require.NoError(t, err)
			rt := mustResolve(t, topo, ResolveOptions{})
			var ports []int
			for _, n := range rt.nodes {
				ports = append(ports, n.ports)
			}
			assert.Equal(t, tc.ports, ports)
			assert.Len(t, rt.cables, tc.cables)
			assert.Equal(t, tc.degrees, degrees(t, rt))
			for _, c := range topo.Cables {
				assert.Nil(t, c.LengthM, "generated cables take the default length")
			}
		})
	}
}

func TestGeneratorCabling(t *testing.T) {
	chain, err := Generate("chain:3")
	require.NoError(t, err)
	assert.Equal(t, []Cable{{From: "n0:1", To: "n1:0"}, {From: "n1:1", To: "n2:0"}}, chain.Cables)
	ring, err := Generate("ring:3")
	require.NoError(t, err)
	assert.Equal(t, Cable{From: "n2:1", To: "n0:0"}, ring.Cables[2])
	complete, err := Generate("complete:3")
	require.NoError(t, err)
	assert.Equal(t, []Cable{{From: "n0:0", To: "n1:0"}, {From: "n0:1", To: "n2:0"}, {From: "n1:1", To: "n2:1"}}, complete.Cables)
}

func TestTreeGenerator(t *testing.T) {
	for _, n := range []int{2, 10, 63} {
		topo, err := Generate(fmt.Sprintf("tree:%d:42", n))
		require.NoError(t, err)
		rt := mustResolve(t, topo, ResolveOptions{AllowOutOfSpec: true}) // a deep tree may pass 16 hops
		assert.Len(t, rt.cables, n-1)
		assert.False(t, rt.hasLoop)
		for i, c := range rt.cables {
			assert.Equal(t, portRef{i + 1, 0}, c.b, "node i hangs by port 0")
			assert.Less(t, c.a.node, i+1, "from an earlier node")
			assert.Equal(t, 3, rt.nodes[i].ports)
		}
	}

	same, err := Generate("tree:30:7")
	require.NoError(t, err)
	again, err := Generate("tree:30:7")
	require.NoError(t, err)
	assert.Equal(t, same, again)
	other, err := Generate("tree:30:8")
	require.NoError(t, err)
	assert.NotEqual(t, same.Cables, other.Cables)
	defaultSeed, err := Generate("tree:30")
	require.NoError(t, err)
	seedOne, err := Generate("tree:30:1")
	require.NoError(t, err)
	assert.Equal(t, seedOne, defaultSeed)
}

// TestGeneratorBeyondLimits checks Generate builds what resolve then flags.
func TestGeneratorBeyondLimits(t *testing.T) {
	hub, err := Generate("star:63")
	require.NoError(t, err)
	assert.ErrorIs(t, hub.Validate(ResolveOptions{AllowOutOfSpec: true}), ErrBadPortCount) // 62 ports
	chain, err := Generate("chain:63")
	require.NoError(t, err)
	assert.ErrorIs(t, chain.Validate(ResolveOptions{}), ErrOutOfSpec) // 62 hops
	complete, err := Generate("complete:18")
	require.NoError(t, err)
	assert.NoError(t, complete.Validate(ResolveOptions{}))                                    // 17 ports: a 1394-1995 PHY may have 27
	assert.ErrorIs(t, complete.Validate(ResolveOptions{Profile: "1394a-2000"}), ErrOutOfSpec) // but a 1394a PHY 16
}

// Beyond 63 nodes a generated topology is a bus out of spec (phy_ID has six
// bits), which runs when allowed, and still a graph: the election lab's.
// Beyond 27 ports it is no bus at all.
func TestGeneratorBeyondTheBus(t *testing.T) {
	for _, spec := range []string{"tree:64", "chain:1000", "ring:1000", "star:40"} {
		topo, err := Generate(spec)
		require.NoError(t, err, spec)
		if spec == "star:40" { // 39 ports: more than self-ID packets describe
			assert.ErrorIs(t, topo.Validate(ResolveOptions{AllowOutOfSpec: true}), ErrBadPortCount, spec)
		} else {
			assert.ErrorIs(t, topo.Validate(ResolveOptions{}), ErrOutOfSpec, spec)
			assert.NoError(t, topo.Validate(ResolveOptions{AllowOutOfSpec: true}), spec)
		}
		assert.NoError(t, topo.Validate(ResolveOptions{GraphOnly: true}), spec)
	}
}

// quadraticTree is the tree generator as it first was, listing the open
// nodes afresh for every node and each node's free ports, naming with fmt:
// the oracle that the Fenwick tree picks the same parents and ports and the
// batched names spell the same, so every tree:N:SEED stays the tree it
// always was.
func quadraticTree(n int, seed uint64) *Topology {
	rng := rand.New(rand.NewPCG(seed, 0))
	t := &Topology{}
	free := make([][]int, n)
	for i := range n {
		t.Nodes = append(t.Nodes, Node{ID: fmt.Sprintf("n%d", i), Ports: 3})
	}
	free[0] = []int{0, 1, 2}
	for i := 1; i < n; i++ {
		var open []int
		for j := range i {
			if len(free[j]) > 0 {
				open = append(open, j)
			}
		}
		parent := open[rng.IntN(len(open))]
		k := rng.IntN(len(free[parent]))
		t.Cables = append(t.Cables, Cable{From: fmt.Sprintf("n%d:%d", parent, free[parent][k]), To: fmt.Sprintf("n%d:0", i)})
		free[parent] = slices.Delete(free[parent], k, k+1)
		free[i] = []int{1, 2}
	}
	return t
}

func TestTreeGeneratorKeepsItsTrees(t *testing.T) {
	check := func(n int, seed uint64) {
		want := quadraticTree(n, seed)
		got, err := Generate(fmt.Sprintf("tree:%d:%d", n, seed))
		require.NoError(t, err)
		require.Equal(t, want.Nodes, got.Nodes, "tree:%d:%d", n, seed)
		require.Equal(t, want.Cables, got.Cables, "tree:%d:%d", n, seed)
	}
	for n := 1; n <= 300; n += 1 + n/8 {
		for seed := range uint64(20) {
			check(n, seed)
		}
	}
	check(1500, 5) // 4,498 ids and cable ends: past a batch
}

// TestGeneratedNames spells every id and cable end with fmt, across the
// batches the generators cut them from.
func TestGeneratedNames(t *testing.T) {
	port := func(node, port int) string { return fmt.Sprintf("n%d:%d", node, port) }
	for spec, want := range map[string]func(n int) []Cable{
		"chain:3000": func(n int) (c []Cable) {
			for i := 1; i < n; i++ {
				c = append(c, Cable{From: port(i-1, 1), To: port(i, 0)})
			}
			return c
		},
		"ring:3000": func(n int) (c []Cable) {
			for i := 1; i < n; i++ {
				c = append(c, Cable{From: port(i-1, 1), To: port(i, 0)})
			}
			return append(c, Cable{From: port(n-1, 1), To: port(0, 0)})
		},
		"star:3000": func(n int) (c []Cable) {
			for i := 1; i < n; i++ {
				c = append(c, Cable{From: port(0, i-1), To: port(i, 0)})
			}
			return c
		},
		"complete:70": func(n int) (c []Cable) {
			for i := range n {
				for j := i + 1; j < n; j++ {
					c = append(c, Cable{From: port(i, j-1), To: port(j, i)})
				}
			}
			return c
		},
	} {
		topo := mustGenerate(t, spec)
		for i, node := range topo.Nodes {
			require.Equal(t, fmt.Sprintf("n%d", i), node.ID, spec)
		}
		require.Equal(t, want(len(topo.Nodes)), topo.Cables, spec)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, spec := range []string{"tree:10000", "tree:100000", "tree:1000000", "ring:1000000"} {
		b.Run(spec, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestGeneratorErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"":               `bad generator spec "": unknown kind ""`,
		"mesh:4":         `bad generator spec "mesh:4": unknown kind "mesh"`,
		"chain":          `bad generator spec "chain": chain needs a size from 1 to 16777216`,
		"chain:0":        `bad generator spec "chain:0": chain needs a size from 1 to 16777216`,
		"chain:16777217": `bad generator spec "chain:16777217": chain needs a size from 1 to 16777216`,
		"chain:x":        `bad generator spec "chain:x": chain needs a size from 1 to 16777216`,
		"star:1":         `bad generator spec "star:1": star needs a size from 2 to 16777216`,
		"ring:1":         `bad generator spec "ring:1": ring needs a size from 2 to 16777216`,
		"complete:1":     `bad generator spec "complete:1": complete needs a size from 2 to 2048`,
		"complete:2049":  `bad generator spec "complete:2049": complete needs a size from 2 to 2048`,
		"chain:3:1":      `bad generator spec "chain:3:1": chain takes a size only`,
		"tree:5:-1":      `bad generator spec "tree:5:-1": the seed must be an unsigned integer`,
		"tree:5:seven":   `bad generator spec "tree:5:seven": the seed must be an unsigned integer`,
		"pair:2":         `bad generator spec "pair:2": pair takes no size`,
	} {
		_, err := Generate(spec)
		assert.ErrorIs(t, err, ErrBadGenerator, spec)
		assert.EqualError(t, err, want+" (want chain:N, star:N, tree:N[:SEED], ring:N, complete:N or pair)", spec)
	}
}

func ExampleGenerate() {
	topo, err := Generate("star:4")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := topo.Encode(os.Stdout, "yaml"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// nodes:
	//   - id: n0
	//     ports: 3
	//   - id: n1
	//     ports: 1
	//   - id: n2
	//     ports: 1
	//   - id: n3
	//     ports: 1
	// cables:
	//   - from: n0:0
	//     to: n1:0
	//   - from: n0:1
	//     to: n2:0
	//   - from: n0:2
	//     to: n3:0
}

// GeneratedSize counts what Generate makes, without making it.
func TestGeneratedSizeCountsWhatGenerateMakes(t *testing.T) {
	for _, spec := range []string{"pair", "chain:1", "chain:9", "star:5", "tree:12:3", "ring:2", "ring:7", "complete:2", "complete:6"} {
		topo, err := Generate(spec)
		require.NoError(t, err, spec)
		nodes, cables, err := GeneratedSize(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, len(topo.Nodes), nodes, spec)
		assert.Equal(t, len(topo.Cables), cables, spec)
	}
	for _, spec := range []string{"chain:0", "complete:2049", "pair:2", "ring:3:1", "web:4"} {
		_, genErr := Generate(spec)
		_, _, err := GeneratedSize(spec)
		require.ErrorIs(t, err, ErrBadGenerator, spec)
		assert.Equal(t, genErr, err, spec)
	}
}
