package report

import (
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strings"
)

// Page is a self-contained HTML report: everything it shows is inline (the
// plots are SVG elements, the style a <style> element), and its only links
// are relative ones to files written beside it.
type Page struct {
	Title string
	// Meta is the provenance table: command line, seed, profile, version …
	// in the order given.
	Meta     []Field
	Sections []Section
	// Files are links to data written beside the page, such as data.csv.
	Files []Link
}

// Field is one row of the metadata table.
type Field struct{ Name, Value string }

// Link is a relative link to a file beside the page.
type Link struct{ Href, Text string }

// Section is a heading with a paragraph, figures and tables under it.
type Section struct {
	Heading string
	Text    string
	Figures []SVG
	Tables  []Table
}

// Table is a table of text cells; the first column is a header column.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// pageTemplate escapes every string; only SVGs (made by this package) go in
// as markup.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem;display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #ccc;padding:0.2rem 0.5rem;text-align:right}
th:first-child,td:first-child{text-align:left}
.meta td{text-align:left}
caption{text-align:left;font-weight:bold;padding:0.3rem 0}
code{font-size:0.9em;overflow-wrap:anywhere}
figure{margin:0.5rem 0}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<table class="meta">
{{- range .Meta}}
<tr><th>{{.Name}}</th><td><code>{{.Value}}</code></td></tr>
{{- end}}
</table>
{{- if .Files}}
<p>Raw data:{{range $i, $f := .Files}}{{if $i}},{{end}} <a href="{{$f.Href}}">{{$f.Text}}</a>{{end}}</p>
{{- end}}
{{- range .Sections}}
<h2>{{.Heading}}</h2>
{{- if .Text}}
<p>{{.Text}}</p>
{{- end}}
{{- range .Figures}}
<figure>
{{.}}</figure>
{{- end}}
{{- range .Tables}}
<table>
{{- if .Caption}}
<caption>{{.Caption}}</caption>
{{- end}}
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{- range .Rows}}
<tr>{{range $i, $c := .}}{{if $i}}<td>{{$c}}</td>{{else}}<th>{{$c}}</th>{{end}}{{end}}</tr>
{{- end}}
</table>
{{- end}}
{{- end}}
</body>
</html>
`))

// page is what the template sees: the Page with its SVGs as markup.
type page struct {
	Page
	Sections []section
}

type section struct {
	Section
	Figures []template.HTML
}

// Write writes p as one HTML document. A link that is not a relative path
// (a scheme, a host, an absolute path) is an error: the report must open
// from its directory without a network.
func (p Page) Write(w io.Writer) error {
	for _, l := range p.Files {
		u, err := url.Parse(l.Href)
		if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(l.Href, "/") || l.Href == "" {
			return fmt.Errorf("report link %q: want a relative path to a file beside the report", l.Href)
		}
	}
	data := page{Page: p}
	for _, s := range p.Sections {
		sec := section{Section: s}
		for _, f := range s.Figures {
			sec.Figures = append(sec.Figures, template.HTML(f.markup)) // made by this package, its text escaped
		}
		data.Sections = append(data.Sections, sec)
	}
	return pageTemplate.Execute(w, data)
}
