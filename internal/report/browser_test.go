package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser is a headless Chromium or Chrome on PATH, "" if none.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// measure is a page that loads the report in a frame of the window's width
// and writes what the browser laid out into its own DOM, which --dump-dom
// prints: the report's scroll and client widths, and the width of each plot.
const measure = `<!DOCTYPE html><html><body style="margin:0">
<iframe id="r" src="index.html" style="border:0;width:100%;height:2000px"></iframe>
<pre id="out"></pre>
<script>
document.getElementById("r").onload = function () {
  var d = this.contentDocument.documentElement, out = "scroll=" + d.scrollWidth + " client=" + d.clientWidth;
  var svgs = this.contentDocument.querySelectorAll("svg");
  for (var i = 0; i < svgs.length; i++) out += " svg=" + Math.round(svgs[i].getBoundingClientRect().width);
  document.getElementById("out").textContent = out;
};
</script></body></html>`

var measured = regexp.MustCompile(`scroll=(\d+) client=(\d+)((?: svg=\d+)*)`)

// TestPageInABrowser lays a report page out in a real browser at a desktop
// and a phone width: nothing overflows sideways (wide tables scroll inside
// themselves), and the plots take the width they are given. Without a
// browser on PATH it is skipped; docs/timing.md gives the same check by
// hand.
func TestPageInABrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser layout check is skipped (apt-get install chromium)")
	}
	dir := t.TempDir()
	page := samplePage()
	page.Sections[0].Figures = append(page.Sections[0].Figures, sampleCDF().SVG())
	page.Sections[0].Tables = append(page.Sections[0].Tables, Table{Caption: "wide",
		Header: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"},
		Rows:   [][]string{{"169.234", "0.590", "1.186", "174.117", "169.234", "0.590", "1.186", "174.117", "169.234", "0.590", "1.186", "174.117"}}})
	var b bytes.Buffer
	require.NoError(t, page.Write(&b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "measure.html"), []byte(measure), 0o644))
	for _, width := range []int{1280, 480} {
		cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
			"--virtual-time-budget=5000", "--window-size="+strconv.Itoa(width)+",1000", "--dump-dom",
			"file://"+filepath.Join(dir, "measure.html"))
		out, err := cmd.Output()
		require.NoError(t, err, "%s", out)
		m := measured.FindSubmatch(out)
		require.NotNil(t, m, "the measuring page reported nothing at %d px:\n%s", width, out)
		scroll, _ := strconv.Atoi(string(m[1]))
		client, _ := strconv.Atoi(string(m[2]))
		assert.LessOrEqual(t, scroll, client, "at %d px the page is wider than the window", width)
		svgs := regexp.MustCompile(`\d+`).FindAll(m[3], -1)
		require.Len(t, svgs, 2, "at %d px", width)
		for _, s := range svgs {
			w, _ := strconv.Atoi(string(s))
			assert.LessOrEqual(t, w, client, "at %d px a plot is wider than the page", width)
			assert.Greater(t, w, client*3/4-40, "at %d px a plot does not use the page's width", width)
		}
	}
}
