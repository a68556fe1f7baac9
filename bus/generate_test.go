package bus

import (
	"fmt"
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

func TestGeneratorErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"":             `bad generator spec "": unknown kind ""`,
		"mesh:4":       `bad generator spec "mesh:4": unknown kind "mesh"`,
		"chain":        `bad generator spec "chain": chain needs a size from 1 to 63`,
		"chain:0":      `bad generator spec "chain:0": chain needs a size from 1 to 63`,
		"chain:64":     `bad generator spec "chain:64": chain needs a size from 1 to 63`,
		"chain:x":      `bad generator spec "chain:x": chain needs a size from 1 to 63`,
		"star:1":       `bad generator spec "star:1": star needs a size from 2 to 63`,
		"ring:1":       `bad generator spec "ring:1": ring needs a size from 2 to 63`,
		"complete:1":   `bad generator spec "complete:1": complete needs a size from 2 to 63`,
		"chain:3:1":    `bad generator spec "chain:3:1": chain takes a size only`,
		"tree:5:-1":    `bad generator spec "tree:5:-1": the seed must be an unsigned integer`,
		"tree:5:seven": `bad generator spec "tree:5:seven": the seed must be an unsigned integer`,
		"pair:2":       `bad generator spec "pair:2": pair takes no size`,
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
