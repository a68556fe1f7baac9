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
	require.NoError(t, err, "missing golden file; run go test ./internal/report -update")
	assert.Equal(t, string(want), got, "output differs from %s; if intended, run go test ./internal/report -update and review the diff", path)
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
	// up to 0.75 at the first and to 1 at the second.
	svg := CDF{Title: "t", XLabel: "x", Values: []float64{10, 20}, Counts: []int{3, 1}}.SVG().String()
	y := linear{0, 1, plotBottom, plotTop}
	x := linear{10, 20, plotLeft, plotRight}
	assert.Contains(t, svg, " L"+num(x.at(10))+" "+num(y.at(0))+" L"+num(x.at(10))+" "+num(y.at(0.75))+" L"+num(x.at(20))+" "+num(y.at(0.75))+" L"+num(x.at(20))+" "+num(y.at(1)))

	// Four more runs that never reached the metric: the curve stops at 0.5.
	svg = CDF{Title: "t", XLabel: "x", Values: []float64{10, 20}, Counts: []int{3, 1}, Missing: 4}.SVG().String()
	assert.Contains(t, svg, " L"+num(x.at(20))+" "+num(y.at(0.5))+" L"+num(plotRight)+" "+num(y.at(0.5))+`"`)
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

// TestCDFZoomsToItsData: a metric between 169 and 178 µs is drawn on an
// axis around those values, with a deadline nearby in view, not from 0
// because of a 1 µs deadline meant for another metric.
func TestCDFZoomsToItsData(t *testing.T) {
	c := CDF{Title: "t", XLabel: "x", Unit: "ns", Deadlines: []Deadline{{X: 1000}, {X: 2000}, {X: 185000, P: 1}}}
	for v := 169000.0; v <= 178000; v += 250 {
		c.Values = append(c.Values, v)
	}
	svg := c.SVG().String()
	var ticks []float64
	for _, tx := range texts(svg) {
		if tx.y == plotBottom+18 {
			ticks = append(ticks, mustFloat(tx.s))
		}
	}
	require.NotEmpty(t, ticks)
	assert.GreaterOrEqual(t, ticks[0], 160.0, "ticks %v (µs)", ticks)
	assert.LessOrEqual(t, ticks[len(ticks)-1], 190.0, "ticks %v (µs)", ticks)
	assert.Contains(t, svg, "(µs)")
	assert.Equal(t, 1, strings.Count(svg, "<circle"), "one deadline drawn in the plot, the 185 µs one")
	assert.Contains(t, svg, "1: ≤ 1 µs: P = 0.0000 [0.0000, 0.0000] (off the axis, to the left)")
	assert.Contains(t, svg, "3: ≤ 185 µs: P = 1.0000")
}

// TestLabelsStayOffTheCurves: no text of a CDF or a line plot is inside the
// plot area, where the curves, bands and marks are.
func TestLabelsStayOffTheCurves(t *testing.T) {
	cdf := CDF{Title: "t", XLabel: "x", Unit: "ns", Values: []float64{100, 200, 300, 400}, Deadlines: []Deadline{{X: 150, P: 0.3}, {X: 390, P: 0.8}}}
	lines := Lines{Title: "t", XLabel: "x", YLabel: "y",
		Series: []Series{{Name: "mean", Points: []Point{{X: 0, Y: 1, Lo: 0.5, Hi: 1.5}, {X: 1, Y: 2, Lo: 1.5, Hi: 2.5, Violated: true}}}},
		Marks:  []Mark{{X: 0.5, Label: "threshold"}}}
	for name, svg := range map[string]string{"cdf": cdf.SVG().String(), "lines": lines.SVG().String()} {
		all := texts(svg)
		require.NotEmpty(t, all)
		for _, tx := range all {
			inside := tx.x > plotLeft && tx.x < plotRight && tx.y > plotTop && tx.y < plotBottom
			assert.False(t, inside, "%s: %q at (%v, %v) is inside the plot area", name, tx.s, tx.x, tx.y)
		}
	}
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
