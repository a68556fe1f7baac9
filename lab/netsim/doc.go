// Package netsim is the message-passing runtime the labs run on: the
// election, mutual-exclusion and multicast labs are its equal users, and
// none of them imports another.
//
// It holds the graph of a bus topology (NewGraph: one vertex per node, one
// FIFO link per cable, with its ring view, diameter and shape tests, and
// its breadth-first spanning tree with the tree's paths, tree.go), and a
// run on virtual time (Sim) in the style of etcd raft's Step: a protocol's
// nodes are one Process, told that node v starts, that a message arrived
// on one of v's ports, or that v's timer fired, and v answers by sending
// messages, setting timers and saying when it decided (Sim.Decided); no
// node reads a clock or a random source. The events
// are kept in a bus.Kernel. Asynchronous runs give every message a delay of
// up to one time unit (TicksPerDelay ticks) from a PCG stream of the seed,
// or exactly one unit, and keep links FIFO; synchronous runs advance in
// rounds. Crashes and recoveries (Fault), a crash noticed at once by a
// LinkWatcher, the event budget and interruption, the count of messages
// by type (Messages) and the trace of every message (TraceEntry) are the
// runtime's too.
//
// Drive runs a protocol of per-node Machines over a link between every two
// nodes (Net), as the algorithms of mutual exclusion and multicast assume.
// json.go holds the JSON forms the labs share: message counts, trace
// entries and crashes (Crash).
package netsim
