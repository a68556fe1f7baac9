// Package explore answers exactly what the emulated bus can do: it
// enumerates every choice a small bus can make, on the same PHY,
// tree-identify and bus code that bus.Run uses, merges the states that
// behave alike, and solves the resulting graph in exact rationals.
//
// # Choices
//
// A run of bus.Run draws its root-contention coins and waits from seeded
// random streams. Here every one is a choice point instead
// (bus.Follower): a coin is probabilistic, with Options.CoinBias; a wait
// is uniform over the whole cycle counts of its window with Timing Random,
// or left to an adversary with Nondet; Min and Max pin it. The
// bus.ChoiceSpace opens two more, both left to the adversary: each PHY's
// clock phase on a grid, and the instant of the topology's scripted events
// (a hot plug at every clock edge of a window), and its Resolution makes
// the ideal clock's waits and instants coarser, in steps of R ns.
// Everything else is as the
// seed of Options.Bus makes it in bus.Run, so a path found here replays
// there (bus.Options.Replay).
//
// # States and merging
//
// The explorer reaches each choice point by running the bus along the
// choices that lead to it: from power-up for the first, then from the
// bus.Snapshot of the state it expands, which each choice point keeps until
// then (within an eighth of Options.MaxMemory). It asks the bus for the key
// of the state before the event that made the choice: what the PHYs, the
// elections, the cables and the event queue will read from then on, with
// every time relative to the present and histories left out
// (phy.AppendCycleKey). Two choice points with the same key, and the same
// progress of the measured metrics, are one state. So the repeated rounds
// of a root contention close into cycles instead of unrolling forever, and
// a graph of a few thousand states holds every run of a pair.
//
// # Solving
//
// The graph is a Markov decision process in alternating form: states of
// random choices, states of adversary choices, and terminals (the ends of
// runs). internal/mdp solves it in math/big.Rat: the probability of each
// outcome and the metrics' expectations. A deadline needs a value per
// state and budget left, which every way inside the metric spends: the
// graph unrolled by the budget (deadline.go) where every choice is
// random, step functions of the budget per state (budget.go) where an
// adversary chooses. Without adversary choices the answers are exact
// values; with them, the minimum and maximum over every scheduler. When
// Options.MaxStates stops the exploration, the unexplored states count
// once as 0 and once as 1, so each answer is an interval that holds the
// exact value. A cycle too large for the exact solver (a feedback set
// beyond Options.Limits, 512 states by default) is bounded by sound
// value iteration: the answers it reaches are then intervals a few 1e-18
// wide (Result.Bounded).
//
// # Roots
//
// With Options.Roots, Result.Roots gives the distribution of the first
// generation's root and of its self-ID order (its nodes in phy_ID order):
// the probability of each root some run elects, and within it of each
// order, [minimum, maximum] under nondeterminism. The explorer takes both
// from the ends of runs (bus.FollowStop.FirstRoot and FirstOrder); a state
// reached after the first generation has closed is keyed by them too,
// since its future no longer shows them, so that the runs of two roots
// never merge.
//
// # Metrics
//
// The metrics are those of bus.Metrics, as fwsim analyze measures them:
// tree_id_ns and self_id_ns from the first generation's start, and
// contention_ns over its first root contention, with contention_rounds.
// The explorer follows each from the marks the bus reports (bus.Marks):
// the ns of each way between two states that falls inside the metric's
// interval count toward it.
//
// An exploration's JSON (NewJSON), its counterexample files
// (Result.Counterexamples, ReplayFile, ReadReplayFile, which fwsim run
// --replay reads) and its verdict (Result.Verdict) are here; package view
// renders its text.
package explore
