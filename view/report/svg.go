package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SVG is a finished plot: a standalone SVG document that can also be
// embedded inline in HTML. Only this package makes one, so a Page can embed
// it without escaping.
type SVG struct{ markup string }

// String returns the SVG document.
func (s SVG) String() string { return s.markup }

// Plot geometry in px, in the SVG's own coordinates: a page scales every
// plot to its width (viewBox, width 100%), so these fix the proportions and
// the text size relative to the plot, not its size on screen. Every plot
// area has the same size, so that a report's figures line up; legends go
// below it, never over the data, and make the plot taller.
const (
	width        = 640
	height       = 360
	marginLeft   = 72
	marginRight  = 24
	marginTop    = 48
	marginBottom = 52
	plotLeft     = marginLeft
	plotRight    = width - marginRight
	plotTop      = marginTop
	plotBottom   = height - marginBottom
	maxXTicks    = 8
	maxYTicks    = 5
	// The text is large for a 640-wide drawing so that it stays legible
	// where a phone shrinks the plot to 70% (9 px), and the page caps the
	// plot's width (maxScale) so that it does not grow past 16 px on a
	// desktop.
	fontSize   = 13
	titleSize  = 16
	lineHeight = 17
	maxScale   = 1.25
)

// textWidth bounds the width of s in the plots' sans-serif font: 0.6 em a
// character is more than digits, spaces, punctuation and most letters take.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * 0.6 * size
}

// palette colours the series of a plot in turn.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"}

const (
	violationColour = "#d62728"
	deadlineColour  = "#555555"
)

// canvas writes one SVG document: the plot area, then a legend of any
// length below it.
type canvas struct {
	title   string
	b       strings.Builder
	legends int // lines of legend below the axis title
}

// style is shared by every plot; the fonts are generic families so that
// nothing has to be fetched.
var style = fmt.Sprintf(`text{font-family:sans-serif;font-size:%dpx;fill:#222}`+
	`.title{font-size:%dpx;font-weight:bold}.grid{stroke:#e4e4e4}.frame{stroke:#444;fill:none}`, fontSize, titleSize)

func newCanvas(title string) *canvas {
	c := &canvas{title: title}
	c.text(width/2, 24, "middle", "title", title)
	return c
}

// done wraps the drawing in its SVG element, now that its height is known.
func (c *canvas) done() SVG {
	h := height
	if c.legends > 0 {
		h += c.legends*lineHeight + 4
	}
	var doc strings.Builder
	fmt.Fprintf(&doc, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" style="max-width:%gpx;height:auto" role="img" aria-label="%s">`+"\n",
		width, h, float64(width*maxScale), esc(c.title))
	fmt.Fprintf(&doc, "<title>%s</title>\n<style>%s</style>\n", esc(c.title), style)
	fmt.Fprintf(&doc, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", width, h)
	doc.WriteString(c.b.String())
	doc.WriteString("</svg>\n")
	return SVG{doc.String()}
}

func esc(s string) string { return html.EscapeString(s) }

// num writes a coordinate with one decimal: enough for a screen, and the
// same bytes on every machine.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func (c *canvas) text(x, y float64, anchor, class, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="%s"`, num(x), num(y), anchor)
	if class != "" {
		fmt.Fprintf(&c.b, ` class="%s"`, class)
	}
	fmt.Fprintf(&c.b, ">%s</text>\n", esc(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, attrs string) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", num(x1), num(y1), num(x2), num(y2), attrs)
}

// path draws a polyline through pts (x, y pairs).
func (c *canvas) path(pts [][2]float64, attrs string) {
	if len(pts) == 0 {
		return
	}
	var d strings.Builder
	for i, p := range pts {
		if i == 0 {
			d.WriteString("M")
		} else {
			d.WriteString(" L")
		}
		d.WriteString(num(p[0]) + " " + num(p[1]))
	}
	fmt.Fprintf(&c.b, `<path d="%s" %s/>`+"\n", d.String(), attrs)
}

// dashed is the stroke of deadlines and reference lines.
func dashed(colour string) string { return `stroke="` + colour + `" stroke-dasharray="4 3"` }

func (c *canvas) cross(x, y float64) {
	const r = 4
	c.path([][2]float64{{x - r, y - r}, {x + r, y + r}}, `stroke="`+violationColour+`" stroke-width="2"`)
	c.path([][2]float64{{x - r, y + r}, {x + r, y - r}}, `stroke="`+violationColour+`" stroke-width="2"`)
}

// axis is one dimension of a plot: its ticks, their labels, the mapping to
// pixels and its title.
type axis struct {
	ticks  []float64
	labels []string
	scale  linear
	title  string
}

// newAxis covers [lo, hi] with round ticks and maps them onto [p0, p1]. A
// time unit is scaled (ns, µs, ms) and named in the title.
func newAxis(lo, hi float64, unit, label string, p0, p1 float64, maxTicks int) axis {
	ticks := Ticks(lo, hi, maxTicks)
	divisor, unitLabel := unitScale(unit, math.Max(math.Abs(ticks[0]), math.Abs(ticks[len(ticks)-1])))
	if unitLabel != "" {
		label += " (" + unitLabel + ")"
	}
	return axis{
		ticks: ticks, labels: tickLabels(ticks, divisor), title: label,
		scale: linear{ticks[0], ticks[len(ticks)-1], p0, p1},
	}
}

// integerAxis labels every integer from lo to hi when their labels fit
// side by side, else round integer ticks; values sit in the middle of
// unit-wide slots.
func integerAxis(lo, hi int, label string, p0, p1 float64) axis {
	a := axis{title: label, scale: linear{float64(lo) - 0.5, float64(hi) + 0.5, p0, p1}}
	slot := math.Abs(p1-p0) / float64(hi-lo+1)
	widest := max(textWidth(strconv.Itoa(lo), fontSize), textWidth(strconv.Itoa(hi), fontSize))
	if widest <= slot-4 {
		for v := lo; v <= hi; v++ {
			a.ticks = append(a.ticks, float64(v))
		}
	} else {
		for _, t := range Ticks(float64(lo), float64(hi), maxXTicks) {
			if t >= float64(lo) && t <= float64(hi) {
				a.ticks = append(a.ticks, t)
			}
		}
	}
	a.labels = tickLabels(a.ticks, 1)
	return a
}

// frame draws the grid, the tick labels and the titles of both axes.
func (c *canvas) frame(x, y axis) {
	for i, t := range y.ticks {
		py := y.scale.at(t)
		c.line(plotLeft, py, plotRight, py, `class="grid"`)
		c.text(plotLeft-6, py+4, "end", "", y.labels[i])
	}
	for i, t := range x.ticks {
		px := x.scale.at(t)
		c.line(px, plotBottom, px, plotBottom+5, `stroke="#444"`)
		c.text(px, plotBottom+18, "middle", "", x.labels[i])
	}
	fmt.Fprintf(&c.b, `<rect class="frame" x="%d" y="%d" width="%d" height="%d"/>`+"\n",
		plotLeft, plotTop, plotRight-plotLeft, plotBottom-plotTop)
	c.text((plotLeft+plotRight)/2, height-12, "middle", "", x.title)
	// The y title, turned, stands clear of the widest tick label: its
	// glyphs rise to the left of its baseline, and descend a quarter em to
	// the right of it.
	widest := 0.0
	for _, l := range y.labels {
		widest = math.Max(widest, textWidth(l, fontSize))
	}
	titleX := math.Max(plotLeft-6-widest-6-fontSize/4, fontSize)
	fmt.Fprintf(&c.b, `<text transform="translate(%s %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
		num(titleX), num((plotTop+plotBottom)/2), esc(y.title))
}

// legendEntry is one line of a legend: a swatch and its text.
type legendEntry struct {
	colour string
	cross  bool // a violation marker instead of a line
	dashed bool
	text   string
}

// legend draws entries below the axis title, one under the other, so that
// no label covers a curve whatever the data; a long text wraps rather than
// running off the drawing.
func (c *canvas) legend(entries []legendEntry) {
	for _, e := range entries {
		y, x := c.legendBaseline(), float64(plotLeft)
		switch {
		case e.colour == "" && !e.cross: // text only
		case e.cross:
			c.cross(x+8, y-4)
		case e.dashed:
			c.line(x, y-4, x+16, y-4, dashed(e.colour))
		default:
			c.line(x, y-4, x+16, y-4, `stroke="`+e.colour+`" stroke-width="2"`)
		}
		for _, line := range wrap(e.text, width-4-(x+22)) {
			c.text(x+22, c.legendBaseline(), "start", "", line)
			c.legends++
		}
	}
}

// legendBaseline is where the next line of the legend goes.
func (c *canvas) legendBaseline() float64 {
	return float64(height + 8 + c.legends*lineHeight)
}

// wrap breaks s at spaces into lines at most maxWidth wide, as textWidth
// measures them; a word wider than that gets a line of its own.
func wrap(s string, maxWidth float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case textWidth(line+" "+word, fontSize) <= maxWidth:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// noData writes a note in the middle of an empty plot.
func (c *canvas) noData() {
	c.text((plotLeft+plotRight)/2, (plotTop+plotBottom)/2, "middle", "", "no data")
}
