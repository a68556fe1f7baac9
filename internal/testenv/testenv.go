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
