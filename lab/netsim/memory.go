package netsim

// A lab's run holds its topology, the graph made of it and its nodes'
// state, and the events pending, which Config.MaxEvents bounds (about a
// hundred bytes each, 1 GB at the default budget). Measured as
// the peak resident size with the collector kept tight (GOGC=10): the
// complete graph of 2,048 nodes (2.1 million cables) takes 584 MiB before
// any run, a chain of a million nodes 433 MiB, and echo on a random tree
// of a million nodes 435 MiB in all.
const (
	BytesPerCable = 290
	BytesPerNode  = 160
)

// GraphMemory is about how much memory a lab's run on a graph of nodes
// and cables takes before its messages: what a command compares with its
// memory budget before it builds the graph.
func GraphMemory(nodes, cables int) int64 {
	return int64(nodes)*BytesPerNode + int64(cables)*BytesPerCable
}
