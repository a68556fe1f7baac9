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
	var out []int // left Z, their predecessors not yet told
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
	for len(out) > 0 {
		t := out[len(out)-1]
		out = out[:len(out)-1]
		for _, p := range g.preds[t] {
			if inZ[p.From] {
				if need[p.From]--; need[p.From] == 0 {
					inZ[p.From] = false
					out = append(out, p.From)
				}
			}
		}
	}
	// Whatever can reach Z is not reached surely.
	surely := make([]bool, n)
	for i := range surely {
		surely[i] = true
	}
	var stack []int
	for i := range inZ {
		if inZ[i] {
			surely[i] = false
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.preds[t] {
			if surely[p.From] {
				surely[p.From] = false
				stack = append(stack, p.From)
			}
		}
	}
	return surely
}
