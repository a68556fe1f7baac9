// Package testenv says how thorough the tests are to be. By default every
// property sweep runs at a size that keeps `go test ./...` well under a
// minute on two cores, race detector included; FWSIM_LONG=1 runs them at
// full size, as CI's long pass does.
package testenv

import (
	"os"
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
