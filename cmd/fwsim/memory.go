package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// defaultMaxMemory is --max-memory's default: room for every documented
// example and a million-node lab run, and well within a laptop.
const defaultMaxMemory = 4 << 30

// setMemoryLimit, when not nil, is debug.SetMemoryLimit: the process's own
// command makes --max-memory the Go runtime's soft limit, so that the
// collector works harder rather than let the heap pass the budget. Tests,
// which run many commands in one process, leave it nil.
var setMemoryLimit func(int64) int64

// memoryUnits are the suffixes --max-memory takes, binary and decimal.
var memoryUnits = []struct {
	suffix string
	bytes  float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// byteSize is --max-memory: a size such as 4GiB, 512MiB or 2GB.
type byteSize struct{ p *int64 }

func (v byteSize) String() string {
	if v.p == nil {
		return "0"
	}
	return formatBytes(*v.p)
}

func (v byteSize) Set(s string) error {
	number, scale := s, 1.0
	for _, u := range memoryUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			number, scale = strings.TrimSpace(rest), u.bytes
			break
		}
	}
	f, err := strconv.ParseFloat(number, 64)
	if err != nil || !(f*scale >= 1<<20) || f*scale > math.MaxInt64/2 {
		return errors.New("want a size from 1MiB to 4EiB, such as 4GiB, 512MiB or 2GB")
	}
	*v.p = int64(f * scale)
	if setMemoryLimit != nil {
		setMemoryLimit(*v.p)
	}
	return nil
}

// formatBytes writes n in the largest binary unit it fills, to a tenth:
// 4GiB, 1.5GiB, 700MiB.
func formatBytes(n int64) string {
	u := memoryUnits[0]
	for _, next := range memoryUnits[1:4] {
		if float64(n) >= next.bytes {
			u = next
		}
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/u.bytes), ".0") + u.suffix
}

// memoryBudget is --max-memory and the estimate a command checks against
// it before it builds a bus or a graph.
type memoryBudget struct {
	max      int64
	estimate func(nodes, cables int) int64 // nil: nothing to check
	what     string                        // what the estimate is of, for the message
}

// register adds --max-memory to fs, and makes its default the runtime's
// soft limit unless GOMEMLIMIT set a lower one.
func (m *memoryBudget) register(fs *flags) {
	m.max = defaultMaxMemory
	if setMemoryLimit != nil && setMemoryLimit(-1) > defaultMaxMemory {
		setMemoryLimit(defaultMaxMemory)
	}
	fs.Var(byteSize{&m.max}, "max-memory", fmt.Sprintf(
		"refuse, before building it, a %s that would take more than `SIZE` of\nmemory, and keep the heap under it, e.g. --max-memory 16GiB",
		m.what))
}

// check refuses a bus or graph of nodes and cables that would not fit.
func (m *memoryBudget) check(nodes, cables int) error {
	if m.estimate == nil {
		return nil
	}
	need := m.estimate(nodes, cables)
	if need <= m.max {
		return nil
	}
	return fmt.Errorf("a %s of %d nodes and %d cables would take about %s of memory, more than --max-memory %s: use a smaller one, or raise --max-memory to what the machine has",
		m.what, nodes, cables, formatBytes(need), formatBytes(m.max))
}
