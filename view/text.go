package view

import (
	"fmt"
	"io"
	"strings"
)

// table aligns rows of cells in columns two spaces apart, with no trailing
// blanks; rows may be shorter than others.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// writeRight is write with the first columns aligned right, for numbers.
func (t *table) writeRight(w io.Writer, indent string, columns int) {
	for c := range columns {
		width := 0
		for _, r := range t.rows {
			width = max(width, len([]rune(r[c])))
		}
		for _, r := range t.rows {
			r[c] = strings.Repeat(" ", width-len([]rune(r[c]))) + r[c]
		}
	}
	t.write(w, indent)
}

func (t *table) write(w io.Writer, indent string) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Plural is the "s" of n things.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// orNone is s, or "none" for an empty s.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
