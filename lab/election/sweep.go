package election

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/lab/netsim"
)

// SweepCase is one curve of a sweep (fwsim elect --sweep): an algorithm on one family of
// graphs with one ID order, and the textbook's count of its messages.
type SweepCase struct {
	Algo    string
	Name    string // best, average or worst for Chang–Roberts; "" when the IDs do not change the count
	Graph   string // ring or tree
	IDs     IDOrder
	Formula string
	// Predict is the formula's value on topo of n nodes.
	Predict func(n int, topo *bus.Topology) (float64, error)
}

// SweepCases are the curves, in the order of the table. Every node
// initiates, as each algorithm does by default except echo, which starts
// from one; no LEADER round is added, so each formula counts what
// docs/election.md's table does.
var SweepCases = []SweepCase{
	{"chang-roberts", "best", "ring", Ascending, "2n−1", byN(func(n float64) float64 { return 2*n - 1 })},
	{"chang-roberts", "average", "ring", Random, "n·H(n)", byN(func(n float64) float64 { return n * harmonic(int(n)) })},
	{"chang-roberts", "worst", "ring", Descending, "n(n+1)/2", byN(func(n float64) float64 { return n * (n + 1) / 2 })},
	{"echo", "", "tree", Ascending, "3(n−1)", byN(func(n float64) float64 { return 3 * (n - 1) })},
	{"floodmax", "", "ring", Ascending, "2·E·D", floodMaxCount},
	{"floodmax", "", "tree", Ascending, "2·E·D", floodMaxCount},
}

func byN(f func(n float64) float64) func(int, *bus.Topology) (float64, error) {
	return func(n int, _ *bus.Topology) (float64, error) { return f(float64(n)), nil }
}

// harmonic is H(n) = 1 + 1/2 + … + 1/n: the expected messages of
// Chang–Roberts with random IDs are n·H(n), as the ID k-th largest travels
// until it meets a larger one.
func harmonic(n int) float64 {
	h := 0.0
	for k := n; k >= 1; k-- { // smallest terms first, for accuracy
		h += 1 / float64(k)
	}
	return h
}

// floodMaxCount is 2·E·D: every node sends on every cable in each of D
// rounds.
func floodMaxCount(_ int, topo *bus.Topology) (float64, error) {
	g, err := netsim.NewGraph(topo)
	if err != nil {
		return 0, err
	}
	d, err := g.Diameter(nil)
	return 2 * float64(g.Edges) * float64(d), err
}

// Label names a case in tables and legends.
func (c *SweepCase) Label() string {
	s := c.Algo
	if c.Name != "" {
		s += " " + c.Name
	}
	return s + " on a " + c.Graph
}

// SweepRow is one (case, n) of a sweep.
type SweepRow struct {
	Case *SweepCase
	N    int
	Runs int
	// Messages is the mean over the runs; Lo and Hi its 95% confidence
	// interval (stats.MeanInterval), equal to it when the count does not
	// depend on the seed.
	Messages, Lo, Hi float64
	Time             float64 // mean, in Unit
	Unit             string
	Formula          float64
	Skipped          string // why the size was not run; "" when it was
}

// SweepOptions say what Sweep runs: every case at every size.
type SweepOptions struct {
	Cases []*SweepCase
	Sizes []int
	// Seed seeds the first run of a point, and the generated tree; Runs
	// seeds (Seed, Seed+1, …) are averaged where the IDs are random.
	Seed       uint64
	Runs       int
	UnitDelays bool
	// MaxMessages skips a point whose formula gives more messages.
	MaxMessages uint64
}

// Sweep runs every case at every size, smallest first: the measured
// message counts beside the textbook's formula.
func Sweep(ctx context.Context, o SweepOptions) ([]SweepRow, error) {
	var rows []SweepRow
	for _, k := range o.Cases {
		for _, n := range o.Sizes {
			// Building a large graph does not look at ctx: look between
			// points.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			row, err := sweepPoint(ctx, o, k, n)
			if err != nil {
				return nil, fmt.Errorf("%s, n=%d: %w", k.Label(), n, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func sweepPoint(ctx context.Context, o SweepOptions, k *SweepCase, n int) (SweepRow, error) {
	topo, row, err := sweepGraph(o, k, n)
	if err != nil || row.Skipped != "" {
		return row, err
	}
	runs := o.runsOf(k)
	var sum, sumSq, times float64
	for r := range runs {
		res, err := sweepRun(ctx.Done(), o, topo, row, r)
		if err != nil {
			return SweepRow{}, err
		}
		m := float64(res.Messages.Total)
		sum, sumSq, times = sum+m, sumSq+m*m, times+res.Time
		row.Unit = res.TimeUnit
	}
	row.Runs = runs
	row.Messages, row.Time = sum/float64(runs), times/float64(runs)
	row.Lo, row.Hi = row.Messages, row.Messages
	if runs > 1 {
		// The normal approximation: a mean of many runs of a sum of many
		// messages.
		sd := math.Sqrt(max(sumSq-sum*sum/float64(runs), 0) / float64(runs-1))
		ci := stats.MeanInterval(row.Messages, sd, int64(runs))
		row.Lo, row.Hi = ci[0], ci[1]
	}
	return row, nil
}

// sweepGraph builds the graph of case k at size n and starts its row with
// the formula's value, or with why the size is skipped.
func sweepGraph(o SweepOptions, k *SweepCase, n int) (*bus.Topology, SweepRow, error) {
	spec := k.Graph + ":" + strconv.Itoa(n)
	if k.Graph == "tree" {
		spec += ":" + strconv.FormatUint(o.Seed, 10)
	}
	topo, err := bus.Generate(spec)
	if err != nil {
		return nil, SweepRow{}, err
	}
	row := SweepRow{Case: k, N: n}
	if row.Formula, err = k.Predict(n, topo); err != nil {
		return nil, SweepRow{}, err
	}
	if row.Formula > float64(o.MaxMessages) {
		row.Skipped = fmt.Sprintf("the formula gives %.4g messages, more than --max-messages %d", row.Formula, o.MaxMessages)
	}
	return topo, row, nil
}

// runsOf is how many runs each size of case k averages: one unless its
// IDs are random.
func (o SweepOptions) runsOf(k *SweepCase) int {
	if k.IDs == Random {
		return o.Runs
	}
	return 1
}

// sweepRun is run r of the point row on topo, checked to elect a leader.
func sweepRun(interrupt <-chan struct{}, o SweepOptions, topo *bus.Topology, row SweepRow, r int) (*Result, error) {
	// The runtime's default budget of events stops runs of more than ten
	// million messages; here the formula says how many to expect. Each
	// message is one event, and each node's start and timers a few more.
	budget := 2*uint64(row.Formula) + 4*uint64(row.N) + 1024
	res, err := Run(topo, Options{Algo: row.Case.Algo, IDOrder: row.Case.IDs, Seed: o.Seed + uint64(r),
		UnitDelays: o.UnitDelays, MaxEvents: budget, Interrupt: interrupt})
	if err != nil {
		return nil, err
	}
	if res.Leader == "" {
		return nil, fmt.Errorf("seed %d elected no leader: %s", res.Seed, res.NoLeader)
	}
	return res, nil
}

// WriteSweepCSV writes the preamble of comment lines, which says what
// made the file, then a row per case and size.
func WriteSweepCSV(w io.Writer, rows []SweepRow, preamble string) error {
	if _, err := io.WriteString(w, preamble); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"algo", "case", "graph", "n", "runs", "messages", "messages_ci_lo", "messages_ci_hi", "time", "time_unit", "formula", "formula_value", "skipped"})
	for _, r := range rows {
		rec := []string{r.Case.Algo, r.Case.Name, r.Case.Graph, strconv.Itoa(r.N), "", "", "", "", "", "", r.Case.Formula, csvFloat(r.Formula), r.Skipped}
		if r.Skipped == "" {
			rec[4], rec[5], rec[6], rec[7] = strconv.Itoa(r.Runs), csvFloat(r.Messages), csvFloat(r.Lo), csvFloat(r.Hi)
			rec[8], rec[9] = csvFloat(r.Time), r.Unit
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// csvFloat writes v as the shortest decimal that reads back as v.
func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// MaxSweepSize is the largest ring or tree the generators build.
const MaxSweepSize = 1 << 24

// ParseSizes reads n=FROM..TO into the sizes of a sweep: FROM, TO and every
// 1, 2 or 5 times a power of ten between. Its errors name the spec as
// --sweep does.
func ParseSizes(spec string) ([]int, error) {
	bad := func(why string) error { return fmt.Errorf("--sweep %s: %s", spec, why) }
	rest, ok := strings.CutPrefix(spec, "n=")
	if !ok {
		return nil, bad("want n=FROM..TO, e.g. n=10..100000")
	}
	from, to, ok := strings.Cut(rest, "..")
	if !ok {
		return nil, bad("want n=FROM..TO, e.g. n=10..100000")
	}
	lo, errLo := strconv.Atoi(from)
	hi, errHi := strconv.Atoi(to)
	switch {
	case errLo != nil || errHi != nil:
		return nil, bad("FROM and TO are whole numbers of nodes, e.g. n=10..100000")
	case lo < 2:
		return nil, bad("the smallest ring or tree has 2 nodes")
	case hi > MaxSweepSize:
		return nil, bad(fmt.Sprintf("the largest ring or tree has %d nodes", MaxSweepSize))
	case hi < lo:
		return nil, bad("TO is smaller than FROM")
	}
	sizes := []int{lo}
	for p := 1; p <= hi; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if v := m * p; v > lo && v < hi {
				sizes = append(sizes, v)
			}
		}
	}
	if hi > lo {
		sizes = append(sizes, hi)
	}
	return sizes, nil
}

// SweepCaseName is the Chang–Roberts case an ID order names: best
// (ascending), average (random) or worst (descending); "" for none.
func SweepCaseName(ids string) string {
	switch ids {
	case "best", "ascending":
		return "best"
	case "average", "random":
		return "average"
	case "worst", "descending":
		return "worst"
	}
	return ""
}

// SelectSweepCases are the cases of SweepCases of the algorithm algo, on
// the graph family graph (ring or tree) and the Chang–Roberts case name;
// "" selects every one.
func SelectSweepCases(algo, graph, name string) []*SweepCase {
	var out []*SweepCase
	for i := range SweepCases {
		k := &SweepCases[i]
		if (algo == "" || k.Algo == algo) && (graph == "" || k.Graph == graph) && (name == "" || k.Name == name) {
			out = append(out, k)
		}
	}
	return out
}
