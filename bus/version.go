package bus

import (
	"runtime/debug"
	"strings"
)

// FwsimVersion is the module version fwsim was built at, "(devel)" for a
// build from a working tree, and the Go release that built it when known,
// e.g. "v1.2.0 go1.26.0".
func FwsimVersion() string {
	version, goVersion := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		goVersion = bi.GoVersion
	}
	return strings.TrimSpace(version + " " + goVersion)
}

// VersionJSON leads every JSON output of fwsim: the schema version of the
// output (docs/schema) and the fwsim that wrote it.
type VersionJSON struct {
	SchemaVersion int    `json:"schema_version"` // the version of docs/schema the output follows
	FwsimVersion  string `json:"fwsim_version"`  // the fwsim that wrote it, as fwsim version prints it
}

// NewVersionJSON is the schema version and this fwsim.
func NewVersionJSON() VersionJSON {
	return VersionJSON{SchemaVersion: SchemaVersion, FwsimVersion: FwsimVersion()}
}
