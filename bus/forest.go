package bus

// A self-ID transmission's data reaches every node of the sender's part of
// the bus, repeated from PHY to PHY. The world needs two things of it: when
// the last copy arrives, and, for each port, when the data this PHY repeats
// there ends (a line state it drives later follows the data, never
// overtakes it). Walking the cables for every transmission costs a bus of n
// nodes n² over its self identify. The cable forest answers both in
// O(log n) from the tree's distances instead, for the few transmissions
// still in flight: the time a copy's data ends at node u is the sender's
// end, plus the cable delays on the way, plus a repeat delay per hop, and
// the way between two nodes of a tree is through their lowest common
// ancestor.

// cableForest is the cable graph at one moment, each part rooted at its
// first node: what lazyTransmission needs. It is rebuilt whenever a cable is
// plugged or unplugged.
type cableForest struct {
	parent []int32 // the root is its own parent
	// jump is a jump pointer (the skew-binary ancestor scheme): together
	// with parent it finds any ancestor in O(log n) with O(1) memory a
	// node, where a table of 2^k-th ancestors would take O(log n).
	jump   []int32
	depth  []int32 // cable hops from the root
	upPort []int16 // the port toward the parent, -1 at a root
	dist   []int64 // cable delay from the root, ns
	// far is dist plus a repeat delay per hop: a copy's data ends at u at
	// most far[s]+far[u] after it ended at its sender s (the way through
	// the root is the longest), which rules out, without the ancestor
	// search, many queries about data that has passed.
	far []int64
	// reach is, per node, how long after its transmission ends the last
	// copy arrives: the longest way of delays and repeat delays to any
	// other node of its part (0 alone).
	reach []int64
	// looped marks, by component (world.comp), a part whose cables close a
	// loop: no tree, so transmit walks it as before.
	looped []bool
	// mixed marks, by component, a part whose PHYs repeat with different
	// delays (PHY generations mixed): transmit walks it too.
	mixed []bool
	// repeat is, by component, the repeat delay of its PHYs when they
	// share one.
	repeat []int64
	order  []int32 // scratch: breadth-first order, parents first
	down   [][2]int64
}

// build makes f the forest of w's cables as plugged now. w.comp must be
// current.
func (f *cableForest) build(w *world) {
	n := len(w.nodes)
	f.parent = resize(f.parent, n)
	f.jump = resize(f.jump, n)
	f.depth = resize(f.depth, n)
	f.upPort = resize(f.upPort, n)
	f.dist = resize(f.dist, n)
	f.far = resize(f.far, n)
	f.reach = resize(f.reach, n)
	f.looped = resize(f.looped, n)
	f.mixed = resize(f.mixed, n)
	f.repeat = resize(f.repeat, n)
	f.down = resize(f.down, n)
	clear(f.looped)
	clear(f.mixed)
	for i := range w.nodes {
		f.repeat[w.comp[i]] = int64(w.nodes[i].phy.Timing.RepeatDelay)
	}
	for i := range w.nodes {
		f.mixed[w.comp[i]] = f.mixed[w.comp[i]] || f.repeat[w.comp[i]] != int64(w.nodes[i].phy.Timing.RepeatDelay)
	}
	for i := range f.parent {
		f.parent[i] = -1
	}
	f.order = f.order[:0]
	for root := range n {
		if f.parent[root] >= 0 {
			continue
		}
		r := int32(root)
		f.parent[r], f.jump[r], f.depth[r], f.upPort[r], f.dist[r] = r, r, 0, -1, 0
		start := len(f.order)
		f.order = append(f.order, r)
		for k := start; k < len(f.order); k++ {
			u := f.order[k]
			for p, c := range w.nodes[u].cable {
				if c < 0 || p == int(f.upPort[u]) {
					continue
				}
				cs := &w.cables[c]
				far := cs.peer(portRef{int(u), p})
				v := int32(far.node)
				if f.parent[v] >= 0 {
					f.looped[w.comp[u]] = true // a second way to v
					continue
				}
				f.parent[v], f.upPort[v] = u, int16(far.port)
				f.depth[v], f.dist[v] = f.depth[u]+1, f.dist[u]+cs.delayNs
				// The skew-binary rule: jump twice as far as the parent's
				// jump when the two jumps above are as long.
				j := f.jump[u]
				if f.depth[u]-f.depth[j] == f.depth[j]-f.depth[f.jump[j]] {
					f.jump[v] = f.jump[j]
				} else {
					f.jump[v] = u
				}
				f.order = append(f.order, v)
			}
		}
	}
	for v := range f.far {
		f.far[v] = f.dist[v] + int64(f.depth[v])*f.repeat[w.comp[v]]
	}
	f.measureReach(w.comp)
}

// measures reports whether the forest gives the times of a transmission on
// part comp: a tree whose PHYs share a repeat delay.
func (f *cableForest) measures(comp int) bool { return !f.looped[comp] && !f.mixed[comp] }

// measureReach computes every node's reach by rerooting: the longest way
// down from each node, then the longest way up and over. A hop costs its
// cable delay and a repeat delay; the last hop's repeat is not waited for.
func (f *cableForest) measureReach(comp []int) {
	hop := func(v int32) int64 { return f.dist[v] - f.dist[f.parent[v]] + f.repeat[comp[v]] }
	// down[v] holds the two longest ways down from v through different
	// children (0 when none).
	for i := range f.down {
		f.down[i] = [2]int64{}
	}
	for k := len(f.order) - 1; k >= 0; k-- {
		v := f.order[k]
		if f.upPort[v] < 0 {
			continue
		}
		p, d := f.parent[v], f.down[v][0]+hop(v)
		switch {
		case d > f.down[p][0]:
			f.down[p] = [2]int64{d, f.down[p][0]}
		case d > f.down[p][1]:
			f.down[p][1] = d
		}
	}
	// up is reused from reach: the longest way from v that starts toward
	// its parent.
	up := f.reach
	for _, v := range f.order {
		if f.upPort[v] < 0 {
			up[v] = 0
			continue
		}
		p := f.parent[v]
		sibling := f.down[p][0]
		if f.down[v][0]+hop(v) == sibling {
			sibling = f.down[p][1] // v's own way is the parent's longest
		}
		up[v] = max(up[p], sibling) + hop(v)
	}
	for _, v := range f.order {
		longest := max(up[v], f.down[v][0])
		if longest > 0 {
			longest -= f.repeat[comp[v]]
		}
		f.reach[v] = longest
	}
}

// ancestor is v's ancestor at depth d ≤ depth(v).
func (f *cableForest) ancestor(v int32, d int32) int32 {
	for f.depth[v] > d {
		if f.depth[f.jump[v]] >= d {
			v = f.jump[v]
		} else {
			v = f.parent[v]
		}
	}
	return v
}

// lca is the lowest common ancestor of two nodes of one part.
func (f *cableForest) lca(a, b int32) int32 {
	if f.depth[a] < f.depth[b] {
		a, b = b, a
	}
	a = f.ancestor(a, f.depth[b])
	for a != b {
		if f.jump[a] != f.jump[b] {
			a, b = f.jump[a], f.jump[b]
		} else {
			a, b = f.parent[a], f.parent[b]
		}
	}
	return a
}

// lazyTransmission is a self-ID transmission whose copies may still be on
// their way: the sender and when its own data ended.
type lazyTransmission struct {
	sender int32
	end    int64
	last   int64 // when the last copy arrives
}

// dataEnd is when the data of transmission t ends on node u's ports, and
// the port it came in by (-1 at the sender, whose every port sends it).
func (w *world) dataEnd(t lazyTransmission, u int32) (end int64, from int) {
	f := &w.forest
	s := t.sender
	if u == s {
		return t.end, -1
	}
	l := f.lca(u, s)
	hops := int64(f.depth[u] + f.depth[s] - 2*f.depth[l])
	end = t.end + f.dist[u] + f.dist[s] - 2*f.dist[l] + hops*f.repeat[w.comp[s]]
	if l != u {
		return end, int(f.upPort[u]) // from above
	}
	c := f.ancestor(s, f.depth[u]+1) // the child of u toward s
	return end, w.cables[w.nodes[c].cable[f.upPort[c]]].peer(portRef{int(c), int(f.upPort[c])}).port
}

// busyUntil is when the last self-ID data node u repeats on port p ends:
// what the walks of transmit recorded, and what the transmissions in flight
// give; or, where that data has ended by now, a time no later than now.
func (w *world) busyUntil(u, p int) int64 {
	b := w.nodes[u].busyUntil[p]
	if len(w.inFlight) == 0 { // outside self identify, always
		return b
	}
	now := w.k.Now()
	f := &w.forest
	live := w.inFlight[:0]
	for _, t := range w.inFlight {
		if t.last+f.repeat[w.comp[t.sender]] <= now {
			continue // every copy has gone by
		}
		live = append(live, t)
		if w.comp[u] != w.comp[t.sender] || t.end+f.far[t.sender]+f.far[u] <= max(now, b) {
			continue // not on this part, or ended by now at u
		}
		if end, from := w.dataEnd(t, int32(u)); from != p {
			b = max(b, end)
		}
	}
	w.inFlight = live
	return b
}

// settleInFlight records the transmissions in flight port by port, as
// transmit's walk does, before a cable changes the forest they are
// measured on.
func (w *world) settleInFlight() {
	for _, t := range w.inFlight {
		w.walk(int(t.sender), -1, t.end)
	}
	w.inFlight = w.inFlight[:0]
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
