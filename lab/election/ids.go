package election

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// IDOrder is how IDs 1…n are laid out when no explicit map is given.
type IDOrder uint8

// ID orders. "Along the order" means around the ring in the direction
// messages travel for ring topologies (Ring.Order), and in topology order
// for every other graph.
const (
	// Ascending gives the first node ID 1, the next 2, and so on: on a ring
	// every ID is followed by a larger one except the largest.
	Ascending IDOrder = iota
	// Descending gives the first node ID n, the next n−1, and so on.
	Descending
	// Random is a permutation of 1…n drawn from the run's seed.
	Random
)

var idOrderNames = []string{"ascending", "descending", "random"}

func (o IDOrder) String() string {
	if int(o) < len(idOrderNames) {
		return idOrderNames[o]
	}
	return "IDOrder(" + strconv.Itoa(int(o)) + ")"
}

// ParseIDOrder reads "ascending", "descending" or "random".
func ParseIDOrder(s string) (IDOrder, bool) {
	for i, name := range idOrderNames {
		if s == name {
			return IDOrder(i), true
		}
	}
	return 0, false
}

// MaxID bounds explicit IDs: the synchronous ring waits ID·n+1 rounds, and
// that must stay far from overflowing.
const MaxID = 1_000_000_000

// maxIDLine bounds a line of an ID file; a longer one is not an ID file.
const maxIDLine = 1 << 16

// ParseIDs reads an ID file: one "NODE ID" pair a line, separated by spaces or
// tabs, with blank lines and lines starting with # ignored. ID is a decimal
// integer from 0 to MaxID. Every node and every ID may appear once. name is
// used in error messages, which give the line. Whether the file covers the
// topology's nodes is checked when the IDs are used.
func ParseIDs(data []byte, name string) (map[string]int64, error) {
	ids := map[string]int64{}
	nodeLine := map[string]int{}
	idLine := map[int64]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxIDLine)
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrBadIDs, name, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fail("want NODE ID, got %d field%s in %q", len(fields), plural(len(fields)), text)
		}
		node, num := fields[0], fields[1]
		id, err := strconv.ParseInt(num, 10, 64)
		if err != nil || id < 0 || id > MaxID || (len(num) > 1 && (num[0] == '0' || num[0] == '+')) {
			return nil, fail("node %q: want an ID from 0 to %d written in decimal, got %q", node, MaxID, num)
		}
		if first, dup := nodeLine[node]; dup {
			return nil, fail("node %q already has an ID (line %d)", node, first)
		}
		if first, dup := idLine[id]; dup {
			return nil, fail("ID %d of node %q is already taken (line %d): IDs must be unique", id, node, first)
		}
		ids[node], nodeLine[node], idLine[id] = id, line, line
	}
	if err := sc.Err(); err != nil {
		line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fail("line longer than %d bytes (want NODE ID)", maxIDLine)
		}
		return nil, fail("%v", err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: %s: no IDs (want one NODE ID line per node)", ErrBadIDs, name)
	}
	return ids, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// assignIDs returns the ID of every vertex: from explicit when it is not
// nil, else 1…n laid out along order.
func assignIDs(g *netsim.Graph, order []int, o IDOrder, explicit map[string]int64, seed uint64) ([]int64, error) {
	n := len(g.Nodes)
	ids := make([]int64, n)
	if explicit != nil {
		// A name the bus lacks is reported first: it is the typo, and the
		// node it was meant for then lacks an ID. A set, as searching the
		// nodes for each name would be quadratic in a large ID file.
		onBus := make(map[string]bool, n)
		for _, name := range g.Nodes {
			onBus[name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(explicit)) {
			if !onBus[name] {
				return nil, fmt.Errorf("%w: no node %q on the bus", ErrBadIDs, name)
			}
		}
		owner := map[int64]string{}
		for v, name := range g.Nodes {
			id, ok := explicit[name]
			if !ok {
				return nil, fmt.Errorf("%w: node %q has no ID", ErrBadIDs, name)
			}
			if id < 0 || id > MaxID {
				return nil, fmt.Errorf("%w: node %q: ID %d is not from 0 to %d", ErrBadIDs, name, id, MaxID)
			}
			if other, dup := owner[id]; dup {
				return nil, fmt.Errorf("%w: nodes %q and %q both have ID %d", ErrBadIDs, other, name, id)
			}
			owner[id], ids[v] = name, id
		}
		return ids, nil
	}
	values := make([]int64, n)
	for i := range values {
		values[i] = int64(i + 1)
	}
	switch o {
	case Descending:
		for i := range values {
			values[i] = int64(n - i)
		}
	case Random:
		rand.New(rand.NewPCG(seed, streamIDs)).Shuffle(n, func(i, j int) { values[i], values[j] = values[j], values[i] })
	}
	for i, v := range order {
		ids[v] = values[i]
	}
	return ids, nil
}
