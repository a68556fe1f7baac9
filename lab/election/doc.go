// Package election runs the classic leader-election algorithms on the
// topologies and the virtual-time kernel of the 1394 emulation, so that
// their messages and time can be compared side by side with tree identify.
//
// # Running an election
//
// A bus.Topology (generated, loaded from a file, or built in Go) becomes a
// graph: one process per node, one FIFO link per cable. Run takes the
// algorithm's name and its options:
//
//	topo, _ := bus.Generate("ring:8")
//	res, err := election.Run(topo, election.Options{Algo: "chang-roberts", IDOrder: election.Descending})
//	// err is bad input only: an unknown algorithm, a topology it does not
//	// support (ErrUnsupportedTopology), bad IDs or initiators.
//	fmt.Println(res.Leader, res.Messages.Total, res.Time, res.TimeUnit)
//
// The Result records how the run was set (algorithm, mode, seed, ID order,
// initiators), the leader, every node's final state and whom it knows as
// leader, the messages in total and by type, the time, and with
// Options.Trace every message. Algorithms lists the algorithms, what graph
// each needs and the mode it was designed for.
//
// # Rings, trees, complete and arbitrary graphs
//
// The ring algorithms (chang-roberts, chang-roberts-bidi,
// chang-roberts-min, lelann, ring-list, sync-ring, anonymous) need a graph
// that is one cycle; "clockwise" is the direction of the topology's first
// cable, From to To. Ring-list also runs on a complete graph, a logical
// ring in node order where a node can skip a crashed successor. Echo, tree-min and 1394 need a tree; bully a complete
// graph; floodmax, dfs-token, adoption and virtual-tree any connected
// graph. IDs are 1…n ascending or descending along the ring (or the
// topology's node order), a seeded permutation, or an explicit map
// (ParseIDs reads one from a file).
//
// # Faults
//
// Bully runs after its coordinator crashed (Options.Crashed), and bully,
// virtual-tree, tree-min, the Chang–Roberts family, lelann and ring-list take crashes
// during the run (Options.Crashes), bully recoveries too
// (Options.Recoveries): a crashed node loses every message on its way to
// it, and a recovered one starts afresh. Tree-min repairs as the notes say:
// the tree is adapted round the crashed node and changed proposals are
// resent (Result.Tree counts the messages sent again, beside the tree's
// height h and the notes' h·RTT bound).
//
// # How time passes
//
// Every algorithm is a per-node state machine that the runtime of package
// netsim drives: it is told that it starts, that a message arrived on one
// of its ports, or that its timer fired, and it answers by sending messages
// and setting timers. No process reads a clock or a random source.
// Asynchronous runs give every message a delay of up to one time unit (1000
// ticks) from a PCG stream of the seed, or exactly one unit with
// Options.UnitDelays, and keep links FIFO; time is reported in delays. Synchronous runs advance in
// rounds: a message sent in round r arrives in round r+1, and timers fire
// after the round's deliveries. 1394 is the exception, mode Timed: it runs
// tree identify on the PHY model through bus.Run, on the PHY model's ns,
// and reports its time in delays of one cable's propagation and one PHY's
// repeat delay (Result.TimeNs keeps the ns).
//
// docs/election.md describes each algorithm, its assumptions, and how the
// counts compare with the textbook figures.
//
// # Sweeps, comparisons and outputs
//
// Sweep runs the textbook message-count curves (SweepCases: Chang–Roberts
// best, average and worst, echo, FloodMax) over sizes and sets each
// measured mean, with its 95% interval (internal/stats), beside the
// formula. Compare runs every algorithm that applies on one topology in one
// scenario (CompareScenario: the same initiators, the announcement, the same
// faults); a row says how it differs when it cannot start so, and does not
// run when it cannot honour the faults. The
// JSON forms of a run, a comparison and a sweep are in json.go; package
// view renders them as text.
//
// The message-passing runtime (graphs, delays, crashes, traces, message
// counts) is package netsim's, which the other labs use too.
package election
