package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/stats"
	"github.com/fwsim/fwsim/phy"
)

// ErrInvalidConfig is the category of errors in a Config, a shard spec or a
// set of summaries to merge.
var ErrInvalidConfig = errors.New("invalid analysis")

// failureOutcomes are listed in Summary.Failures even when no run ended so.
var failureOutcomes = []bus.Outcome{bus.OutcomeConfigTimeout, bus.OutcomeInconsistent,
	bus.OutcomeInterrupted, bus.OutcomeStalled, bus.OutcomeBudgetExhausted}

// Shard is the K-th (1-based) of N disjoint, contiguous slices of the run
// indices; the zero Shard is every run.
type Shard struct {
	K int `json:"k"` // this slice, from 1
	N int `json:"n"` // the number of slices
}

// ParseShard reads "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, errK := strconv.Atoi(k)
	ni, errN := strconv.Atoi(n)
	if !ok || errK != nil || errN != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("%w: shard %q: want K/N with 1 ≤ K ≤ N, e.g. 3/8", ErrInvalidConfig, s)
	}
	return Shard{K: ki, N: ni}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// runs is the range [from, to) of run indices the shard holds out of total,
// for 1 ≤ K ≤ N ≤ total or the zero Shard.
func (s Shard) runs(total int) (from, to int) {
	if s.N == 0 {
		return 0, total
	}
	return s.boundary(total, s.K-1), s.boundary(total, s.K)
}

// boundary is ⌊total·k/N⌋, where shard k+1 starts. total·k can take more
// than 64 bits (both may be near MaxRuns), so it is taken in 128; the
// quotient, at most total, fits.
func (s Shard) boundary(total, k int) int {
	hi, lo := bits.Mul64(uint64(total), uint64(k))
	q, _ := bits.Div64(hi, lo, uint64(s.N))
	return int(q)
}

// RunSeed is the seed of run i of an analysis seeded with seed: a SplitMix64
// mix of both, so that neighbouring runs get unrelated seeds. `fwsim run
// --seed RunSeed(seed, i)` with the same options replays run i.
func RunSeed(seed uint64, i int) uint64 {
	z := seed + (uint64(i)+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Config is one analysis.
type Config struct {
	Topology *bus.Topology
	// Source names the topology in the Summary: a file name, "gen SPEC".
	Source string
	// Options apply to every run; Options.Seed is the analysis seed that
	// RunSeed derives each run's seed from. Observer must be nil.
	Options bus.Options
	// Runs is the number of runs of the whole analysis, from 1 to MaxRuns.
	Runs int
	// Workers run in parallel (default: GOMAXPROCS). They change how fast
	// the analysis runs, never its result.
	Workers int
	// Shard restricts this process to a slice of the runs; Merge joins the
	// shards' summaries.
	Shard Shard
	// Deadlines are evaluated against their time metric, or every one when
	// it names none; no metric and deadline may come twice.
	Deadlines []bus.MetricDeadline
	// Each, when not nil, receives every run's Sample in run order. An
	// error stops the analysis and Run returns it.
	Each func(Sample) error
}

// MaxRuns is the most runs an analysis can hold: the statistics count runs
// in float64 (the mean divides by the count) and take ranks as count·999 in
// int64, both exact only up to 2^53. Far beyond any run time (2^53 runs of
// the smallest bus take centuries), the bound only stops a mistyped count
// from giving wrong numbers.
const MaxRuns = 1 << 53

// MaxRunsReason says why MaxRuns is the limit, for the messages that quote
// it.
const MaxRunsReason = "the statistics count runs exactly only up to 2^53"

// Sample is one run's metrics.
type Sample struct {
	Run  int
	Seed uint64
	bus.Metrics
}

// Header says what was analysed: shards merge only if their headers are
// equal.
type Header struct {
	Seed     uint64 `json:"seed"`     // the analysis seed, from which every run's own seed derives
	Topology string `json:"topology"` // the file, "gen SPEC" or "default"
	// ConfigSHA256 hashes the topology and every option that changes the
	// runs, including those the other fields do not show (force root,
	// initiators, budgets, timing overrides).
	ConfigSHA256 string `json:"config_sha256"`

	Profile  string  `json:"profile"`   // the PHY timing profile, e.g. 1394a-2000
	Timing   string  `json:"timing"`    // the corner of the back-off windows: random, min or max
	Clock    string  `json:"clock"`     // cycle or ideal
	Policy   string  `json:"policy"`    // how a node in root contention picks its wait: coin or larger-id-wins
	CoinBias float64 `json:"coin_bias"` // the probability of FAST
	// SetupSeed is --setup-seed: every run's clock phases and timer
	// lengths come from it, only coins and waits from the run's seed; null
	// when each run draws its own.
	SetupSeed *uint64 `json:"setup_seed"`
}

// Summary is the result of an analysis or of one shard of it.
type Summary struct {
	SchemaVersion int    `json:"schema_version"` // the version of docs/schema the output follows; shards of another one do not merge
	FwsimVersion  string `json:"fwsim_version"`  // the fwsim that wrote it, as fwsim version prints it
	// Runs is the number of runs summarised.
	Runs int `json:"runs"`
	Header
	// Shard is the slice of the runs a shard summarises and TotalRuns the
	// runs of the whole analysis; a shard's summary alone has them.
	Shard     *Shard `json:"shard,omitempty"`
	TotalRuns int    `json:"total_runs,omitempty"`
	// Metrics are keyed by metric name, of the first generation of each
	// run: tree_id_ns and self_id_ns, the end of tree and self identify in
	// ns from the generation's start; contention_ns, the root contention's
	// duration in ns; contention_rounds, its rounds.
	Metrics map[string]*Metric `json:"metrics"`
	// Deadlines has one entry per deadline and time metric, in the order
	// of the deadlines given: a deadline of every metric gives tree_id_ns,
	// self_id_ns and contention_ns in turn, one of a metric that metric's.
	Deadlines []Deadline `json:"deadlines"`
	// Roots counts, for every node, the runs it became root in.
	Roots map[string]int64 `json:"roots"`
	// Failures counts the runs by failure outcome, every outcome listed.
	Failures map[string]int64 `json:"failures"`
}

// Deadline is the probability that a time metric is at or below a deadline,
// over the runs the metric applies to (missing values miss).
type Deadline struct {
	Metric     string `json:"metric"`      // a time metric's name, ending in _ns
	DeadlineNs int64  `json:"deadline_ns"` // the deadline in ns
	Met        int64  `json:"met"`         // the runs whose value is at or below the deadline
	Of         int64  `json:"of"`          // the runs the metric applies to, missing ones included
	// P is Met/Of and CI95 its Wilson interval.
	P    float64    `json:"p"`
	CI95 [2]float64 `json:"ci95"`
}

// Failed counts the runs that did not end ok.
func (s *Summary) Failed() int64 {
	var n int64
	for _, c := range s.Failures {
		n += c
	}
	return n
}

// chunkRuns is how many consecutive runs a worker takes at a time: enough to
// make the hand-over cheap, few enough for a smooth progress bar.
const chunkRuns = 64

// chunkCount is the number of chunks runs consecutive runs make.
func chunkCount(runs int) int { return (runs + chunkRuns - 1) / chunkRuns }

// Run runs the analysis. progress, when not nil, is called as runs finish
// with the number done and the total of this shard. Errors: ErrInvalidConfig,
// the topology's and options' errors from bus, the error of Config.Each, or
// the context's.
func Run(ctx context.Context, cfg Config, progress func(done, total int)) (*Summary, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A run in progress stops soon after ctx ends, not only between runs: a
	// single run can be long (a coin that never decides runs to its event
	// budget).
	cfg.Options.Interrupt = ctx.Done()
	first, err := bus.NewSimulator(cfg.Topology, cfg.Options)
	if err != nil {
		return nil, err
	}
	header, err := HeaderOf(cfg)
	if err != nil {
		return nil, err
	}
	from, to := cfg.Shard.runs(cfg.Runs)
	chunks := chunkCount(to - from)
	workers := workersFor(cfg.Workers, to-from)
	sims := []*bus.Simulator{first}
	for len(sims) < workers {
		sim, err := bus.NewSimulator(cfg.Topology, cfg.Options)
		if err != nil {
			return nil, err
		}
		sims = append(sims, sim)
	}

	// A worker takes a buffer before it takes a chunk, so the chunk the
	// collector waits for always has one: the buffers bound the chunks in
	// flight without a deadlock.
	free := make(chan []Sample, 2*workers)
	for range cap(free) {
		free <- make([]Sample, 0, chunkRuns)
	}
	done := startWorkers(ctx, sims, cfg.Options.Seed, from, to, free)

	acc := newAccumulator(cfg.Topology, sims[0].HasTraffic())
	pending := map[int][]Sample{}
	want, finished := 0, 0
	var eachErr error
	for ch := range done {
		pending[ch.index] = ch.samples
		for eachErr == nil {
			samples, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			for _, s := range samples {
				acc.add(s.Metrics)
				if cfg.Each != nil && eachErr == nil {
					eachErr = cfg.Each(s)
				}
			}
			finished += len(samples)
			want++
			free <- samples[:0]
			if progress != nil {
				progress(finished, to-from)
			}
		}
		if eachErr != nil {
			cancel()
		}
	}
	if eachErr != nil {
		return nil, eachErr
	}
	if want < chunks {
		return nil, context.Cause(ctx)
	}
	sum := acc.summary(header, metricDeadlines(cfg.Deadlines))
	sum.Runs = to - from
	if cfg.Shard.N > 0 {
		sum.Shard, sum.TotalRuns = &cfg.Shard, cfg.Runs
	}
	return sum, nil
}

// workersFor is how many workers Run starts for runs runs when Config.Workers
// is workers: one per chunk at most, for there is no smaller share of work.
func workersFor(workers, runs int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(min(workers, chunkCount(runs)), 1)
}

// chunk is the samples of the index-th chunkRuns runs of a shard.
type chunk struct {
	index   int
	samples []Sample
}

// startWorkers runs the runs [from, to) of an analysis seeded with seed in
// chunks, one goroutine per simulator, each chunk into a buffer taken from
// free. The returned channel yields the chunks as they finish, in any order,
// and closes when every chunk is done or ctx is.
func startWorkers(ctx context.Context, sims []*bus.Simulator, seed uint64, from, to int, free <-chan []Sample) <-chan chunk {
	chunks := chunkCount(to - from)
	done := make(chan chunk, cap(free))
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, sim := range sims {
		wg.Go(func() {
			for {
				var buf []Sample
				select {
				case buf = <-free:
				case <-ctx.Done():
					return
				}
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo := from + c*chunkRuns
				for i := lo; i < min(lo+chunkRuns, to); i++ {
					runSeed := RunSeed(seed, i)
					m := sim.Run(runSeed)
					if sim.Interrupted() {
						return // ctx ended: the chunk is not finished
					}
					buf = append(buf, Sample{Run: i, Seed: runSeed, Metrics: m})
				}
				select {
				case done <- chunk{c, buf}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

func (cfg *Config) check() error {
	switch {
	case cfg.Topology == nil:
		return fmt.Errorf("%w: no topology", ErrInvalidConfig)
	case cfg.Runs < 1:
		return fmt.Errorf("%w: %d runs, want at least 1", ErrInvalidConfig, cfg.Runs)
	case cfg.Runs > MaxRuns:
		return fmt.Errorf("%w: %d runs, at most %d, because %s", ErrInvalidConfig, cfg.Runs, MaxRuns, MaxRunsReason)
	case cfg.Shard != Shard{} && (cfg.Shard.K < 1 || cfg.Shard.K > cfg.Shard.N):
		return fmt.Errorf("%w: shard %s, want K/N with 1 ≤ K ≤ N", ErrInvalidConfig, cfg.Shard)
	case cfg.Shard.N > cfg.Runs:
		return fmt.Errorf("%w: %d shards of %d runs leave some empty", ErrInvalidConfig, cfg.Shard.N, cfg.Runs)
	}
	seen := map[metricDeadline]bool{}
	for _, d := range cfg.Deadlines {
		switch {
		case d.D <= 0:
			return fmt.Errorf("%w: deadline %v, want a positive duration", ErrInvalidConfig, d)
		case d.Metric != "" && !slices.Contains(bus.TimeMetrics, d.Metric):
			return fmt.Errorf("%w: deadline %v: metric %q, want one of %s", ErrInvalidConfig, d, d.Metric, strings.Join(bus.TimeMetrics, ", "))
		}
		for _, md := range metricDeadlines([]bus.MetricDeadline{d}) {
			if seen[md] {
				return fmt.Errorf("%w: deadline %v: %s ≤ %v is asked for twice; want each once", ErrInvalidConfig, d, md.metric, time.Duration(md.ns))
			}
			seen[md] = true
		}
	}
	return nil
}

// metricDeadline is a deadline of one time metric, in ns.
type metricDeadline struct {
	metric string
	ns     int64
}

// metricDeadlines expands ds, in order, into a deadline per metric: one
// that names none gives one for every time metric.
func metricDeadlines(ds []bus.MetricDeadline) []metricDeadline {
	var out []metricDeadline
	for _, d := range ds {
		if d.Metric != "" {
			out = append(out, metricDeadline{d.Metric, int64(d.D)})
			continue
		}
		for _, name := range bus.TimeMetrics {
			out = append(out, metricDeadline{name, int64(d.D)})
		}
	}
	return out
}

// HeaderOf describes the analysis of cfg; the hash covers the topology as
// serialised and the options, less the seed (in the header) and the
// observer (not allowed).
func HeaderOf(cfg Config) (Header, error) {
	o := cfg.Options
	profile := o.Profile
	if profile == "" {
		profile = cfg.Topology.Profile
	}
	if profile == "" {
		profile = phy.DefaultProfile
	}
	bias := 0.5
	if o.CoinBias != nil {
		bias = *o.CoinBias
	}
	clock := "cycle"
	if o.IdealClock {
		clock = "ideal"
	}
	// Every field of bus.Options but the seed and the observer.
	blob, err := json.Marshal(struct {
		Topology       *bus.Topology
		Profile        string
		Timing         *phy.Timing
		AllowOutOfSpec bool
		ForceRoot      string
		Initiators     []string
		Policy, Corner string
		CoinBias       float64
		IdealClock     bool
		MaxEvents      uint64
		MaxTime        time.Duration
		// Left out when unset, so that the hashes of analyses without
		// them stay as they were.
		NominalTimers   bool          `json:",omitempty"`
		SetupSeed       *uint64       `json:",omitempty"`
		PowerUp         string        `json:",omitempty"`
		PowerUpInterval time.Duration `json:",omitempty"`
		Until           time.Duration `json:",omitempty"`
	}{cfg.Topology, o.Profile, o.Timing, o.AllowOutOfSpec, o.ForceRoot, o.Initiators,
		o.Policy.String(), o.Corner.String(), bias, o.IdealClock, o.EventBudget(len(cfg.Topology.Nodes)), o.MaxTime, o.NominalTimers, o.SetupSeed,
		powerUpName(o.PowerUp), o.PowerUpInterval, o.Until})
	if err != nil {
		return Header{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	sum := sha256.Sum256(blob)
	return Header{
		Seed: cfg.Options.Seed, Topology: cfg.Source, ConfigSHA256: hex.EncodeToString(sum[:]),
		Profile: profile, Timing: o.Corner.String(), Clock: clock, Policy: o.Policy.String(), CoinBias: bias, SetupSeed: o.SetupSeed,
	}, nil
}

// powerUpName is the power-up mode in a configuration's hash: "" for the
// profile's, which analyses made before the modes existed ran.
func powerUpName(p bus.PowerUp) string {
	if p == bus.PowerUpDefault {
		return ""
	}
	return p.String()
}

// accumulator folds runs, or merged summaries, into histograms and counts.
type accumulator struct {
	hists    map[string]*histogram
	roots    map[string]int64
	failures map[string]int64
}

// newAccumulator is ready for the runs of t: every metric (the traffic
// metrics too when the runs have traffic), every node and every failure
// outcome is listed, at zero, before the first run.
func newAccumulator(t *bus.Topology, traffic bool) *accumulator {
	a := newEmptyAccumulator()
	for _, name := range metricNames(traffic) {
		a.hists[name] = newHistogram()
	}
	for _, n := range t.Nodes {
		a.roots[n.ID] = 0
	}
	for _, o := range failureOutcomes {
		a.failures[string(o)] = 0
	}
	return a
}

// newEmptyAccumulator lists nothing: merged summaries bring their own keys.
func newEmptyAccumulator() *accumulator {
	return &accumulator{hists: map[string]*histogram{}, roots: map[string]int64{}, failures: map[string]int64{}}
}

func (a *accumulator) add(m bus.Metrics) {
	if m.Outcome != bus.OutcomeOK {
		a.failures[string(m.Outcome)]++
	}
	if m.Root != "" {
		a.roots[m.Root]++
	}
	a.addTime(bus.MetricTreeID, m.TreeIDNs)
	a.addTime(bus.MetricSelfID, m.SelfIDNs)
	if m.Contended {
		a.addTime(bus.MetricContention, m.ContentionNs)
	}
	a.hists[bus.MetricContentionRounds].add(int64(m.ContentionRounds))
	if m.Traffic.Present {
		for _, name := range bus.TrafficMetricNames {
			a.hists[name].add(m.Traffic.Value(name))
		}
	}
}

// MetricNames lists the metrics of the summary in the order reports show
// them: bus.MetricNames, then bus.TrafficMetricNames when the runs had
// traffic.
func (s *Summary) MetricNames() []string { return metricNames(s.Metrics[bus.MetricCollisions] != nil) }

// metricNames are the metrics of runs with or without traffic.
func metricNames(traffic bool) []string {
	if traffic {
		return append(slices.Clone(bus.MetricNames), bus.TrafficMetricNames...)
	}
	return bus.MetricNames
}

// addSummary folds in a summary's histograms and counts, as Merge does with
// each shard.
func (a *accumulator) addSummary(s *Summary) {
	for name, m := range s.Metrics {
		h := a.hists[name]
		if h == nil {
			h = newHistogram()
			a.hists[name] = h
		}
		h.missing += m.Missing
		for _, b := range m.Hist {
			h.counts[b.Value] += b.Count
		}
	}
	for id, c := range s.Roots {
		a.roots[id] += c
	}
	for o, c := range s.Failures {
		a.failures[o] += c
	}
}

// addTime records a time metric; a negative time was never reached.
func (a *accumulator) addTime(name string, ns int64) {
	if ns < 0 {
		a.hists[name].missing++
		return
	}
	a.hists[name].add(ns)
}

func (a *accumulator) summary(h Header, deadlines []metricDeadline) *Summary {
	s := &Summary{SchemaVersion: bus.SchemaVersion, Header: h, Metrics: map[string]*Metric{}, Roots: a.roots, Failures: a.failures}
	for name, hist := range a.hists {
		s.Metrics[name] = hist.metric()
	}
	s.Deadlines = []Deadline{}
	for _, d := range deadlines {
		s.Deadlines = append(s.Deadlines, deadlineOf(d.metric, s.Metrics[d.metric], d.ns))
	}
	return s
}

// deadlineOf evaluates the deadline ns against the metric m named name.
func deadlineOf(name string, m *Metric, ns int64) Deadline {
	met, of := m.atOrBelow(ns), m.N+m.Missing
	p := 0.0
	if of > 0 {
		p = float64(met) / float64(of)
	}
	return Deadline{Metric: name, DeadlineNs: ns, Met: met, Of: of, P: p, CI95: stats.Wilson(met, of)}
}

// Shortfalls says what makes the analysis a failure, one finding each:
// runs that did not end ok, and every deadline some run missed (a missed
// deadline is a failure). None when it passed.
func (s *Summary) Shortfalls() []string {
	var why []string
	if failed := s.Failed(); failed > 0 {
		why = append(why, fmt.Sprintf("%d of %d runs did not end ok", failed, s.Runs))
	}
	for _, d := range s.Deadlines {
		if d.Met < d.Of {
			why = append(why, fmt.Sprintf("%s > %v in %d of %d runs", d.Metric, time.Duration(d.DeadlineNs), d.Of-d.Met, d.Of))
		}
	}
	return why
}
