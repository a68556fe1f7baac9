//go:build !race

package explore

// raceSlack is 1 without the race detector: within's limits as written.
const raceSlack = 1
