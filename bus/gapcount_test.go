package bus

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainWithGaps is a chain of len(gaps) nodes, node i with gap count
// gaps[i].
func chainWithGaps(t *testing.T, gaps ...int) *Topology {
	var b strings.Builder
	b.WriteString("profile: 1394a-2000\nnodes:\n")
	for i, gap := range gaps {
		fmt.Fprintf(&b, "  - {id: n%d, ports: 2, gap_count: %d}\n", i, gap)
	}
	b.WriteString("cables:\n")
	for i := 1; i < len(gaps); i++ {
		fmt.Fprintf(&b, "  - {from: n%d:1, to: n%d:0}\n", i-1, i)
	}
	return mustParse(t, b.String(), "chain.yaml")
}

func repeated(gap, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = gap
	}
	return out
}

// A gap count below what 1394a's gap-count table (Table E-1; Linux's
// gap_count_table, docs/protocol.md §9.2) gives for the bus's diameter is
// warned about, with the value a bus manager would set; one at or above it
// is not. The values are the standard's: 15 hops 40, 4 hops 10, 1 hop 5.
func TestGapCountBelowTheTableWarned(t *testing.T) {
	for _, c := range []struct {
		name string
		gaps []int
		want string // "" for no warning
	}{
		{"16-node chain, gap count 5", repeated(5, 16), "gap count 5, on every node, is below 40, what 1394a's gap-count table gives for this bus's 15 cable hops"},
		{"16-node chain, gap count 39", repeated(39, 16), "gap count 39, on every node, is below 40"},
		{"16-node chain, gap count 40", repeated(40, 16), ""},
		{"16-node chain, power-up gap count", repeated(63, 16), ""},
		{"5-node chain, gap count 9", repeated(9, 5), "below 10, what 1394a's gap-count table gives for this bus's 4 cable hops"},
		{"5-node chain, gap count 10", repeated(10, 5), ""},
		{"pair, gap count 5", repeated(5, 2), ""},
		{"5-node chain, one node low", []int{10, 10, 7, 10, 10}, "gap count 7 on n2, is below 10"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(chainWithGaps(t, c.gaps...), Options{Seed: 1})
			require.NoError(t, err)
			g := res.Generations[0]
			require.Equal(t, OutcomeOK, g.Outcome, "%v", g.Problems)
			var found []string
			for _, w := range g.Warnings {
				if strings.Contains(w, "gap-count table") {
					found = append(found, w)
				}
			}
			if c.want == "" {
				assert.Empty(t, found)
				return
			}
			require.Len(t, found, 1, "%v", g.Warnings)
			assert.Contains(t, found[0], c.want)
		})
	}
}
