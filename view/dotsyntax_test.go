package view_test

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// parseDOT reads a Graphviz file strictly, by the DOT grammar
// (graphviz.org/doc/info/lang.html): one graph or digraph, statements
// separated by optional semicolons, node and edge statements with attribute
// lists, graph/node/edge attribute statements, ID = ID, and nested
// subgraphs. IDs are names, numerals or quoted strings. It rejects what
// WriteDOT never writes (comments, HTML strings, ports, edges to
// subgraphs), control characters and backslash escapes other than \", \\
// and \n in quoted strings (Graphviz would read \l or \N as label escapes),
// text that is not UTF-8, and "--" in a digraph.
func parseDOT(src []byte) (*dotGraph, error) {
	toks, err := lexDOT(string(src))
	if err != nil {
		return nil, err
	}
	p := &dotParser{toks: toks, g: &dotGraph{attrs: map[string]string{}}}
	if err := p.graph(); err != nil {
		return nil, err
	}
	return p.g, nil
}

// dotGraph is what parseDOT read.
type dotGraph struct {
	directed  bool
	name      string
	attrs     map[string]string // the graph's own, at the top level
	nodes     []dotNodeStmt     // node statements in order
	edges     []dotEdgeStmt
	subgraphs []string // their names, in order
}

type dotNodeStmt struct {
	id, subgraph string // subgraph: the innermost one around it, "" at the top
	attrs        map[string]string
}

type dotEdgeStmt struct {
	from, to string
	attrs    map[string]string
}

type dotToken struct {
	kind   byte   // 'i' an ID, '>' "->", '-' "--", or the punctuation itself
	text   string // an ID's value, with a quoted string's escapes read
	quoted bool   // the ID was a quoted string: never a keyword
	line   int
}

// lexDOT splits src into tokens.
func lexDOT(src string) ([]dotToken, error) {
	if !utf8.ValidString(src) {
		return nil, fmt.Errorf("DOT: not UTF-8")
	}
	var toks []dotToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.IndexByte("{}[];,=:", c) >= 0:
			toks = append(toks, dotToken{kind: c, line: line})
			i++
		case strings.HasPrefix(src[i:], "->"), strings.HasPrefix(src[i:], "--"):
			toks = append(toks, dotToken{kind: src[i+1], line: line})
			i += 2
		case c == '"':
			text, n, err := lexQuoted(src[i:])
			if err != nil {
				return nil, fmt.Errorf("DOT line %d: %w", line, err)
			}
			toks = append(toks, dotToken{kind: 'i', text: text, quoted: true, line: line})
			i += n
		case isDOTNameByte(c) && !isDigit(c):
			j := i
			for j < len(src) && isDOTNameByte(src[j]) {
				j++
			}
			toks = append(toks, dotToken{kind: 'i', text: src[i:j], line: line})
			i = j
		case c == '-' || c == '.' || isDigit(c):
			end, ok := numeral(src, i)
			if !ok {
				return nil, fmt.Errorf("DOT line %d: bad numeral %q", line, src[i:end])
			}
			toks = append(toks, dotToken{kind: 'i', text: src[i:end], line: line})
			i = end
		default:
			return nil, fmt.Errorf("DOT line %d: unexpected %q", line, c)
		}
	}
	return toks, nil
}

// numeral reads [-]?(.[0-9]+|[0-9]+(.[0-9]*)?) at src[i:], which must not
// run into a name or another point (Graphviz splits "10pt" in two, with a
// warning).
func numeral(src string, i int) (end int, ok bool) {
	j := i
	if src[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		return j - k
	}
	whole := digits()
	fraction := 0
	if j < len(src) && src[j] == '.' {
		j++
		fraction = digits()
	}
	ok = whole > 0 || fraction > 0
	if j < len(src) && (isDOTNameByte(src[j]) || src[j] == '.') {
		j++
		ok = false
	}
	return j, ok
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isDOTNameByte: names are letters, '_', digits and any byte of a non-ASCII
// character.
func isDOTNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// lexQuoted reads the quoted string s starts with: its text and its length.
func lexQuoted(s string) (string, int, error) {
	var b strings.Builder
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return b.String(), j + 1, nil
		case c == '\\':
			if j+1 == len(s) {
				return "", 0, fmt.Errorf("unterminated string")
			}
			j++
			switch s[j] {
			case '"', '\\':
				b.WriteByte(s[j])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", 0, fmt.Errorf("escape \\%c in %q: want \\\", \\\\ or \\n", s[j], s[:j+1])
			}
		case c < ' ' || c == 0x7f:
			return "", 0, fmt.Errorf("control character %U in a string", rune(c))
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

type dotParser struct {
	toks []dotToken
	pos  int
	g    *dotGraph
}

func (p *dotParser) errorf(format string, args ...any) error {
	line := 0
	if p.pos < len(p.toks) {
		line = p.toks[p.pos].line
	} else if len(p.toks) > 0 {
		line = p.toks[len(p.toks)-1].line
	}
	return fmt.Errorf("DOT line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *dotParser) at(kind byte) bool { return p.pos < len(p.toks) && p.toks[p.pos].kind == kind }

func (p *dotParser) accept(kind byte) bool {
	if p.at(kind) {
		p.pos++
		return true
	}
	return false
}

func (p *dotParser) expect(kind byte) error {
	if !p.accept(kind) {
		return p.errorf("want %q", kind)
	}
	return nil
}

// dotKeywords cannot be unquoted IDs; case does not matter.
var dotKeywords = []string{"node", "edge", "graph", "digraph", "subgraph", "strict"}

func isKeyword(t dotToken) bool {
	return t.kind == 'i' && !t.quoted && slices.ContainsFunc(dotKeywords, func(k string) bool { return strings.EqualFold(t.text, k) })
}

// keyword consumes the keyword k.
func (p *dotParser) keyword(k string) bool {
	if p.pos < len(p.toks) && isKeyword(p.toks[p.pos]) && strings.EqualFold(p.toks[p.pos].text, k) {
		p.pos++
		return true
	}
	return false
}

// id reads an ID that is not a keyword.
func (p *dotParser) id() (string, error) {
	if !p.at('i') {
		return "", p.errorf("want an ID")
	}
	t := p.toks[p.pos]
	if isKeyword(t) {
		return "", p.errorf("keyword %q where an ID belongs", t.text)
	}
	p.pos++
	return t.text, nil
}

func (p *dotParser) graph() error {
	p.keyword("strict")
	switch {
	case p.keyword("digraph"):
		p.g.directed = true
	case p.keyword("graph"):
	default:
		return p.errorf("want graph or digraph")
	}
	if p.at('i') {
		name, err := p.id()
		if err != nil {
			return err
		}
		p.g.name = name
	}
	if err := p.block(""); err != nil {
		return err
	}
	if p.pos != len(p.toks) {
		return p.errorf("text after the graph")
	}
	return nil
}

// block reads '{' stmt_list '}' inside the subgraph sub.
func (p *dotParser) block(sub string) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	for !p.accept('}') {
		if p.pos == len(p.toks) {
			return p.errorf("unclosed {")
		}
		if err := p.stmt(sub); err != nil {
			return err
		}
		p.accept(';')
	}
	return nil
}

func (p *dotParser) stmt(sub string) error {
	switch {
	case p.keyword("graph"):
		attrs, err := p.attrLists(true)
		if sub == "" {
			for k, v := range attrs {
				p.g.attrs[k] = v
			}
		}
		return err
	case p.keyword("node"), p.keyword("edge"):
		_, err := p.attrLists(true)
		return err
	case p.keyword("subgraph"):
		name := ""
		if p.at('i') {
			var err error
			if name, err = p.id(); err != nil {
				return err
			}
		}
		p.g.subgraphs = append(p.g.subgraphs, name)
		if err := p.block(name); err != nil {
			return err
		}
		if p.at('>') || p.at('-') {
			return p.errorf("an edge from a subgraph: WriteDOT writes none")
		}
		return nil
	case p.at('{'):
		return p.errorf("an anonymous subgraph: WriteDOT writes none")
	}
	id, err := p.id()
	if err != nil {
		return err
	}
	if p.accept('=') {
		v, err := p.id()
		if sub == "" {
			p.g.attrs[id] = v
		}
		return err
	}
	if p.at(':') {
		return p.errorf("a port after %q: WriteDOT writes none", id)
	}
	if !p.at('>') && !p.at('-') {
		attrs, err := p.attrLists(false)
		p.g.nodes = append(p.g.nodes, dotNodeStmt{id: id, subgraph: sub, attrs: attrs})
		return err
	}
	ends := []string{id}
	for p.at('>') || p.at('-') {
		if op := p.toks[p.pos].kind; (op == '>') != p.g.directed {
			return p.errorf("edge operator %q in a %s", map[byte]string{'>': "->", '-': "--"}[op], map[bool]string{true: "digraph", false: "graph"}[p.g.directed])
		}
		p.pos++
		to, err := p.id()
		if err != nil {
			return err
		}
		if p.at(':') {
			return p.errorf("a port after %q: WriteDOT writes none", to)
		}
		ends = append(ends, to)
	}
	attrs, err := p.attrLists(false)
	for i := range len(ends) - 1 {
		p.g.edges = append(p.g.edges, dotEdgeStmt{from: ends[i], to: ends[i+1], attrs: attrs})
	}
	return err
}

// attrLists reads [ a = b, … ] [ … ]…; required says at least one list.
func (p *dotParser) attrLists(required bool) (map[string]string, error) {
	attrs := map[string]string{}
	if required && !p.at('[') {
		return nil, p.errorf("want an attribute list")
	}
	for p.accept('[') {
		for !p.accept(']') {
			name, err := p.id()
			if err != nil {
				return nil, err
			}
			if err := p.expect('='); err != nil {
				return nil, err
			}
			value, err := p.id()
			if err != nil {
				return nil, err
			}
			if _, twice := attrs[name]; twice {
				return nil, p.errorf("attribute %s given twice", name)
			}
			attrs[name] = value
			if !p.accept(',') {
				p.accept(';')
			}
		}
	}
	return attrs, nil
}
