// Package mdp solves finite Markov decision processes exactly, in
// math/big.Rat, for fwsim explore.
//
// A Model is in alternating form: Terminal states with a given value,
// Random states whose edges carry probabilities, and Choice states where a
// scheduler picks an edge; every edge may carry a non-negative reward.
// Solve computes, for the minimising or the maximising scheduler, the least
// fixed point of
//
//	v(s) = Value(s)                               Terminal
//	v(s) = Σ P(e)·(Reward(e) + v(To(e)))          Random
//	v(s) = min or max of Reward(e) + v(To(e))     Choice
//
// the optimal expected total reward plus terminal value: a reachability
// probability with terminal values 0 and 1 and no rewards, an expected
// time with rewards in ns. A run that never ends contributes only the
// rewards it collected; a value that grows without bound is +infinity.
//
// The method is the textbook one (Baier and Katoen, Principles of Model
// Checking, ch. 10; Forejt, Kwiatkowska, Norman and Parker, Automated
// Verification Techniques for Probabilistic Systems, SFM 2011, §4):
// strongly connected components are solved one at a time, each after every
// component it reaches (Tarjan's algorithm, iteratively); a state on no
// cycle is one step of the equations. Inside a component, the states that
// can collect nothing are 0 (for the minimiser, those where it can stay
// collecting nothing forever), the states that must collect forever are
// infinite, and the rest are solved by policy iteration: a memoryless
// policy, first one that leaves the component, is evaluated exactly by
// Gaussian elimination and improved wherever an edge does strictly
// better, until none does.
package mdp
