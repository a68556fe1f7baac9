package mdp

import (
	"math/big"
	"strings"
	"testing"
)

// Models that differ only in their rewards and terminal values share one
// Graph: each solves to what it solves to with a graph of its own.
func TestGraphSharedAcrossQuestions(t *testing.T) {
	shape := walk(12, 3, noReward, exitMixed)
	g := NewGraph(shape)
	for _, q := range []struct {
		name   string
		reward func(int) *big.Rat
		value  *big.Rat // of the exit that exitMixed makes 1
	}{
		{"probability", noReward, r(1, 1)},
		{"ns", ns, r(0, 1)},
		{"ns and value", ns, r(7, 3)},
	} {
		question := func() *Model {
			m := walk(12, 3, q.reward, exitMixed)
			for i := range m.States {
				if v := m.States[i].Value; v != nil && v.Sign() > 0 {
					m.States[i].Value = q.value
				}
			}
			return m
		}
		for _, opt := range []Opt{Min, Max} {
			own, shared := question(), question()
			shared.Graph = g
			want, got := solve(t, own, opt, Limits{}), solve(t, shared, opt, Limits{})
			for i := range own.States {
				if !sameBound(want.Lo(i), got.Lo(i)) || !sameBound(want.Hi(i), got.Hi(i)) {
					t.Fatalf("%s, %v: state %d: [%v, %v] with the shared graph, [%v, %v] with its own",
						q.name, opt, i, got.Lo(i), got.Hi(i), want.Lo(i), want.Hi(i))
				}
			}
		}
	}
}

// A graph that is not the model's is refused, not trusted.
func TestGraphOfAnotherModelRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"an edge moved", func(m *Model) { m.States[0].Edges[0].To = 5 }, "that the model has not"},
		{"an edge that no longer happens", func(m *Model) {
			m.States[0].Edges[0].P, m.States[0].Edges[1].P = r(0, 1), r(1, 1)
		}, "that the model has not"},
		{"an edge that now happens", func(m *Model) {
			m.States[0].Edges = append(m.States[0].Edges, Edge{To: 7, P: r(0, 1)})
			m.States[0].Edges[0].P = r(1, 4)
			m.States[0].Edges[2].P = r(1, 4)
		}, "live edges"},
		{"another state", func(m *Model) { m.States = append(m.States, State{Kind: Terminal}) }, "a graph of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := walk(12, 3, noReward, exitMixed)
			g := NewGraph(m)
			c.change(m)
			m.Graph = g
			if _, err := Solve(m, Min, Limits{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}
