package bus

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKernelOrdersByTimeThenSchedulingOrder(t *testing.T) {
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(1, 2))
	type item struct {
		at  int64
		ord int
	}
	var want []item
	for i := range 2000 {
		at := rng.Int64N(50) // many ties
		k.Schedule(at, i)
		want = append(want, item{at, i})
	}
	sort.SliceStable(want, func(a, b int) bool { return want[a].at < want[b].at })
	for i, w := range want {
		at, ev, ok := k.Next()
		require.True(t, ok, "event %d missing", i)
		assert.Equal(t, w.at, at)
		require.Equal(t, w.ord, ev, "at %d ns ties must pop in scheduling order", at)
		assert.Equal(t, at, k.Now())
	}
	_, _, ok := k.Next()
	assert.False(t, ok)
	assert.Equal(t, uint64(2000), k.Processed())
}

// Events queued with ScheduleFirst pop before every event Schedule queued
// at the same instant, even one queued long before; among themselves, and
// among the others, in scheduling order.
func TestKernelScheduleFirstRunsFirstAtItsInstant(t *testing.T) {
	var k Kernel[int]
	rng := rand.New(rand.NewPCG(3, 4))
	type item struct {
		at    int64
		first bool
		ord   int
	}
	var want []item
	for i := range 2000 {
		at, first := rng.Int64N(50), rng.IntN(2) == 0
		if first {
			k.ScheduleFirst(at, i)
		} else {
			k.Schedule(at, i)
		}
		want = append(want, item{at, first, i})
	}
	sort.SliceStable(want, func(a, b int) bool {
		if want[a].at != want[b].at {
			return want[a].at < want[b].at
		}
		return want[a].first && !want[b].first
	})
	for i, w := range want {
		at, ev, ok := k.Next()
		require.True(t, ok, "event %d missing", i)
		require.Equal(t, w.at, at)
		require.Equal(t, w.ord, ev, "at %d ns: arrivals first, then scheduling order", at)
	}
}

func TestKernelInterleavedScheduling(t *testing.T) {
	var k Kernel[int64]
	rng := rand.New(rand.NewPCG(3, 4))
	k.Schedule(0, 0)
	last := int64(-1)
	for k.Len() > 0 {
		at, ev, _ := k.Next()
		require.GreaterOrEqual(t, at, last)
		require.Equal(t, at, ev)
		last = at
		if k.Processed() < 10000 {
			for range rng.IntN(3) {
				d := rng.Int64N(100)
				k.Schedule(at+d, at+d)
			}
			if k.Len() == 0 {
				k.Schedule(at+1, at+1)
			}
		}
	}
}

func TestKernelRejectsThePast(t *testing.T) {
	var k Kernel[int]
	k.Schedule(10, 1)
	k.Next()
	assert.Panics(t, func() { k.Schedule(9, 2) })
}

func TestKernelDoesNotAllocatePerEvent(t *testing.T) {
	var k Kernel[[3]int64]
	for i := range 1024 {
		k.Schedule(int64(i), [3]int64{})
	}
	for k.Len() > 0 {
		k.Next()
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 512 {
			k.Schedule(k.Now()+int64(i%37), [3]int64{})
		}
		for k.Len() > 0 {
			k.Next()
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkKernel(b *testing.B) {
	var k Kernel[simEvent]
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 256 {
		k.Schedule(int64(i), simEvent{})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		at, ev, _ := k.Next()
		k.Schedule(at+1+rng.Int64N(200), ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
