package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/internal/testenv"
)

// measure is a page that loads the report in a frame %d px wide (headless
// Chromium will not make its window narrower than 500 px, a frame can be)
// and writes what the browser laid out into its own DOM, which --dump-dom
// prints: the report's scroll and client widths, and for each plot its
// width and the size of its smallest text on screen, in CSS px.
const measure = `<!DOCTYPE html><html><body style="margin:0">
<iframe id="r" src="index.html" style="border:0;width:%dpx;height:2000px"></iframe>
<pre id="out"></pre>
<script>
document.getElementById("r").onload = function () {
  var doc = this.contentDocument, d = doc.documentElement, out = "scroll=" + d.scrollWidth + " client=" + d.clientWidth;
  var svgs = doc.querySelectorAll("svg");
  for (var i = 0; i < svgs.length; i++) {
    var scale = svgs[i].getScreenCTM().a, texts = svgs[i].querySelectorAll("text"), smallest = Infinity;
    for (var j = 0; j < texts.length; j++) {
      smallest = Math.min(smallest, parseFloat(getComputedStyle(texts[j]).fontSize) * scale);
    }
    out += " svg=" + Math.round(svgs[i].getBoundingClientRect().width) + "/" + smallest.toFixed(1);
  }
  document.getElementById("out").textContent = out;
};
</script></body></html>`

var (
	measured = regexp.MustCompile(`scroll=(\d+) client=(\d+)((?: svg=\d+/[0-9.]+)*)`)
	plotSize = regexp.MustCompile(`svg=(\d+)/([0-9.]+)`)
)

// TestPageInABrowser lays a report page out in a real browser at a desktop
// and a phone width: nothing overflows sideways (wide tables scroll inside
// themselves), the plots take the width they are given up to their cap,
// and their text stays at least 9 px high. Without a browser on PATH it is
// skipped (in CI it fails); docs/timing.md gives the same check by hand.
func TestPageInABrowser(t *testing.T) {
	bin := testenv.Chromium(t)
	dir := t.TempDir()
	page := samplePage()
	page.Sections[0].Figures = append(page.Sections[0].Figures, sampleCDF().SVG())
	page.Sections[0].Tables = append(page.Sections[0].Tables, Table{Caption: "wide",
		Header: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"},
		Rows:   [][]string{{"169.234", "0.590", "1.186", "174.117", "169.234", "0.590", "1.186", "174.117", "169.234", "0.590", "1.186", "174.117"}}})
	var b bytes.Buffer
	require.NoError(t, page.Write(&b))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644))
	const plotCap = int(width * maxScale) // the plots' max-width
	for _, window := range []int{1280, 480} {
		measurer := filepath.Join(dir, fmt.Sprintf("measure-%d.html", window))
		require.NoError(t, os.WriteFile(measurer, fmt.Appendf(nil, measure, window), 0o644))
		cmd := testenv.Headless(bin, "file://"+measurer, "--virtual-time-budget=5000", "--window-size=1400,1000", "--dump-dom")
		out, err := cmd.Output()
		require.NoError(t, err, "%s", out)
		m := measured.FindSubmatch(out)
		require.NotNil(t, m, "the measuring page reported nothing at %d px:\n%s", window, out)
		t.Logf("at %d px: %s", window, m[0])
		scroll, _ := strconv.Atoi(string(m[1]))
		client, _ := strconv.Atoi(string(m[2]))
		assert.LessOrEqual(t, scroll, client, "at %d px the page is wider than the window", window)
		plots := plotSize.FindAllStringSubmatch(string(m[3]), -1)
		require.Len(t, plots, 2, "at %d px", window)
		for _, p := range plots {
			w, _ := strconv.Atoi(p[1])
			smallest, _ := strconv.ParseFloat(p[2], 64)
			assert.LessOrEqual(t, w, min(client, plotCap), "at %d px a plot is wider than the page or its cap", window)
			// The page's side padding is 1rem each side.
			assert.GreaterOrEqual(t, w, min(client-32, plotCap), "at %d px a plot does not use the page's width", window)
			assert.GreaterOrEqual(t, smallest, 9.0, "at %d px a plot's text is too small to read", window)
		}
	}
}
