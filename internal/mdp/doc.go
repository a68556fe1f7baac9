// Package mdp solves finite Markov decision processes for fwsim explore:
// exactly, in math/big.Rat, where Limits allow, and otherwise within
// sound bounds.
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
// Solve answers with an interval per state, Lo ≤ v ≤ Hi, a single value
// (the same *big.Rat) wherever the value is known exactly, which is
// everywhere unless Limits send a component to value iteration. Models
// that differ only in values and rewards share one Graph (the components
// and the edges into each state), found once; whether every scheduler
// reaches a target with probability 1 needs no solve at all
// (ReachedSurely).
//
// The exact method is the textbook one (Baier and Katoen, Principles of
// Model Checking, ch. 10; Forejt, Kwiatkowska, Norman and Parker,
// Automated Verification Techniques for Probabilistic Systems, SFM 2011,
// §4): strongly connected components are solved one at a time, each after
// every component it reaches (Tarjan's algorithm, iteratively); a state on
// no cycle is one step of the equations. Inside a component, the states
// that can collect nothing are 0 (for the minimiser, those where it can
// stay collecting nothing forever), the states that must collect forever
// are infinite. If then no edge between the remaining states earns a
// reward and every edge out of them earns one and the same exact value c,
// they are all worth c (a reachability probability whose exits are all
// 1, say): see solver.uniform for why. Otherwise they are solved by policy
// iteration: a memoryless policy, first one that leaves the component, is
// evaluated exactly and improved wherever an edge does strictly better,
// until none does. Where an adversary chooses, the same iteration runs
// first in float64 (warmstart.go), and the exact one starts from the
// policy it ends with: usually one exact evaluation confirms it, where
// the attractor's policy took up to 30.
//
// A policy is evaluated by Dixon's p-adic lifting (Dixon, Exact solution
// of linear equations using p-adic expansions, Numer. Math. 40, 1982) on
// its chain's own sparse equations scaled to integers, modulo a
// word-sized prime: each step solves them modulo p along the chain's
// structure, through a feedback set F of the chain (states that, taken
// out, leave it acyclic), kept small by Levy and Low's graph reductions
// (see feedback), so that only F's system needs inverting modulo p, once.
// The exact fractions are then recovered by rational reconstruction and
// checked exactly (see evaluate). Word arithmetic does the steps, so the
// cost is about |F|³ word operations, a few hundred sweeps of the chain,
// and a check or two in integers, where Gaussian elimination in fractions
// pays for integers as long as the answer at every one of its steps: the
// 1394a-2000 pair's contention cycle (|F| = 266, answers of 3,680 digits)
// went from minutes to seconds.
//
// A component of Random states only whose F exceeds
// Limits.MaxExactFeedback is bounded instead by sound value iteration
// (Quatmann and Katoen, Sound Value Iteration, CAV 2018; compare Haddad
// and Monmege, Interval iteration algorithm for MDPs and IMDPs, TCS 2018):
// after k steps from s, x collects what is collected within the k steps
// and y is the probability of still being in the component; once every
// y < 1, with L and U the least and greatest x/(1-y),
// x + y·L ≤ v ≤ x + y·U. The iteration runs in big.Float rounded down for
// the lower bounds and up for the upper ones, so the bounds are sound; it
// stops at the relative width Limits.Precision (or at the iteration cap,
// with wider bounds).
//
// Inexact values flow upstream as intervals: a component whose successors
// outside it are not all exact is solved twice, with their lower bounds
// and with their upper ones. The Bellman operator, and so its least fixed
// point, is monotone in those values, under Min as under Max, so the two
// answers bound the value. Value iteration in such a component uses, in
// each pass, that pass's successor values for both of its bounds and keeps
// the pass's side.
package mdp
