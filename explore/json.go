package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/treeid"
)

// JSON is the --json output of explore; field names are stable.
// Every probability or expectation comes as a float (rounded) and as an
// exact fraction string (the *_exact fields): one value p when it is exact,
// else the bounds pmin and pmax (min and max for expectations).
type JSON struct {
	bus.VersionJSON
	Topology         string                  `json:"topology"`         // the file, "gen SPEC" or "default"
	Seed             uint64                  `json:"seed"`             // fixes what is not a choice: timer lengths, and clock phases without a phase grid
	Profile          string                  `json:"profile"`          // the --profile given, "" for the topology's
	Clock            string                  `json:"clock"`            // cycle or ideal
	Timing           string                  `json:"timing"`           // how waits are chosen: random, nondet, min or max
	Policy           string                  `json:"policy"`           // coin or larger-id-wins
	CoinBias         string                  `json:"coin_bias"`        // the exact probability of FAST, a fraction
	PhaseGrid        int                     `json:"phase_grid"`       // K of --phases grid:K; 0 for the seed's phases
	EventWindowNs    *[2]int64               `json:"event_window_ns"`  // --event-window as [from, to] ns; null without
	ResolutionNs     int64                   `json:"resolution_ns"`    // --resolution: the ns between the instants a wait may end at or the event window's instants (1: every ns)
	States           int                     `json:"states"`           // distinct states explored
	Terminals        int                     `json:"terminals"`        // run ends reached
	Complete         bool                    `json:"complete"`         // every state was explored: no interval comes from --max-states
	Nondeterministic bool                    `json:"nondeterministic"` // some choice is an adversary's: values are [min, max] over all schedulers
	Bounded          bool                    `json:"bounded"`          // some cycle was bounded by sound value iteration, not solved exactly: the values it reaches are narrow intervals
	Runs             int                     `json:"runs"`             // partial runs taken to explore
	Events           uint64                  `json:"events"`           // their kernel events
	ElapsedNs        int64                   `json:"elapsed_ns"`       // wall time of the exploration
	Outcomes         []OutcomeJSON           `json:"outcomes"`         // every reachable outcome
	Unexplored       *ProbJSON               `json:"unexplored"`       // the probability that a run reaches a state left unexplored at --max-states; null when complete
	Deadlines        []DeadlineJSON          `json:"deadlines"`        // for each deadline in turn, tree_id_ns, self_id_ns and contention_ns
	Expected         map[string]ExpectedJSON `json:"expected"`         // keyed by metric: tree_id_ns, self_id_ns, contention_ns, contention_rounds
}

// ProbJSON is a probability. Exactly one form is present: p and p_exact
// when it is one exact value; p_bounds when, without an adversary, it is
// only bounded (the exploration stopped at --max-states, or the solver
// bounded a cycle); under an adversary, the minimum and the maximum over
// every scheduler, each as pmin and pmin_exact (pmax, pmax_exact) when
// exact, else as pmin_bounds (pmax_bounds).
type ProbJSON struct {
	P          *float64    `json:"p,omitempty"`           // the probability, rounded
	PExact     string      `json:"p_exact,omitempty"`     // the probability, a fraction such as "25/32"
	PBounds    *BoundsJSON `json:"p_bounds,omitempty"`    // without an adversary: where the probability lies, when it is not exact
	PMin       *float64    `json:"pmin,omitempty"`        // the minimum over every scheduler, rounded
	PMinExact  string      `json:"pmin_exact,omitempty"`  // the minimum, a fraction
	PMinBounds *BoundsJSON `json:"pmin_bounds,omitempty"` // where the minimum lies, when it is not exact
	PMax       *float64    `json:"pmax,omitempty"`        // the maximum over every scheduler, rounded
	PMaxExact  string      `json:"pmax_exact,omitempty"`  // the maximum, a fraction
	PMaxBounds *BoundsJSON `json:"pmax_bounds,omitempty"` // where the maximum lies, when it is not exact
}

// BoundsJSON is an interval that holds a value not known exactly.
type BoundsJSON struct {
	Lower         float64 `json:"lower"`          // the lower bound, rounded
	Upper         float64 `json:"upper"`          // the upper bound, rounded
	LowerFraction string  `json:"lower_fraction"` // the lower bound, a fraction
	UpperFraction string  `json:"upper_fraction"` // the upper bound, a fraction
}

func newBoundsJSON(lo, hi *big.Rat) *BoundsJSON {
	l, _ := lo.Float64()
	h, _ := hi.Float64()
	return &BoundsJSON{Lower: l, Upper: h, LowerFraction: lo.RatString(), UpperFraction: hi.RatString()}
}

// newProbJSON is i; adversary says whether a scheduler makes choices, so
// that i is a minimum and a maximum rather than one value.
func newProbJSON(i Interval, adversary bool) ProbJSON {
	if i.Exact() {
		f, _ := i.Min.Float64()
		return ProbJSON{P: &f, PExact: i.Min.RatString()}
	}
	if !adversary {
		return ProbJSON{PBounds: newBoundsJSON(i.Min, i.Max)}
	}
	var j ProbJSON
	if i.MinUpper == nil {
		f, _ := i.Min.Float64()
		j.PMin, j.PMinExact = &f, i.Min.RatString()
	} else {
		j.PMinBounds = newBoundsJSON(i.Min, i.MinUpper)
	}
	if i.MaxLower == nil {
		f, _ := i.Max.Float64()
		j.PMax, j.PMaxExact = &f, i.Max.RatString()
	} else {
		j.PMaxBounds = newBoundsJSON(i.MaxLower, i.Max)
	}
	return j
}

// OutcomeJSON is one reachable outcome.
type OutcomeJSON struct {
	Outcome string `json:"outcome"` // as fwsim run's outcome
	ProbJSON
	Counterexample *string `json:"counterexample"` // the --counterexamples file of a run that ends so; null for ok or without the flag
}

// DeadlineJSON is the probability of one metric within one deadline.
type DeadlineJSON struct {
	Metric     string `json:"metric"`      // tree_id_ns, self_id_ns or contention_ns
	DeadlineNs int64  `json:"deadline_ns"` // the deadline in ns
	ProbJSON
	Counterexample *string `json:"counterexample"` // the --counterexamples file of a likeliest run that misses it; null when none can, or without the flag
}

// ExpectedJSON is a metric's ExpectedJSON value over the runs that reach it; min
// equals max when exact, and all four are null when it has none.
type ExpectedJSON struct {
	Min      *float64 `json:"min"`       // the lower bound (the value when exact), rounded
	Max      *float64 `json:"max"`       // the upper bound, rounded
	MinExact *string  `json:"min_exact"` // the lower bound, a fraction
	MaxExact *string  `json:"max_exact"` // the upper bound, a fraction
	Why      *string  `json:"why"`       // why there is none; null when there is
}

// NewJSON is res, the exploration o asked for, as fwsim explore --json
// writes it; source names the topology and files maps an outcome, or
// MissKey of a deadline, to its counterexample file.
func NewJSON(source string, o Options, res *Result, files map[string]string) JSON {
	out := JSON{VersionJSON: bus.NewVersionJSON(), Topology: source, Seed: o.Bus.RunSeed(), Profile: o.Bus.Profile,
		Clock: bus.ClockName(o.Bus.IdealClock), Timing: o.Timing.String(), Policy: o.Bus.Policy.String(), CoinBias: o.Bias().RatString(),
		PhaseGrid: o.Space.PhaseGrid, ResolutionNs: o.Resolution(), States: res.States, Terminals: res.Terminals, Complete: res.Complete,
		Nondeterministic: res.Nondeterministic, Bounded: res.Bounded, Runs: res.Runs, Events: res.Events, ElapsedNs: int64(res.Elapsed),
		Outcomes: []OutcomeJSON{}, Deadlines: []DeadlineJSON{}, Expected: map[string]ExpectedJSON{}}
	if win := o.Space.EventWindow; win != nil {
		out.EventWindowNs = &[2]int64{win.From, win.To}
	}
	for _, r := range res.Outcomes {
		j := OutcomeJSON{Outcome: string(r.Outcome), ProbJSON: newProbJSON(r.P, res.Nondeterministic)}
		if name, ok := files[string(r.Outcome)]; ok {
			j.Counterexample = &name
		}
		out.Outcomes = append(out.Outcomes, j)
	}
	if res.Unexplored != nil {
		u := newProbJSON(*res.Unexplored, res.Nondeterministic)
		out.Unexplored = &u
	}
	for _, d := range res.Deadlines {
		j := DeadlineJSON{Metric: d.Metric, DeadlineNs: d.DeadlineNs, ProbJSON: newProbJSON(d.P, res.Nondeterministic)}
		if name, ok := files[MissKey(d)]; ok {
			j.Counterexample = &name
		}
		out.Deadlines = append(out.Deadlines, j)
	}
	for _, x := range res.Expected {
		var j ExpectedJSON
		if x.Defined {
			lo, _ := x.Value.Min.Float64()
			hi, _ := x.Value.Max.Float64()
			loExact, hiExact := x.Value.Min.RatString(), x.Value.Max.RatString()
			j = ExpectedJSON{Min: &lo, Max: &hi, MinExact: &loExact, MaxExact: &hiExact}
		} else {
			why := x.Why
			j.Why = &why
		}
		out.Expected[x.Metric] = j
	}
	return out
}

// Bias is the exploration's coin bias, 1/2 unless given.
func (o Options) Bias() *big.Rat {
	if o.CoinBias != nil {
		return o.CoinBias
	}
	return big.NewRat(1, 2)
}

// Resolution is the exploration's time step in ns, 1 unless given.
func (o Options) Resolution() int64 { return max(o.Space.Resolution, 1) }

// ReplayFile is a counterexample file: a run fwsim explore found, with
// everything fwsim run --replay needs to run it again. Field names are
// stable.
type ReplayFile struct {
	bus.VersionJSON
	Outcome        string             `json:"outcome"`           // how the run ends
	Misses         string             `json:"misses,omitempty"`  // the deadline the run misses, e.g. "contention_ns > 2000 ns"; absent for an outcome's counterexample
	Probability    string             `json:"probability"`       // the product of its random choices' probabilities, a fraction
	Seed           uint64             `json:"seed"`              // fixes what is not a choice
	Profile        string             `json:"profile"`           // the --profile given, "" for the topology's
	Clock          string             `json:"clock"`             // cycle or ideal
	Timing         string             `json:"timing"`            // random, nondet, min or max
	Policy         string             `json:"policy"`            // coin or larger-id-wins
	CoinBias       string             `json:"coin_bias"`         // the probability of FAST, a fraction
	NominalTimers  bool               `json:"nominal_timers"`    // --nominal-timers
	AllowOutOfSpec bool               `json:"allow_out_of_spec"` // --allow-out-of-spec
	ForceRoot      string             `json:"force_root"`        // --force-root, "" for none
	Initiators     []string           `json:"initiators"`        // --initiator; [] when none was given and the power-up mode decides
	PowerUp        string             `json:"power_up"`          // --power-up: one, all or staggered; default for the profile's
	PhaseGrid      int                `json:"phase_grid"`        // K of --phases grid:K; 0 for the seed's phases
	EventWindowNs  *WindowNs          `json:"event_window_ns"`   // --event-window as [from, to] ns; null without
	ResolutionNs   int64              `json:"resolution_ns"`     // --resolution in ns; 1 for every ns
	Topology       json.RawMessage    `json:"topology"`          // the bus, as a topology file in JSON
	Choices        []ReplayChoiceJSON `json:"choices"`           // every choice of the run, in order
}

// ReplayChoiceJSON is one choice of a counterexample.
type ReplayChoiceJSON struct {
	Kind    string `json:"kind"`    // coin, wait, phase or shift
	Node    string `json:"node"`    // the node that chooses; "" for shift
	Option  int    `json:"option"`  // the option taken, from 0
	Meaning string `json:"meaning"` // what it means, e.g. FAST or "wait 41 cycles"
}

// NewReplayFile is the counterexample file of path, a run of the
// exploration o of topo that ends with outcome, whose random choices have
// probability p.
func NewReplayFile(topo *bus.Topology, o Options, outcome bus.Outcome, path *bus.Path, p *big.Rat) ReplayFile {
	var buf bytes.Buffer
	// The topology was loaded and ran: it encodes.
	_ = topo.Encode(&buf, "json")
	f := ReplayFile{VersionJSON: bus.NewVersionJSON(), Outcome: string(outcome), Probability: p.RatString(),
		Seed: o.Bus.RunSeed(), Profile: o.Bus.Profile, Clock: bus.ClockName(o.Bus.IdealClock), Timing: o.Timing.String(), Policy: o.Bus.Policy.String(),
		CoinBias: o.Bias().RatString(), NominalTimers: o.Bus.NominalTimers, AllowOutOfSpec: o.Bus.AllowOutOfSpec,
		ForceRoot: o.Bus.ForceRoot, Initiators: append([]string{}, o.Bus.Initiators...), PowerUp: o.Bus.PowerUp.String(), PhaseGrid: o.Space.PhaseGrid,
		ResolutionNs: o.Resolution(), Topology: bytes.TrimSpace(buf.Bytes()), Choices: []ReplayChoiceJSON{}}
	if win := o.Space.EventWindow; win != nil {
		f.EventWindowNs = &WindowNs{win.From, win.To}
	}
	for _, c := range path.Choices {
		f.Choices = append(f.Choices, ReplayChoiceJSON{Kind: c.Kind.String(), Node: c.Node, Option: c.Option, Meaning: c.Meaning})
	}
	return f
}

// WindowNs is an event window, [from, to] ns.
type WindowNs [2]int64

// UnmarshalJSON reads exactly two numbers: an array decodes into a Go
// array of any length, dropping or zeroing the rest.
func (w *WindowNs) UnmarshalJSON(data []byte) error {
	var ns []int64
	if err := json.Unmarshal(data, &ns); err != nil || len(ns) != 2 {
		return errors.New("event_window_ns: want [FROM, TO], two whole numbers of ns")
	}
	*w = WindowNs(ns)
	return nil
}

// MaxReplayFileSize bounds a counterexample file: its topology file (at
// most 4 MiB as YAML, a few times that as JSON) and a line per choice.
const MaxReplayFileSize = 16 << 20

// fraction matches a probability as big.Rat.RatString writes it; SetString
// alone would also take "1e999999999", which takes ages to expand.
var fraction = regexp.MustCompile(`^[0-9]+(/[0-9]+)?$`)

// parseProbability reads a fraction from 0 to 1.
func parseProbability(s string) (*big.Rat, bool) {
	if !fraction.MatchString(s) {
		return nil, false
	}
	p, ok := new(big.Rat).SetString(s)
	return p, ok && p.Cmp(one) <= 0
}

// ReadReplayFile reads data, the counterexample file name, and returns the
// bus and the options that replay it with bus.Run. A file larger than
// MaxReplayFileSize, anything after its object, a key given twice and a
// field out of its range are errors that name the file and the field.
func ReadReplayFile(name string, data []byte) (*bus.Topology, bus.Options, error) {
	var f ReplayFile
	if len(data) > MaxReplayFileSize {
		return nil, bus.Options{}, fmt.Errorf("%s: larger than %d MiB: not a counterexample file of fwsim explore", name, MaxReplayFileSize>>20)
	}
	if err := decodeStrict(data, &f); err != nil {
		return nil, bus.Options{}, fmt.Errorf("%s: not a counterexample file of fwsim explore: %w", name, err)
	}
	if f.SchemaVersion != bus.SchemaVersion {
		return nil, bus.Options{}, fmt.Errorf("%s: schema_version %d (fwsim %s), but this fwsim reads %d", name, f.SchemaVersion, f.FwsimVersion, bus.SchemaVersion)
	}
	field := func(what, value, want string) error {
		return fmt.Errorf("%s: %s: %q: want %s", name, what, value, want)
	}
	if !slices.Contains(bus.Outcomes, bus.Outcome(f.Outcome)) {
		return nil, bus.Options{}, field("outcome", f.Outcome, "one of "+outcomeNames())
	}
	if _, ok := parseProbability(f.Probability); !ok {
		return nil, bus.Options{}, field("probability", f.Probability, "a fraction from 0 to 1 such as 1/4")
	}
	if len(f.Topology) == 0 {
		return nil, bus.Options{}, fmt.Errorf("%s: topology: missing", name)
	}
	topo, err := bus.ParseTopology(f.Topology, name+": topology")
	if err != nil {
		return nil, bus.Options{}, err
	}
	o := bus.Options{Seed: f.Seed, Profile: f.Profile, NominalTimers: f.NominalTimers, AllowOutOfSpec: f.AllowOutOfSpec,
		ForceRoot: f.ForceRoot, Initiators: f.Initiators}
	if f.PowerUp != bus.PowerUpDefault.String() {
		if o.PowerUp, err = bus.ParsePowerUp(f.PowerUp); err != nil {
			return nil, o, field("power_up", f.PowerUp, "default, one, all or staggered")
		}
	}
	switch f.Clock {
	case "cycle":
	case "ideal":
		o.IdealClock = true
	default:
		return nil, o, field("clock", f.Clock, "cycle or ideal")
	}
	if o.Policy, err = treeid.ParsePolicy(f.Policy); err != nil {
		return nil, o, field("policy", f.Policy, "coin or larger-id-wins")
	}
	timing, err := ParseTiming(f.Timing)
	if err != nil {
		return nil, o, field("timing", f.Timing, "random, nondet, min or max")
	}
	o.Corner = timing.Corner()
	bias, ok := parseProbability(f.CoinBias)
	if !ok {
		return nil, o, field("coin_bias", f.CoinBias, "a probability such as 1/2")
	}
	p, _ := bias.Float64()
	o.CoinBias = &p
	if f.ResolutionNs < 0 {
		return nil, o, field("resolution_ns", strconv.FormatInt(f.ResolutionNs, 10), "a positive number of ns")
	}
	path := &bus.Path{Space: bus.ChoiceSpace{PhaseGrid: f.PhaseGrid, Resolution: f.ResolutionNs}}
	if w := f.EventWindowNs; w != nil {
		if w[0] < 0 || w[1] < w[0] {
			return nil, o, fmt.Errorf("%s: event_window_ns: [%d, %d]: want [FROM, TO] with 0 ≤ FROM ≤ TO", name, w[0], w[1])
		}
		path.Space.EventWindow = &bus.Window{From: w[0], To: w[1]}
	}
	for i, c := range f.Choices {
		kind, err := bus.ParseChoiceKind(c.Kind)
		if err != nil {
			return nil, o, fmt.Errorf("%s: choices[%d].kind: %w", name, i, err)
		}
		if c.Meaning == "" {
			return nil, o, fmt.Errorf("%s: choices[%d].meaning: missing: want what the option means, as explore writes it", name, i)
		}
		path.Choices = append(path.Choices, bus.PathChoice{Kind: kind, Node: c.Node, Option: c.Option, Meaning: c.Meaning})
	}
	o.Replay = path
	return topo, o, nil
}

// outcomeNames lists bus.Outcomes for a message.
func outcomeNames() string {
	names := make([]string, len(bus.Outcomes))
	for i, o := range bus.Outcomes {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

// decodeStrict decodes data, one JSON object, into v as the topology
// reader reads JSON: no unknown field, no key twice in one object, nothing
// after the object; a value of the wrong type is named by its field.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return fmt.Errorf("%s: a JSON %s: want %s", te.Field, te.Value, jsonKind(te.Type))
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the object, at byte %d", dec.InputOffset())
	}
	if r, ok := jsonout.FindRepeatedKey(data); ok {
		return fmt.Errorf("%s: given twice; want each key once", r.Path)
	}
	return nil
}

// jsonKind says in words what JSON value a Go type reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number from 0"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// Verdict is what an exploration concluded: what fwsim explore's exit
// status says.
type Verdict int

const (
	// Good: every state was explored, and no run can fail or miss a
	// deadline.
	Good Verdict = iota
	// Fails: some run fails or misses a deadline with a probability that is
	// surely above 0 (under some scheduler), explored completely or not.
	Fails
	// Incomplete: the exploration stopped at MaxStates before finding a
	// sure failure, and the unexplored states may still hold one.
	Incomplete
)

// Shortfalls says, one phrase each, which outcomes that are not ok some
// run can end with and which deadlines some run can miss ("stalled with
// probability 1/2", "contention_ns ≤ 2µs only with probability 1861/2048"),
// or why an incomplete exploration is not sure: what makes fwsim explore
// exit 1 or 4. Empty when the verdict is Good.
func (res *Result) Shortfalls() []string {
	if why := res.failures(true); len(why) > 0 {
		return why
	}
	why := res.failures(false)
	if !res.Complete {
		why = append(why, fmt.Sprintf("stopped at %d states with no failure sure, and the unexplored states are reached with probability %s", res.States, res.Unexplored))
	}
	return why
}

// Verdict is the exploration's conclusion.
func (res *Result) Verdict() Verdict {
	switch {
	case len(res.failures(true)) > 0:
		return Fails
	case !res.Complete:
		return Incomplete
	case len(res.failures(false)) > 0:
		return Fails
	}
	return Good
}

// failures lists the outcomes that are not ok and the deadlines missed
// with a probability that is surely above 0, or, unless sure, may be.
func (res *Result) failures(sure bool) []string {
	var why []string
	for _, r := range res.Outcomes {
		p := r.P.Max
		if sure {
			p, _ = r.P.MaxBounds()
		}
		if r.Outcome != bus.OutcomeOK && p.Sign() > 0 {
			why = append(why, fmt.Sprintf("%s with probability %s", r.Outcome, r.P))
		}
	}
	for _, d := range res.Deadlines {
		p := d.P.Min
		if sure {
			_, p = d.P.MinBounds()
		}
		if p.Cmp(one) < 0 {
			why = append(why, fmt.Sprintf("%s ≤ %s only with probability %s", d.Metric, time.Duration(d.DeadlineNs), d.P))
		}
	}
	return why
}

// MissKey names a deadline's counterexample in NewJSON's files map.
func MissKey(d DeadlineResult) string {
	return fmt.Sprintf("miss %s %d", d.Metric, d.DeadlineNs)
}

// Counterexample is one counterexample file of an exploration: its key in
// NewJSON's files map (an outcome, or MissKey of a deadline), the name to
// write it as, and its content.
type Counterexample struct {
	Key, Name string
	File      ReplayFile
}

// Counterexamples are the files of every run res found that fails
// (OUTCOME.json) or misses a deadline (miss-METRIC-DEADLINE.json), res being
// the exploration o of topo.
func (res *Result) Counterexamples(topo *bus.Topology, o Options) []Counterexample {
	var out []Counterexample
	for _, r := range res.Outcomes {
		if r.Path != nil {
			out = append(out, Counterexample{string(r.Outcome), string(r.Outcome) + ".json", NewReplayFile(topo, o, r.Outcome, r.Path, r.PathP)})
		}
	}
	for _, d := range res.Deadlines {
		if d.Miss == nil {
			continue
		}
		file := NewReplayFile(topo, o, d.MissOutcome, d.Miss, d.MissP)
		file.Misses = fmt.Sprintf("%s > %d ns", d.Metric, d.DeadlineNs)
		out = append(out, Counterexample{MissKey(d), fmt.Sprintf("miss-%s-%s.json", d.Metric, time.Duration(d.DeadlineNs)), file})
	}
	return out
}
