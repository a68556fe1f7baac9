package sweep

import (
	"bytes"
	"io"
	"strconv"
	"strings"
)

// RowPrefixer writes Prefix at the start of every line to W: it puts a
// sweep point's parameter values (Point.ParamValues) before the columns
// analysis.RunCSV writes. AtLineStart is true before the first line.
type RowPrefixer struct {
	W           io.Writer
	Prefix      string
	AtLineStart bool
}

// Write writes b, Prefix before each of its lines.
func (p *RowPrefixer) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if p.AtLineStart {
			if _, err := io.WriteString(p.W, p.Prefix); err != nil {
				return 0, err
			}
		}
		line, rest, found := bytes.Cut(b, []byte("\n"))
		if found {
			line = b[:len(line)+1]
		}
		if _, err := p.W.Write(line); err != nil {
			return 0, err
		}
		p.AtLineStart, b = found, rest
	}
	return n, nil
}

// ParamColumns are the CSV header cells of the grid's parameters, each
// followed by a comma.
func (g *Grid) ParamColumns() string {
	var b strings.Builder
	for _, p := range g.Params {
		b.WriteString(p.Name + ",")
	}
	return b.String()
}

// ParamValues are the CSV cells of the point's values, each followed by
// a comma.
func (pt Point) ParamValues() string {
	var b strings.Builder
	for _, v := range pt.Values {
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
	}
	return b.String()
}
