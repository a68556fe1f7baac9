package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/view"
)

// viewFiles are the files the view flags of "fwsim run" name; "" is a view
// not asked for.
type viewFiles struct {
	vcd, gtkw, trace, dot, svg, html string
	vcdOptions                       view.VCDOptions
	source                           string // the run's name on the --html page
	out                              outputs
	files                            map[string]*outputFile // by flag name, once open
	dotPath                          string                 // Graphviz's dot, for --svg
}

// lookPath finds Graphviz's dot; tests replace it.
var lookPath = exec.LookPath

// traced says whether a view needs the trace of the run: tracing is off
// unless one does.
func (v *viewFiles) traced() bool { return v.vcd != "" || v.trace != "" || v.html != "" }

// open finds dot for --svg and opens every file, so that a missing tool or
// a bad path fails before the run. Nothing is in place until v.out.commit.
func (v *viewFiles) open(e *env) error {
	if v.svg != "" {
		path, err := lookPath("dot")
		if err != nil {
			return errors.New("--svg needs Graphviz's dot, which is not on PATH: install Graphviz " +
				"(apt install graphviz, dnf install graphviz or brew install graphviz), or write DOT with --dot")
		}
		v.dotPath = path
	}
	v.out = outputs{env: e}
	v.files = map[string]*outputFile{}
	for _, f := range []struct{ flag, path string }{{"vcd", v.vcd}, {"gtkw", v.gtkw}, {"trace", v.trace}, {"dot", v.dot}, {"svg", v.svg}, {"html", v.html}} {
		if f.path == "" {
			continue
		}
		file, err := v.out.create(f.flag, f.path)
		if err != nil {
			v.out.abort()
			return err
		}
		v.files[f.flag] = file
	}
	return nil
}

// write writes every view asked for, for v.out.commit to put in place: all
// of them, or, when one fails, none.
func (v *viewFiles) write(res *bus.Result, trace []bus.TraceEvent) error {
	views := []struct {
		flag  string
		write func(io.Writer) error
	}{
		{"vcd", func(w io.Writer) error { return view.WriteVCDWith(w, res, trace, v.vcdOptions) }},
		{"gtkw", func(w io.Writer) error {
			return view.WriteGTKW(w, res, trace, view.GTKWOptions{DumpFile: view.DumpFileFrom(v.gtkw, v.vcd)})
		}},
		{"trace", func(w io.Writer) error { return view.WriteTraceJSONL(w, res, trace) }},
		{"dot", func(w io.Writer) error { return view.WriteDOT(w, res) }},
		{"svg", func(w io.Writer) error { return view.WriteSVG(w, res, v.dotPath) }},
		{"html", func(w io.Writer) error { return view.WriteRunHTML(w, v.source, res, trace) }},
	}
	for _, vw := range views {
		f := v.files[vw.flag]
		if f == nil {
			continue
		}
		if err := vw.write(f); err != nil {
			v.out.abort()
			if errors.Is(err, view.ErrPageTooLarge) {
				return fmt.Errorf("--%s %s: %w", vw.flag, f.path, err) // the run's fault, not the file's
			}
			if we := (*writeError)(nil); errors.As(err, &we) {
				return err // it names the file
			}
			return &writeError{fmt.Errorf("--%s %s: %w", vw.flag, f.path, err)}
		}
	}
	return nil
}

// viewError reports a view that could not be written: one this run cannot
// make (a page of more events than a browser plays) is the input's fault,
// exit 2; any other the output's, exit 3.
func viewError(e *env, fs *flags, err error) int {
	if errors.Is(err, view.ErrPageTooLarge) {
		return fs.inputError(e, err)
	}
	return fs.outputError(e, err)
}
