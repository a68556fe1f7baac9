package hwtest

// CrossResult is the cross-check of one generation: a comparison, or why
// there is none.
type CrossResult struct {
	Bus   *Bus
	Check *CrossCheck
	Err   error
}

func (r CrossResult) Match() bool { return r.Err == nil && r.Check.Match() }

func Mismatches(rs []CrossResult) int {
	n := 0
	for _, r := range rs {
		if !r.Match() {
			n++
		}
	}
	return n
}
