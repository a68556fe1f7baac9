package player

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func samplePage() *Page {
	return &Page{
		Title: "a </script> title & more",
		About: []string{"seed 1"},
		Unit:  "ns",
		Nodes: []Node{{ID: "a</script><b>", State: "R0", Class: "reset"}, {ID: "b", State: "R0", Class: "reset"}},
		Edges: []Edge{{A: 0, B: 1, PortA: "p0", PortB: "p0"}},
		Events: []Event{
			{At: 0, Kind: SetState, Node: 0, Edge: -1, Value: "T0", Class: "tree", Text: "a enters T0"},
			{At: 5, Kind: Drive, Node: 0, Edge: 0, Side: 0, Value: "PARENT_NOTIFY", Class: "notify", Text: "a drives"},
			{At: 9, Kind: Message, Node: 0, Edge: 0, Side: 1, Value: "M", Until: 20, Text: "b sends M"},
		},
	}
}

var dataScript = regexp.MustCompile(`(?s)<script id="data" type="application/json">(.*?)</script>`)

// The data travels as JSON that no node name can break out of: it reads
// back the same, and the page holds exactly its own three scripts.
func TestWriteEmbedsTheDataSafely(t *testing.T) {
	p := samplePage()
	var b bytes.Buffer
	require.NoError(t, p.Write(&b))
	page := b.String()
	assert.Equal(t, 3, strings.Count(page, "</script>"), "the error hook, the data and the player")
	assert.NotContains(t, page, "<b>")
	assert.Contains(t, page, "<title>a &lt;/script&gt; title &amp; more</title>")
	m := dataScript.FindStringSubmatch(page)
	require.NotNil(t, m)
	var data struct {
		Unit   string
		Scale  float64
		Nodes  []Node
		Events []Event
		End    int64
	}
	require.NoError(t, json.Unmarshal([]byte(m[1]), &data))
	assert.Equal(t, p.Nodes, data.Nodes)
	assert.Equal(t, p.Events, data.Events)
	assert.Equal(t, 1.0, data.Scale, "a zero scale is 1")
	assert.Equal(t, int64(20), data.End, "the axis reaches the last arrival")
	assert.NotRegexp(t, `(?i)\b(src|href)\s*=|url\(|@import|fetch\(|XMLHttpRequest`, page, "nothing fetched")

	var again bytes.Buffer
	require.NoError(t, samplePage().Write(&again))
	assert.Equal(t, page, again.String(), "the same page gives the same bytes")
}

func TestWriteRefusesWhatThePageCannotDraw(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Page)
		want   string
	}{
		{"edge to no node", func(p *Page) { p.Edges[0].B = 2 }, "player: edge 0 joins node 0 and 2 of 2"},
		{"events out of order", func(p *Page) { p.Events[2].At = 1 }, "player: event 2 at 1 comes before event 1 at 5"},
		{"state of no node", func(p *Page) { p.Events[0].Node = -1 }, "player: event 0 (state) names node -1 of 2"},
		{"drive on no edge", func(p *Page) { p.Events[1].Edge = 3 }, "player: event 1 (drive) names end 0 of edge 3 of 1"},
		{"message back in time", func(p *Page) { p.Events[2].Until = 8 }, "player: message 2 arrives at 8, before it is sent at 9"},
		{"node without a place", func(p *Page) { p.Nodes[1].X = math.NaN() }, "player: node 1 (b) has no position"},
		{"too many events", func(p *Page) {
			for len(p.Events) <= MaxEvents {
				p.Events = append(p.Events, Event{At: 30, Kind: Note, Node: -1, Edge: -1})
			}
		}, "too many events for one page: 200001, more than the 200000 a browser plays smoothly; play a smaller bus or a shorter run (a --trace file holds any number)"},
	} {
		p := samplePage()
		tc.change(p)
		var b bytes.Buffer
		assert.EqualError(t, p.Write(&b), tc.want, tc.name)
		assert.Zero(t, b.Len(), "%s: nothing written", tc.name)
	}
}

func TestLayoutTree(t *testing.T) {
	// A root with two children, the first with two of its own, and a node
	// the edges do not reach.
	p := &Page{Nodes: make([]Node, 6), Edges: []Edge{{A: 1, B: 0}, {A: 1, B: 2}, {A: 0, B: 3}, {A: 0, B: 4}}}
	p.LayoutTree(1)
	at := func(i int) [2]float64 { return [2]float64{p.Nodes[i].X, p.Nodes[i].Y} }
	assert.Equal(t, [2]float64{0, 2}, at(3), "the first leaf, two rows down")
	assert.Equal(t, [2]float64{1, 2}, at(4))
	assert.Equal(t, [2]float64{0.5, 1}, at(0), "a parent over its children")
	assert.Equal(t, [2]float64{2, 1}, at(2))
	assert.Equal(t, [2]float64{1.25, 0}, at(1), "the root over its first and last child")
	assert.Equal(t, [2]float64{3, 0}, at(5), "an unreached node to the right")
}

func TestLayoutCircle(t *testing.T) {
	p := &Page{Nodes: make([]Node, 8)}
	p.LayoutCircle()
	dist := func(i, j int) float64 {
		return math.Hypot(p.Nodes[i].X-p.Nodes[j].X, p.Nodes[i].Y-p.Nodes[j].Y)
	}
	for i := range 8 {
		assert.InDelta(t, dist(0, 1), dist(i, (i+1)%8), 1e-9, "neighbours equally apart")
	}
	assert.Greater(t, dist(0, 1), 0.9, "about a unit apart")
	assert.InDelta(t, p.Nodes[0].X, p.Nodes[4].X, 1e-9, "the first at the top, the fifth at the bottom")
	assert.Less(t, p.Nodes[0].Y, p.Nodes[4].Y)
}

// Every colour class a page may name has its colours in the style.
func TestEveryClassHasItsColours(t *testing.T) {
	for _, c := range Classes {
		assert.Regexp(t, `(?m)^\.`+c+` \{ --c: #[0-9a-f]{6};`, style, c)
	}
}
