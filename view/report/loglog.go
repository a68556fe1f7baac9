package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Curve is one measured series of a LogLog plot with the reference it is
// compared with, such as a textbook formula; both share a colour.
type Curve struct {
	Name      string  // for the legend, such as "chang-roberts, worst"
	Points    []Point // in increasing X; Lo and Hi give a band when they differ from Y
	Reference []Point // drawn dashed; nil for none
	RefName   string  // the reference's legend text
}

// curvePalette extends the palette: a sweep of the election lab has six
// curves, and two sharing a colour would read as one.
var curvePalette = append(slices.Clone(palette), "#e377c2", "#17becf")

// LogLog plots curves whose values span decades, such as message counts
// against the number of nodes, on logarithmic axes.
type LogLog struct {
	Title          string
	XLabel, YLabel string
	Curves         []Curve
}

// SVG draws every curve as a line with a dot per point over its shaded band,
// and its reference as a dashed line of the same colour. Values that are
// not positive have no place on a log axis and leave a gap.
func (p LogLog) SVG() SVG {
	c := newCanvas(p.Title)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, cv := range p.Curves {
		for _, pt := range slices.Concat(cv.Points, cv.Reference) {
			if pt.X > 0 {
				xlo, xhi = math.Min(xlo, pt.X), math.Max(xhi, pt.X)
			}
			for _, v := range []float64{pt.Y, pt.Lo, pt.Hi} {
				if v > 0 {
					ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
				}
			}
		}
	}
	if math.IsInf(xlo, 0) || math.IsInf(ylo, 0) {
		c.frame(logAxis(1, 10, p.XLabel, plotLeft, plotRight), logAxis(1, 10, p.YLabel, plotBottom, plotTop))
		c.noData()
		return c.done()
	}
	x := logAxis(xlo, xhi, p.XLabel, plotLeft, plotRight)
	y := logAxis(ylo, yhi, p.YLabel, plotBottom, plotTop)
	c.frame(x, y)
	at := func(pt Point, v float64) [2]float64 {
		return [2]float64{x.scale.at(math.Log10(pt.X)), y.scale.at(math.Log10(v))}
	}
	var legend []legendEntry
	for i, cv := range p.Curves {
		colour := curvePalette[i%len(curvePalette)]
		for _, run := range runs(logPoints(cv.Points)) {
			band := make([][2]float64, 0, 2*len(run))
			line := make([][2]float64, 0, len(run))
			for _, pt := range run {
				band = append(band, at(pt, pt.Hi))
				line = append(line, at(pt, pt.Y))
			}
			for _, pt := range slices.Backward(run) {
				band = append(band, at(pt, pt.Lo))
			}
			c.path(band, `fill="`+colour+`" fill-opacity="0.18" stroke="none"`)
			c.path(line, `fill="none" stroke="`+colour+`" stroke-width="1.5"`)
			for _, xy := range line {
				fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", num(xy[0]), num(xy[1]), colour)
			}
		}
		legend = append(legend, legendEntry{colour: colour, text: cv.Name})
		if cv.Reference == nil {
			continue
		}
		for _, run := range runs(logPoints(cv.Reference)) {
			line := make([][2]float64, 0, len(run))
			for _, pt := range run {
				line = append(line, at(pt, pt.Y))
			}
			c.path(line, `fill="none" `+dashed(colour))
		}
		legend = append(legend, legendEntry{colour: colour, dashed: true, text: cv.RefName})
	}
	c.legend(legend)
	return c.done()
}

// logPoints marks the points a log axis cannot show (a value that is not
// positive) as gaps, and gives a point without a band a band of its value.
func logPoints(points []Point) []Point {
	out := make([]Point, len(points))
	for i, pt := range points {
		if math.IsNaN(pt.Lo) || pt.Lo <= 0 || math.IsNaN(pt.Hi) {
			pt.Lo, pt.Hi = pt.Y, pt.Y
		}
		if !(pt.X > 0 && pt.Y > 0) {
			pt.Y = math.NaN()
		}
		out[i] = pt
	}
	return out
}

// logAxis covers [lo, hi] (both positive) with whole decades, ticked and
// labelled at each power of ten; its scale maps log10 of a value.
func logAxis(lo, hi float64, label string, p0, p1 float64) axis {
	first, last := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if last == first {
		last++
	}
	a := axis{title: label, scale: linear{first, last, p0, p1}}
	for e := first; e <= last; e++ {
		a.ticks = append(a.ticks, e)
		a.labels = append(a.labels, powerOfTen(int(e)))
	}
	return a
}

// powerOfTen writes 10^e as 1, 10, 100, 1000 and beyond as 10 with a
// superscript exponent, which stays short on an axis.
func powerOfTen(e int) string {
	if e >= 0 && e <= 3 {
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', 0, 64)
	}
	const superscripts = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	digits := []rune(superscripts)
	var s strings.Builder
	s.WriteString("10")
	if e < 0 {
		s.WriteRune('⁻')
		e = -e
	}
	for _, d := range strconv.Itoa(e) {
		s.WriteRune(digits[d-'0'])
	}
	return s.String()
}
