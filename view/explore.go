package view

import (
	"cmp"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/phy"
)

// ratText writes an exact value as a fraction with its rounded decimal;
// a fraction too long to read is left to --json.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	if f := r.RatString(); len(f) <= maxFractionText {
		return f + " (" + r.FloatString(6) + ")"
	}
	return r.FloatString(6)
}

// intervalText writes a value; the minimum and maximum over every
// scheduler as [a, b]; or, where they are not exact, the interval that
// holds them ("in [a, b]", or each apart when they are known apart). An
// interval too narrow for six decimals to tell apart is written as its
// midpoint and width.
func intervalText(i explore.Interval) string {
	if i.Exact() {
		return ratText(i.Min)
	}
	if i.Min.FloatString(6) == i.Max.FloatString(6) {
		width, _ := new(big.Rat).Sub(i.Max, i.Min).Float64()
		return fmt.Sprintf("%s (bounds %.1e apart)", i.Min.FloatString(6), width)
	}
	if i.Settled() {
		return boundsText(i.Min, i.Max)
	}
	minLo, minHi := i.MinBounds()
	maxLo, maxHi := i.MaxBounds()
	if minHi.Cmp(i.Max) == 0 && maxLo.Cmp(i.Min) == 0 {
		return "in " + boundsText(i.Min, i.Max)
	}
	return "min in " + boundsText(minLo, minHi) + ", max in " + boundsText(maxLo, maxHi)
}

// boundsText writes [lo, hi], or lo alone when they are the same.
func boundsText(lo, hi *big.Rat) string {
	if lo.Cmp(hi) == 0 {
		return ratText(lo)
	}
	return "[" + ratText(lo) + ", " + ratText(hi) + "]"
}

// WriteExploreText writes the report of fwsim explore: res, the
// exploration o of topo (source names it), and the counterexample files.
func WriteExploreText(w io.Writer, source string, topo *bus.Topology, o explore.Options, res *explore.Result, files map[string]string) {
	fmt.Fprintf(w, "fwsim explore: %s, %s\n", source, exploreSettings(topo, o))
	complete := "every state explored"
	if !res.Complete {
		bound := fmt.Sprintf("--max-states %d", res.MaxStates)
		if res.MaxStatesFromMemory {
			bound = fmt.Sprintf("%d states, the most --max-memory holds", res.MaxStates)
		}
		complete = "stopped at " + bound + ": every answer is an interval that holds the exact value, and only a failure already sure is a verdict"
	}
	fmt.Fprintf(w, "%d states, %d run ends (%s); %d partial runs, %d events, %s\n",
		res.States, res.Terminals, complete, res.Runs, res.Events, res.Elapsed.Round(time.Millisecond))
	if res.Nondeterministic {
		fmt.Fprintln(w, "Choices are left to an adversary: [a, b] is the minimum and maximum over all schedulers.")
	}
	if res.Bounded {
		fmt.Fprintln(w, "Some cycles were too large to solve exactly: the values they reach are bounded by sound value iteration (--json has the bounds as fractions).")
	}
	fmt.Fprintln(w, "\nOutcomes")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range res.Outcomes {
		line := "  " + string(r.Outcome) + "\t" + intervalText(r.P)
		switch name := files[string(r.Outcome)]; {
		case name != "":
			line += "\tcounterexample " + name + " (its random choices: " + r.PathP.RatString() + ")"
		case r.Outcome == bus.OutcomeBudgetExhausted && r.Path == nil:
			line += "\truns that never end (fwsim run stops them at its event budget)"
		}
		fmt.Fprintln(tw, line)
	}
	if res.Unexplored != nil {
		fmt.Fprintln(tw, "  unexplored\t"+intervalText(*res.Unexplored)+"\truns that reach a state left unexplored (--max-states), where any outcome may follow")
	}
	tw.Flush()
	if len(res.Deadlines) > 0 {
		fmt.Fprintln(w, "\nDeadlines (contention_ns over the contended runs unless choices are left to an adversary)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range res.Deadlines {
			line := fmt.Sprintf("  %s ≤ %s\t%s", d.Metric, time.Duration(d.DeadlineNs), intervalText(d.P))
			if name := files[explore.MissKey(d)]; name != "" {
				line += "\ta likeliest miss " + name + " (its random choices: " + d.MissP.RatString() + ")"
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nExpected values (over the runs that reach each metric; times in ns)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range res.Expected {
		if x.Defined {
			fmt.Fprintf(tw, "  %s\t%s\n", x.Metric, intervalText(x.Value))
		} else {
			fmt.Fprintf(tw, "  %s\t-\t%s\n", x.Metric, x.Why)
		}
	}
	tw.Flush()
}

// exploreSettings says how the bus was explored, for the report's header.
func exploreSettings(topo *bus.Topology, o explore.Options) string {
	profile := cmp.Or(o.Bus.Profile, topo.Profile, phy.DefaultProfile)
	bias := o.Bias()
	phases := "fixed by the seed"
	if o.Space.PhaseGrid > 0 {
		phases = "grid:" + strconv.Itoa(o.Space.PhaseGrid)
	}
	s := fmt.Sprintf("profile %s, clock %s, timing %s, policy %s, coin bias %s, phases %s, seed %d",
		profile, bus.ClockName(o.Bus.IdealClock), o.Timing, o.Bus.Policy, bias.RatString(), phases, o.Bus.Seed)
	if win := o.Space.EventWindow; win != nil {
		s += fmt.Sprintf(", events from %d to %d ns", win.From, win.To)
	}
	if r := o.Resolution(); r > 1 {
		s += fmt.Sprintf(", choices every %d ns", r)
	}
	return s
}

// maxFractionText is the longest fraction the text report prints.
const maxFractionText = 40
