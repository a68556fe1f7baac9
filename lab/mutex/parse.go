package mutex

import (
	"fmt"
	"strconv"
	"strings"
)

// maxTime bounds a time flag: a million delays is far beyond any run, and
// its ticks stay far from overflow.
const maxTime = 1_000_000 * Delay

// ParseTime reads a time or a duration in delays, the labs' unit of
// virtual time (one message delay on a cable): a decimal number from 0, to
// the tick (three decimals at most), bare or with the unit d, e.g. 2.5 or
// 2.5d. A bus's units of time (ns, us, …) are refused by name.
func ParseTime(s string) (int64, error) {
	num := strings.TrimSuffix(s, "d")
	if unit := strings.TrimLeft(num, "0123456789."); unit != "" && unit != num && !strings.Contains(unit, "d") && strings.Trim(unit, "abcdefghijklmnopqrstuvwxyzµμ") == "" {
		return 0, fmt.Errorf("the labs count time in delays (d), not %s: want e.g. 2.5 or 2.5d", unit)
	}
	whole, frac, dotted := strings.Cut(num, ".")
	if whole == "" || (dotted && frac == "") || len(frac) > 3 || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, fmt.Errorf("want a number of delays from 0, to three decimals, e.g. 2.5 or 2.5d")
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > maxTime/Delay {
		return 0, fmt.Errorf("want at most %d delays", maxTime/Delay)
	}
	f, _ := strconv.ParseInt((frac + "000")[:3], 10, 64)
	t := w*Delay + f
	if t > maxTime {
		return 0, fmt.Errorf("want at most %d delays", maxTime/Delay)
	}
	return t, nil
}

// ParseCrash reads NODE@TIME: the node crashes at TIME delays.
func ParseCrash(s string) (Crash, error) {
	node, at, ok := strings.Cut(s, "@")
	if !ok || node == "" {
		return Crash{}, fmt.Errorf("want NODE@TIME, e.g. n3@2.5d")
	}
	t, err := ParseTime(at)
	if err != nil {
		return Crash{}, fmt.Errorf("time %q: %w", at, err)
	}
	return Crash{Node: node, At: t}, nil
}

// ParseCrashes reads NODE@TIME specs (ParseCrash); an error names the spec.
func ParseCrashes(specs []string) ([]Crash, error) {
	var crashes []Crash
	for _, s := range specs {
		c, err := ParseCrash(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		crashes = append(crashes, c)
	}
	return crashes, nil
}
