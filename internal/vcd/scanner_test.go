package vcd

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScannerWords: words come with the line they are on; WordOnLine reads
// only from that line; Section stops at $end; at the end Line is the last
// line read, blank or not.
func TestScannerWords(t *testing.T) {
	s := NewScanner(strings.NewReader("$timescale 1 ns $end\n\n#0 b01 !\n1\"\nr2\n%\n\n"))
	w, ok := s.Word()
	require.True(t, ok)
	assert.Equal(t, "$timescale", w)
	body, ok := s.Section()
	require.True(t, ok)
	assert.Equal(t, []string{"1", "ns"}, body)
	assert.Equal(t, 1, s.Line())
	w, _ = s.Word()
	assert.Equal(t, "#0", w)
	assert.Equal(t, 3, s.Line())
	s.Word()
	id, ok := s.WordOnLine()
	assert.True(t, ok)
	assert.Equal(t, "!", id)
	_, ok = s.WordOnLine()
	assert.False(t, ok, "the line has no more words")
	w, _ = s.Word()
	assert.Equal(t, "1\"", w)
	s.Word()
	_, ok = s.WordOnLine()
	assert.False(t, ok, "an identifier on the next line is not the real's")
	w, _ = s.Word()
	assert.Equal(t, "%", w)
	assert.Equal(t, 6, s.Line())
	_, ok = s.Word()
	assert.False(t, ok)
	assert.Equal(t, 7, s.Line(), "the blank last line")
	assert.NoError(t, s.Err())
}

func TestScannerSectionWithoutEnd(t *testing.T) {
	s := NewScanner(strings.NewReader("$comment never\nclosed"))
	s.Word()
	_, ok := s.Section()
	assert.False(t, ok)
}

// numberedLines gives lines with their own numbers and then fails, as a
// capture reader that skips lines of its own does.
type numberedLines struct {
	texts []string
	ns    []int
}

var errLines = errors.New("broken")

func (l *numberedLines) Next() (string, int, bool) {
	if len(l.texts) == 0 {
		return "", 0, false
	}
	text, n := l.texts[0], l.ns[0]
	l.texts, l.ns = l.texts[1:], l.ns[1:]
	return text, n, true
}

func (l *numberedLines) Err() error { return errLines }

func TestScanLines(t *testing.T) {
	s := ScanLines(&numberedLines{texts: []string{"#0 1!", "#5"}, ns: []int{3, 7}})
	var words []string
	var lines []int
	for w, ok := s.Word(); ok; w, ok = s.Word() {
		words, lines = append(words, w), append(lines, s.Line())
	}
	assert.Equal(t, []string{"#0", "1!", "#5"}, words)
	assert.Equal(t, []int{3, 3, 7}, lines, "the lines' own numbers")
	assert.ErrorIs(t, s.Err(), errLines)
	_, ok := s.Word()
	assert.False(t, ok, "nothing after the end")
}

func TestParseTimescale(t *testing.T) {
	for _, c := range []struct {
		in       string
		num, den int64
	}{{"1ns", 1, 1}, {"100ps", 100, 1000}, {"10us", 10000, 1}, {"1s", 1e9, 1}, {"1fs", 1, 1e6}, {"010ns", 10, 1}} {
		ts, ok := ParseTimescale(c.in)
		assert.True(t, ok, c.in)
		assert.Equal(t, Timescale{c.num, c.den}, ts, c.in)
	}
	for _, in := range []string{"", "ns", "3ns", "1000ns", "1ks", "+1ns", "-1ns", "1 ns", "1NS", "99999999999999999999ns"} {
		_, ok := ParseTimescale(in)
		assert.False(t, ok, in)
	}
}

func TestTimescaleNs(t *testing.T) {
	ps100 := Timescale{100, 1000}
	for _, c := range []struct{ t, ns int64 }{{0, 0}, {4, 0}, {5, 1}, {14, 1}, {15, 2}, {250, 25}} {
		ns, ok := ps100.Ns(c.t)
		assert.True(t, ok)
		assert.Equal(t, c.ns, ns, "%d × 100 ps, rounded to the ns", c.t)
	}
	_, ok := Timescale{1e9, 1}.Ns(math.MaxInt64)
	assert.False(t, ok, "overflow")
	ns, ok := Timescale{1, 1e6}.Ns(math.MaxInt64)
	assert.True(t, ok)
	assert.Equal(t, int64(9223372036855), ns)
}

// FuzzScanner: the scanner's words are strings.Fields of each line, each
// with its line's number, whatever the input.
func FuzzScanner(f *testing.F) {
	f.Add("$timescale 1 ns $end\n\n#0 b01 !\r\n1\"\nr2\n%\n\n")
	f.Add("a\tb\v\fc\u00a0d\u0085e\n\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		var want []word
		for i, line := range strings.Split(in, "\n") {
			for _, w := range strings.Fields(line) {
				want = append(want, word{w, i + 1})
			}
		}
		s := NewScanner(strings.NewReader(in))
		var got []word
		for w, ok := s.Word(); ok; w, ok = s.Word() {
			got = append(got, word{w, s.Line()})
		}
		require.NoError(t, s.Err())
		if len(want) != len(got) {
			t.Fatalf("%q: %v, want %v", in, got, want)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%q: %v, want %v", in, got, want)
			}
		}
	})
}
