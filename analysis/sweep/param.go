package sweep

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// ErrBadParam is the category of every error Parse and NewGrid return.
var ErrBadParam = errors.New("bad sweep parameter")

// MaxPoints bounds a grid, so that a typo in a step ("0..400:0.001") is an
// error rather than hours of runs.
const MaxPoints = 10_000

// kind says what a parameter changes and what its values may be.
type kind struct {
	name    string
	unit    string  // "ns", "m" or "" for a pure number
	integer bool    // whole numbers only: the emulator would round a fraction away
	min     float64 // smallest allowed value
	max     float64 // largest allowed value
	about   string  // what it sets, for help and errors
}

// kinds lists every parameter in the order help shows them.
var kinds = []kind{
	{"delay", "ns", false, 0, 1e6, "one-way propagation delay of every cable"},
	{"cable_length", "m", false, 0, 198_000, "length of every cable (5.05 ns/m)"},
	{"fast_min", "ns", true, 1, 1e9, "lower bound of ROOT_CONTEND_FAST"},
	{"fast_max", "ns", true, 1, 1e9, "upper bound of ROOT_CONTEND_FAST"},
	{"slow_min", "ns", true, 1, 1e9, "lower bound of ROOT_CONTEND_SLOW"},
	{"slow_max", "ns", true, 1, 1e9, "upper bound of ROOT_CONTEND_SLOW"},
	{"coin_bias", "", false, 0, 1, "probability that the coin picks FAST"},
	{"nodes", "", true, 1, 63, "node count of the generated bus (--gen KIND:N)"},
	{"gap_count", "", true, 0, 63, "gap count of every node; measured with traffic (--until)"},
}

func lookupKind(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

// Names lists the parameter names with their units and what they set, one
// per line, for help texts.
func Names() string {
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteByte('\n')
		}
		unit := ""
		if k.unit != "" {
			unit = " (" + k.unit + ")"
		}
		fmt.Fprintf(&b, "%s%s: %s", k.name, unit, k.about)
	}
	return b.String()
}

func nameList() string { return strings.Join(ParamNames(), ", ") }

// ParamNames lists the parameters a sweep takes, in the order help lists
// them: the keys of a point's values.
func ParamNames() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return names
}

// Param is one swept parameter: the values From, From+Step, … up to To.
type Param struct {
	Name           string
	Unit           string // "ns", "m" or ""
	From, To, Step float64
}

// String gives the parameter back in the grammar Parse reads.
func (p Param) String() string {
	return fmt.Sprintf("%s=%s..%s:%s", p.Name, formatValue(p.From), formatValue(p.To), formatValue(p.Step))
}

// Count is the number of values of p.
func (p Param) Count() int {
	// The small slack keeps To when (To−From)/Step is an integer that
	// floating point lands just below (0.1..0.3:0.1).
	return int(math.Floor((p.To-p.From)/p.Step+1e-9)) + 1
}

// Value is the i-th value of p. It is computed from From, not accumulated,
// so that rounding does not drift along the sweep.
func (p Param) Value(i int) float64 { return p.From + float64(i)*p.Step }

// Parse reads NAME=FROM..TO:STEP, for instance delay=100ns..160ns:2ns,
// cable_length=1m..3m:50cm or coin_bias=0.1..0.9:0.1; NAME=VALUE is a
// parameter with one value. A time or a length may carry a unit (see
// units); without one it is in the parameter's own (ns, m). Every error
// wraps ErrBadParam and says which part is wrong.
func Parse(s string) (Param, error) {
	fail := func(format string, args ...any) (Param, error) {
		return Param{}, fmt.Errorf("%w %q: %s (want NAME=FROM..TO:STEP, e.g. delay=100ns..160ns:2ns)", ErrBadParam, s, fmt.Sprintf(format, args...))
	}
	name, spec, ok := strings.Cut(s, "=")
	if !ok {
		return fail("no '='")
	}
	k, ok := lookupKind(name)
	if !ok {
		return fail("unknown parameter %q; known: %s", name, nameList())
	}
	number := func(part, text string) (float64, error) {
		v, err := k.value(text)
		switch {
		case err == errNotANumber:
			return 0, fmt.Errorf("%s %q is not a number", part, text)
		case err != nil:
			return 0, fmt.Errorf("%s %q: %v", part, text, err)
		case k.integer && v != math.Trunc(v) && k.unit == "":
			return 0, fmt.Errorf("%s %s of %s is not an integer", part, text, k.name)
		case k.integer && v != math.Trunc(v):
			return 0, fmt.Errorf("%s %s of %s is not a whole number of %s", part, text, k.name, k.unit)
		}
		return v, nil
	}
	p := Param{Name: k.name, Unit: k.unit, Step: 1}
	rangeText, stepText, hasStep := strings.Cut(spec, ":")
	fromText, toText, isRange := strings.Cut(rangeText, "..")
	var err error
	if p.From, err = number("FROM", fromText); err != nil {
		return fail("%v", err)
	}
	p.To = p.From
	switch {
	case isRange && !hasStep:
		return fail("no ':STEP' after the range")
	case !isRange && hasStep:
		return fail("a STEP needs a range FROM..TO")
	case isRange:
		if p.To, err = number("TO", toText); err != nil {
			return fail("%v", err)
		}
		if p.Step, err = number("STEP", stepText); err != nil {
			return fail("%v", err)
		}
	}
	unit := ""
	if k.unit != "" {
		unit = " " + k.unit
	}
	switch {
	case p.Step <= 0:
		return fail("STEP must be positive")
	case p.To < p.From:
		return fail("TO %s is below FROM %s", formatValue(p.To), formatValue(p.From))
	case p.From < k.min || p.To > k.max:
		return fail("%s takes values from %s to %s%s", k.name, formatValue(k.min), formatValue(k.max), unit)
	case (p.To-p.From)/p.Step >= MaxPoints:
		return fail("more than %d values", MaxPoints)
	}
	return p, nil
}

// unit is one unit a value may carry: its name and its size in its
// dimension's own unit (ns for times, m for lengths), as a fraction so
// that 0.1us is exactly 100 ns.
type unit struct {
	name     string
	num, den int64
	also     []string // other spellings: µ as the micro sign and as the Greek letter
}

// units are the units of each dimension, its own first: the time units of
// Go's durations, as every duration fwsim reads, and metric lengths.
var units = map[string][]unit{
	"ns": {{"ns", 1, 1, nil}, {"us", 1000, 1, []string{"µs", "μs"}}, {"ms", 1e6, 1, nil}, {"s", 1e9, 1, nil}},
	"m":  {{"m", 1, 1, nil}, {"cm", 1, 100, nil}, {"mm", 1, 1000, nil}},
}

// value reads one value of k: a decimal number, with a unit of k's
// dimension or none (k's own unit).
func (k kind) value(text string) (float64, error) {
	num := strings.TrimRightFunc(text, func(r rune) bool { return !strings.ContainsRune("0123456789.eE+-", r) })
	name := text[len(num):]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errNotANumber
	}
	// A plain decimal is read exactly, so that 0.1us is 100 ns; one with
	// an exponent, whose exponent could be huge, as the float it parsed to.
	v := new(big.Rat).SetFloat64(f)
	if !strings.ContainsAny(num, "eE") {
		v.SetString(num)
	}
	if name != "" {
		i := slices.IndexFunc(units[k.unit], func(u unit) bool { return u.name == name || slices.Contains(u.also, name) })
		switch {
		case k.unit == "":
			return 0, fmt.Errorf("%s is a plain number, with no unit", k.name)
		case i < 0:
			return 0, fmt.Errorf("unknown unit %q; %s takes %s", name, k.name, unitList(k.unit))
		}
		u := units[k.unit][i]
		v.Mul(v, big.NewRat(u.num, u.den))
	}
	f, _ = v.Float64()
	return f, nil
}

var errNotANumber = errors.New("not a number")

// unitList names the units of a dimension, its own first.
func unitList(dimension string) string {
	var names []string
	for _, u := range units[dimension] {
		n := u.name
		if len(u.also) > 0 {
			n += " (" + u.also[0] + ")"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// formatValue writes a value in the shortest form that reads back exactly.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Grid is the cross product of several parameters.
type Grid struct {
	Params []Param
	n      int
}

// NewGrid builds the grid of params. Points are in a stable order: the last
// parameter varies fastest, as nested loops in the order given would visit
// them. A parameter may appear once; delay and cable_length set the same
// thing and exclude each other.
func NewGrid(params []Param) (*Grid, error) {
	if len(params) == 0 {
		return nil, fmt.Errorf("%w: no parameter to sweep", ErrBadParam)
	}
	seen := map[string]bool{}
	n := 1
	for _, p := range params {
		if seen[p.Name] {
			return nil, fmt.Errorf("%w: %s is swept twice", ErrBadParam, p.Name)
		}
		seen[p.Name] = true
		n *= p.Count()
		if n > MaxPoints {
			return nil, fmt.Errorf("%w: the grid has more than %d points", ErrBadParam, MaxPoints)
		}
	}
	if seen["delay"] && seen["cable_length"] {
		return nil, fmt.Errorf("%w: delay and cable_length both set the cable delay; sweep one", ErrBadParam)
	}
	return &Grid{Params: params, n: n}, nil
}

// Len is the number of points.
func (g *Grid) Len() int { return g.n }

// Point returns the values of point i, one per parameter, 0 ≤ i < Len.
func (g *Grid) Point(i int) Point {
	values := make([]float64, len(g.Params))
	for j := len(g.Params) - 1; j >= 0; j-- {
		c := g.Params[j].Count()
		values[j] = g.Params[j].Value(i % c)
		i /= c
	}
	return Point{params: g.Params, Values: values}
}

// Point is one point of a grid: a value for each of its parameters.
type Point struct {
	params []Param
	Values []float64 // in the order of Grid.Params
}

// String names the point as NAME=VALUE pairs.
func (pt Point) String() string {
	parts := make([]string, len(pt.params))
	for i, p := range pt.params {
		parts[i] = p.Name + "=" + formatValue(pt.Values[i])
	}
	return strings.Join(parts, " ")
}

// value returns the point's value of the named parameter.
func (pt Point) value(name string) (float64, bool) {
	for i, p := range pt.params {
		if p.Name == name {
			return pt.Values[i], true
		}
	}
	return 0, false
}
