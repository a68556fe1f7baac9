package main

import (
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/analysis"
)

// readReport returns the files of a report directory by name.
func readReport(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	return files
}

var (
	externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`)
	// The version cell depends on the toolchain that built the test.
	versionCell = regexp.MustCompile(`(<th>fwsim version</th><td><code>)[^<]*(</code>)`)
)

// checkPage checks what every report page must be: self-contained, every
// SVG well-formed, the command and seed recorded.
func checkPage(t *testing.T, html, command string) {
	t.Helper()
	assert.NotRegexp(t, externalRef, html)
	assert.NotContains(t, html, "<script")
	assert.Contains(t, html, "<code>"+command+"</code>")
	assert.Regexp(t, versionCell, html)
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(html, -1)
	require.NotEmpty(t, svgs)
	for _, svg := range svgs {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
		}
	}
	checkTableUnits(t, html)
}

var (
	tableElement  = regexp.MustCompile(`(?s)<table>.*?</table>`)
	tableRow      = regexp.MustCompile(`<tr>(.*?)</tr>`)
	tableCell     = regexp.MustCompile(`<t[hd]>(.*?)</t[hd]>`)
	timeHeader    = regexp.MustCompile(` \((ns|µs|ms)\)$`)
	plainQuantity = regexp.MustCompile(`^(–|-?[0-9]+(\.[0-9]+)?|\[-?[0-9]+(\.[0-9]+)?, -?[0-9]+(\.[0-9]+)?\])$`)
)

// checkTableUnits checks that the tables of a report page (not its
// metadata) hold one unit per column: a time column names its unit in its
// header and its cells are bare numbers, and no metric's name in ns
// (self_id_ns) heads a row or column whose values may be in µs.
func checkTableUnits(t *testing.T, html string) {
	t.Helper()
	tables := tableElement.FindAllString(html, -1)
	require.NotEmpty(t, tables)
	timeColumns := 0
	for _, table := range tables {
		rows := tableRow.FindAllStringSubmatch(table, -1)
		require.NotEmpty(t, rows)
		header := tableCell.FindAllStringSubmatch(rows[0][1], -1)
		for _, row := range rows {
			for i, cell := range tableCell.FindAllStringSubmatch(row[1], -1) {
				assert.NotContains(t, cell[1], "_ns", "a table cell names a metric in ns:\n%s", table)
				if row[0] != rows[0][0] && i < len(header) && timeHeader.MatchString(header[i][1]) {
					timeColumns++
					assert.Regexp(t, plainQuantity, cell[1], "column %q holds more than a number in its unit", header[i][1])
				}
			}
		}
	}
	assert.NotZero(t, timeColumns, "no time column with its unit in its header")
}

func TestReportOfAnAnalysis(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--out", dir, "--gen", "pair", "--runs", "300", "--seed", "4", "--deadline", "1us", "--quiet"}
	code, stdout, stderr := runCLI(t, append([]string{"report"}, args...)...)
	// Bus initialisation takes ~170 µs, so the 1 µs deadline is missed: exit
	// 1, as analyze exits.
	require.Equal(t, exitFailure, code, stderr)
	assert.Equal(t, "wrote "+filepath.Join(dir, "index.html")+"\n", stdout)
	files := readReport(t, dir)
	assert.ElementsMatch(t, []string{"index.html", "data.csv", "first-run.vcd", "first-run.gtkw", "first-run.html"}, slices.Collect(maps.Keys(files)))
	// The first run's waveform is fwsim run's of the same seed, and its save
	// file opens it.
	vcdPath := filepath.Join(t.TempDir(), "run.vcd")
	code, _, stderr = runCLI(t, "run", "--gen", "pair", "--seed", strconv.FormatUint(analysis.RunSeed(4, 0), 10), "--vcd", vcdPath)
	require.Equal(t, exitOK, code, stderr)
	want, err := os.ReadFile(vcdPath)
	require.NoError(t, err)
	assert.Equal(t, string(want), files["first-run.vcd"])
	assert.Contains(t, files["first-run.gtkw"], "[dumpfile] \"first-run.vcd\"\n")
	assert.Contains(t, files["index.html"], `<a href="first-run.gtkw">`)
	assert.Contains(t, files["index.html"], `<a href="first-run.html">`)
	assert.Contains(t, files["first-run.html"], "<title>fwsim run: run 0 of ")
	checkPage(t, files["index.html"], "fwsim report "+strings.Join(args, " "))
	assert.Equal(t, 3, strings.Count(files["index.html"], "<svg"), "two CDFs and the rounds histogram")
	assert.Contains(t, files["index.html"], `<a href="data.csv">`)

	// data.csv is what analyze --csv writes for the same analysis.
	csvPath := filepath.Join(t.TempDir(), "runs.csv")
	code, _, _ = runCLI(t, "analyze", "--gen", "pair", "--runs", "300", "--seed", "4", "--deadline", "1us", "--csv", csvPath)
	require.Equal(t, exitFailure, code)
	want, err = os.ReadFile(csvPath)
	require.NoError(t, err)
	assert.Equal(t, withoutPreamble(t, string(want)), withoutPreamble(t, files["data.csv"]))
	assert.Contains(t, files["data.csv"], "\n# command: fwsim report --out ")

	golden(t, "report/analysis.html", versionCell.ReplaceAllString(strings.ReplaceAll(files["index.html"], dir, "DIR"), "${1}VERSION$2"))
}

// TestReportOfRunsThatFail: a metric no run reached has a row of "–" in
// its table, and the columns keep their one unit.
func TestReportOfRunsThatFail(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--out", dir, "--gen", "ring:3", "--runs", "3", "--quiet"}
	code, _, stderr := runCLI(t, append([]string{"report"}, args...)...)
	require.Equal(t, exitFailure, code, stderr) // a loop: config-timeout
	page := readReport(t, dir)["index.html"]
	checkPage(t, page, "fwsim report "+strings.Join(args, " "))
	assert.Contains(t, page, "<tr><th>bus initialisation (self-ID done)</th><td>0</td><td>3</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td></tr>")
}

func TestReportOfASweep(t *testing.T) {
	dir := t.TempDir()
	sweepArgs := []string{"--gen", "chain:4", "--initiator", "n0", "--param", "delay=100..140:20", "--runs", "100", "--seed", "2"}
	code, _, stderr := runCLI(t, append([]string{"report", "--out", dir}, sweepArgs...)...)
	require.Equal(t, exitOK, code, stderr)
	files := readReport(t, dir)
	assert.ElementsMatch(t, []string{"index.html", "data.csv", "sweep.csv", "first-run.vcd", "first-run.gtkw", "first-run.html"}, slices.Collect(maps.Keys(files)))
	page := files["index.html"]
	checkPage(t, page, "fwsim report --out "+dir+" "+strings.Join(sweepArgs, " "))
	assert.Equal(t, 4, strings.Count(page, "<svg"))
	assert.Contains(t, page, "predicted threshold 120 ns")
	assert.Contains(t, page, "conditions violated", "120 and 140 ns break 2·delay < FAST.min")

	// sweep.csv is what sweep --csv writes.
	csvPath := filepath.Join(t.TempDir(), "sweep.csv")
	code, _, _ = runCLI(t, append([]string{"sweep", "--csv", csvPath}, sweepArgs...)...)
	require.Equal(t, exitOK, code)
	want, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	assert.Equal(t, withoutPreamble(t, string(want)), withoutPreamble(t, files["sweep.csv"]))

	// data.csv: one row per run and point, led by the point's delay.
	lines := strings.Split(strings.TrimSuffix(withoutPreamble(t, files["data.csv"]), "\n"), "\n")
	require.Len(t, lines, 1+3*100)
	assert.Equal(t, "delay,run,seed,outcome,tree_id_ns,self_id_ns,contention_ns,contention_rounds,root", lines[0])
	for i, line := range lines[1:] {
		delay := []string{"100", "120", "140"}[i/100]
		assert.True(t, strings.HasPrefix(line, delay+","), "row %d: %s", i, line)
	}

	golden(t, "report/sweep.html", versionCell.ReplaceAllString(strings.ReplaceAll(page, dir, "DIR"), "${1}VERSION$2"))
}

func TestReportErrors(t *testing.T) {
	code, _, stderr := runCLI(t, "report", "--gen", "pair")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim report: want --out DIR, the directory to write the report to (see 'fwsim help report')\n", stderr)

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, stderr = runCLI(t, "report", "--out", file, "--gen", "pair", "--runs", "1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "fwsim report: --out: ")

	code, _, stderr = runCLI(t, "report", "--out", t.TempDir(), "--param", "bogus=1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown parameter "bogus"`)

	// Once a report of that many runs summarised none of them.
	code, _, stderr = runCLI(t, "report", "--out", t.TempDir(), "--gen", "pair", "--runs", "9223372036854775807")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim report: --runs 9223372036854775807: at most 9007199254740992, because the statistics count runs exactly only up to 2^53 (see 'fwsim help report')\n", stderr)
}

func TestCommandLineQuotesForTheShell(t *testing.T) {
	assert.Equal(t, `fwsim report --out 'my dir' --deadline 2us --x 'it'\''s' ''`,
		commandLine("report", []string{"--out", "my dir", "--deadline", "2us", "--x", "it's", ""}))
}

// withoutPreamble is a CSV of fwsim without its comment lines, which name
// the command that wrote it.
func withoutPreamble(t *testing.T, text string) string {
	t.Helper()
	parseCSV(t, text)
	parts := strings.SplitN(text, "\n", 4)
	return parts[3]
}
