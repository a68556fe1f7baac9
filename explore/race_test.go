//go:build race

package explore

// raceSlack stretches the time limits of within: the race detector makes
// the code several times slower, and the same tests run without it, at
// their own limits, in CI's long pass.
const raceSlack = 10
