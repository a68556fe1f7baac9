package hwtest

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/internal/stats"
)

// DefaultOddsStates is OddsOptions.MaxStates when zero: a root contention
// on cycle-accurate clocks takes 4,609 states (about 4 s on a 6-node bus,
// 9 s on 63 nodes), a bus without one a few.
const DefaultOddsStates = 10_000

// OddsRuns is how many Monte Carlo runs estimate the odds of a bus that
// cannot be explored within OddsOptions.MaxStates.
const OddsRuns = 1000

// OddsOptions say how Cross computes the odds of the captured root and
// self-ID order.
type OddsOptions struct {
	// MaxStates bounds the exploration that computes them exactly (0:
	// DefaultOddsStates); past it, or when negative, OddsRuns Monte Carlo
	// runs estimate them.
	MaxStates int
	// Cache, when not nil, keeps the odds of every bus and options Cross
	// computes, so that the generations of a capture that show the same
	// bus share them.
	Cache map[string]*Odds
}

// Odds is the distribution of the first generation's root and self-ID
// order that the emulator gives one bus, with the options of a
// cross-check and no root forced: over the coins and waits of root
// contention, with the PHY timer lengths and clock phases that the seed
// draws (as fwsim explore --seed and analyze --setup-seed fix them).
type Odds struct {
	// Exact reports odds from an exploration of every run (States states,
	// internal/mdp's exact rationals); otherwise Runs Monte Carlo runs, at
	// seeds Seed to Seed+Runs−1, estimate them, and Why says why.
	Exact  bool
	States int
	Runs   int
	Why    string
	// Roots lists every root some run elects, likeliest first.
	Roots []RootOdds
}

// RootOdds is the chance of one root, and of each self-ID order of the
// runs that elect it.
type RootOdds struct {
	Root   string // a topology node; "" for none or several
	P      Chance
	Orders []OrderOdds // likeliest first
}

// OrderOdds is the chance of one self-ID order: the nodes that took a
// phy_ID, in phy_ID order.
type OrderOdds struct {
	Order []string
	P     Chance
}

// Chance is a probability the emulator gives: exact bounds from an
// exploration, or a Monte Carlo estimate.
type Chance struct {
	// Lo and Hi are the exact bounds (equal unless the solver bounded a
	// cycle by value iteration); nil for an estimate.
	Lo, Hi *big.Rat
	// Count is how many of Runs Monte Carlo runs showed it; 0 of 0 when
	// exact.
	Count, Runs int
}

// P is the probability: exact, the middle of the exact bounds, or the
// share of the runs.
func (c Chance) P() float64 {
	if c.Lo == nil {
		return float64(c.Count) / float64(c.Runs)
	}
	mid, _ := new(big.Rat).Add(c.Lo, c.Hi).Float64()
	return mid / 2
}

// Interval is [Lo, Hi], or the 95% Wilson interval of an estimate.
func (c Chance) Interval() [2]float64 {
	if c.Lo == nil {
		return stats.Wilson(int64(c.Count), int64(c.Runs))
	}
	lo, _ := c.Lo.Float64()
	hi, _ := c.Hi.Float64()
	return [2]float64{lo, hi}
}

// Exact is the exact probability as a fraction ("1/2"), or its bounds
// ("[a, b]"); "" for an estimate.
func (c Chance) Exact() string {
	if c.Lo == nil {
		return ""
	}
	return explore.Interval{Min: c.Lo, Max: c.Hi}.String()
}

func (c Chance) String() string {
	if c.Lo != nil {
		return c.Exact()
	}
	ci := c.Interval()
	return fmt.Sprintf("%.3f (%d of %d runs, 95%% interval %.3f–%.3f)", c.P(), c.Count, c.Runs, ci[0], ci[1])
}

// never is the chance of what no run shows, in the odds' kind.
func (o *Odds) never() Chance {
	if o.Exact {
		return Chance{Lo: new(big.Rat), Hi: new(big.Rat)}
	}
	return Chance{Runs: o.Runs}
}

// OfRoot is the chance that the first generation elects root.
func (o *Odds) OfRoot(root string) Chance {
	for _, r := range o.Roots {
		if r.Root == root {
			return r.P
		}
	}
	return o.never()
}

// OfOrder is the chance that the first generation's nodes take phy_IDs in
// order.
func (o *Odds) OfOrder(order []string) Chance {
	for _, r := range o.Roots {
		for _, x := range r.Orders {
			if slices.Equal(x.Order, order) {
				return x.P
			}
		}
	}
	return o.never()
}

// LikeliestOrder is the order of the highest chance, among every root's.
func (o *Odds) LikeliestOrder() OrderOdds {
	var best OrderOdds
	for _, r := range o.Roots {
		if len(r.Orders) > 0 && (best.Order == nil || r.Orders[0].P.P() > best.P.P()) {
			best = r.Orders[0]
		}
	}
	return best
}

// oddsOf computes, or takes from the cache, the odds of t's first
// generation under o with no root forced; o.Interrupt stops it.
func oddsOf(t *bus.Topology, o bus.Options, oo OddsOptions) (*Odds, error) {
	free := withoutForceRoot(t)
	o.ForceRoot = ""
	maxStates := cmp.Or(oo.MaxStates, DefaultOddsStates)
	var key string
	if oo.Cache != nil {
		var b strings.Builder
		if err := free.Encode(&b, "json"); err != nil {
			return nil, err
		}
		key = fmt.Sprintf("%s\x00%q\x00%d\x00%d", b.String(), o.Initiators, o.Seed, maxStates)
		if odds, ok := oo.Cache[key]; ok {
			return odds, nil
		}
	}
	odds, why, err := exactOdds(free, o, maxStates)
	if err == nil && odds == nil {
		odds, err = sampledOdds(free, o)
	}
	if err != nil {
		return nil, err
	}
	if !odds.Exact {
		odds.Why = why
	}
	if oo.Cache != nil {
		oo.Cache[key] = odds
	}
	return odds, nil
}

// exactOdds explores t within maxStates (none when negative): nil odds
// when it could not, and why.
func exactOdds(t *bus.Topology, o bus.Options, maxStates int) (*Odds, string, error) {
	if maxStates < 0 {
		return nil, "no exploration asked for", nil
	}
	res, err := explore.Explore(t, explore.Options{Bus: o, Roots: true, MaxStates: maxStates, Interrupt: o.Interrupt})
	switch {
	case errors.Is(err, bus.ErrCannotExplore):
		return nil, err.Error(), nil
	case err != nil:
		return nil, "", err
	case !res.Complete:
		return nil, fmt.Sprintf("the exploration passed %d states", maxStates), nil
	}
	odds := &Odds{Exact: true, States: res.States}
	for _, r := range res.Roots {
		ro := RootOdds{Root: r.Root, P: Chance{Lo: r.P.Min, Hi: r.P.Max}}
		for _, x := range r.Orders {
			ro.Orders = append(ro.Orders, OrderOdds{Order: x.Order, P: Chance{Lo: x.P.Min, Hi: x.P.Max}})
		}
		odds.Roots = append(odds.Roots, ro)
	}
	return odds, "", nil
}

// sampledOdds estimates the odds from OddsRuns runs at seeds o.Seed on,
// with the PHY timer lengths and clock phases of o.Seed.
func sampledOdds(t *bus.Topology, o bus.Options) (*Odds, error) {
	setup := o.Seed
	o.SetupSeed = &setup
	counts := map[string]*RootOdds{}
	odds := &Odds{Runs: OddsRuns}
	for k := range uint64(OddsRuns) {
		select {
		case <-o.Interrupt: // a run of a small bus is over before it looks
			return nil, bus.ErrInterrupted
		default:
		}
		o.Seed = setup + k
		res, err := bus.Run(t, o)
		if err != nil {
			return nil, err
		}
		g := res.Generations[0]
		r := counts[g.Root]
		if r == nil {
			r = &RootOdds{Root: g.Root, P: Chance{Runs: OddsRuns}}
			counts[g.Root] = r
		}
		r.P.Count++
		order := []string{}
		for _, n := range g.Nodes {
			if n.PhyID >= 0 {
				order = append(order, n.ID)
			}
		}
		i := slices.IndexFunc(r.Orders, func(x OrderOdds) bool { return slices.Equal(x.Order, order) })
		if i < 0 {
			i = len(r.Orders)
			r.Orders = append(r.Orders, OrderOdds{Order: order, P: Chance{Runs: OddsRuns}})
		}
		r.Orders[i].P.Count++
	}
	for _, r := range counts {
		slices.SortFunc(r.Orders, func(a, b OrderOdds) int {
			return cmp.Or(cmp.Compare(b.P.Count, a.P.Count), slices.Compare(a.Order, b.Order))
		})
		odds.Roots = append(odds.Roots, *r)
	}
	slices.SortFunc(odds.Roots, func(a, b RootOdds) int {
		return cmp.Or(cmp.Compare(b.P.Count, a.P.Count), strings.Compare(a.Root, b.Root))
	})
	return odds, nil
}
