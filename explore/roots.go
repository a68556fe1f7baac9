package explore

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// RootResult is the probability that the first generation elects Root,
// and how its runs number the nodes.
type RootResult struct {
	// Root is the node elected, "" for none or several (as
	// bus.Metrics.Root).
	Root string
	P    Interval
	// Orders lists each self-ID order the runs that elect Root end with,
	// likeliest first.
	Orders []OrderResult
}

// OrderResult is the probability that the first generation elects a root
// and numbers its nodes in Order.
type OrderResult struct {
	// Order lists the nodes that took a phy_ID, in phy_ID order: the order
	// of their self-IDs (bus.FollowStop.FirstOrder).
	Order []string
	P     Interval
}

// class is a first generation's root and self-ID order.
type class struct {
	root  string
	order []string
}

// classOf is the index of the class of a run's stop in e.classes, added
// when new.
func (e *explorer) classOf(stop bus.FollowStop) int {
	key := string(appendClass(nil, stop))
	if c, ok := e.classIndex[key]; ok {
		return c
	}
	e.classIndex[key] = len(e.classes)
	e.classes = append(e.classes, class{root: stop.FirstRoot, order: slices.Clone(stop.FirstOrder)})
	return len(e.classes) - 1
}

// appendClass appends to a key the root and self-ID order of stop's first
// generation, each name with its length.
func appendClass(key []byte, stop bus.FollowStop) []byte {
	key = append(key, 'R')
	for _, id := range append([]string{stop.FirstRoot}, stop.FirstOrder...) {
		key = binary.AppendUvarint(key, uint64(len(id)))
		key = append(key, id...)
	}
	return key
}

// roots solves the probability of each root and of each (root, order)
// the runs end with.
func (e *explorer) roots() ([]RootResult, error) {
	var out []RootResult
	byRoot := map[string]int{}
	for c, cl := range e.classes {
		r, ok := byRoot[cl.root]
		if !ok {
			p, err := e.reach(func(st *state) bool { return st.terminal && e.classes[st.class].root == cl.root })
			if err != nil {
				return nil, err
			}
			r = len(out)
			byRoot[cl.root] = r
			out = append(out, RootResult{Root: cl.root, P: p})
		}
		p, err := e.reach(func(st *state) bool { return st.terminal && st.class == c })
		if err != nil {
			return nil, err
		}
		out[r].Orders = append(out[r].Orders, OrderResult{Order: cl.order, P: p})
	}
	for i := range out {
		slices.SortFunc(out[i].Orders, func(a, b OrderResult) int {
			return cmp.Or(likelier(a.P, b.P), slices.Compare(a.Order, b.Order))
		})
	}
	slices.SortFunc(out, func(a, b RootResult) int { return cmp.Or(likelier(a.P, b.P), strings.Compare(a.Root, b.Root)) })
	return out, nil
}

// likelier orders a before b when a is the likelier: the greater lower
// bound, then the greater upper bound.
func likelier(a, b Interval) int {
	return cmp.Or(b.Min.Cmp(a.Min), b.Max.Cmp(a.Max))
}
