package bus

// RunBytesPerNode is the memory a run takes a node, its cables, PHY, timers
// and share of the topology included: 3 KiB, measured as the peak resident
// size of runs of random trees of 100,000 and 300,000 nodes with the
// collector kept tight (GOGC=10), 3.0 and 3.1 KiB a node. A node has at
// most 27 ports, so its cables do not change the figure much.
const RunBytesPerNode = 3 << 10

// RunMemory is about how much memory a run of a bus of nodes takes: what a
// command compares with its memory budget before it builds the bus.
func RunMemory(nodes int) int64 { return int64(nodes) * RunBytesPerNode }
