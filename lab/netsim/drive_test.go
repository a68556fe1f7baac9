package netsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sender sends count numbered messages to every other node at the start;
// receivers record what arrives from whom, in order.
type sender struct {
	count  int
	got    map[int][]int64
	latest int64   // the last arrival
	timers []int64 // when a timer fired, and its tag's value
}

func (s *sender) Start(x *Net, v int) {
	for u := range 3 {
		if u == v {
			continue
		}
		for i := range s.count {
			if v == 2 && u == 0 && i == 0 {
				x.Lose(v, u, Message{Value: -1})
				continue
			}
			x.Send(v, u, Message{Value: int64(i)})
		}
	}
	if v == 1 {
		x.TimerAt(v, 5*TicksPerDelay, Message{Type: 1, Value: 7})
	}
}

func (s *sender) Receive(x *Net, v, from int, m Message) {
	s.latest = x.Now()
	s.got[from] = append(s.got[from], m.Value)
}

func (s *sender) Timer(x *Net, v int, tag Message) {
	s.timers = append(s.timers, x.Now(), tag.Value)
	x.Crash(0)
	x.Send(v, 0, Message{Value: 99}) // to a crashed node: counted, lost
}

func TestDriveLinksAreFIFOAndCounted(t *testing.T) {
	machines := make([]Machine, 3)
	senders := make([]*sender, 3)
	for v := range machines {
		senders[v] = &sender{count: 20, got: map[int][]int64{}}
		machines[v] = senders[v]
	}
	out, err := Drive(Protocol{Name: "test", Types: []string{"DATA", "TIMER"}, Nodes: []string{"a", "b", "c"},
		Machines: machines, Seed: 3, Trace: true})
	require.NoError(t, err)
	in := func(skip int) []int64 {
		var want []int64
		for i := skip; i < 20; i++ {
			want = append(want, int64(i))
		}
		return want
	}
	assert.Equal(t, in(0), senders[0].got[1], "b to a, in order")
	assert.Equal(t, in(1), senders[0].got[2], "c to a, the first lost")
	assert.Equal(t, in(0), senders[2].got[0])
	for v, s := range senders {
		assert.LessOrEqual(t, s.latest, int64(TicksPerDelay), "%d: everything was sent at 0 and takes at most a delay", v)
	}
	assert.Equal(t, []int64{5 * TicksPerDelay, 7}, senders[1].timers)
	assert.Equal(t, 6*20+1, out.Messages.Total, "the lost one and the one to a crashed node count")
	lost := 0
	for _, m := range out.Trace {
		if m.Lost {
			lost++
		}
	}
	assert.Equal(t, 2, lost)
}

// idle is a machine that does nothing.
type idle struct{}

func (idle) Start(*Net, int)                 {}
func (idle) Receive(*Net, int, int, Message) {}
func (idle) Timer(*Net, int, Message)        {}

// idleProtocol is n idle machines.
func idleProtocol(n int) Protocol {
	p := Protocol{Name: "idle", Types: []string{"M"}, Nodes: make([]string, n), Machines: make([]Machine, n)}
	for v := range n {
		p.Machines[v] = idle{}
	}
	return p
}

// Linking thousands of nodes takes a good part of a second: an interrupt
// stops it, not only the run after it.
func TestDriveStopsOnInterruptWhileLinking(t *testing.T) {
	p := idleProtocol(2000)
	stop := make(chan struct{})
	p.Interrupt = stop
	time.AfterFunc(5*time.Millisecond, func() { close(stop) })
	start := time.Now()
	_, err := Drive(p)
	require.ErrorIs(t, err, ErrInterrupted)
	// Well under the linking's own time, with room for a loaded machine.
	assert.Less(t, time.Since(start), 100*time.Millisecond)
}

// Drive's links grow with the square of the nodes: beyond MaxDriveNodes it
// refuses with the estimate, the limit and what to change, before it
// allocates them.
func TestDriveRefusesMoreNodesThanItsLinksFit(t *testing.T) {
	_, err := Drive(idleProtocol(10_000))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.EqualError(t, err, "run too large: idle links every two of its 10000 nodes, which would take about 4.8 GB of memory; "+
		"it runs at most 4096 nodes (0.8 GB): use a smaller topology")
}
