package bus

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A link is on a loop exactly when its ends stay connected without it:
// checked against that definition, by search, on random multigraphs
// (parallel cables and self-loops included), and on the cases by hand.
func TestOnLoop(t *testing.T) {
	link := func(a, b string) Link { return Link{Nodes: [2]string{a, b}} }
	assert.Equal(t, []bool{true, true, true}, OnLoop([]Link{link("a", "b"), link("b", "c"), link("c", "a")}))
	assert.Equal(t, []bool{false, false}, OnLoop([]Link{link("a", "b"), link("b", "c")}))
	assert.Equal(t, []bool{true, true, true, false}, OnLoop([]Link{link("a", "b"), link("b", "c"), link("c", "a"), link("c", "d")}))
	assert.Equal(t, []bool{true, true}, OnLoop([]Link{link("a", "b"), link("a", "b")}), "two cables between the same nodes")

	connected := func(links []Link, skip int, from, to string) bool {
		reached := map[string]bool{from: true}
		for grew := true; grew; {
			grew = false
			for i, l := range links {
				if i != skip && reached[l.Nodes[0]] != reached[l.Nodes[1]] {
					reached[l.Nodes[0]], reached[l.Nodes[1]], grew = true, true, true
				}
			}
		}
		return reached[to]
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		n := 2 + rng.IntN(9)
		var links []Link
		for range rng.IntN(2 * n) {
			links = append(links, link(fmt.Sprint(rng.IntN(n)), fmt.Sprint(rng.IntN(n))))
		}
		got := OnLoop(links)
		for i, l := range links {
			assert.Equal(t, connected(links, i, l.Nodes[0], l.Nodes[1]), got[i], "%v: link %d", links, i)
		}
	}
}
