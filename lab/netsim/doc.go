// Package netsim is the message-passing runtime the labs run on: the
// election, mutual-exclusion and multicast labs are its equal users, and
// none of them imports another.
//
// It holds the graph of a bus topology (NewGraph: one vertex per node, one
// FIFO link per cable, with its ring view, diameter and shape tests), and a
// run on virtual time (Sim) in the style of etcd raft's Step: every node is
// a Process that is told that it starts, that a message arrived on one of
// its ports, or that a timer fired, and answers by sending messages and
// setting timers; no process reads a clock or a random source. The events
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
