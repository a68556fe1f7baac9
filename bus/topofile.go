package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxTopologyFileSize bounds what ReadTopology reads, so that a wrong path
// (a device, a huge log) fails instead of exhausting memory: the parsed
// document takes about 60 bytes per input byte, 250 MB for a 4 MiB file of
// nodes. 4 MiB still holds tens of thousands of scenario events.
const maxTopologyFileSize = 4 << 20

// maxJSONDepth bounds nesting in JSON files; the format nests four deep.
// (The YAML parser has its own limit.)
const maxJSONDepth = 64

// source locates the items of a parsed file by path ("nodes[1].ports").
type topologySource struct {
	name  string
	lines map[string]int
}

// line is the line of path, or of its closest enclosing item that has one
// (an absent field is reported at its node): 0 when unknown.
func (s topologySource) line(path string) int {
	for path != "" {
		if l, ok := s.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}

// LoadTopology reads a topology file; see ParseTopology.
func LoadTopology(path string) (*Topology, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTopology(f, path)
}

// ReadTopology reads the topology file name from r, as LoadTopology does
// once it has opened the file: for a caller that opens it its own way.
func ReadTopology(r io.Reader, name string) (*Topology, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxTopologyFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTopologyFileSize {
		return nil, &TopologyError{File: name, Msg: fmt.Sprintf("file larger than %d MiB", maxTopologyFileSize>>20), Kind: ErrMalformedFile}
	}
	return ParseTopology(data, name)
}

// ParseTopology reads a topology in YAML or JSON: JSON when name ends in
// .json, YAML when it ends in .yaml or .yml, otherwise JSON if the data
// starts with '{'. A leading UTF-8 byte-order mark is skipped. Bytes that
// are not UTF-8 text, control characters, unknown fields, repeated fields
// and values of the wrong type are errors (ErrMalformedFile) naming the
// file, line and field. The result is not validated: Validate does that,
// naming lines too.
func ParseTopology(data []byte, name string) (*Topology, error) {
	// Editors on Windows write a byte-order mark; YAML skips it, and so
	// does JSON here rather than quote it as "ï".
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var root *yaml.Node
	err := checkText(data)
	switch {
	case err != nil:
	case isJSON(data, name):
		root, err = jsonToNode(data)
	default:
		root, err = yamlToNode(data)
	}
	if err != nil {
		err.File = name
		return nil, err
	}
	t := &Topology{source: topologySource{name: name, lines: map[string]int{}}}
	if root != nil {
		d := nodeDecoder{file: name, lines: t.source.lines}
		if err := d.decode(root, reflect.ValueOf(t).Elem(), ""); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// checkText refuses bytes that are not UTF-8 text, and control characters
// but tab and line breaks, at their line and column. Both parsers refuse
// them anyway, but YAML without saying where, and JSON by quoting a
// character the file does not hold (it reads invalid UTF-8 as U+FFFD).
func checkText(data []byte) *TopologyError {
	line, lineStart := 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var what string
		switch {
		case r == '\n':
			line, lineStart = line+1, i+1
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("the byte %#02x, which is not UTF-8 text", data[i])
		case unicode.IsControl(r) && r != '\t' && r != '\r':
			what = fmt.Sprintf("the control character %U; only tabs and line breaks are allowed", r)
		}
		if what != "" {
			column := utf8.RuneCount(data[lineStart:i]) + 1
			return &TopologyError{Line: line, Msg: fmt.Sprintf("column %d: %s", column, what), Kind: ErrMalformedFile}
		}
		i += size
	}
	return nil
}

func isJSON(data []byte, name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
}

// Encode writes t as "yaml" or "json"; ParseTopology reads it back to an
// equal Topology. (JSON has no NaN: a topology holding one, which Validate
// rejects anyway, fails to encode as JSON.)
func (t *Topology) Encode(w io.Writer, format string) error {
	switch format {
	case "yaml":
		e := yaml.NewEncoder(w)
		e.SetIndent(2)
		if err := e.Encode(t); err != nil {
			return err
		}
		return e.Close()
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		return e.Encode(t)
	}
	return fmt.Errorf("unknown topology format %q (want yaml or json)", format)
}

// yamlToNode parses one YAML document; nil for an empty one. Like
// jsonToNode, it leaves the error's File to its caller.
func yamlToNode(data []byte) (*yaml.Node, *TopologyError) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, yamlSyntaxError(err, data)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, yamlSyntaxError(err, data)
		}
		return nil, &TopologyError{Line: next.Line, Msg: "more than one YAML document", Kind: ErrMalformedFile}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// yamlSyntaxError turns the parser's "yaml: line 7: problem" into a
// TopologyError on line 7. Two problems the parser reports without a line,
// or with another cause, are found in data: a key longer than YAML allows
// and an alias to an anchor that does not exist.
func yamlSyntaxError(err error, data []byte) *TopologyError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, text
			}
		}
	}
	if keyLine, length := longKey(data); keyLine > 0 && (line == 0 || keyLine <= line+1) {
		// The parser gives up on such a key in several ways, each
		// misleading ("could not find expected ':'"), some on the line
		// before (its parser errors count lines from 0).
		msg = fmt.Sprintf("a key of %d characters: YAML allows keys of up to %d", length, maxYAMLKey)
		line = keyLine
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok && line == 0 {
		name = strings.TrimSuffix(name, "' referenced")
		alias := regexp.MustCompile(`\*` + regexp.QuoteMeta(name) + `($|[\s,\]}])`)
		if loc := alias.FindIndex(data); loc != nil {
			line = bytes.Count(data[:loc[0]], []byte("\n")) + 1
		}
	}
	return &TopologyError{Line: line, Msg: msg, Kind: ErrMalformedFile}
}

// maxYAMLKey is YAML's limit on a key without '?' (an implicit key), in
// characters up to its ':'.
const maxYAMLKey = 1024

// longKey finds the first line holding a key longer than maxYAMLKey: text
// before a ': ' (or a ':' ending the line) that starts after the previous
// ': ', '{', '[' or ',' on the line, or at its start, outside comments. It
// returns the line and the key's length, or 0, 0.
func longKey(data []byte) (line, length int) {
	for i, text := range strings.Split(string(data), "\n") {
		if c := strings.Index(text, " #"); c >= 0 {
			text = text[:c]
		}
		start := 0
		for j := 0; j < len(text); j++ {
			switch {
			case strings.IndexByte("{[,", text[j]) >= 0:
				start = j + 1
			case text[j] == ':' && (j+1 == len(text) || text[j+1] == ' ' || text[j+1] == '\t'):
				key := strings.TrimLeft(strings.TrimSpace(text[start:j]), "-? ")
				if n := utf8.RuneCountInString(key); n > maxYAMLKey {
					return i + 1, n
				}
				start = j + 1
			}
		}
	}
	return 0, 0
}

// jsonToNode parses JSON into the node tree the YAML parser would build, so
// both formats share one decoder, its error messages and its line table.
func jsonToNode(data []byte) (*yaml.Node, *TopologyError) {
	r := jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()
	root, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, r.errorAt(int(r.dec.InputOffset()), "data after the top-level value")
	}
	return root, nil
}

type jsonReader struct {
	data []byte
	dec  *json.Decoder
	// The line of offset `counted`: tokens come in order, so counting
	// newlines from the previous token keeps the reading linear.
	counted, line int
}

func (r *jsonReader) lineAt(offset int) int {
	offset = max(0, min(offset, len(r.data)))
	if offset < r.counted {
		r.counted, r.line = 0, 0
	}
	r.line += bytes.Count(r.data[r.counted:offset], []byte("\n"))
	r.counted = offset
	return r.line + 1
}

func (r *jsonReader) errorAt(offset int, msg string) *TopologyError {
	return &TopologyError{Line: r.lineAt(offset), Msg: msg, Kind: ErrMalformedFile}
}

// token reads the next token and the offset where it starts.
func (r *jsonReader) token() (json.Token, int, *TopologyError) {
	// The token starts after the separators the JSON decoder has not yet
	// consumed.
	start := int(r.dec.InputOffset())
	for start < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[start]) >= 0 {
		start++
	}
	tok, err := r.dec.Token()
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return tok, start, nil
	case errors.As(err, &syntax):
		return nil, 0, r.errorAt(int(syntax.Offset)-1, syntax.Error())
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, 0, r.errorAt(len(r.data), "unexpected end of JSON input")
	}
	return nil, 0, r.errorAt(start, err.Error())
}

func (r *jsonReader) value(depth int) (*yaml.Node, *TopologyError) {
	tok, start, err := r.token()
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: r.lineAt(start)}
	switch tok := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, r.errorAt(start, fmt.Sprintf("nested deeper than %d levels", maxJSONDepth))
		}
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		if tok == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for r.dec.More() {
			child, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, child)
		}
		if _, _, err := r.token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Tag, n.Value = "!!str", tok
	case json.Number:
		n.Tag, n.Value = "!!int", tok.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Tag, n.Value = "!!bool", strconv.FormatBool(tok)
	case nil:
		n.Tag, n.Value = "!!null", "null"
	}
	return n, nil
}

// nodeDecoder fills a Topology from a node tree strictly, recording the line of
// every item it decodes.
type nodeDecoder struct {
	file  string
	lines map[string]int
}

func (d *nodeDecoder) fail(n *yaml.Node, path, format string, args ...any) error {
	return &TopologyError{File: d.file, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...), Kind: ErrMalformedFile}
}

// decode stores n into v, a field of Topology or of the types it holds. A
// null leaves v at its zero value, the field's default. Aliases are
// followed; the format's types nest a few levels only, so even cyclic
// aliases end.
func (d *nodeDecoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	d.lines[path] = n.Line
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return d.fail(n, path, "alias to nothing")
		}
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	if u, ok := v.Addr().Interface().(yaml.Unmarshaler); ok {
		if err := u.UnmarshalYAML(n); err != nil {
			return d.fail(n, path, "%v", err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return d.decode(n, v.Elem(), path)
	case reflect.Struct:
		return d.mapping(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.fail(n, path, "want a list, got %s", describeNode(n))
		}
		if len(n.Content) == 0 {
			return nil
		}
		items := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := d.decode(item, items.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(items)
		return nil
	}
	return d.scalar(n, v, path)
}

func (d *nodeDecoder) mapping(n *yaml.Node, v reflect.Value, path string) error {
	fields := fieldNames(v.Type())
	want := strings.Join(slices.DeleteFunc(slices.Clone(fields), func(s string) bool { return s == "" }), ", ")
	if n.Kind != yaml.MappingNode {
		return d.fail(n, path, "want a mapping with fields %s, got %s", want, describeNode(n))
	}
	seen := make(map[string]bool, len(fields))
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i]
		if key.ShortTag() == "!!merge" {
			return d.fail(key, path, "merge keys (<<) are not supported")
		}
		field := -1
		if key.Kind == yaml.ScalarNode && key.Value != "" {
			field = slices.Index(fields, key.Value)
		}
		if field < 0 {
			return d.fail(key, path, "unknown field %s (want %s)", describeNode(key), want)
		}
		if seen[key.Value] {
			return d.fail(key, path, "field %q given twice", key.Value)
		}
		seen[key.Value] = true
		fieldPath := key.Value
		if path != "" {
			fieldPath = path + "." + key.Value
		}
		if err := d.decode(n.Content[i+1], v.Field(field), fieldPath); err != nil {
			return err
		}
	}
	return nil
}

// fieldNames gives the serialised name of each of t's fields by index: ""
// for the unexported ones, which are not part of the format.
func fieldNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
	}
	return names
}

func (d *nodeDecoder) scalar(n *yaml.Node, v reflect.Value, path string) error {
	var want string
	var tags []string
	switch {
	case v.Kind() == reflect.String:
		if n.Kind == yaml.ScalarNode { // any scalar reads as text: id: 1 is "1"
			v.SetString(n.Value)
			return nil
		}
		want = "a string"
	case v.CanInt() || v.CanUint():
		want, tags = "an integer", []string{"!!int"}
		// Digits that YAML reads as a float overflowed its integers; a
		// decoding error of an !!int is a value out of range of v's type.
		if n.ShortTag() == "!!int" || (n.ShortTag() == "!!float" && decimalInteger.MatchString(n.Value)) {
			want = "an integer from " + integerRange(v.Type())
		}
	case v.Kind() == reflect.Float64:
		want, tags = "a number", []string{"!!int", "!!float"}
	case v.Kind() == reflect.Bool:
		want, tags = "true or false", []string{"!!bool"}
	default:
		panic("bus: no decoder for " + v.Type().String()) // a new field type in Topology
	}
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.ShortTag()) || n.Decode(v.Addr().Interface()) != nil {
		return d.fail(n, path, "want %s, got %s", want, describeNode(n))
	}
	return nil
}

// decimalInteger is an integer written in decimal, of any size.
var decimalInteger = regexp.MustCompile(`^[-+]?[0-9]+$`)

// integerRange is the range of values of the integer type t, for messages.
func integerRange(t reflect.Type) string {
	bits := t.Bits()
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		return fmt.Sprintf("0 to %d", uint64(math.MaxUint64)>>(64-bits))
	}
	return fmt.Sprintf("%d to %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
}

// describeNode names what a node holds for an error message.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return quoteShort(n.Value)
	}
	return "nothing"
}

// quoteShort quotes s for an error message, escaping what a terminal would
// obey, and cuts it after 40 characters so that a huge value stays readable.
func quoteShort(s string) string {
	const maxShown = 40 // runes
	if runes := []rune(s); len(runes) > maxShown {
		return strconv.Quote(string(runes[:maxShown])) + "…"
	}
	return strconv.Quote(s)
}
