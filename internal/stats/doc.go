// Package stats holds fwsim's one implementation of 95% confidence
// intervals: Wilson's score interval for a proportion (deadline
// probabilities, root odds, failed shares) and the normal interval of a
// mean (metric means, a lab's mean message count). Every package that
// reports an interval calls these, so a reader checks one formula.
//
// It imports nothing of fwsim and is imported from every layer above the
// machines.
package stats
