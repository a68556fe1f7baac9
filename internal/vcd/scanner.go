package vcd

import (
	"bufio"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Lines is the text a Scanner reads, a line at a time. NewScanner reads
// the lines of an io.Reader; a reader of captures gives its own, to strip
// what surrounds the VCD (mail quoting, a tool's lines among the VCD's) or
// to bound a line's length, with the line numbers of the file.
type Lines interface {
	// Next is the next line and its number, false at the end of the
	// input or at an error.
	Next() (text string, n int, ok bool)
	// Err is what ended the lines early; nil at the end of the input.
	Err() error
}

// Scanner reads a VCD a blank-separated word at a time, as IEEE 1364 §18
// and the viewers split it, holding one line: a logic analyzer's capture
// of millions of samples streams through it. Parse reads with it, and so
// does a reader with its own rules for what the words say (hwtest's sigrok
// reader).
type Scanner struct {
	lines  Lines
	fields []string // the current line's words not yet read
	line   int
	done   bool
}

// NewScanner scans the lines of r, of any length.
func NewScanner(r io.Reader) *Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, math.MaxInt)
	return ScanLines(&readerLines{sc: sc})
}

// ScanLines scans the lines l gives.
func ScanLines(l Lines) *Scanner { return &Scanner{lines: l} }

// Word is the next word, false at the end of the input or at an error
// (then Err says which).
func (s *Scanner) Word() (string, bool) {
	for len(s.fields) == 0 {
		if s.done {
			return "", false
		}
		text, n, ok := s.lines.Next()
		if !ok {
			s.done = true
			return "", false
		}
		s.fields, s.line = strings.Fields(text), n
	}
	w := s.fields[0]
	s.fields = s.fields[1:]
	return w, true
}

// WordOnLine is the next word when it is on the line of the last one, as
// the identifier after a vector, real or string value must be; false
// otherwise, and nothing is read.
func (s *Scanner) WordOnLine() (string, bool) {
	if len(s.fields) == 0 {
		return "", false
	}
	return s.Word()
}

// Section reads the words of a section up to its $end, which it consumes;
// false when the input ends first.
func (s *Scanner) Section() ([]string, bool) {
	var out []string
	for {
		w, ok := s.Word()
		switch {
		case !ok:
			return nil, false
		case w == "$end":
			return out, true
		}
		out = append(out, w)
	}
}

// Line is the number of the last line read: the line of the last word, or
// at the end of the input the last line, blank or not.
func (s *Scanner) Line() int { return s.line }

// Err is what ended the input early, nil at its end.
func (s *Scanner) Err() error { return s.lines.Err() }

// readerLines numbers the lines of a bufio.Scanner.
type readerLines struct {
	sc *bufio.Scanner
	n  int
}

func (l *readerLines) Next() (string, int, bool) {
	if !l.sc.Scan() {
		return "", 0, false
	}
	l.n++
	return l.sc.Text(), l.n, true
}

func (l *readerLines) Err() error { return l.sc.Err() }

// Timescale is the unit of a VCD's time stamps: Num/Den ns.
type Timescale struct{ Num, Den int64 }

// ParseTimescale reads a $timescale, its words joined without blanks
// ("100ps"): 1, 10 or 100 and s, ms, us, ns, ps or fs. It takes leading
// zeros ("010ns") as sigrok does; IEEE 1364 writes none, and Parse
// refuses them.
func ParseTimescale(s string) (Timescale, bool) {
	unit := strings.TrimLeft(s, "0123456789")
	e, okUnit := map[string]int{"s": 9, "ms": 6, "us": 3, "ns": 0, "ps": -3, "fs": -6}[unit]
	n, err := strconv.ParseInt(strings.TrimSuffix(s, unit), 10, 64)
	if !okUnit || err != nil || (n != 1 && n != 10 && n != 100) {
		return Timescale{}, false
	}
	ts := Timescale{Num: n, Den: 1}
	for ; e > 0; e-- {
		ts.Num *= 10
	}
	for ; e < 0; e++ {
		ts.Den *= 10
	}
	return ts, true
}

// Ns is t units in ns, rounded to the nearest; false when that overflows
// an int64.
func (ts Timescale) Ns(t int64) (int64, bool) {
	q, r := t/ts.Den, t%ts.Den
	hi, lo := bits.Mul64(uint64(q), uint64(ts.Num))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	ns := int64(lo) + (r*ts.Num+ts.Den/2)/ts.Den
	return ns, ns >= 0
}
