package vcd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the type of a variable.
type Kind uint8

// Variable kinds.
const (
	Wire   Kind = iota + 1 // one bit: 0, 1, x or z
	String                 // text, GTKWave's extension (see the package doc)
	Real                   // a number, IEEE 1364's real: "r<number> <id>"
)

func (k Kind) String() string {
	switch k {
	case Wire:
		return "wire"
	case String:
		return "string"
	case Real:
		return "real"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// size is the width a $var of kind k declares: one bit, GTKWave's 1 for a
// string, 64 for a double-precision real (the width libsigrok expects).
func (k Kind) size() string {
	if k == Real {
		return "64"
	}
	return "1"
}

// ErrUsage is the category of errors in the order of a Writer's calls or in
// the names and values given to it.
var ErrUsage = errors.New("vcd")

// Var is a variable declared on a Writer.
type Var int

type variable struct {
	kind  Kind
	id    string
	value string
}

// Writer writes one VCD file: first the header (comments, scopes,
// variables), then EndDefinitions, then value changes in time order, then
// Finish. Errors are sticky: after the first, every call returns it.
type Writer struct {
	out     *bufio.Writer
	err     error
	vars    []variable
	depth   int
	defined bool   // EndDefinitions was called
	started bool   // the $timescale line is out
	now     int64  // the time of the last time stamp written
	scratch []byte // for formatting time stamps without allocating
}

// NewWriter returns a Writer that writes to w; nothing is written before the
// first call.
func NewWriter(w io.Writer) *Writer {
	return &Writer{out: bufio.NewWriter(w)}
}

func (w *Writer) fail(format string, args ...any) error {
	if w.err == nil {
		w.err = fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)
	}
	return w.err
}

// begin writes the $timescale line before the first scope or variable.
func (w *Writer) begin() {
	if !w.started {
		w.started = true
		w.out.WriteString("$timescale 1ns $end\n")
	}
}

// Comment adds a $comment to the header, anywhere before EndDefinitions;
// comments before the first scope come before the $timescale line. The
// text may hold any characters but "$end"; each line of it is indented.
func (w *Writer) Comment(text string) error {
	switch {
	case w.err != nil:
		return w.err
	case w.defined:
		return w.fail("comment after the definitions ended")
	case strings.Contains(text, "$end"):
		return w.fail("comment %q contains $end", text)
	}
	w.out.WriteString("$comment\n  ")
	w.out.WriteString(strings.ReplaceAll(text, "\n", "\n  "))
	w.out.WriteString("\n$end\n")
	return nil
}

// Scope opens a module scope inside the current one.
func (w *Writer) Scope(name string) error {
	if err := w.checkHeader("scope", name); err != nil {
		return err
	}
	w.begin()
	w.out.WriteString("$scope module ")
	w.out.WriteString(name)
	w.out.WriteString(" $end\n")
	w.depth++
	return nil
}

// Upscope closes the current scope.
func (w *Writer) Upscope() error {
	if err := w.checkHeader("upscope", "-"); err != nil {
		return err
	}
	if w.depth == 0 {
		return w.fail("upscope without an open scope")
	}
	w.out.WriteString("$upscope $end\n")
	w.depth--
	return nil
}

// Declare declares a variable in the current scope with its value at time
// 0.
func (w *Writer) Declare(kind Kind, name, initial string) (Var, error) {
	if err := w.checkHeader("variable", name); err != nil {
		return -1, err
	}
	if w.depth == 0 {
		return -1, w.fail("variable %s outside any scope", name)
	}
	if err := checkValue(kind, initial); err != nil {
		return -1, w.fail("variable %s: %w", name, err)
	}
	w.begin()
	v := Var(len(w.vars))
	id := identifier(len(w.vars))
	w.vars = append(w.vars, variable{kind: kind, id: id, value: initial})
	for _, s := range [...]string{"$var ", kind.String(), " ", kind.size(), " ", id, " ", name, " $end\n"} {
		w.out.WriteString(s)
	}
	return v, nil
}

func (w *Writer) checkHeader(what, name string) error {
	switch {
	case w.err != nil:
		return w.err
	case w.defined:
		return w.fail("%s %s after the definitions ended", what, name)
	case !legalName(name):
		return w.fail("%s name %q: want printable ASCII without blanks or $", what, name)
	}
	return nil
}

// legalName: viewers split declarations at white space, and sigrok ends a
// header section at the first "$end" even inside a word.
func legalName(s string) bool {
	return printable(s) && !strings.ContainsRune(s, '$')
}

// printable: non-empty, ASCII 33 to 126 only.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// EndDefinitions closes the header and writes every variable's initial
// value at time 0.
func (w *Writer) EndDefinitions() error {
	switch {
	case w.err != nil:
		return w.err
	case w.defined:
		return w.fail("definitions ended twice")
	case w.depth != 0:
		return w.fail("%d scopes still open at the end of the definitions", w.depth)
	}
	w.begin()
	w.defined = true
	w.out.WriteString("$enddefinitions $end\n#0\n$dumpvars\n")
	for _, v := range w.vars {
		w.writeValue(v.kind, v.value, v.id)
	}
	w.out.WriteString("$end\n")
	return nil
}

// Change sets v to value at time t (in ns). Times must not decrease; a value
// equal to the variable's current one writes nothing.
func (w *Writer) Change(t int64, v Var, value string) error {
	switch {
	case w.err != nil:
		return w.err
	case !w.defined:
		return w.fail("value change before the definitions ended")
	case v < 0 || int(v) >= len(w.vars):
		return w.fail("unknown variable %d", v)
	case t < w.now:
		return w.fail("time %d before %d", t, w.now)
	}
	x := &w.vars[v]
	if err := checkValue(x.kind, value); err != nil {
		return w.fail("at %d: %w", t, err)
	}
	if value == x.value {
		return nil
	}
	w.stamp(t)
	x.value = value
	w.writeValue(x.kind, value, x.id)
	return nil
}

func (w *Writer) stamp(t int64) {
	if t > w.now {
		w.now = t
		w.scratch = append(strconv.AppendInt(append(w.scratch[:0], '#'), t, 10), '\n')
		w.out.Write(w.scratch)
	}
}

// writeValue writes a value change: "0!" for a wire, "sIDLE !" for a
// string, "r3 !" for a real.
func (w *Writer) writeValue(k Kind, value, id string) {
	switch k {
	case String:
		w.out.WriteByte('s')
	case Real:
		w.out.WriteByte('r')
	}
	w.out.WriteString(value)
	if k != Wire {
		w.out.WriteByte(' ')
	}
	w.out.WriteString(id)
	w.out.WriteByte('\n')
}

// Finish writes a last time stamp at end, if later than the last change, so
// that viewers show the waveform up to there, and flushes the output.
func (w *Writer) Finish(end int64) error {
	switch {
	case w.err != nil:
		return w.err
	case !w.defined:
		return w.fail("finish before the definitions ended")
	}
	w.stamp(end)
	if err := w.out.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// checkValue says whether value is legal for a variable of kind k.
func checkValue(k Kind, value string) error {
	switch k {
	case Wire:
		switch value {
		case "0", "1", "x", "z":
			return nil
		}
		return fmt.Errorf("wire value %q: want 0, 1, x or z", value)
	case String:
		if !legalText(value) {
			return fmt.Errorf("string value %q: want printable ASCII without blanks or backslashes (see Text)", value)
		}
		return nil
	case Real:
		// Digits, sign, point and exponent only: no "Inf" or "NaN", which
		// not every viewer reads.
		if _, err := strconv.ParseFloat(value, 64); err != nil || strings.Trim(value, "0123456789+-.eE") != "" {
			return fmt.Errorf("real value %q: want a decimal number", value)
		}
		return nil
	}
	return fmt.Errorf("unknown kind %d", k)
}

// legalText: GTKWave and sigrok split value changes at blanks, and sigrok
// reads a backslash as the start of an escape sequence.
func legalText(s string) bool {
	return printable(s) && !strings.ContainsRune(s, '\\')
}

// Text maps any text to a legal string value: blanks become '_', dashes
// '-', backslashes '/', and other characters outside printable ASCII '?';
// the empty text becomes "-".
func Text(s string) string {
	if legalText(s) {
		return s // the common case, without allocating
	}
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			b.WriteByte('_')
		case r == '–' || r == '—':
			b.WriteByte('-')
		case r == '\\':
			b.WriteByte('/')
		case r > ' ' && r <= '~':
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// idAlphabet is the printable ASCII an identifier code is made of, without
// the characters that begin a time stamp, a keyword or a value change in
// some reader (see the package doc).
var idAlphabet = func() string {
	var b strings.Builder
	for c := byte('!'); c <= '~'; c++ {
		if !strings.ContainsRune(`#$01bBhHlLrRsSuUxXzZ-\`, rune(c)) {
			b.WriteByte(c)
		}
	}
	return b.String()
}()

// identifier is the code of the n-th variable: base len(idAlphabet), as
// short as possible.
func identifier(n int) string {
	base := len(idAlphabet)
	var b []byte
	for {
		b = append(b, idAlphabet[n%base])
		n = n/base - 1
		if n < 0 {
			return string(b)
		}
	}
}

// VarChange is one value change of a declared variable, for writers that
// gather a file's changes before they write them in time order
// (WriteChanges).
type VarChange struct {
	At    int64
	Var   Var
	Value string
}

// WriteChanges writes changes, in time order, and ends the file at the
// last of them or end.
func (w *Writer) WriteChanges(changes []VarChange, end int64) error {
	for _, c := range changes {
		if err := w.Change(c.At, c.Var, c.Value); err != nil {
			return err
		}
		end = max(end, c.At)
	}
	return w.Finish(end)
}

// ScopeName is the scope name of an arbitrary name, a node id for fwsim. Scope names are printable
// ASCII without '$', and viewers split paths at '.', so each byte of the id
// outside that set, '.', and '%' itself, are written %XX as in a URL: "café"
// is "caf%C3%A9". Distinct ids keep distinct scopes.
func ScopeName(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if c := id[i]; c > ' ' && c <= '~' && !strings.ContainsRune(".%$", rune(c)) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
