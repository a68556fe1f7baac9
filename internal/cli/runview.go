package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// writeRunText writes the human report of a run: a header, each generation,
// and a summary line. Times are integer nanoseconds; generation-internal
// times count from the generation's start.
func writeRunText(w io.Writer, source string, res *bus.Result) {
	fmt.Fprintf(w, "fwsim run: seed %d, profile %s, policy %s, coin bias %g, timing %s, clock %s\n",
		res.Seed, res.Profile, res.Policy, res.CoinBias, res.Corner, clockName(res.IdealClock))
	fmt.Fprintf(w, "topology: %s\n", source)
	first := "power-up, every PHY"
	if len(res.Initiators) > 0 {
		first = "from " + strings.Join(res.Initiators, ", ")
	}
	if res.ForceRoot != "" {
		first += "; force root " + res.ForceRoot
	}
	fmt.Fprintf(w, "first reset: %s\n", first)
	if len(res.OutOfSpec) > 0 {
		fmt.Fprintf(w, "OUT OF SPEC: %s\n", strings.Join(res.OutOfSpec, "; "))
	}
	for _, g := range res.Generations {
		fmt.Fprintln(w)
		writeGenerationText(w, &g)
	}
	fmt.Fprintln(w)
	ok := len(res.Generations) - failedGenerations(res)
	fmt.Fprintf(w, "%d generation%s, %d ok; %d events; end %d ns\n",
		len(res.Generations), plural(len(res.Generations)), ok, res.Events, res.EndNs)
}

func writeGenerationText(w io.Writer, g *bus.Generation) {
	fmt.Fprintf(w, "generation %d at %d ns (%s): %s\n", g.Index, g.StartNs, g.Cause, g.Outcome)
	for _, p := range g.Problems {
		fmt.Fprintf(w, "    problem: %s\n", p)
	}
	fmt.Fprintf(w, "  root: %s\n", orNone(g.Root))

	var nodes table
	showState := false
	for _, n := range g.Nodes {
		showState = showState || n.State != phy.A0Idle
	}
	header := []string{"id", "phy_ID", "role", "parent", "rounds", "ports"}
	if showState {
		header = append(header, "state")
	}
	nodes.add(header...)
	for _, n := range g.Nodes {
		role := "-"
		switch {
		case n.Root:
			role = "root"
		case n.ParentPort >= 0:
			role = "child"
		}
		row := []string{n.ID, intOrDash(n.PhyID), role, portOrDash(n.ParentPort), strconv.Itoa(n.ContentionRounds), portList(n.Ports)}
		if showState && n.State != phy.A0Idle {
			row = append(row, n.State.String())
		}
		nodes.add(row...)
	}
	nodes.write(w, "  ")

	if len(g.Contention) == 0 {
		fmt.Fprintln(w, "  root contention: none")
	} else {
		fmt.Fprintln(w, "  root contention:")
		for _, c := range g.Contention {
			end, duration, parent := "unresolved", "", "none"
			if c.EndNs >= 0 {
				end = strconv.FormatInt(c.EndNs, 10)
				duration = fmt.Sprintf(" (%d ns)", c.EndNs-c.StartNs)
			}
			if c.Parent != "" {
				parent = c.Parent
			}
			fmt.Fprintf(w, "    %s:%d - %s:%d: %d round%s, %d to %s ns%s, parent %s\n",
				c.Nodes[0], c.Ports[0], c.Nodes[1], c.Ports[1], c.Rounds, plural(c.Rounds),
				c.StartNs, end, duration, parent)
			var backoffs table
			for _, b := range c.Backoffs {
				backoffs.add(b.Node, fastSlow(b.Fast), fmt.Sprintf("wait %d ns", b.WaitNs), fmt.Sprintf("from %d ns", b.StartNs))
			}
			backoffs.write(w, "      ")
		}
	}

	fmt.Fprintf(w, "  phases (from start): reset end %s, tree identify done %s, self-ID done %s\n",
		phaseTime(g.Timing.ResetEnd), phaseTime(g.Timing.TreeIDDone), phaseTime(g.Timing.SelfIDDone))

	if len(g.SelfIDs) == 0 {
		fmt.Fprintln(w, "  self-IDs: none")
		return
	}
	fmt.Fprintf(w, "  self-IDs (%d):\n", len(g.SelfIDs))
	for _, q := range g.SelfIDs {
		fmt.Fprintf(w, "    0x%08x  %s\n", uint32(q), q)
	}
}

func clockName(ideal bool) string {
	if ideal {
		return "ideal"
	}
	return "cycle"
}

func fastSlow(fast bool) string {
	if fast {
		return "fast"
	}
	return "slow"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func intOrDash(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func portOrDash(p int) string {
	if p < 0 {
		return "-"
	}
	return "p" + strconv.Itoa(p)
}

func phaseTime(ns int64) string {
	if ns < 0 {
		return "never"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

// portList renders port states as "p0:child p1:parent p2:ncon".
func portList(ports []phy.PortStatus) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("p%d:%s", i, p)
	}
	return strings.Join(parts, " ")
}

// table aligns rows of cells in columns two spaces apart, with no trailing
// blanks; rows may be shorter than others.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, indent string) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
