package mdp

// ReachedSurely marks the states from which every scheduler reaches a
// terminal of positive value with probability 1: whether the minimum of
// that probability is 1, answered from the graph alone, exactly, without
// solving (Baier and Katoen, Principles of Model Checking, 2008, §10.6:
// the qualitative questions of an MDP are graph questions).
//
// A scheduler avoids the target with positive probability exactly when it
// can, with positive probability, enter a set of states it can then keep
// the run in forever: the greatest set Z without a target in which every
// Random state has all its live successors in Z and every Choice state one
// (a terminal of value 0 is in Z). Every state that can reach Z is not
// reached surely; every other state is.
func ReachedSurely(m *Model) []bool {
	g := m.Graph
	if g == nil {
		g = NewGraph(m)
	}
	n := len(m.States)
	inZ := make([]bool, n)
	// need is how many more successors a state must lose to leave Z: one
	// for a Random state, all its live ones for a Choice state.
	need := make([]int, n)
	var out []int // not in Z
	for i := range m.States {
		st := &m.States[i]
		switch {
		case st.Kind == Terminal:
			inZ[i] = st.Value == nil || st.Value.Sign() == 0
		case st.Kind == Random:
			inZ[i], need[i] = true, 1
		default:
			inZ[i], need[i] = true, len(st.Edges)
		}
		if !inZ[i] {
			out = append(out, i)
		}
	}
	g.backward(out, func(from int) bool {
		if !inZ[from] {
			return false
		}
		need[from]--
		inZ[from] = need[from] > 0
		return !inZ[from]
	})
	// Whatever can reach Z is not reached surely.
	surely := make([]bool, n)
	var z []int
	for i := range inZ {
		surely[i] = !inZ[i]
		if inZ[i] {
			z = append(z, i)
		}
	}
	g.backward(z, func(from int) bool {
		was := surely[from]
		surely[from] = false
		return was
	})
	return surely
}

// backward visits the live edges into the states of stack, and into every
// state visit asks to go on from, depth first: visit(from) is told of each
// edge's start and reports whether to visit the edges into it too.
func (g *Graph) backward(stack []int, visit func(from int) bool) {
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.preds[t] {
			if visit(p.From) {
				stack = append(stack, p.From)
			}
		}
	}
}
