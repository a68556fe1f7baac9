// Package testenv is what the tests share: how thorough they are to be,
// and References, which the tests of a deep copy hold to the fields it
// copies.
//
// By default every property sweep runs at a size that keeps `go test
// ./...` well under a minute on two cores, race detector included;
// FWSIM_LONG=1 runs them at full size, as CI's long pass does.
package testenv
