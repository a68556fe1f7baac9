package view

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fwsim/fwsim/explore"
)

// ProgressBar redraws one line on a terminal: the bar, the share and count
// of runs done, the rate, the time elapsed and the time left. It redraws
// once per percent, or every second when runs are slow, and never writes
// more than the terminal's width less one column: a full line would wrap,
// and every redraw would leave a line behind.
type ProgressBar struct {
	w       io.Writer
	unit    string // what is counted: runs, states
	extra   string // figures the caller adds to the richest line
	columns func() int
	now     func() time.Time
	start   time.Time

	percent int
	drawn   time.Time // when the bar was last drawn; zero when it is not shown
	shown   int       // the length of the line on screen, in runes
}

// NewProgressBar draws on w, columns wide as asked at every redraw, with
// now as its clock.
func NewProgressBar(w io.Writer, columns func() int, now func() time.Time) *ProgressBar {
	return NewProgressBarOf("runs", w, columns, now)
}

// NewProgressBarOf is a progress bar that counts unit (states, say).
func NewProgressBarOf(unit string, w io.Writer, columns func() int, now func() time.Time) *ProgressBar {
	return &ProgressBar{w: w, unit: unit, columns: columns, now: now, start: now()}
}

// SetExtra adds figures (", frontier 120, 3 MiB") to the richest line from
// the next redraw on.
func (b *ProgressBar) SetExtra(extra string) { b.extra = extra }

// Update shows done of total (runs, or the bar's unit).
func (b *ProgressBar) Update(done, total int) {
	now := b.now()
	percent := done * 100 / total
	if !b.drawn.IsZero() && percent == b.percent && now.Sub(b.drawn) < time.Second {
		return
	}
	b.percent, b.drawn = percent, now
	room := b.columns() - 1
	line := b.line(done, total, now.Sub(b.start), room)
	// Blank the rest of a longer line before, but no further than the
	// room: after the window shrank, blanks past it would wrap.
	pad := max(min(b.shown, room)-len([]rune(line)), 0)
	fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
	if pad > 0 {
		fmt.Fprintf(b.w, "\r%s", line)
	}
	b.shown = len([]rune(line))
}

// line is the richest line that fits in room runes: the bar and every
// figure, then the figures alone, then fewer of them; the time left goes
// last, as it is what one looks for.
func (b *ProgressBar) line(done, total int, elapsed time.Duration, room int) string {
	count := fmt.Sprintf("%3d%% %d/%d %s", done*100/total, done, total, b.unit)
	candidates := []string{count}
	if done > 0 && elapsed > 0 {
		rate := float64(done) / elapsed.Seconds()
		eta := "ETA " + roundDuration(time.Duration(float64(total-done)/rate*float64(time.Second))).String()
		candidates = []string{
			fmt.Sprintf("%s, %s %s/s, %s elapsed, %s%s", count, formatRate(rate), b.unit, roundDuration(elapsed), eta, b.extra),
			count + ", " + eta,
			fmt.Sprintf("%3d%% %s", done*100/total, eta),
		}
		if b.extra != "" {
			candidates = slices.Insert(candidates, 1, count+b.extra)
		}
	}
	// The bar takes what the figures of any run shorter than an hour, at
	// 0.1 runs/s or more, leave it, so that it neither jitters nor comes
	// and goes as they change length; longer figures shrink it or, on a
	// narrow terminal, drop it, rather than wrap.
	usual := len([]rune(fmt.Sprintf("%3d%% %d/%d %s, %s %s/s, %s elapsed, ETA %s%s", 100, total, total, b.unit, "12.3k", b.unit, "59m59s", "59m59s", b.extra)))
	if len(candidates) > 1 {
		if bar := min(room-3-max(usual, len([]rune(candidates[0]))), maxBar); bar >= minBar {
			filled := done * bar / total
			return "[" + strings.Repeat("#", filled) + strings.Repeat(" ", bar-filled) + "] " + candidates[0]
		}
	}
	for _, text := range candidates {
		if len([]rune(text)) <= room {
			return text
		}
	}
	r := []rune(candidates[len(candidates)-1])
	return string(r[:max(min(room, len(r)), 0)])
}

// clear erases the bar, so that what follows starts on a clean line; the
// next update draws it again. Like update, it writes no more than the
// terminal's width less one column.
// Clear removes the bar from the screen.
func (b *ProgressBar) Clear() {
	if !b.drawn.IsZero() {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", max(min(b.shown, b.columns()-1), 0)))
		b.drawn, b.shown = time.Time{}, 0
	}
}

// ExploreProgressText is what an exploration's bar adds to its count of
// states: the frontier still to expand and the states' memory, or that
// the graph is being solved.
func ExploreProgressText(p explore.Progress) string {
	if p.Solving {
		return fmt.Sprintf(", solving the graph (%d MiB)", p.Bytes>>20)
	}
	return fmt.Sprintf(", frontier %d, %d MiB", p.Frontier, p.Bytes>>20)
}

// formatRate writes a rate with three significant digits at most: "950",
// "12.3k", "4.5M".
func formatRate(r float64) string {
	switch {
	case r >= 999.5e3:
		return fmt.Sprintf("%.3gM", r/1e6)
	case r >= 999.5:
		return fmt.Sprintf("%.3gk", r/1e3)
	}
	return fmt.Sprintf("%.3g", r)
}

// roundDuration keeps a duration to what a person reads at a glance:
// tenths of a second below a minute, whole seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// minBar is the narrowest bar worth drawing; a narrower terminal gets the
// figures alone. maxBar is the widest.
const minBar, maxBar = 10, 40
