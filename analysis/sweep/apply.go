package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// Base is what a sweep varies: the bus and the options every point starts
// from.
type Base struct {
	Topology *bus.Topology
	// Gen is the generator spec the topology came from, "" for a file. The
	// nodes parameter needs one with a size (chain:N, tree:N:SEED, …).
	Gen     string
	Options bus.Options
}

// Check reports, before any run, what the points of g cannot run. The
// base topology is validated as a topology file is, out of spec allowed,
// unless the points generate their own: a cable a delay replaces must
// still be one run would take. That error is the topology's own. The
// others wrap ErrBadParam: a node count without a generated bus, window
// bounds that cross at some point, or a point whose topology does not
// validate (complete:29's nodes have more ports than 1394 allows), named.
func (b Base) Check(g *Grid) error {
	resolve := bus.ResolveOptions{Profile: b.Options.Profile, AllowOutOfSpec: true}
	if !slices.ContainsFunc(g.Params, func(p Param) bool { return p.Name == "nodes" }) {
		if err := b.Topology.Validate(resolve); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(g.Params, func(p Param) bool { return p.Name == "gap_count" }) && len(b.Topology.Traffic) == 0 && b.Options.Until == 0 {
		return fmt.Errorf("%w: gap_count changes only the traffic after initialisation: give --until DUR, or a topology with traffic", ErrBadParam)
	}
	for i := range g.Len() {
		pt := g.Point(i)
		t, _, err := b.Apply(pt)
		if err != nil {
			return err
		}
		if err := t.Validate(resolve); err != nil {
			where := pt.String()
			if n, ok := pt.value("nodes"); ok {
				spec, _ := resize(b.Gen, int(n)) // Apply has resized it
				where += " (--gen " + spec + ")"
			}
			return fmt.Errorf("%w: at %s: %v", ErrBadParam, where, err)
		}
	}
	return nil
}

// Apply returns the bus and options of point pt. The base is not modified.
// Points may be out of spec (a 100 ns cable is), so Apply allows that; the
// run's Result lists why. A point the emulator cannot run at all (crossed
// window bounds, no generator to resize) is an error wrapping ErrBadParam.
func (b Base) Apply(pt Point) (*bus.Topology, bus.Options, error) {
	t, o := b.Topology, b.Options
	o.AllowOutOfSpec = true
	if n, ok := pt.value("nodes"); ok {
		spec, err := resize(b.Gen, int(n))
		if err != nil {
			return nil, o, err
		}
		if t, err = bus.Generate(spec); err != nil {
			return nil, o, fmt.Errorf("%w: nodes=%d: %v", ErrBadParam, int(n), err)
		}
	}
	// The point's own copy: the cables and timing change below.
	copied := *t
	t = &copied
	t.Cables = append([]bus.Cable(nil), t.Cables...)
	if d, ok := pt.value("delay"); ok {
		for i := range t.Cables {
			t.Cables[i].LengthM, t.Cables[i].DelayNs = nil, &d
		}
	}
	if m, ok := pt.value("cable_length"); ok {
		for i := range t.Cables {
			t.Cables[i].LengthM, t.Cables[i].DelayNs = &m, nil
		}
	}
	if p, ok := pt.value("coin_bias"); ok {
		o.CoinBias = &p
	}
	if g, ok := pt.value("gap_count"); ok {
		gap := int(g)
		t.Nodes = append([]bus.Node(nil), t.Nodes...)
		for i := range t.Nodes {
			t.Nodes[i].GapCount = &gap
		}
	}
	return setWindows(t, o, pt)
}

// setWindows applies the point's window bounds (fast_min … slow_max), if it
// has any, where the run reads them: o.Timing when set, else the
// topology's timing overrides. t is the point's own copy.
func setWindows(t *bus.Topology, o bus.Options, pt Point) (*bus.Topology, bus.Options, error) {
	fast, slow, err := windows(t, o)
	if err != nil {
		return nil, o, err
	}
	changed := false
	for _, w := range []struct {
		name string
		into *time.Duration
	}{
		{"fast_min", &fast.Min}, {"fast_max", &fast.Max}, {"slow_min", &slow.Min}, {"slow_max", &slow.Max},
	} {
		if v, ok := pt.value(w.name); ok {
			*w.into = time.Duration(math.Round(v))
			changed = true
		}
	}
	if !changed {
		return t, o, nil
	}
	if !fast.Valid() || !slow.Valid() {
		return nil, o, fmt.Errorf("%w: at %s the windows are FAST %v and SLOW %v; a window's min must not exceed its max", ErrBadParam, pt, fast, slow)
	}
	if o.Timing != nil {
		timing := *o.Timing
		timing.RootContendFast, timing.RootContendSlow = fast, slow
		o.Timing = &timing
		return t, o, nil
	}
	overrides := bus.TimingOverrides{}
	if t.Timing != nil {
		overrides = *t.Timing
	}
	overrides.RootContendFast = &bus.WindowOverride{Min: bus.Duration(fast.Min), Max: bus.Duration(fast.Max)}
	overrides.RootContendSlow = &bus.WindowOverride{Min: bus.Duration(slow.Min), Max: bus.Duration(slow.Max)}
	t.Timing = &overrides
	return t, o, nil
}

// resize rewrites generator spec gen for n nodes, keeping its kind and seed.
func resize(gen string, n int) (string, error) {
	kind, rest, _ := strings.Cut(gen, ":")
	_, seed, hasSeed := strings.Cut(rest, ":")
	switch {
	case gen == "":
		return "", fmt.Errorf("%w: nodes needs a generated bus (--gen tree:N, chain:N, …), not a topology file", ErrBadParam)
	case kind == "pair":
		return "", fmt.Errorf("%w: nodes cannot resize --gen pair (want chain, star, tree, ring or complete)", ErrBadParam)
	}
	spec := kind + ":" + strconv.Itoa(n)
	if hasSeed {
		spec += ":" + seed
	}
	return spec, nil
}

// windows returns the root-contention windows a run of t with o uses: those
// of o.Timing when set, else the profile's with the topology's overrides.
func windows(t *bus.Topology, o bus.Options) (fast, slow phy.Window, err error) {
	if o.Timing != nil {
		return o.Timing.RootContendFast, o.Timing.RootContendSlow, nil
	}
	p, err := phy.LookupProfile(cmp.Or(o.Profile, t.Profile))
	if err != nil {
		return fast, slow, fmt.Errorf("%w: %v", ErrBadParam, err)
	}
	fast, slow = p.Timing.RootContendFast, p.Timing.RootContendSlow
	if t.Timing != nil {
		if w := t.Timing.RootContendFast; w != nil {
			fast = phy.Window{Min: time.Duration(w.Min), Max: time.Duration(w.Max)}
		}
		if w := t.Timing.RootContendSlow; w != nil {
			slow = phy.Window{Min: time.Duration(w.Min), Max: time.Duration(w.Max)}
		}
	}
	return fast, slow, nil
}

// ManagerGapCount is the gap count a bus manager would set on t: 1394a's
// table for the diameter of its cables at power-up (treeid.GapCountForHops),
// as fwsim's bus manager and Linux's take it.
func ManagerGapCount(t *bus.Topology) (int, error) {
	hops, err := t.Hops(bus.ResolveOptions{AllowOutOfSpec: true})
	if err != nil {
		return 0, err
	}
	return treeid.GapCountForHops(hops), nil
}
