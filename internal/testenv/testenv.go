package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Long reports whether FWSIM_LONG=1 asks for the full property sweeps.
// -short overrides it.
func Long() bool { return os.Getenv("FWSIM_LONG") == "1" && !testing.Short() }

// Size is full under FWSIM_LONG=1, short under -short, and quick otherwise.
func Size(short, quick, full int) int {
	switch {
	case testing.Short():
		return short
	case Long():
		return full
	}
	return quick
}

// Chromium is the path of a headless Chromium or Chrome on PATH, for the
// tests that open a page in a browser. Without one such a test skips,
// saying how to install it, except in CI (CI set), which installs Chromium:
// there it fails.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium, chromium-browser or google-chrome on PATH in CI, which installs Chromium")
	}
	t.Skip("no chromium, chromium-browser or google-chrome on PATH: the page is not opened in a browser (apt-get install chromium)")
	return ""
}

// Headless is the command line that opens url in Chromium (Chromium's
// path) without a window, after the arguments of the test (what to print
// or capture), with nothing fetched or started besides the page.
func Headless(chromium string, url string, args ...string) *exec.Cmd {
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--mute-audio", "--allow-file-access-from-files"}
	return exec.Command(chromium, append(append(flags, args...), url)...)
}
