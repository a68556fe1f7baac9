package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Deadline is a time a CDF plot marks, with the estimated probability P that
// the metric is at most X and its confidence interval [Lo, Hi].
type Deadline struct {
	X         float64
	P, Lo, Hi float64
}

// CDF is the empirical distribution function of a sample.
type CDF struct {
	Title  string
	XLabel string
	Unit   string    // "ns" scales to µs or ms; anything else is printed as is
	Values []float64 // in any order; NaN values are left out
	// Counts, when given, says how often each value occurred (a histogram,
	// as analysis keeps metrics), index by index; nil counts each value once.
	Counts []int
	// Missing counts runs that never reached the metric (a failure): they
	// count in the denominator, so the curve ends below 1 by their share.
	Missing int
	// Deadlines are marked by a vertical line and annotated with their
	// probabilities.
	Deadlines []Deadline
}

// SVG draws the CDF as a step function. Steps closer than a pixel are
// merged, so a million runs make a plot no larger than a hundred.
func (p CDF) SVG() SVG {
	c := newCanvas(p.Title)
	type step struct {
		v float64
		n int
	}
	var steps []step
	total := 0
	for i, v := range p.Values {
		n := 1
		if i < len(p.Counts) {
			n = p.Counts[i]
		}
		if !math.IsNaN(v) && n > 0 {
			steps = append(steps, step{v, n})
			total += n
		}
	}
	total += max(p.Missing, 0)
	byValue := func(a, b step) int { return cmp.Compare(a.v, b.v) }
	if !slices.IsSortedFunc(steps, byValue) { // a histogram comes sorted
		slices.SortFunc(steps, byValue)
	}
	var lo, hi float64
	if len(steps) > 0 {
		lo, hi = steps[0].v, steps[len(steps)-1].v
	} else if len(p.Deadlines) > 0 {
		lo, hi = p.Deadlines[0].X, p.Deadlines[0].X
	}
	// The axis spans the data, and each deadline that keeps the data at
	// least a quarter of its width: one far away (a 1 µs deadline on a
	// 170 µs metric) would squash the curve into a vertical line, so it is
	// only listed, as left or right of the axis.
	onAxis := make([]bool, len(p.Deadlines))
	for i, d := range p.Deadlines {
		l, h := math.Min(lo, d.X), math.Max(hi, d.X)
		if len(steps) == 0 || (hi-lo) >= (h-l)/4 {
			lo, hi, onAxis[i] = l, h, true
		}
	}
	if len(steps) == 0 && len(p.Deadlines) == 0 {
		lo, hi = 0, 1
	}
	// A margin either side, so that the first and last steps are not drawn
	// on the frame; none below zero for a metric that cannot be negative.
	pad := (hi - lo) / 50
	if lo >= 0 {
		lo = math.Max(lo-pad, 0)
	} else {
		lo -= pad
	}
	hi += pad
	x := newAxis(lo, hi, p.Unit, p.XLabel, plotLeft, plotRight, maxXTicks)
	y := newAxis(0, 1, "", "fraction of runs at or below", plotBottom, plotTop, maxYTicks)
	c.frame(x, y)
	if len(steps) == 0 {
		c.noData()
		return c.done()
	}
	// The step function: flat at F(v−) up to each value v, then up to F(v).
	pts := [][2]float64{{plotLeft, plotBottom}}
	below := 0
	for i := 0; i < len(steps); {
		px := math.Round(x.scale.at(steps[i].v)*2) / 2 // half-pixel resolution
		upTo := below
		for ; i < len(steps) && math.Round(x.scale.at(steps[i].v)*2)/2 == px; i++ {
			upTo += steps[i].n
		}
		pts = append(pts, [2]float64{px, y.scale.at(float64(below) / float64(total))}, [2]float64{px, y.scale.at(float64(upTo) / float64(total))})
		below = upTo
	}
	pts = append(pts, [2]float64{plotRight, y.scale.at(float64(below) / float64(total))})
	c.path(pts, `fill="none" stroke="`+palette[0]+`" stroke-width="1.5"`)

	// Each deadline on the axis is a dashed line with a dot at its
	// probability, numbered above the plot; the legend below says what each
	// number means, so no label sits on the curve.
	var legend []legendEntry
	var numbers []label
	for i, d := range p.Deadlines {
		text := fmt.Sprintf("%d: ≤ %s: P = %s [%s, %s]", i+1, FormatValue(d.X, p.Unit), formatP(d.P), formatP(d.Lo), formatP(d.Hi))
		if !onAxis[i] {
			side := "right"
			if d.X < lo {
				side = "left"
			}
			legend = append(legend, legendEntry{text: text + " (" + side + " of the axis)"})
			continue
		}
		px := x.scale.at(d.X)
		c.line(px, plotTop, px, plotBottom, dashed(deadlineColour))
		fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", num(px), num(y.scale.at(d.P)), deadlineColour)
		numbers = append(numbers, label{px, strconv.Itoa(i + 1)})
		legend = append(legend, legendEntry{colour: deadlineColour, dashed: true, text: text})
	}
	for _, n := range joinTouching(numbers) {
		c.text(n.x, plotTop-8, "middle", "", n.text)
	}
	c.legend(legend)
	return c.done()
}

// label is a text centred at x.
type label struct {
	x    float64
	text string
}

// joinTouching joins labels that would touch into one, "1,2" over the
// leftmost of them, so that close deadlines keep legible numbers.
func joinTouching(labels []label) []label {
	slices.SortStableFunc(labels, func(a, b label) int { return cmp.Compare(a.x, b.x) })
	var out []label
	for _, l := range labels {
		// A joined label is wider, so it may touch the one before in turn.
		for len(out) > 0 {
			last := out[len(out)-1]
			if last.x+textWidth(last.text, fontSize)/2+4 < l.x-textWidth(l.text, fontSize)/2 {
				break
			}
			l = label{last.x, last.text + "," + l.text}
			out = out[:len(out)-1]
		}
		out = append(out, l)
	}
	return out
}

// formatP writes a probability with four decimals.
func formatP(p float64) string { return formatNumber(p, 4) }

// Bin is one bar of a histogram: how many runs had Value.
type Bin struct {
	Value, Count int
}

// Histogram shows how often each integer value occurred, such as the number
// of root-contention rounds.
type Histogram struct {
	Title  string
	XLabel string
	Bins   []Bin // in any order; values missing in between count 0
}

// SVG draws one bar per integer from the smallest to the largest value, as
// a share of all counts, with the count above each bar when there is room.
func (p Histogram) SVG() SVG {
	c := newCanvas(p.Title)
	total, most := 0, 0
	lo, hi := math.MaxInt, math.MinInt
	counts := map[int]int{}
	for _, b := range p.Bins {
		counts[b.Value] += b.Count
		total += b.Count
		lo, hi = min(lo, b.Value), max(hi, b.Value)
	}
	for _, n := range counts {
		most = max(most, n)
	}
	if total == 0 {
		x := newAxis(0, 1, "", p.XLabel, plotLeft, plotRight, maxXTicks)
		y := newAxis(0, 1, "", "share of runs", plotBottom, plotTop, maxYTicks)
		c.frame(x, y)
		c.noData()
		return c.done()
	}
	x := integerAxis(lo, hi, p.XLabel, plotLeft, plotRight)
	y := newAxis(0, float64(most)/float64(total), "", "share of runs", plotBottom, plotTop, maxYTicks)
	c.frame(x, y)
	slot := x.scale.at(1) - x.scale.at(0)
	// Counts go above the bars when each fits over its bar and the gaps
	// beside it, short of the next bar; otherwise none, rather than some.
	counted := true
	for _, n := range counts {
		counted = counted && textWidth(strconv.Itoa(n), fontSize) <= slot*1.2-2
	}
	for v := lo; v <= hi; v++ {
		n := counts[v]
		if n == 0 {
			continue
		}
		top := y.scale.at(float64(n) / float64(total))
		left := x.scale.at(float64(v)) - slot*0.4
		fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
			num(left), num(top), num(slot*0.8), num(plotBottom-top), palette[0])
		if counted {
			c.text(x.scale.at(float64(v)), top-4, "middle", "", strconv.Itoa(n))
		}
	}
	return c.done()
}

// Point is one point of a series: Y with its confidence interval [Lo, Hi]
// at X. Violated marks a point where the correctness conditions fail. A NaN
// Y (no run produced the metric) leaves a gap.
type Point struct {
	X, Y, Lo, Hi float64
	Violated     bool
}

// Series is one line of a Lines plot.
type Series struct {
	Name   string  // for the legend, such as "mean (band: 95% CI)"
	Points []Point // in increasing X
}

// Mark is a vertical reference line, such as a predicted threshold.
type Mark struct {
	X     float64
	Label string
}

// Lines plots metrics against a swept parameter.
type Lines struct {
	Title          string
	XLabel, XUnit  string
	YLabel, YUnit  string
	Series         []Series
	Marks          []Mark
	ViolationLabel string // legend text of the violation marker; default "conditions violated"
}

// SVG draws each series as a line with a dot per point over its shaded
// confidence band, a cross on every violated point (on the x axis when the
// point has no value) and the marks as dashed lines.
func (p Lines) SVG() SVG {
	c := newCanvas(p.Title)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for _, pt := range s.Points {
			xlo, xhi = math.Min(xlo, pt.X), math.Max(xhi, pt.X)
			for _, v := range []float64{pt.Y, pt.Lo, pt.Hi} {
				if !math.IsNaN(v) {
					ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
				}
			}
		}
	}
	for _, m := range p.Marks {
		xlo, xhi = math.Min(xlo, m.X), math.Max(xhi, m.X)
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi = 0, 1
	}
	if math.IsInf(ylo, 0) {
		ylo, yhi = 0, 1
	}
	x := newAxis(xlo, xhi, p.XUnit, p.XLabel, plotLeft, plotRight, maxXTicks)
	y := newAxis(ylo, yhi, p.YUnit, p.YLabel, plotBottom, plotTop, maxYTicks)
	c.frame(x, y)

	var legend []legendEntry
	violated, noValue := false, false
	for i, s := range p.Series {
		colour := palette[i%len(palette)]
		for _, run := range runs(s.Points) {
			band := make([][2]float64, 0, 2*len(run))
			line := make([][2]float64, 0, len(run))
			for _, pt := range run {
				band = append(band, [2]float64{x.scale.at(pt.X), y.scale.at(pt.Hi)})
				line = append(line, [2]float64{x.scale.at(pt.X), y.scale.at(pt.Y)})
			}
			for _, pt := range slices.Backward(run) {
				band = append(band, [2]float64{x.scale.at(pt.X), y.scale.at(pt.Lo)})
			}
			c.path(band, `fill="`+colour+`" fill-opacity="0.18" stroke="none"`)
			c.path(line, `fill="none" stroke="`+colour+`" stroke-width="1.5"`)
			if len(run) == 1 { // no band to shade: an error bar instead
				c.line(line[0][0], y.scale.at(run[0].Lo), line[0][0], y.scale.at(run[0].Hi), `stroke="`+colour+`"`)
			}
			for _, xy := range line {
				fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", num(xy[0]), num(xy[1]), colour)
			}
		}
		for _, pt := range s.Points {
			if !pt.Violated {
				continue
			}
			violated = true
			py := float64(plotBottom)
			if math.IsNaN(pt.Y) {
				noValue = true
			} else {
				py = y.scale.at(pt.Y)
			}
			c.cross(x.scale.at(pt.X), py)
		}
		legend = append(legend, legendEntry{colour: colour, text: s.Name})
	}
	for _, m := range p.Marks {
		px := x.scale.at(m.X)
		c.line(px, plotTop, px, plotBottom, dashed(deadlineColour))
		legend = append(legend, legendEntry{colour: deadlineColour, dashed: true, text: m.Label})
	}
	if violated {
		label := p.ViolationLabel
		if label == "" {
			label = "conditions violated"
		}
		if noValue {
			label += " (on the x axis: no value)"
		}
		legend = append(legend, legendEntry{cross: true, text: label})
	}
	c.legend(legend)
	return c.done()
}

// runs splits points into the maximal stretches where Y, Lo and Hi are all
// numbers.
func runs(points []Point) [][]Point {
	var out [][]Point
	start := -1
	for i, pt := range points {
		ok := !math.IsNaN(pt.Y) && !math.IsNaN(pt.Lo) && !math.IsNaN(pt.Hi)
		switch {
		case ok && start < 0:
			start = i
		case !ok && start >= 0:
			out = append(out, points[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, points[start:])
	}
	return out
}
