package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwsim/fwsim/hwtest"
)

func WriteCrosscheckText(w io.Writer, c *hwtest.Capture, seed uint64, rs []hwtest.CrossResult) {
	fmt.Fprintf(w, "fwsim crosscheck: %s (%s), seed %d\n", c.Source, c.Format, seed)
	for i, r := range rs {
		fmt.Fprintln(w)
		if r.Err != nil {
			fmt.Fprintf(w, "generation %d: NOT EMULATED: %v\n", i+1, r.Err)
			continue
		}
		ch := r.Check
		verdict := "match"
		if !ch.Match() {
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "generation %d: %s\n", i+1, verdict)
		fmt.Fprintf(w, "  emulated: profile %s, force root %s, initiators %s; outcome %s\n",
			ch.Profile, orNone(ch.ForceRoot), orNone(strings.Join(ch.Initiators, ", ")), ch.Outcome)
		if ch.Root != nil {
			fmt.Fprintf(w, "  root: %s; the nodes are compared with %s forced\n", ch.Root, ch.Root.Real)
		}
		if l := ch.Likelihood; l != nil {
			writeLikelihoodText(w, l, seed)
		}
		for _, n := range ch.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, p := range ch.Problems {
			fmt.Fprintf(w, "  emulation problem: %s\n", p)
		}
		if len(ch.Diffs) == 0 {
			fmt.Fprintf(w, "  differences: none (%d self-ID quadlets compared)\n", len(ch.Real))
			continue
		}
		fmt.Fprintf(w, "  differences (%d):\n", len(ch.Diffs))
		var t table
		t.add("node", "field", "real", "emulated", "real quadlet")
		for _, d := range ch.Diffs {
			t.add(d.Where(), d.Field, d.Real, d.Emulated, quadletAt(ch.Real, d.Index))
		}
		t.write(w, "    ")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d generation%s, %d match%s\n", len(rs), Plural(len(rs)), len(rs)-hwtest.Mismatches(rs), esPlural(len(rs)-hwtest.Mismatches(rs)))
}

// writeLikelihoodText writes the odds of the captured root and order, how
// they were computed, and the likeliest root and order when likelier.
func writeLikelihoodText(w io.Writer, l *hwtest.Likelihood, seed uint64) {
	if l.Exact {
		fmt.Fprintf(w, "  odds (exact: every run explored, %d state%s; seed %d's timers and clock phases):\n", l.States, Plural(l.States), seed)
	} else {
		fmt.Fprintf(w, "  odds (Monte Carlo: %d runs from seed %d, with its timers and clock phases; %s):\n", l.Runs, seed, l.Why)
	}
	fmt.Fprintf(w, "    P(root %s) = %s\n", l.Root, l.PRoot)
	fmt.Fprintf(w, "    P(self-ID order %s) = %s\n", strings.Join(l.Order, " "), l.POrder)
	if r, ok := l.LikelierRoot(); ok {
		fmt.Fprintf(w, "    likeliest root: %s, %s\n", orNone(r.Root), r.P)
	}
	if o, ok := l.LikelierOrder(); ok {
		fmt.Fprintf(w, "    likeliest order: %s, %s\n", orNone(strings.Join(o.Order, " ")), o.P)
	}
}

func esPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// quadletAt shows quadlet index of s as "3: 0x817fcc5e", "-" when none.
func quadletAt[T ~uint32](s []T, index int) string {
	if index < 0 || index >= len(s) {
		return "-"
	}
	return fmt.Sprintf("%d: 0x%08x", index, uint32(s[index]))
}
