package main

import (
	"fmt"
	"time"

	"github.com/fwsim/fwsim/view"
)

// maxDuration is --max-duration: the longest work a command starts, as
// timed before it starts; 0 is no limit.
type maxDuration struct{ limit time.Duration }

// register adds --max-duration to fs, 24 hours unless given; usage says
// what is timed and how.
func (m *maxDuration) register(fs *flags, usage string) {
	fs.DurationVar(&m.limit, "max-duration", 24*time.Hour, usage)
}

// check is the usage error of the flag's value, or "".
func (m maxDuration) check() string {
	if m.limit < 0 {
		return fmt.Sprintf("--max-duration %s: want 0 (no limit) or a positive duration", view.ShortDuration(m.limit))
	}
	return ""
}

// refusal is the one-line refusal of what, estimated to take total here
// (a lower bound when atLeast) as timed says, or "" when that is within
// the limit; advice says how to ask for less.
func (m maxDuration) refusal(what string, total time.Duration, atLeast bool, timed, advice string) string {
	if m.limit == 0 || total <= m.limit {
		return ""
	}
	about := "about"
	if atLeast {
		about = "at least"
	}
	return fmt.Sprintf("%s would take %s %s here (%s), more than --max-duration %s; %s",
		what, about, view.Roughly(total), timed, view.ShortDuration(m.limit), advice)
}
