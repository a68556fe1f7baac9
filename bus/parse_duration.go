package bus

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// durationPart is one number and unit of a duration that time.ParseDuration
// accepted.
var durationPart = regexp.MustCompile(`([0-9.]+)(ns|us|µs|μs|ms|s|m|h)`)

// durationUnitNs is the length of each unit of durationPart in ns.
var durationUnitNs = map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}

// WholeNs reports whether a duration time.ParseDuration accepted is a whole
// number of nanoseconds, exactly.
func WholeNs(s string) bool {
	sum := new(big.Rat)
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		v, ok := new(big.Rat).SetString(m[1])
		if !ok {
			return false
		}
		sum.Add(sum, v.Mul(v, big.NewRat(durationUnitNs[m[2]], 1)))
	}
	return sum.IsInt()
}

// ParsePhaseGrid reads the clock phases of a ChoiceSpace: "fixed" (0, the
// seed's phases) or grid:K (ChoiceSpace.PhaseGrid K ≥ 1).
func ParsePhaseGrid(s string) (int, error) {
	if s == "fixed" {
		return 0, nil
	}
	k, ok := strings.CutPrefix(s, "grid:")
	n, err := strconv.Atoi(k)
	if !ok || err != nil || n < 1 {
		return 0, errors.New("want fixed or grid:K with K ≥ 1, e.g. grid:4")
	}
	return n, nil
}

// ParseWindow reads FROM..TO, two durations from power-up in whole ns,
// e.g. 166us..171us.
func ParseWindow(s string) (Window, error) {
	from, to, ok := strings.Cut(s, "..")
	if !ok {
		return Window{}, errors.New("want FROM..TO, two times since power-up, e.g. 166us..171us")
	}
	var w Window
	for i, part := range []string{from, to} {
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 || !WholeNs(part) {
			return Window{}, fmt.Errorf("%q: want a time such as 166us or 170500ns, in whole ns", part)
		}
		if i == 0 {
			w.From = int64(d)
		} else {
			w.To = int64(d)
		}
	}
	if w.To < w.From {
		return Window{}, errors.New("TO is before FROM")
	}
	return w, nil
}

// ParseDeadline reads a deadline: a positive duration in whole ns, such as
// 2us or 1.5ms.
func ParseDeadline(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d <= 0:
		return 0, errors.New("want a positive duration such as 2us or 1.5ms")
	case !WholeNs(s):
		// time.ParseDuration drops a fraction of a nanosecond.
		return 0, fmt.Errorf("want a whole number of nanoseconds, not %s and a fraction", d)
	}
	return d, nil
}

// MetricDeadline asks for the probability that a time metric is at most D.
type MetricDeadline struct {
	// Metric is one of TimeMetrics, or "" for every one (in their order).
	Metric string
	D      time.Duration
}

// ParseMetricDeadline reads METRIC=DUR, a deadline of one time metric, or
// DUR, of every one (ParseDeadline reads DUR).
func ParseMetricDeadline(s string) (MetricDeadline, error) {
	metric, dur, named := strings.Cut(s, "=")
	if !named {
		metric, dur = "", s
	} else if !slices.Contains(TimeMetrics, metric) {
		return MetricDeadline{}, fmt.Errorf("metric %q: want %s, or no METRIC= for every one", metric, strings.Join(TimeMetrics, ", "))
	}
	d, err := ParseDeadline(dur)
	return MetricDeadline{Metric: metric, D: d}, err
}

// String is the deadline as ParseMetricDeadline reads it.
func (d MetricDeadline) String() string {
	if d.Metric == "" {
		return d.D.String()
	}
	return d.Metric + "=" + d.D.String()
}
