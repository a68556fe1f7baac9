package treeid

// gapCounts is the Linux table of gap count by hop count, from 1394a Table
// E-1 (docs/protocol.md §9.2). Hops 0 is a lone node: nothing to tune, keep the default.
var gapCounts = [...]int{63, 5, 7, 8, 10, 13, 16, 18, 21, 24, 26, 29, 32, 35, 37, 40}

// GapCountForHops is the gap count a bus manager sets for a bus whose
// diameter is hops cable hops: Linux's choice, and 63 (the power-up value)
// beyond 15 hops, where the standard gives no entry.
func GapCountForHops(hops int) int {
	if hops < 0 || hops >= len(gapCounts) {
		return 63
	}
	return gapCounts[hops]
}
