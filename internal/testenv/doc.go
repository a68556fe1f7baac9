// Package testenv says how thorough the tests are to be. By default every
// property sweep runs at a size that keeps `go test ./...` well under a
// minute on two cores, race detector included; FWSIM_LONG=1 runs them at
// full size, as CI's long pass does.
package testenv
