package view

import (
	"strconv"
	"strings"
	"time"
)

// ShortDuration writes d as time.Duration does, less zero minutes and
// seconds at the end: "24h", not "24h0m0s".
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Roughly writes an estimate in the largest unit it holds two of, to a
// tenth below 100: "39.4 days", "5.2 hours", "350 milliseconds".
func Roughly(d time.Duration) string {
	units := []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "days"}, {time.Hour, "hours"}, {time.Minute, "minutes"}, {time.Second, "seconds"}, {time.Millisecond, "milliseconds"}}
	u := units[len(units)-1]
	for _, u = range units {
		if d >= 2*u.size {
			break
		}
	}
	v := float64(d) / float64(u.size)
	decimals := 1
	if v >= 100 {
		decimals = 0
	}
	return strconv.FormatFloat(v, 'f', decimals, 64) + " " + u.name
}
