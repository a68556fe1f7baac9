package sweep

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
)

// PointResult is what one point of a sweep found.
type PointResult struct {
	Point      Point
	Conditions Conditions
	OutOfSpec  string          // the first reason the point is out of spec, "" if in spec
	Config     analysis.Config // the point's analysis
	Summary    *analysis.Summary
	// ManagerGapCount is the gap count a bus manager would set on the
	// point's bus (ManagerGapCount) where the sweep sweeps gap_count, -1
	// otherwise.
	ManagerGapCount int
}

// Run is a whole sweep: the grid (nil for one analysis), the analysis it
// repeats, the base the grid's points apply to, and, once executed, what
// each point found.
type Run struct {
	Grid   *Grid
	Config analysis.Config
	Base   Base
	Points []PointResult
}

// FailedWithin counts the runs that failed at points where the conditions
// hold: the failures the protocol should never have.
func (r *Run) FailedWithin() (failed int64, points int) {
	for _, p := range r.Points {
		if n := p.Summary.Failed(); n > 0 && p.Conditions.Hold() {
			failed += n
			points++
		}
	}
	return failed, points
}

func (r *Run) PointJSON(p PointResult) PointJSON {
	c, s := p.Conditions, p.Summary
	out := PointJSON{
		Values: map[string]float64{}, DelayNs: c.DelayNs,
		FastNs: [2]int64{int64(c.Fast.Min), int64(c.Fast.Max)}, SlowNs: [2]int64{int64(c.Slow.Min), int64(c.Slow.Max)},
		CoinBias: s.CoinBias, ThresholdNs: MaxDelayNs(c.Fast, c.Slow),
		RoundTrip: c.RoundTrip, Separation: c.Separation, ConditionsHold: c.Hold(),
		Runs: s.Runs, Failed: s.Failed(), Failures: s.Failures,
		Metrics: map[string]PointStatsJSON{}, Deadlines: s.Deadlines,
	}
	for i, param := range r.Grid.Params {
		out.Values[param.Name] = p.Point.Values[i]
	}
	if p.OutOfSpec != "" {
		out.OutOfSpec = &p.OutOfSpec
	}
	if p.ManagerGapCount >= 0 {
		out.ManagerGapCount = &p.ManagerGapCount
	}
	for name, m := range s.Metrics {
		out.Metrics[name] = PointStatsJSON{N: m.N, Missing: m.Missing, Mean: m.Mean, CI95: m.CI95, P99: m.P99}
	}
	return out
}

// CSVHeader names the columns of WriteCSV.
func (r *Run) CSVHeader() []string {
	var h []string
	for _, p := range r.Grid.Params {
		h = append(h, p.Name)
	}
	h = append(h, "delay_ns", "fast_min_ns", "fast_max_ns", "slow_min_ns", "slow_max_ns", "coin_bias",
		"threshold_ns", "round_trip", "separation", "conditions_hold", "out_of_spec", "runs", "failed")
	first := r.Points[0].Summary
	for _, f := range SortedKeys(first.Failures) {
		h = append(h, strings.ReplaceAll(f, "-", "_"))
	}
	for _, m := range first.MetricNames() {
		h = append(h, m+"_mean", m+"_ci_lo", m+"_ci_hi", m+"_p99", m+"_missing")
	}
	for _, d := range first.Deadlines {
		h = append(h, "p_"+d.Metric+"_le_"+time.Duration(d.DeadlineNs).String())
	}
	return h
}

// CSVPreamble is the comment lines of the run's CSV files: a sweep's
// (without a configuration hash, which each point has its own of) or an
// analysis'.
func (r *Run) CSVPreamble(command string) (string, error) {
	h, err := analysis.HeaderOf(r.Config)
	if r.Grid != nil {
		h.ConfigSHA256 = ""
	}
	return analysis.CSVPreamble(command, h), err
}

// JSON is the --json output; field names are stable.
type JSON struct {
	bus.VersionJSON
	Topology string      `json:"topology"` // the file, "gen SPEC" or "default"
	Seed     uint64      `json:"seed"`     // the analysis seed, the same at every point
	Runs     int         `json:"runs"`     // per point
	Profile  string      `json:"profile"`  // the PHY timing profile, e.g. 1394a-2000
	Timing   string      `json:"timing"`   // the corner of the back-off windows: random, min or max
	Clock    string      `json:"clock"`    // cycle or ideal
	Policy   string      `json:"policy"`   // how a node in root contention picks its wait: coin or larger-id-wins
	Params   []ParamJSON `json:"params"`   // the --param flags, the last varying fastest
	Points   []PointJSON `json:"points"`   // every point of the grid, in order
}

// ParamJSON is one --param NAME=FROM..TO:STEP.
type ParamJSON struct {
	Name string  `json:"name"` // the parameter, as fwsim help sweep lists it
	Unit string  `json:"unit"` // the unit of from, to, step and the point values: ns, m, or "" for none
	From float64 `json:"from"` // the first value
	To   float64 `json:"to"`   // the last value
	Step float64 `json:"step"` // the distance between values
}

// PointJSON is the analysis at one point of the grid.
type PointJSON struct {
	Values   map[string]float64 `json:"values"`    // each parameter's value here, keyed by name
	DelayNs  int64              `json:"delay_ns"`  // the longest one-way cable delay in ns
	FastNs   [2]int64           `json:"fast_ns"`   // the FAST back-off window [min, max] in ns
	SlowNs   [2]int64           `json:"slow_ns"`   // the SLOW back-off window [min, max] in ns
	CoinBias float64            `json:"coin_bias"` // the probability of FAST
	// ThresholdNs is the delay below which the conditions hold with these
	// windows.
	ThresholdNs    float64 `json:"threshold_ns"`
	RoundTrip      bool    `json:"round_trip"`      // 2·delay < FAST min
	Separation     bool    `json:"separation"`      // 2·delay + FAST max < SLOW min
	ConditionsHold bool    `json:"conditions_hold"` // both conditions hold
	OutOfSpec      *string `json:"out_of_spec"`     // why the point is beyond the standard's limits; null when in spec
	Runs           int     `json:"runs"`            // the runs at this point
	Failed         int64   `json:"failed"`          // the runs that did not end ok
	// Failures counts the runs by failure outcome, every outcome listed.
	Failures  map[string]int64          `json:"failures"`
	Metrics   map[string]PointStatsJSON `json:"metrics"`   // keyed by metric name, as analyze's metrics
	Deadlines []analysis.Deadline       `json:"deadlines"` // as analyze's deadlines
	// ManagerGapCount is the gap count a bus manager would set on this
	// point's bus, 1394a's table for its diameter; only where the sweep
	// sweeps gap_count.
	ManagerGapCount *int `json:"manager_gap_count,omitempty"`
}

// PointStatsJSON is a metric at one point, as analyze gives it.
type PointStatsJSON struct {
	N       int64      `json:"n"`       // the runs that reached the metric
	Missing int64      `json:"missing"` // the runs it applies to that never reached it
	Mean    float64    `json:"mean"`    // the sample mean, in the metric's unit
	CI95    [2]float64 `json:"ci95"`    // the 95% confidence interval of the mean
	P99     float64    `json:"p99"`     // the nearest-rank 99th percentile
}

func WriteJSON(w io.Writer, r *Run) error {
	first := r.Points[0].Summary
	out := JSON{
		VersionJSON: bus.NewVersionJSON(),
		Topology:    first.Topology, Seed: first.Seed, Runs: r.Config.Runs, Profile: first.Profile,
		Timing: first.Timing, Clock: first.Clock, Policy: first.Policy,
	}
	for _, p := range r.Grid.Params {
		out.Params = append(out.Params, ParamJSON{p.Name, p.Unit, p.From, p.To, p.Step})
	}
	for _, p := range r.Points {
		out.Points = append(out.Points, r.PointJSON(p))
	}
	return analysis.WriteJSON(w, out)
}

// SortedKeys lists the keys of a count map (outcomes, nodes) in a fixed
// order for columns.
func SortedKeys(m map[string]int64) []string { return slices.Sorted(maps.Keys(m)) }

// WriteCSV writes preamble (csvPreamble), then a row per point.
func WriteCSV(w io.Writer, r *Run, preamble string) error {
	if _, err := io.WriteString(w, preamble); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(r.CSVHeader())
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, p := range r.Points {
		c, s := p.Conditions, p.Summary
		var row []string
		for _, v := range p.Point.Values {
			row = append(row, f(v))
		}
		row = append(row, d(c.DelayNs), d(int64(c.Fast.Min)), d(int64(c.Fast.Max)), d(int64(c.Slow.Min)), d(int64(c.Slow.Max)),
			f(s.CoinBias), f(MaxDelayNs(c.Fast, c.Slow)), strconv.FormatBool(c.RoundTrip), strconv.FormatBool(c.Separation),
			strconv.FormatBool(c.Hold()), strconv.FormatBool(p.OutOfSpec != ""), strconv.Itoa(s.Runs), d(s.Failed()))
		for _, name := range SortedKeys(s.Failures) {
			row = append(row, d(s.Failures[name]))
		}
		for _, name := range s.MetricNames() {
			m := s.Metrics[name]
			if m.N == 0 {
				row = append(row, "", "", "", "", d(m.Missing))
				continue
			}
			row = append(row, f(m.Mean), f(m.CI95[0]), f(m.CI95[1]), f(m.P99), d(m.Missing))
		}
		for _, dl := range s.Deadlines {
			row = append(row, f(dl.P))
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// Execute analyses every point in grid order, appending what each found
// to Points. progress sees the runs of the whole sweep; each, when not nil,
// gets every run's sample and its point. Every point is one analysis.Run
// of Config at that point: the same seed gives the same bytes at any
// worker count.
func (r *Run) Execute(ctx context.Context, progress func(done, total int), each func(point int, sample analysis.Sample) error) error {
	base := r.Base
	total := r.Grid.Len() * r.Config.Runs
	for i := range r.Grid.Len() {
		pt := r.Grid.Point(i)
		topo, opts, err := base.Apply(pt)
		if err != nil {
			return err
		}
		gp := PointResult{Point: pt, ManagerGapCount: -1}
		if gp.Conditions, err = Evaluate(topo, opts); err != nil {
			return err
		}
		if _, swept := pt.value("gap_count"); swept {
			if gp.ManagerGapCount, err = ManagerGapCount(topo); err != nil {
				return err
			}
		}
		if err := topo.Validate(bus.ResolveOptions{Profile: opts.Profile}); errors.Is(err, bus.ErrOutOfSpec) {
			gp.OutOfSpec = err.Error()
		}
		cfg := r.Config
		cfg.Topology, cfg.Options = topo, opts
		gp.Config = cfg
		if each != nil {
			cfg.Each = func(sample analysis.Sample) error { return each(i, sample) }
		}
		var pointProgress func(done, total int)
		if progress != nil {
			pointProgress = func(done, _ int) { progress(i*r.Config.Runs+done, total) }
		}
		if gp.Summary, err = analysis.Run(ctx, cfg, pointProgress); err != nil {
			return fmt.Errorf("at %s: %w", pt, err)
		}
		r.Points = append(r.Points, gp)
	}
	return nil
}
