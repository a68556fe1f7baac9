package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/analysis/sweep"
	"github.com/fwsim/fwsim/view"
	"github.com/fwsim/fwsim/view/report"
)

const reportIntro = `Usage: fwsim report --out DIR [analyze flags] [--param NAME=FROM..TO:STEP ...]

Runs an analysis (as fwsim analyze) or, with --param, a sweep (as fwsim
sweep) and writes a self-contained report to DIR: index.html, which needs no
network and no JavaScript, with SVG plots and tables, and the raw data beside
it as CSV.

An analysis shows the CDFs of the root-contention duration and of the bus
initialisation time (self_id_ns) with every --deadline marked and its
probability, the histogram of contention rounds, and the statistics,
deadline, root and failure tables; DIR/data.csv has one row per run, as
analyze --csv writes it.

A sweep plots, against the first parameter, the share of failed runs (95%
Wilson band), the mean contention rounds, duration and bus initialisation
time (95% CI bands), with a cross at every point where the correctness
conditions fail and a dashed line at their predicted threshold; DIR/sweep.csv
has the rows of sweep --csv, DIR/data.csv one row per run, led by the point's
parameter values.

The page records the command line, seed, profile, timing corner, clock and
fwsim version that produced it.

Exit status: as fwsim analyze (without --param) or fwsim sweep (with);
2 also when DIR cannot be written.`

func runReport(ctx context.Context, e *env, args []string) (code int) {
	fs := newFlags("report", reportIntro,
		"fwsim report --out pair-report --gen pair --runs 10000 --deadline 1us --deadline 2us   # exit 1",
		"fwsim report --out prism --gen chain:4 --initiator n0 --profile prism \\\n"+
			"      --param delay=300..440:20 --runs 500",
		"fwsim report --out trees --gen tree:2:1 --param nodes=2..62:10 --runs 100",
	)
	var (
		s   sweepFlags
		dir string
	)
	order := s.register(fs)
	fs.StringVar(&dir, "out", "", "write index.html and the CSV files to the directory `DIR` (created if\nneeded), e.g. --out report")
	fs.order(append([]string{"out"}, order...)...)
	if code, done := fs.parse(e, args); done {
		return code
	}
	if dir == "" {
		return fs.usageError(e, "want --out DIR, the directory to write the report to")
	}
	r, code := s.prepare(ctx, e, fs, false)
	if code != exitOK {
		return code
	}
	// data.csv fills as the runs finish, so that a million runs need no
	// memory for their rows. It, sweep.csv and index.html are put in place
	// together once all are complete: a report never links a missing file,
	// and a failed report leaves the directory as it was, or none when
	// there was none.
	files := outputs{env: e}
	defer files.abort()
	if err := files.mkdirAll(dir); err != nil {
		return fs.inputError(e, fmt.Errorf("--out: %w", err))
	}
	data, err := files.create("out", filepath.Join(dir, "data.csv"))
	if err != nil {
		return fs.inputError(e, err)
	}
	var sweepCSV *outputFile
	if r.Grid != nil {
		if sweepCSV, err = files.create("out", filepath.Join(dir, "sweep.csv")); err != nil {
			return fs.inputError(e, err)
		}
	}
	index, err := files.create("out", filepath.Join(dir, "index.html"))
	if err != nil {
		return fs.inputError(e, err)
	}
	waves, err := files.create("out", filepath.Join(dir, firstRunVCD))
	if err != nil {
		return fs.inputError(e, err)
	}
	save, err := files.create("out", filepath.Join(dir, firstRunGTKW))
	if err != nil {
		return fs.inputError(e, err)
	}
	player, err := files.create("out", filepath.Join(dir, firstRunHTML))
	if err != nil {
		return fs.inputError(e, err)
	}
	buffered := bufio.NewWriter(data)
	preamble, err := r.CSVPreamble(commandLine("report", args))
	if err != nil {
		return fs.inputError(e, err)
	}
	buffered.WriteString(preamble) // before the prefixer, which leads rows only
	rw := &sweep.RowPrefixer{W: buffered, AtLineStart: true}
	rows := analysis.NewRunCSV(rw, "")
	page := report.Page{Title: "fwsim report", Meta: []report.Field{{Name: "command", Value: commandLine("report", args)}}}
	var sum *analysis.Summary
	if r.Grid == nil {
		r.Config.Each = rows.Write
		sum, err = analysis.Run(ctx, r.Config, s.progress(e))
		if err != nil {
			return s.runError(e, fs, r.Config, err)
		}
		page.Title = "fwsim analysis of " + sum.Topology
		page.Sections = view.AnalysisSections(sum)
	} else {
		rw.Prefix = r.Grid.ParamColumns()
		point := -1
		each := func(i int, sample analysis.Sample) error {
			if i != point {
				// The rows so far carry the previous point's values.
				if err := rows.Close(); err != nil {
					return err
				}
				point, rw.Prefix = i, r.Grid.Point(i).ParamValues()
			}
			return rows.Write(sample)
		}
		if err := r.Execute(ctx, s.progress(e), each); err != nil {
			return s.runError(e, fs, r.Config, err)
		}
		sum = r.Points[0].Summary
		page.Title = "fwsim sweep of " + sum.Topology
		page.Sections = view.SweepSections(r)
		if err := sweep.WriteCSV(sweepCSV, r, preamble); err != nil {
			return fs.inputError(e, err)
		}
		page.Files = append(page.Files, report.Link{Href: "sweep.csv", Text: "sweep.csv (one row per point)"})
	}
	if err := rows.Close(); err != nil {
		return fs.inputError(e, err)
	}
	if err := buffered.Flush(); err != nil {
		return fs.inputError(e, err)
	}
	page.Files = append(page.Files, report.Link{Href: "data.csv", Text: "data.csv (one row per run)"})
	first := r.Config
	if r.Grid != nil {
		first = r.Points[0].Config
	}
	if err := writeFirstRun(first, waves, save, player); err != nil {
		return fs.inputError(e, err)
	}
	which := "run 0"
	if r.Grid != nil {
		which += " of the first point"
	}
	page.Files = append(page.Files,
		report.Link{Href: firstRunHTML, Text: firstRunHTML + " (" + which + " played: the bus, its line states and packets on a time axis)"},
		report.Link{Href: firstRunVCD, Text: firstRunVCD + " (" + which + " as a waveform)"},
		report.Link{Href: firstRunGTKW, Text: firstRunGTKW + " (its GTKWave view: gtkwave " + firstRunVCD + " " + firstRunGTKW + ")"})
	page.Meta = append(page.Meta, view.ReportProvenance(sum, r)...)
	if err := page.Write(index); err != nil {
		return fs.inputError(e, err)
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", index.path)
	if err := files.commit(); err != nil {
		return fs.inputError(e, err)
	}
	if r.Grid != nil {
		return sweepVerdict(e, fs, r)
	}
	return verdict(e, fs, sum)
}

// The waveform of a report's first run, its GTKWave save file and the page
// that plays it.
const firstRunVCD, firstRunGTKW, firstRunHTML = "first-run.vcd", "first-run.gtkw", "first-run.html"

// writeFirstRun runs run 0 of the analysis cfg again, traced, and writes it
// as a waveform, a GTKWave save file for it and the page that plays it.
func writeFirstRun(cfg analysis.Config, waves, save, player io.Writer) error {
	res, trace, err := analysis.TraceRun(cfg, 0)
	if err != nil {
		return err
	}
	if err := view.WriteVCD(waves, res, trace); err != nil {
		return err
	}
	if err := view.WriteGTKW(save, res, trace, view.GTKWOptions{DumpFile: firstRunVCD}); err != nil {
		return err
	}
	return view.WriteRunHTML(player, "run 0 of "+cfg.Source, res, trace)
}

// commandLine is the command as a shell would take it back.
func commandLine(name string, args []string) string {
	parts := []string{"fwsim", name}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
