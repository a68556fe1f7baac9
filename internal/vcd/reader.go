package vcd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ErrMalformed is the category of errors Parse returns for a broken file.
var ErrMalformed = errors.New("malformed VCD")

// File is a parsed VCD file.
type File struct {
	Comments  []string
	Timescale string // as written, blanks removed: "1ns"
	Vars      []Declaration
	// Changes lists every value change in file order, the $dumpvars values
	// included; their times never decrease.
	Changes []Change
	// End is the last time stamp.
	End int64
}

// Declaration is one $var.
type Declaration struct {
	Scope []string // the enclosing scopes, outermost first
	Name  string   // the reference, with its bit select or range if any
	Kind  Kind
	Size  int // the declared width: 1 for a wire, 64 for our reals
	ID    string
}

// Path is the variable's full name, scopes and name joined by dots.
func (d Declaration) Path() string {
	return strings.Join(append(append([]string{}, d.Scope...), d.Name), ".")
}

// Change is one value change.
type Change struct {
	Time  int64
	ID    string
	Value string // "0", "1", "x", "z", a string variable's text or a real's number
}

// word is a blank-separated token and the line it is on.
type word struct {
	text string
	line int
}

// Parse reads a VCD file and checks its structure (see the package doc)
// against the IEEE 1364 §18 grammar. It reads the subset the Writer
// writes: scalar wires and regs, reals, and string variables. Errors wrap
// ErrMalformed and name the line.
func Parse(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	p := &parser{s: NewScanner(bytes.NewReader(data)), byID: map[string]Kind{}, f: &File{End: -1}}
	if err := p.header(); err != nil {
		return nil, err
	}
	if err := p.body(); err != nil {
		return nil, err
	}
	return p.f, nil
}

type parser struct {
	s     *Scanner
	last  int // the line of the last word read
	f     *File
	byID  map[string]Kind
	scope []string
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMalformed, line, fmt.Sprintf(format, args...))
}

// next is the next word, false at the end of the file.
func (p *parser) next() (word, bool) {
	w, ok := p.s.Word()
	if !ok {
		return word{}, false
	}
	p.last = p.s.Line()
	return word{w, p.last}, true
}

// lastLine is the line of the file's last word, once all are read.
func (p *parser) lastLine() int {
	return max(p.last, 1)
}

// section returns the words up to the next $end, which it consumes.
func (p *parser) section(keyword word) ([]string, error) {
	body, ok := p.s.Section()
	if !ok {
		return nil, p.errorf(keyword.line, "%s without $end", keyword.text)
	}
	p.last = p.s.Line()
	return body, nil
}

func join(ws []string) string { return strings.Join(ws, " ") }

func (p *parser) header() error {
	for {
		kw, ok := p.next()
		if !ok {
			break
		}
		body, err := p.section(kw)
		if err != nil {
			return err
		}
		switch kw.text {
		case "$comment":
			p.f.Comments = append(p.f.Comments, join(body))
		case "$date", "$version":
		case "$timescale":
			if p.f.Timescale != "" {
				return p.errorf(kw.line, "a second $timescale")
			}
			p.f.Timescale = strings.ReplaceAll(join(body), " ", "")
			// ParseTimescale takes leading zeros, which IEEE 1364 does not.
			if _, ok := ParseTimescale(p.f.Timescale); !ok || p.f.Timescale[0] == '0' {
				return p.errorf(kw.line, "timescale %q: want 1, 10 or 100 and s, ms, us, ns, ps or fs", p.f.Timescale)
			}
		case "$scope":
			if len(body) != 2 {
				return p.errorf(kw.line, "$scope wants a type and a name, got %q", join(body))
			}
			switch body[0] {
			case "module", "task", "function", "begin", "fork":
			default:
				return p.errorf(kw.line, "scope type %q: want module, task, function, begin or fork", body[0])
			}
			p.scope = append(p.scope, body[1])
		case "$upscope":
			if len(p.scope) == 0 {
				return p.errorf(kw.line, "$upscope without an open scope")
			}
			if len(body) != 0 {
				return p.errorf(kw.line, "$upscope takes nothing, got %q", join(body))
			}
			p.scope = p.scope[:len(p.scope)-1]
		case "$var":
			if err := p.variable(kw, body); err != nil {
				return err
			}
		case "$enddefinitions":
			switch {
			case len(body) != 0:
				return p.errorf(kw.line, "$enddefinitions takes nothing, got %q", join(body))
			case len(p.scope) != 0:
				return p.errorf(kw.line, "scope %s still open at $enddefinitions", strings.Join(p.scope, "."))
			case p.f.Timescale == "":
				return p.errorf(kw.line, "no $timescale before $enddefinitions")
			case len(p.f.Vars) == 0:
				return p.errorf(kw.line, "no variables")
			}
			return nil
		default:
			return p.errorf(kw.line, "unexpected %q in the header", kw.text)
		}
	}
	return p.errorf(p.lastLine(), "no $enddefinitions")
}

// bitSelect matches the optional fifth word of a $var: [n] or [m:n].
var bitSelect = regexp.MustCompile(`^\[[0-9]+(:[0-9]+)?\]$`)

// variable reads "$var type size identifier reference [select] $end".
func (p *parser) variable(kw word, body []string) error {
	if len(body) != 4 && len(body) != 5 {
		return p.errorf(kw.line, "$var wants a type, a size, an identifier and a name, got %q", join(body))
	}
	typ, id, name := body[0], body[2], body[3]
	size, err := strconv.Atoi(body[1])
	if err != nil || size < 0 || body[1][0] == '+' {
		return p.errorf(kw.line, "%s %s: size %q: want a decimal number", typ, name, body[1])
	}
	var k Kind
	switch typ {
	case "wire", "reg":
		k = Wire
		if size != 1 {
			return p.errorf(kw.line, "%s %s: only one-bit wires are supported, got size %d", typ, name, size)
		}
	case "string": // GTKWave writes size 1, its FST tools 0
		k = String
	case "real", "realtime":
		k = Real
		if size == 0 {
			return p.errorf(kw.line, "%s %s: size 0", typ, name)
		}
	default:
		return p.errorf(kw.line, "variable type %q: want wire, reg, real or string", typ)
	}
	if !printable(id) {
		return p.errorf(kw.line, "identifier %q of %s: want ASCII characters 33 to 126", id, name)
	}
	if len(body) == 5 {
		if !bitSelect.MatchString(body[4]) {
			return p.errorf(kw.line, "%s: %q after the name: want a bit select [n] or a range [m:n]", name, body[4])
		}
		name += body[4]
	}
	if _, dup := p.byID[id]; dup {
		return p.errorf(kw.line, "identifier %q declared twice", id)
	}
	p.byID[id] = k
	p.f.Vars = append(p.f.Vars, Declaration{Scope: append([]string(nil), p.scope...), Name: name, Kind: k, Size: size, ID: id})
	return nil
}

func (p *parser) body() error {
	now := int64(-1)
	inDump := false
	for {
		w, ok := p.next()
		if !ok {
			break
		}
		switch t := w.text; {
		case t == "$dumpvars" || t == "$dumpall" || t == "$dumpon" || t == "$dumpoff":
			if inDump {
				return p.errorf(w.line, "%s inside another $dump section", t)
			}
			inDump = true
		case t == "$end":
			if !inDump {
				return p.errorf(w.line, "$end outside a section")
			}
			inDump = false
		case t == "$comment":
			if _, err := p.section(w); err != nil {
				return err
			}
		case strings.HasPrefix(t, "$"):
			return p.errorf(w.line, "unexpected %q after the definitions", t)
		case strings.HasPrefix(t, "#"):
			if inDump {
				return p.errorf(w.line, "time stamp %s inside a $dump section", t)
			}
			n, err := strconv.ParseInt(t[1:], 10, 64)
			if err != nil || n < 0 {
				return p.errorf(w.line, "time stamp %q: want # and a non-negative integer", t)
			}
			if n < now {
				return p.errorf(w.line, "time goes back from %d to %d", now, n)
			}
			now = n
			p.f.End = n
		default:
			if now < 0 {
				return p.errorf(w.line, "value change %q before the first time stamp", t)
			}
			if err := p.change(w, now); err != nil {
				return err
			}
		}
	}
	if inDump {
		return p.errorf(p.lastLine(), "$dump section without $end")
	}
	return nil
}

func (p *parser) change(w word, now int64) error {
	t := w.text
	var value, id string
	form := Wire
	switch t[0] {
	case '0', '1', 'x', 'z', 'X', 'Z':
		value, id = strings.ToLower(t[:1]), t[1:]
		if id == "" {
			return p.errorf(w.line, "value %q without an identifier", t)
		}
	case 's', 'S', 'r', 'R':
		// Both viewers read the identifier from the same line.
		next, ok := p.s.WordOnLine()
		if !ok {
			return p.errorf(w.line, "value %q without an identifier", t)
		}
		value, id = t[1:], next
		form = String
		if t[0] == 'r' || t[0] == 'R' {
			form = Real
		}
	default:
		return p.errorf(w.line, "value change %q: want 0, 1, x or z and an identifier, or s<text> or r<number>, a blank and an identifier", t)
	}
	k, ok := p.byID[id]
	if !ok {
		return p.errorf(w.line, "value change for undeclared identifier %q", id)
	}
	if k != form {
		return p.errorf(w.line, "identifier %q is a %s, given a %s value %q", id, k, form, t)
	}
	if err := checkValue(k, value); err != nil {
		return p.errorf(w.line, "identifier %q (a %s): %v", id, k, err)
	}
	p.f.Changes = append(p.f.Changes, Change{Time: now, ID: id, Value: value})
	return nil
}
