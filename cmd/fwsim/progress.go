package main

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/fwsim/fwsim/explore"
	"github.com/fwsim/fwsim/view"
)

// newProgress returns the progress bar's update function, or nil when
// there is to be none; the bar clears itself when the last run is done.
func newProgress(e *env, quiet bool) func(done, total int) {
	if quiet || !isTerminal(e.stderr.w) {
		return nil
	}
	bar := view.NewProgressBar(e.stderr.w, terminalColumns(e.stderr.w), time.Now)
	e.stderr.bar = bar
	return func(done, total int) {
		bar.Update(done, total)
		if done == total {
			bar.Clear()
		}
	}
}

// newExploreProgress returns explore's progress function, or nil when
// there is to be no bar: the states known of at most --max-states, with
// the frontier and their memory, then a note that the graph is being
// solved. The caller clears the bar when the exploration returns.
func newExploreProgress(e *env, quiet bool) func(explore.Progress) {
	if quiet || !isTerminal(e.stderr.w) {
		return nil
	}
	bar := view.NewProgressBarOf("states", e.stderr.w, terminalColumns(e.stderr.w), time.Now)
	e.stderr.bar = bar
	return func(p explore.Progress) {
		bar.SetExtra(view.ExploreProgressText(p))
		total := max(p.MaxStates, p.States)
		if p.Solving {
			bar.Clear() // drawn at once: the solve may take long
			total = p.States
		}
		bar.Update(p.States, total)
	}
}

// isTerminal reports whether w is a character device: a terminal, where
// a progress bar belongs (or /dev/null, where it does no harm). It needs no
// system call, so it works on every platform. Tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// terminalColumns asks the terminal behind w for its width at every redraw,
// so that a resized window is followed; 80 when it cannot tell.
func terminalColumns(w io.Writer) func() int {
	return func() int {
		if f, ok := w.(*os.File); ok {
			if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
				return width
			}
		}
		return 80
	}
}
