package report

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleLogLog is a quadratic count measured at 10 … 10^4 against its
// formula, and a linear one with a band and a gap where a point is missing.
func sampleLogLog() LogLog {
	quad := Curve{Name: "worst", RefName: "worst: n(n+1)/2"}
	lin := Curve{Name: "average", RefName: "average: n·H(n)"}
	for _, n := range []float64{10, 100, 1000, 10000} {
		quad.Points = append(quad.Points, Point{X: n, Y: n * (n + 1) / 2})
		quad.Reference = append(quad.Reference, Point{X: n, Y: n * (n + 1) / 2})
		y := math.NaN()
		if n != 1000 {
			y = 3 * n
		}
		lin.Points = append(lin.Points, Point{X: n, Y: y, Lo: 2.9 * n, Hi: 3.1 * n})
	}
	return LogLog{Title: "Messages", XLabel: "nodes n", YLabel: "messages", Curves: []Curve{quad, lin}}
}

func TestLogLogAxesAreDecades(t *testing.T) {
	svg := sampleLogLog().SVG().String()
	require.NoError(t, xml.NewDecoder(strings.NewReader(svg)).Decode(new(any)))
	for _, label := range []string{">10<", ">100<", ">1000<", ">10⁴<", ">10⁸<"} {
		assert.Contains(t, svg, label)
	}
	assert.NotContains(t, svg, ">10⁹<", "the axis ends at the decade above the data")
	assert.Equal(t, 1, strings.Count(svg, `stroke-dasharray`)-1, "one dashed reference line, and its legend swatch")
	assert.Equal(t, 4+3, strings.Count(svg, "<circle"), "a dot per point; the missing one leaves a gap")
	assert.Equal(t, svg, sampleLogLog().SVG().String(), "deterministic")
}

// A decade is the same width wherever it is: 10 → 100 as wide as 1000 → 10^4.
func TestLogLogScale(t *testing.T) {
	x := logAxis(10, 10000, "n", 0, 300)
	assert.Equal(t, []string{"10", "100", "1000", "10⁴"}, x.labels)
	assert.InDelta(t, x.scale.at(math.Log10(100))-x.scale.at(1), x.scale.at(4)-x.scale.at(3), 1e-9)
	one := logAxis(20, 50, "n", 0, 300)
	assert.Equal(t, []string{"10", "100"}, one.labels, "a range within a decade gets that decade")
}

func TestLogLogWithoutData(t *testing.T) {
	svg := LogLog{Title: "empty", Curves: []Curve{{Name: "none", Points: []Point{{X: 10, Y: 0}}}}}.SVG().String()
	assert.Contains(t, svg, "no data")
	assert.NoError(t, xml.NewDecoder(strings.NewReader(svg)).Decode(new(any)))
}
