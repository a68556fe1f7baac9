package view

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
func drawBar(columns, total int) string { return drawBarAt(columns, total, 10*time.Millisecond) }

// drawBarAt is drawBar with one run per step.
func drawBarAt(columns, total int, step time.Duration) string {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	bar := &ProgressBar{w: &out, unit: "runs", columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
	for done := 1; done <= total; done++ {
		clock = clock.Add(step)
		bar.Update(done, total)
	}
	return out.String()
}

// Every redraw fits the terminal less one column, so that it never wraps
// and leaves a line behind, at any width, however long the figures: runs
// of 10 ms, and runs of 3 hours (times of tens of hours, a rate of
// 9.26e-05 runs/s).
func TestProgressBarFitsTheTerminal(t *testing.T) {
	for _, step := range []time.Duration{10 * time.Millisecond, 3 * time.Hour} {
		for _, columns := range []int{20, 50, 80, 120} {
			out := drawBarAt(columns, 1000, step)
			for _, line := range strings.Split(out, "\r")[1:] {
				assert.LessOrEqual(t, len([]rune(line)), columns-1, "%d columns, %v a run: %q", columns, step, line)
			}
			assert.NotContains(t, out, "\n", "%d columns", columns)
		}
	}
	assert.Contains(t, drawBarAt(120, 1000, 3*time.Hour), "] 100% 1000/1000 runs, 9.26e-05 runs/s, 3000h0m0s elapsed, ETA 0s",
		"the bar shrinks to make room for long figures")
}

// An 80-column terminal, the usual default, has room for the bar beside
// every figure.
func TestProgressBarAt80Columns(t *testing.T) {
	assert.Contains(t, drawBar(80, 1000), "[#######        ]  50% 500/1000 runs, 100 runs/s, 5s elapsed, ETA 5s")
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
// is shown; neither writes past the terminal's width after the window
// shrank, where blanks would wrap.
func TestProgressBarCoversTheLastLine(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	columns := 120
	bar := &ProgressBar{w: &out, unit: "runs", columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
	written := func(draw func()) string {
		before := out.Len()
		draw()
		return out.String()[before:]
	}
	redraw := func(done int) string {
		clock = clock.Add(time.Second)
		return written(func() { bar.Update(done, 100) })
	}
	figures := " 10% 10/100 runs, 10 runs/s, 1s elapsed, ETA 9s"
	require.Equal(t, "\r["+strings.Repeat("#", 4)+strings.Repeat(" ", 36)+"] "+figures, redraw(10), "a bar of 40")
	columns = 100 // the window shrank: a bar of 37 leaves three columns to blank
	figures = " 20% 20/100 runs, 10 runs/s, 2s elapsed, ETA 8s"
	line := "[" + strings.Repeat("#", 7) + strings.Repeat(" ", 30) + "] " + figures
	assert.Equal(t, "\r"+line+"   \r"+line, redraw(20))
	columns = 60 // no room for a bar: the blanks stop at the 59th column
	figures = " 30% 30/100 runs, 10 runs/s, 3s elapsed, ETA 7s"
	assert.Equal(t, "\r"+figures+strings.Repeat(" ", 59-len(figures))+"\r"+figures, redraw(30))
	columns = 20
	assert.Equal(t, "\r"+strings.Repeat(" ", 19)+"\r", written(bar.Clear))
	assert.Empty(t, written(bar.Clear), "nothing is shown")
}

// The bar keeps its place and width while the figures change length, as
// the rate goes from hundreds to millions of runs a second.
func TestProgressBarIsSteady(t *testing.T) {
	for _, tc := range []struct{ columns, total int }{{80, 200}, {80, 100000}, {120, 100000}} {
		columns := tc.columns
		var out bytes.Buffer
		clock := time.Unix(0, 0)
		bar := &ProgressBar{w: &out, unit: "runs", columns: func() int { return columns }, now: func() time.Time { return clock }, start: clock}
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
			bar.Update(done, tc.total)
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
		assert.Positive(t, widths[0], "a bar at %d columns", columns)
	}
}
