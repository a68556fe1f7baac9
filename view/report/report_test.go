package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./view/report -update")
	assert.Equal(t, string(want), got, "output differs from %s; if intended, run go test ./view/report -update and review the diff", path)
}

// The fixed inputs of the golden files: a contention-duration sample of 14
// runs (two never resolved) with two deadlines, a geometric-looking rounds histogram and a delay sweep
// whose last points break the conditions, one of them without data.
func sampleCDF() CDF {
	return CDF{
		Title: "Root-contention duration", XLabel: "contention duration", Unit: "ns",
		Values:  []float64{1670, 1000, 2500, 1670, 3340, 4170, math.NaN(), 1000},
		Counts:  []int{4, 3, 2, 1, 1, 1, 5, 0},
		Missing: 2,
		Deadlines: []Deadline{
			{X: 2000, P: 0.5714, Lo: 0.3259, Hi: 0.7862}, // 8 of 14 runs
			{X: 4000, P: 0.7857, Lo: 0.5241, Hi: 0.9243}, // 11 of 14
		},
	}
}

func sampleHistogram() Histogram {
	return Histogram{Title: "Root-contention rounds", XLabel: "rounds", Bins: []Bin{{1, 512}, {2, 256}, {4, 64}, {3, 128}, {5, 40}}}
}

func sampleLines() Lines {
	nan := math.NaN()
	return Lines{
		Title: "Contention duration against cable delay", XLabel: "one-way cable delay", XUnit: "ns",
		YLabel: "contention duration", YUnit: "ns",
		Series: []Series{{Name: "mean (band: 95% CI)", Points: []Point{
			{X: 0, Y: 1400, Lo: 1350, Hi: 1450},
			{X: 60, Y: 1500, Lo: 1440, Hi: 1560},
			{X: 120, Y: 1700, Lo: 1600, Hi: 1800, Violated: true},
			{X: 180, Y: nan, Lo: nan, Hi: nan, Violated: true},
			{X: 240, Y: 2600, Lo: 2300, Hi: 2900, Violated: true},
		}}},
		Marks: []Mark{{X: 120, Label: "predicted threshold 120 ns"}},
	}
}

func samplePage() Page {
	return Page{
		Title: "fwsim sweep <pair>",
		Meta: []Field{
			{"command", "fwsim report --out r --gen pair --param delay=0..240:60 & more"},
			{"seed", "7"}, {"profile", "1394-1995"},
		},
		Files: []Link{{"data.csv", "data.csv"}, {"sweep.csv", "sweep.csv"}},
		Sections: []Section{{
			Heading: "Sweep", Text: "Crosses mark points where 2·delay ≥ FAST.min.",
			Figures: []SVG{sampleLines().SVG()},
			Tables: []Table{{
				Caption: "Per point",
				Header:  []string{"delay", "holds", "mean"},
				Rows:    [][]string{{"0 ns", "yes", "1.4 µs"}, {"240 ns", "no", "2.6 µs"}},
			}},
		}},
	}
}

func TestGoldenSVG(t *testing.T) {
	golden(t, "cdf.svg", sampleCDF().SVG().String())
	golden(t, "histogram.svg", sampleHistogram().SVG().String())
	golden(t, "lines.svg", sampleLines().SVG().String())
	golden(t, "empty-cdf.svg", CDF{Title: "Nothing", XLabel: "x", Unit: "ns"}.SVG().String())
}

func TestGoldenHTML(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, samplePage().Write(&b))
	golden(t, "page.html", b.String())
}

// wellFormed parses s as XML to the end.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err, "not well-formed XML:\n%s", s)
	}
}

func TestSVGIsWellFormedXML(t *testing.T) {
	plots := []SVG{
		sampleCDF().SVG(), sampleHistogram().SVG(), sampleLines().SVG(),
		CDF{Title: `<&"quotes">`}.SVG(), Histogram{Title: "empty"}.SVG(), Lines{}.SVG(),
		Lines{Series: []Series{{Name: "no data", Points: []Point{{X: 1, Y: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Violated: true}}}}}.SVG(),
		Histogram{Bins: []Bin{{0, 1}, {200, 1}}}.SVG(),
	}
	for _, p := range plots {
		wellFormed(t, p.String())
		assert.True(t, strings.HasPrefix(p.String(), `<svg xmlns="http://www.w3.org/2000/svg"`))
		assert.NotContains(t, p.String(), "NaN", "a NaN coordinate would break the drawing")
		assert.NotContains(t, p.String(), "Inf")
	}
}

var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`)

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, samplePage().Write(&b))
	out := b.String()
	assert.NotRegexp(t, externalRef, out)
	assert.NotContains(t, out, "<script")
	assert.Contains(t, out, `<a href="data.csv">`)
	assert.Contains(t, out, "fwsim sweep &lt;pair&gt;", "text is escaped")
	assert.Contains(t, out, "<svg xmlns", "the SVG is inline, not escaped")
	// The regexp catches what it must.
	assert.Regexp(t, externalRef, `<img src="https://example.com/x.png">`)

	for _, href := range []string{"https://example.com/data.csv", "//host/x", "/etc/passwd", "", "file:///tmp/x"} {
		p := samplePage()
		p.Files = []Link{{href, "x"}}
		assert.ErrorContains(t, p.Write(io.Discard), "want a relative path", href)
	}
}

func TestCDFStepsFollowTheCounts(t *testing.T) {
	// Two values, the first three times as frequent: the step function goes
	// up to 0.75 at the first and to 1 at the second. The axis runs from 8
	// to 22: round ticks around 10..20 and a margin either side, so that
	// the curve starts flat at 0. Steps sit on half pixels.
	svg := CDF{Title: "t", XLabel: "x", Values: []float64{10, 20}, Counts: []int{3, 1}}.SVG().String()
	y := linear{0, 1, plotBottom, plotTop}
	x := func(v float64) string { return num(math.Round(linear{8, 22, plotLeft, plotRight}.at(v)*2) / 2) }
	assert.Contains(t, svg, `<path d="M`+num(plotLeft)+" "+num(y.at(0))+" L"+x(10)+" "+num(y.at(0))+" L"+x(10)+" "+num(y.at(0.75))+" L"+x(20)+" "+num(y.at(0.75))+" L"+x(20)+" "+num(y.at(1))+" L"+num(plotRight)+" "+num(y.at(1))+`"`)

	// Four more runs that never reached the metric: the curve stops at 0.5.
	svg = CDF{Title: "t", XLabel: "x", Values: []float64{10, 20}, Counts: []int{3, 1}, Missing: 4}.SVG().String()
	assert.Contains(t, svg, " L"+x(20)+" "+num(y.at(0.5))+" L"+num(plotRight)+" "+num(y.at(0.5))+`"`)
}

func TestCDFOfManyValuesStaysSmall(t *testing.T) {
	values := make([]float64, 200_000)
	for i := range values {
		values[i] = float64(i)
	}
	svg := CDF{Title: "t", XLabel: "x", Unit: "ns", Values: values}.SVG().String()
	assert.Less(t, len(svg), 40_000, "steps closer than half a pixel are merged")
	wellFormed(t, svg)
}

// BenchmarkCDF draws the CDF of a metric as analysis keeps it: a histogram
// of 5000 distinct nanosecond values.
func BenchmarkCDF(b *testing.B) {
	values, counts := make([]float64, 5000), make([]int, 5000)
	for i := range values {
		values[i], counts[i] = float64(1000+i), 1+i%7
	}
	p := CDF{Title: "t", XLabel: "x", Unit: "ns", Values: values, Counts: counts, Deadlines: []Deadline{{X: 2000, P: 0.4}}}
	for b.Loop() {
		_ = p.SVG()
	}
}

// svgText is one <text> element: its anchor point and content.
type svgText struct {
	x, y float64
	s    string
}

var textElement = regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>([^<]*)</text>`)

func texts(svg string) []svgText {
	var out []svgText
	for _, m := range textElement.FindAllStringSubmatch(svg, -1) {
		x, y := mustFloat(m[1]), mustFloat(m[2])
		out = append(out, svgText{x, y, m[3]})
	}
	return out
}

func mustFloat(s string) float64 {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		panic(err)
	}
	return v
}

// xTicks returns the x axis's tick labels of a plot, as numbers.
func xTicks(t *testing.T, svg string) []float64 {
	t.Helper()
	var ticks []float64
	for _, tx := range texts(svg) {
		if tx.y == plotBottom+18 {
			ticks = append(ticks, mustFloat(tx.s))
		}
	}
	require.NotEmpty(t, ticks)
	return ticks
}

// TestCDFZoomsToItsData: a metric between 169 and 178 µs is drawn on an
// axis around those values that takes in the deadlines near them, not from
// 0; a 1 µs deadline meant for another metric is listed, not drawn.
func TestCDFZoomsToItsData(t *testing.T) {
	c := CDF{Title: "t", XLabel: "x", Unit: "ns", Deadlines: []Deadline{{X: 170000, P: 0.1}, {X: 175000, P: 0.6}, {X: 185000, P: 1}}}
	for v := 169000.0; v <= 178000; v += 250 {
		c.Values = append(c.Values, v)
	}
	svg := c.SVG().String()
	ticks := xTicks(t, svg) // in µs
	assert.Contains(t, svg, "x (µs)")
	first, last := ticks[0], ticks[len(ticks)-1]
	assert.GreaterOrEqual(t, first, 160.0, "ticks %v", ticks)
	assert.LessOrEqual(t, last, 190.0, "ticks %v", ticks)
	for _, v := range []float64{169, 178, 170, 175, 185} { // the data's ends and every deadline
		assert.True(t, first <= v && v <= last, "%v µs is off the axis %v", v, ticks)
	}
	assert.Equal(t, 3, strings.Count(svg, "<circle"), "every deadline drawn")

	c.Deadlines = append([]Deadline{{X: 1000}, {X: 2000}}, c.Deadlines...)
	svg = c.SVG().String()
	assert.Equal(t, ticks, xTicks(t, svg), "the far deadlines leave the axis as it was")
	assert.Equal(t, 3, strings.Count(svg, "<circle"), "the far deadlines are not drawn")
	assert.Contains(t, svg, "1: ≤ 1 µs: P = 0.0000 [0.0000, 0.0000] (left of the axis)")
	assert.Contains(t, svg, "5: ≤ 185 µs: P = 1.0000")
}

// box is an axis-aligned rectangle in the SVG's coordinates.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) overlaps(o box) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

// hitBy tells whether the segment from a to b crosses b (Liang–Barsky
// clipping).
func (b box) hitBy(a, c [2]float64) bool {
	t0, t1 := 0.0, 1.0
	lo, hi := [2]float64{b.x0, b.y0}, [2]float64{b.x1, b.y1}
	for i := range 2 {
		d := c[i] - a[i]
		if d == 0 {
			if a[i] < lo[i] || a[i] > hi[i] {
				return false
			}
			continue
		}
		ta, tb := (lo[i]-a[i])/d, (hi[i]-a[i])/d
		t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
		if t0 > t1 {
			return false
		}
	}
	return true
}

// drawing is what an SVG shows, read back from its markup: the box each
// text takes, and the segments of every line, path, circle and bar.
type drawing struct {
	w, h     float64
	texts    []string
	boxes    []box
	segments [][2][2]float64
}

var (
	translateRotate = regexp.MustCompile(`^translate\(([-0-9.]+) ([-0-9.]+)\) rotate\(-90\)$`)
	pathPoint       = regexp.MustCompile(`[ML]([-0-9.]+) ([-0-9.]+)`)
)

// readDrawing parses svg. A text's box is as wide as 0.6 em a character
// (more than the sans-serif glyphs of the labels take) and reaches 0.8 em
// above its baseline and 0.25 em below; a turned text's box is turned too.
func readDrawing(t *testing.T, svg string) drawing {
	t.Helper()
	var d drawing
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return d
		}
		require.NoError(t, err)
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := map[string]string{}
		for _, at := range el.Attr {
			a[at.Name.Local] = at.Value
		}
		f := func(name string) float64 { return mustFloat(a[name]) }
		add := func(pts ...[2]float64) {
			for i := 1; i < len(pts); i++ {
				d.segments = append(d.segments, [2][2]float64{pts[i-1], pts[i]})
			}
		}
		switch el.Name.Local {
		case "svg":
			fields := strings.Fields(a["viewBox"])
			d.w, d.h = mustFloat(fields[2]), mustFloat(fields[3])
		case "text":
			var s string
			require.NoError(t, dec.DecodeElement(&s, &el))
			size := float64(fontSize)
			if a["class"] == "title" {
				size = titleSize
			}
			w := float64(utf8.RuneCountInString(s)) * 0.6 * size
			var x, y float64
			if m := translateRotate.FindStringSubmatch(a["transform"]); m != nil {
				x, y = mustFloat(m[1]), mustFloat(m[2])
				require.Equal(t, "middle", a["text-anchor"])
				d.boxes = append(d.boxes, box{x - 0.8*size, y - w/2, x + 0.25*size, y + w/2})
				d.texts = append(d.texts, s)
				continue
			}
			require.Empty(t, a["transform"], "a transform the test does not read")
			x, y = f("x"), f("y")
			switch a["text-anchor"] {
			case "middle":
				x -= w / 2
			case "end":
				x -= w
			}
			d.boxes = append(d.boxes, box{x, y - 0.8*size, x + w, y + 0.25*size})
			d.texts = append(d.texts, s)
		case "line":
			if a["class"] != "grid" { // the grid may run under anything
				add([2]float64{f("x1"), f("y1")}, [2]float64{f("x2"), f("y2")})
			}
		case "path":
			var pts [][2]float64
			for _, m := range pathPoint.FindAllStringSubmatch(a["d"], -1) {
				pts = append(pts, [2]float64{mustFloat(m[1]), mustFloat(m[2])})
			}
			if a["fill"] != "none" && len(pts) > 2 { // a band: closed
				pts = append(pts, pts[0])
			}
			add(pts...)
		case "circle", "rect":
			var b box
			if el.Name.Local == "circle" {
				b = box{f("cx") - f("r"), f("cy") - f("r"), f("cx") + f("r"), f("cy") + f("r")}
			} else if a["x"] != "" && a["class"] != "frame" { // not the background or the frame
				b = box{f("x"), f("y"), f("x") + f("width"), f("y") + f("height")}
			} else {
				continue
			}
			add([2]float64{b.x0, b.y0}, [2]float64{b.x1, b.y0}, [2]float64{b.x1, b.y1}, [2]float64{b.x0, b.y1}, [2]float64{b.x0, b.y0})
		}
	}
}

// TestLabelsStayOffTheCurves: in every kind of plot, including crowded
// ones, no text's box meets a curve, band, marker, bar or deadline, or
// another text, or leaves the drawing.
func TestLabelsStayOffTheCurves(t *testing.T) {
	crowded := CDF{Title: "Bus initialisation", XLabel: "self-ID done", Unit: "ns",
		Deadlines: []Deadline{{X: 172000, P: 0.6}, {X: 172040, P: 0.61}, {X: 172080, P: 0.62}, {X: 1000}, {X: 178000, P: 1}}}
	for v := 169000.0; v <= 178000; v += 90 {
		crowded.Values = append(crowded.Values, v)
	}
	manyBins := Histogram{Title: "t", XLabel: "rounds"}
	for v := range 25 {
		manyBins.Bins = append(manyBins.Bins, Bin{v, 100000 >> (v / 2)})
	}
	plots := map[string]SVG{
		"cdf": sampleCDF().SVG(), "histogram": sampleHistogram().SVG(), "lines": sampleLines().SVG(),
		"close deadlines":      crowded.SVG(),
		"wide counts":          manyBins.SVG(),
		"three-digit integers": Histogram{Title: "t", XLabel: "x", Bins: []Bin{{100, 1}, {124, 9}}}.SVG(),
		"long legend and fine y ticks": Lines{Title: "t", XLabel: "cable length", XUnit: "m", YLabel: "share of runs failed",
			Series: []Series{{Name: "nodes=62 cable_length=4.5 gap_count=63 (band: 95% Wilson) " + strings.Repeat("and more ", 8),
				Points: []Point{{X: 0, Y: 0.001, Lo: 0.0005, Hi: 0.0015}, {X: 4.5, Y: 0.002, Lo: 0.00125, Hi: 0.00275, Violated: true}}}},
			Marks: []Mark{{X: 2, Label: "threshold"}}}.SVG(),
	}
	for name, svg := range plots {
		d := readDrawing(t, svg.String())
		require.NotEmpty(t, d.boxes, name)
		require.NotEmpty(t, d.segments, name)
		for i, b := range d.boxes {
			assert.True(t, b.x0 >= 0 && b.y0 >= 0 && b.x1 <= d.w && b.y1 <= d.h, "%s: %q %v leaves the %vx%v drawing", name, d.texts[i], b, d.w, d.h)
			for j := range i {
				assert.False(t, b.overlaps(d.boxes[j]), "%s: %q %v overlaps %q %v", name, d.texts[i], b, d.texts[j], d.boxes[j])
			}
			for _, s := range d.segments {
				if b.hitBy(s[0], s[1]) {
					assert.Fail(t, "a label meets the drawing", "%s: %q %v meets the segment %v", name, d.texts[i], b, s)
					break
				}
			}
		}
	}
	// The crowded plot joins the numbers of its three close deadlines.
	assert.Contains(t, plots["close deadlines"].String(), ">1,2,3</text>")
	assert.NotContains(t, plots["wide counts"].String(), ">100000</text>", "counts wider than their bars are left out")
	assert.Contains(t, plots["histogram"].String(), ">512</text>")
}

// TestPlotsScaleWithThePage: a plot has proportions, not a size: it fills
// the width it is given.
func TestPlotsScaleWithThePage(t *testing.T) {
	svg := CDF{Title: "t", Values: []float64{1, 2}}.SVG().String()
	head := svg[:strings.Index(svg, ">")]
	assert.Contains(t, head, `width="100%"`)
	assert.Contains(t, head, `viewBox="0 0 640 `)
	assert.NotContains(t, head, `height="`)
}
