package main

import (
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
)

// fwsimVersion is the module version fwsim was built at, "(devel)" for a
// build from a working tree, and the Go release that built it when known,
// e.g. "v1.2.0 go1.26.0".
func fwsimVersion() string {
	version, goVersion := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		goVersion = bi.GoVersion
	}
	return strings.TrimSpace(version + " " + goVersion)
}

// versionJSON leads every JSON output of fwsim: the schema version of the
// output (docs/schema) and the fwsim that wrote it.
type versionJSON struct {
	SchemaVersion int    `json:"schema_version"` // the version of docs/schema the output follows
	FwsimVersion  string `json:"fwsim_version"`  // the fwsim that wrote it, as fwsim version prints it
}

func newVersionJSON() versionJSON {
	return versionJSON{SchemaVersion: bus.SchemaVersion, FwsimVersion: fwsimVersion()}
}

// csvPreamble is the comment lines every CSV file of fwsim starts with:
// what wrote it and everything needed to run it again. CSV readers take
// them as comments with e.g. pandas' comment="#", or skip 3 lines.
// A sweep's points each have their own configuration: it passes no hash.
func csvPreamble(command string, h analysis.Header) string {
	sha := ""
	if h.ConfigSHA256 != "" {
		sha = ", config sha256 " + h.ConfigSHA256
	}
	return "# fwsim " + fwsimVersion() + "\n" +
		"# command: " + command + "\n" +
		"# seed " + strconv.FormatUint(h.Seed, 10) + ", profile " + h.Profile + ", timing " + h.Timing + ", clock " + h.Clock +
		", policy " + h.Policy + ", coin bias " + strconv.FormatFloat(h.CoinBias, 'g', -1, 64) + sha + "\n"
}
