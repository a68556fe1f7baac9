package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawBar runs a bar of total runs on a terminal of the given width, one
// run per 10 ms of a fake clock, and returns what it wrote.
func drawBar(columns, total int) string {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	bar := &progressBar{w: &out, columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
	for done := 1; done <= total; done++ {
		clock = clock.Add(10 * time.Millisecond)
		bar.update(done, total)
	}
	return out.String()
}

// Every redraw fits the terminal less one column, so that it never wraps
// and leaves a line behind, at any width.
func TestProgressBarFitsTheTerminal(t *testing.T) {
	for _, columns := range []int{20, 50, 80, 120} {
		out := drawBar(columns, 1000)
		for _, line := range strings.Split(out, "\r")[1:] {
			assert.LessOrEqual(t, len([]rune(line)), columns-1, "%d columns: %q", columns, line)
		}
		assert.NotContains(t, out, "\n", "%d columns", columns)
	}
}

// The bar shows rate, elapsed time and ETA where they fit, and keeps the
// ETA longest.
func TestProgressBarShowsRateAndETA(t *testing.T) {
	wide := drawBar(120, 1000)
	// After 500 runs of 10 ms: 100 runs/s, 5 s elapsed, 5 s to go.
	assert.Contains(t, wide, "]  50% 500/1000 runs, 100 runs/s, 5s elapsed, ETA 5s")
	narrow := drawBar(50, 1000)
	assert.Contains(t, narrow, " 50% 500/1000 runs, ETA 5s")
	assert.NotContains(t, narrow, "[")
	tiny := drawBar(20, 1000)
	assert.Contains(t, tiny, " 50% ETA 5s")
}

// A redraw shorter than the last covers all of it, and clear erases what
// is shown.
func TestProgressBarCoversTheLastLine(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	columns := 120
	bar := &progressBar{w: &out, columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
	clock = clock.Add(time.Second)
	bar.update(10, 100)
	first := bar.shown
	columns = 40 // the window shrank
	clock = clock.Add(time.Second)
	before := out.Len()
	bar.update(20, 100)
	require.Less(t, bar.shown, first)
	second := out.String()[before:]
	assert.Contains(t, second, strings.Repeat(" ", first-bar.shown), "the end of the longer line is blanked")
	assert.True(t, strings.HasSuffix(second, "\r 20% 20/100 runs, ETA 8s"), "%q", second)
	shown := bar.shown
	bar.clear()
	assert.True(t, strings.HasSuffix(out.String(), "\r"+strings.Repeat(" ", shown)+"\r"))
}

// The bar keeps its place and width while the figures change length, as
// the rate goes from hundreds to millions of runs a second.
func TestProgressBarIsSteady(t *testing.T) {
	for _, tc := range []struct{ columns, total int }{{80, 200}, {80, 100000}, {120, 100000}} {
		columns := tc.columns
		var out bytes.Buffer
		clock := time.Unix(0, 0)
		bar := &progressBar{w: &out, columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
		for done := 1; done <= tc.total; done++ {
			// From 13k runs a second to 25.6k (the digits CI saw change),
			// then to millions.
			step := 77 * time.Microsecond
			switch {
			case done > tc.total/2:
				step = 100 * time.Nanosecond
			case done > tc.total/3:
				step = 39 * time.Microsecond
			}
			clock = clock.Add(step)
			bar.update(done, tc.total)
		}
		var widths []int // of the bar, -1 for none
		for _, line := range strings.Split(out.String(), "\r")[1:] {
			if line = strings.TrimRight(line, " "); line != "" {
				widths = append(widths, strings.Index(line, "]"))
			}
		}
		require.NotEmpty(t, widths)
		for _, w := range widths {
			assert.Equal(t, widths[0], w, "%d columns: the bar came, went or changed width", columns)
		}
		if columns == 120 {
			assert.Positive(t, widths[0], "a bar at 120 columns")
		}
	}
}
