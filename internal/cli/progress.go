package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// newProgress returns the progress bar's update function, or nil when
// there is to be none; the bar clears itself when the last run is done.
func newProgress(e *env, quiet bool) func(done, total int) {
	if quiet || !stderrIsTerminal(e.stderr.w) {
		return nil
	}
	bar := &progressBar{w: e.stderr.w}
	e.stderr.bar = bar
	return func(done, total int) {
		bar.update(done, total)
		if done == total {
			bar.clear()
		}
	}
}

// stderrIsTerminal reports whether w is a character device: a terminal,
// where a progress bar belongs (or /dev/null, where it does no harm). It
// needs no system call, so it works on every platform. Tests replace it.
var stderrIsTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressBar redraws one line on a terminal, at most once per percent.
type progressBar struct {
	w       io.Writer
	percent int
	drawn   bool
}

const barWidth = 40

func (b *progressBar) update(done, total int) {
	percent := done * 100 / total
	if b.drawn && percent == b.percent {
		return
	}
	b.percent, b.drawn = percent, true
	filled := done * barWidth / total
	fmt.Fprintf(b.w, "\r[%s%s] %3d%% %d/%d runs", strings.Repeat("#", filled), strings.Repeat(" ", barWidth-filled), percent, done, total)
}

// clear erases the bar, so that what follows starts on a clean line; the
// next update draws it again.
func (b *progressBar) clear() {
	if b.drawn {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", barWidth+40))
		b.drawn = false
	}
}
