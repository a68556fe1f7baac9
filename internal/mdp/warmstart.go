package mdp

import "math"

// Policy iteration in exact rationals pays for a whole exact evaluation at
// every improvement, and from the attractor policy an adversary's
// component can take tens of them (30 on a two-node contention at 1 ns).
// warmPolicy runs the same iteration in float64 first, where an
// evaluation costs a few sweeps, and hands the exact iteration the policy
// it ends with, which the exact iteration then only has to confirm or
// finish. Floats choose, never decide: every value comes from the exact
// iteration, which stops only when no state can do strictly better in
// exact arithmetic.

// warmStart is cleared by the tests that check the exact iteration gives
// the same values without it.
var warmStart = true

// Bounds of the float iteration: sweeps of one evaluation, improvement
// rounds, and the relative margin by which an edge must beat the policy's
// to replace it, far above float64's rounding over the sweeps, so that a
// switch is a real improvement and the policy stays one that leaves.
const (
	warmSweeps = 20000
	warmRounds = 200
	warmMargin = 1e-9
	warmSettle = 1e-13
)

// warmArc is an edge in floats: its end's position in rest, or -1 and its
// solved value outside.
type warmArc struct {
	to      int
	p, gain float64 // probability (1 for a choice), and reward plus the value outside
	edge    int     // the edge's index in its state
}

// warmChain is a component in floats: each state's arcs, whether it is a
// choice and which edge the policy takes there, and the values v of that
// policy.
type warmChain struct {
	arcs    [][]warmArc
	choice  []bool
	current []int
	v       []float64
}

// warmPolicy improves policy, for rest's states (positions set), by policy
// iteration in float64 from it, and returns the result; the input when
// the floats cannot say (an evaluation that does not settle).
func (s *solver) warmPolicy(rest, policy []int) []int {
	c := warmChain{arcs: make([][]warmArc, len(rest)), choice: make([]bool, len(rest)),
		current: append([]int(nil), policy...), v: make([]float64, len(rest))}
	for k, i := range rest {
		st := &s.m.States[i]
		c.choice[k] = st.Kind == Choice
		for j := range st.Edges {
			e := &st.Edges[j]
			if !live(st, e) || s.inf(e.To) {
				continue
			}
			a := warmArc{to: s.pos[e.To], p: 1, edge: j}
			a.gain, _ = reward(e).Float64()
			if a.to < 0 {
				out, _ := s.val[e.To].Float64()
				a.gain += out
			}
			if st.Kind == Random {
				a.p, _ = e.P.Float64()
			}
			c.arcs[k] = append(c.arcs[k], a)
		}
	}
	for range warmRounds {
		if !c.evaluate() {
			return policy
		}
		changed := false
		for k := range rest {
			if !c.choice[k] {
				continue
			}
			cur := c.chosen(k)
			for _, a := range c.arcs[k] {
				x := c.value(a)
				margin := warmMargin * max(1, math.Abs(cur))
				if (s.opt == Min && x < cur-margin) || (s.opt == Max && x > cur+margin) {
					cur, c.current[k], changed = x, a.edge, true
				}
			}
		}
		if !changed {
			return c.current
		}
	}
	return policy
}

// value is what arc a is worth under the values v.
func (c *warmChain) value(a warmArc) float64 {
	if a.to >= 0 {
		return a.gain + c.v[a.to]
	}
	return a.gain
}

// chosen is what choice state k's policy edge is worth.
func (c *warmChain) chosen(k int) float64 {
	for _, a := range c.arcs[k] {
		if a.edge == c.current[k] {
			return c.value(a)
		}
	}
	return math.NaN()
}

// evaluate sets v to the values of the chain the current policy makes,
// by Gauss-Seidel sweeps in the order of a depth-first search's postorder
// (every state after the states it leads to, but around a cycle), so that
// a sweep carries values along each cycle once, and reports whether they
// settled.
func (c *warmChain) evaluate() bool {
	order := c.postorder()
	for range warmSweeps {
		moved := 0.0
		for _, k := range order {
			var x float64
			if c.choice[k] {
				x = c.chosen(k)
			} else {
				for _, a := range c.arcs[k] {
					x += a.p * c.value(a)
				}
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
			moved = max(moved, math.Abs(x-c.v[k])/max(1, math.Abs(x)))
			c.v[k] = x
		}
		if moved <= warmSettle {
			return true
		}
	}
	return false
}

// postorder is the postorder of a depth-first search of the chain that
// the current policy makes.
func (c *warmChain) postorder() []int {
	n := len(c.arcs)
	order := make([]int, 0, n)
	seen := make([]bool, n)
	type frame struct{ k, next int }
	var stack []frame
	for root := range n {
		if seen[root] {
			continue
		}
		seen[root] = true
		stack = append(stack[:0], frame{root, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(c.arcs[f.k]) {
				order = append(order, f.k)
				stack = stack[:len(stack)-1]
				continue
			}
			a := c.arcs[f.k][f.next]
			f.next++
			if a.to < 0 || seen[a.to] || (c.choice[f.k] && a.edge != c.current[f.k]) {
				continue
			}
			seen[a.to] = true
			stack = append(stack, frame{a.to, 0})
		}
	}
	return order
}
