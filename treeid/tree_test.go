package treeid

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// quadlets parses a space-separated hex self-ID sequence as docs/protocol.md §9.1 prints it.
func quadlets(t testing.TB, s string) []phy.SelfID {
	var q []phy.SelfID
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseUint(f, 16, 32)
		require.NoError(t, err)
		q = append(q, phy.SelfID(v))
	}
	return q
}

// want is the shape of one node: its parent and the cables to its children.
type want struct {
	parent, parentPort int
	children           []Link
}

// treeVectors are the tree vectors of docs/protocol.md §9.1 (from the Linux KUnit tests).
var treeVectors = []struct {
	seq   string
	nodes []want
	hops  int
}{
	{"80000080 8100005e", []want{
		{1, 0, nil},
		{-1, -1, []Link{{2, 0, 0}}},
	}, 1},
	{"80000065 80814000 8100005d 81810000", []want{
		{1, 1, nil},
		{-1, -1, []Link{{2, 0, 1}}},
	}, 1},
	{"80000060 81000058 820000dc", []want{
		{2, 1, nil},
		{2, 2, nil},
		{-1, -1, []Link{{0, 0, 1}, {2, 1, 2}}},
	}, 2},
	{"80000080 8100006c 82000070", []want{
		{1, 0, nil},
		{2, 1, []Link{{2, 0, 0}}},
		{-1, -1, []Link{{1, 1, 1}}},
	}, 2},
	{"80000080 810000b0 8200006c 83000074", []want{
		{1, 0, nil},
		{2, 0, []Link{{1, 0, 0}}},
		{3, 1, []Link{{2, 1, 0}}},
		{-1, -1, []Link{{1, 2, 1}}},
	}, 3},
	{"80000094 81000080 820000bc 830000d0", []want{
		{2, 0, nil},
		{2, 0, nil},
		{3, 0, []Link{{1, 0, 0}, {2, 1, 0}}},
		{-1, -1, []Link{{0, 2, 0}}},
	}, 2},
	{"80000094 810000b0 82000080 830000dc", []want{
		{1, 0, nil},
		{3, 0, []Link{{1, 0, 0}}},
		{3, 0, nil},
		{-1, -1, []Link{{0, 1, 0}, {2, 2, 0}}},
	}, 3},
	{"80000090 81000058 82000060 830000fc", []want{
		{3, 0, nil},
		{3, 2, nil},
		{3, 1, nil},
		{-1, -1, []Link{{0, 0, 0}, {1, 1, 2}, {2, 2, 1}}},
	}, 2},
}

// assertShape checks the parent and child links of every node of got.
func assertShape(t *testing.T, nodes []want, got *Tree) {
	t.Helper()
	require.Len(t, got.Nodes, len(nodes))
	assert.Equal(t, len(nodes)-1, got.Root)
	for id, w := range nodes {
		n := got.Nodes[id]
		assert.Equal(t, w.parent, n.Parent, "parent of phy %d", id)
		assert.Equal(t, w.parentPort, n.ParentPort, "parent port of phy %d", id)
		assert.Equal(t, w.children, n.Children, "children of phy %d", id)
	}
}

func TestBuildVectors(t *testing.T) {
	for _, v := range treeVectors {
		t.Run(v.seq, func(t *testing.T) {
			q := quadlets(t, v.seq)
			tree, err := Build(q)
			require.NoError(t, err)
			assertShape(t, v.nodes, tree)
			assert.Equal(t, v.hops, tree.Hops(), "docs/protocol.md §9.3 item 6")
			assert.Equal(t, -1, tree.IRM(), "no vector has a contender")
			gap, ok := tree.GapCount()
			assert.Equal(t, 0, gap)
			assert.True(t, ok)

			packets := 0
			for _, n := range tree.Nodes {
				assert.Equal(t, q[packets:packets+len(n.Packets)], n.Packets)
				packets += len(n.Packets)
			}
			assert.Equal(t, len(q), packets)
		})
	}
}

// TestBuildDoesNotAlias checks the tree keeps its own copy of the packets.
func TestBuildDoesNotAlias(t *testing.T) {
	q := quadlets(t, "80000080 8100005e")
	tree, err := Build(q)
	require.NoError(t, err)
	q[0] = 0
	assert.Equal(t, phy.SelfID(0x80000080), tree.Nodes[0].Packets[0])
}

// TestBuildInvalidVectors runs the invalid variants of docs/protocol.md §9.1, each failing
// its own docs/protocol.md §9.3 check, plus the checks those vectors do not reach.
func TestBuildInvalidVectors(t *testing.T) {
	for _, tc := range []struct {
		seq         string
		kind        error
		node, index int
		msg         string
	}{
		{"80000094 81000080 820000bc 830000d1", phy.ErrInconsistentExtended, 3, 3,
			"node 3, self-ID quadlet 3 (0x830000d1): inconsistent extended self IDs: m set, but no packet follows"},
		{"80000094 81000080 820000bc 8f0000d0", ErrPhyIDMismatch, 3, 3,
			"node 3, self-ID quadlet 3 (0x8f0000d0): PHY ID mismatch: phy_ID 15, want 3"},
		{"80000094 81000080 820000bc 830000fc", ErrStackUnderflow, 3, 3,
			"node 3, self-ID quadlet 3 (0x830000fc): topology stack underflow: 3 child ports, 1 subtrees waiting"},
		{"80000094 81000080 820000bc 830000e8", ErrParentPortInconsistency, 3, 3,
			"node 3, self-ID quadlet 3 (0x830000e8): parent port inconsistency: 2 parent ports, want 0"},
		// A root with a parent port.
		{"80000080 81000080", ErrParentPortInconsistency, 1, 1,
			"node 1, self-ID quadlet 1 (0x81000080): parent port inconsistency: 1 parent ports, want 0"},
		// A non-root without one, after an extended node.
		{"80000065 80814000 8100005c 82000070", ErrParentPortInconsistency, 1, 2,
			"node 1, self-ID quadlet 2 (0x8100005c): parent port inconsistency: 0 parent ports, want 1"},
		// The root claims phy 1 but never phy 0.
		{"80000080 81000080 82000070", ErrUnattachedSubtrees, 2, 2,
			"node 2, self-ID quadlet 2 (0x82000070): subtrees left without a parent: subtrees rooted at phy [0] have no parent"},
	} {
		t.Run(tc.seq, func(t *testing.T) {
			tree, err := Build(quadlets(t, tc.seq))
			require.Error(t, err)
			assert.Nil(t, tree)
			assert.ErrorIs(t, err, tc.kind)
			assert.ErrorIs(t, err, phy.ErrMalformedSelfID)
			var se *phy.SelfIDError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.node, se.Node)
			assert.Equal(t, tc.index, se.Index)
			assert.EqualError(t, err, tc.msg)
		})
	}
}

func TestBuildNoSelfIDs(t *testing.T) {
	_, err := Build(nil)
	assert.ErrorIs(t, err, ErrNoSelfIDs)
	assert.ErrorIs(t, err, phy.ErrMalformedSelfID)
}

func TestBuildTooManyNodes(t *testing.T) {
	q, _ := chain(t, 64)
	_, err := Build(q)
	assert.ErrorIs(t, err, ErrTooManyNodes)
	assert.ErrorIs(t, err, phy.ErrMalformedSelfID)
	var se *phy.SelfIDError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 63, se.Node)
	assert.Equal(t, 63, se.Index)

	q, _ = chain(t, 63)
	_, err = Build(q)
	assert.NoError(t, err, "63 nodes is a full bus (docs/protocol.md §9.4)")
}

// star is the star vector of docs/protocol.md §9.1 with each node's gap count, L and c set.
func star(t *testing.T, gaps []int, link, contender []bool) *Tree {
	t.Helper()
	q := quadlets(t, "80000090 81000058 82000060 830000fc")
	for id := range q {
		q[id] |= phy.SelfID(gaps[id]) << 16
		if link[id] {
			q[id] |= 1 << 22
		}
		if contender[id] {
			q[id] |= 1 << 11
		}
	}
	tree, err := Build(q)
	require.NoError(t, err)
	return tree
}

func TestIRM(t *testing.T) {
	gaps := []int{5, 5, 5, 5}
	for _, tc := range []struct {
		name            string
		link, contender []bool
		irm             int
	}{
		{"highest contender", []bool{true, true, true, true}, []bool{true, false, true, false}, 2},
		{"root contender with link off is skipped", []bool{true, true, true, false}, []bool{false, true, false, true}, 1},
		{"link without c is no contender", []bool{true, true, true, true}, []bool{false, false, false, false}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.irm, star(t, gaps, tc.link, tc.contender).IRM(), "docs/protocol.md §9.2")
		})
	}
}

func TestGapCount(t *testing.T) {
	none := []bool{false, false, false, false}
	gap, ok := star(t, []int{5, 5, 5, 5}, none, none).GapCount()
	assert.Equal(t, 5, gap)
	assert.True(t, ok)

	gap, ok = star(t, []int{5, 5, 7, 5}, none, none).GapCount()
	assert.Equal(t, 0, gap, "Linux's mismatch value (docs/protocol.md §9.3 item 5)")
	assert.False(t, ok)

	gap, ok = (&Tree{}).GapCount()
	assert.Equal(t, 0, gap)
	assert.False(t, ok)
}

// shape is a tree to encode: each node's children in port order.
type shape struct{ kids []*shape }

// randomShape is a random tree of n nodes; no node has more than 26
// children, so every node fits in 27 ports with its parent.
func randomShape(r *rand.Rand, n int) *shape {
	s := &shape{}
	for left := n - 1; left > 0; {
		k := 1 + r.IntN(left)
		if len(s.kids) == 25 {
			k = left
		}
		s.kids = append(s.kids, randomShape(r, k))
		left -= k
	}
	return s
}

// encoder turns shapes into self-ID streams and the trees Build should
// return for them.
type encoder struct {
	r     *rand.Rand
	spare int // up to this many not-connected ports per node
	q     []phy.SelfID
	nodes []want
}

// generate encodes s as a whole bus.
func generate(t testing.TB, r *rand.Rand, spare int, s *shape) ([]phy.SelfID, []want) {
	e := &encoder{r: r, spare: spare}
	e.encode(t, s, false)
	return e.q, e.nodes
}

// encode appends node s and its subtree in post-order, with random port
// numbers, and returns its phy_ID.
func (e *encoder) encode(t testing.TB, s *shape, hasParent bool) int {
	used := len(s.kids)
	if hasParent {
		used++
	}
	ports := make([]phy.PortStatus, min(max(used+e.r.IntN(e.spare+1), 1), 27))
	for p := range ports {
		ports[p] = phy.PortNotConnected
	}
	perm := e.r.Perm(len(ports))
	childPorts := perm[:len(s.kids)]
	slices.Sort(childPorts)
	w := want{parent: -1, parentPort: -1}
	if hasParent {
		w.parentPort = perm[len(s.kids)]
		ports[w.parentPort] = phy.PortParent
	}
	for i, kid := range s.kids {
		c := e.encode(t, kid, true)
		w.children = append(w.children, Link{Port: childPorts[i], Child: c, ChildPort: e.nodes[c].parentPort})
		ports[childPorts[i]] = phy.PortChild
	}
	id := len(e.nodes)
	for _, l := range w.children {
		e.nodes[l.Child].parent = id
	}
	info := phy.SelfIDInfo{PhyID: id, LinkActive: e.r.IntN(2) == 1, GapCount: 63, Speed: phy.S400,
		Contender: e.r.IntN(2) == 1, PowerClass: e.r.IntN(8), Ports: ports}
	packets, err := info.Encode()
	require.NoError(t, err)
	e.q = append(e.q, packets...)
	e.nodes = append(e.nodes, w)
	return id
}

// chain is n nodes in a line, one packet each.
func chain(t testing.TB, n int) ([]phy.SelfID, []want) {
	s := &shape{}
	for range n - 1 {
		s = &shape{kids: []*shape{s}}
	}
	return generate(t, rand.New(rand.NewPCG(1, 1)), 0, s)
}

// diameter is the most hops between two nodes, by a search from every node.
func diameter(nodes []want) int {
	adj := make([][]int, len(nodes))
	for id, w := range nodes {
		for _, l := range w.children {
			adj[id] = append(adj[id], l.Child)
			adj[l.Child] = append(adj[l.Child], id)
		}
	}
	most := 0
	for from := range nodes {
		dist := make([]int, len(nodes))
		for i := range dist {
			dist[i] = -1
		}
		dist[from] = 0
		for queue := []int{from}; len(queue) > 0; queue = queue[1:] {
			for _, next := range adj[queue[0]] {
				if dist[next] < 0 {
					dist[next] = dist[queue[0]] + 1
					most = max(most, dist[next])
					queue = append(queue, next)
				}
			}
		}
	}
	return most
}

// TestBuildRandomTrees is the round trip over random buses of 1–63 nodes:
// the Linux checks accept well-formed self-IDs (docs/protocol.md §9.3) and Build recovers
// every cable, and Hops is the diameter.
func TestBuildRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1394, 2000))
	for range 300 {
		n := 1 + r.IntN(63)
		q, nodes := generate(t, r, 3, randomShape(r, n))
		tree, err := Build(q)
		require.NoError(t, err, "%d nodes", n)
		assertShape(t, nodes, tree)
		assert.Equal(t, diameter(nodes), tree.Hops())
	}
}

func FuzzBuild(f *testing.F) {
	seed := func(q []phy.SelfID) {
		var b []byte
		for _, s := range q {
			b = binary.BigEndian.AppendUint32(b, uint32(s))
		}
		f.Add(b)
	}
	for _, v := range treeVectors {
		seed(quadlets(f, v.seq))
	}
	for _, last := range []string{"830000d1", "8f0000d0", "830000fc", "830000e8"} {
		seed(quadlets(f, "80000094 81000080 820000bc "+last))
	}
	q, _ := generate(f, rand.New(rand.NewPCG(1, 2)), 3, randomShape(rand.New(rand.NewPCG(3, 4)), 12))
	seed(q)

	f.Fuzz(func(t *testing.T, data []byte) {
		q := make([]phy.SelfID, len(data)/4)
		for i := range q {
			q[i] = phy.SelfID(binary.BigEndian.Uint32(data[4*i:]))
		}
		tree, err := Build(q)
		if err != nil {
			require.ErrorIs(t, err, phy.ErrMalformedSelfID)
			return
		}
		roots := 0
		for id, n := range tree.Nodes {
			require.Equal(t, id, n.Info.PhyID)
			if n.Parent < 0 {
				roots++
				require.Equal(t, tree.Root, id)
				continue
			}
			require.Equal(t, phy.PortParent, n.Info.Ports[n.ParentPort])
			found := 0
			for _, l := range tree.Nodes[n.Parent].Children {
				if l.Child == id {
					found++
					require.Equal(t, phy.PortChild, tree.Nodes[n.Parent].Info.Ports[l.Port])
					require.Equal(t, n.ParentPort, l.ChildPort)
				}
			}
			require.Equal(t, 1, found, "phy %d among the children of phy %d", id, n.Parent)
		}
		require.Equal(t, 1, roots)
		require.LessOrEqual(t, tree.Hops(), len(tree.Nodes)-1)
	})
}

// BenchmarkBuild63 reads back a full bus of 63 nodes.
func BenchmarkBuild63(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q, _ := generate(b, r, 3, randomShape(r, 63))
	for b.Loop() {
		if _, err := Build(q); err != nil {
			b.Fatal(err)
		}
	}
}
