package netsim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinger: vertex 0 starts and sends one PING on its first port; every
// receiver sends it on over its other ports, so that a message crosses
// every cable of a tree once. A vertex decides when its timer fires.
type pinger struct {
	events   int
	timerAt  int64
	decideAt int64
}

func (p *pinger) Start(s *Sim, v int) {
	p.events++
	s.SendAll(v, -1, Message{})
	s.SetTimerAt(v, p.timerAt, Message{})
}

func (p *pinger) Receive(s *Sim, v, port int, m Message) {
	p.events++
	s.SendAll(v, port, m)
}

func (p *pinger) Timer(s *Sim, v int, _ Message) {
	p.events++
	p.decideAt = s.Now()
	s.Decided(v, "DONE", "")
}

// A chain of five: one start, four deliveries, one timer: six events.
func runPinger(t *testing.T, c Config) (*pinger, error) {
	t.Helper()
	c.Graph, c.Types = graphOf(t, "chain:5"), []string{"PING"}
	p := &pinger{timerAt: 7 * TicksPerDelay}
	return p, New(c).Run(p, []int{0}, nil)
}

func TestBudgetCountsEveryEvent(t *testing.T) {
	p, err := runPinger(t, Config{Name: "ping", MaxEvents: 6})
	require.NoError(t, err, "six events fit a budget of six")
	assert.Equal(t, 6, p.events)
	p, err = runPinger(t, Config{Name: "ping", MaxEvents: 5})
	require.ErrorIs(t, err, ErrNoTermination)
	assert.EqualError(t, err, "run did not terminate: ping used up its budget of 5 events")
	assert.Equal(t, 5, p.events, "the sixth event is not handled")
}

// On a complete graph the pinger floods for ever, each delivery sending
// four more: the events pending pass the budget long before the events
// taken do, and the run stops then, holding no more than the budget and one
// event's sends in memory.
func TestBudgetBoundsThePendingEvents(t *testing.T) {
	const budget = 1000
	p := &pinger{timerAt: 1 << 40}
	s := New(Config{Name: "flood", Graph: graphOf(t, "complete:6"), Types: []string{"PING"}, Seed: 1, MaxEvents: budget})
	err := s.Run(p, []int{0}, nil)
	require.ErrorIs(t, err, ErrNoTermination)
	assert.Regexp(t, `^run did not terminate: flood has 100[0-4] messages and timers pending, more than its budget of 1000 events$`, err.Error())
	assert.Less(t, p.events, budget/2, "stopped for its pending events, not its events taken")
}

func TestInterruptStopsBeforeTheFirstEvent(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	p, err := runPinger(t, Config{Name: "ping", Interrupt: stop})
	require.ErrorIs(t, err, ErrInterrupted)
	assert.Zero(t, p.events)
}

// Time ends at the last delivery or decision, whichever is later: the
// decision at 7 units comes after four deliveries of at most a unit each.
func TestDecisionEndsTheTime(t *testing.T) {
	s := New(Config{Name: "ping", Graph: graphOf(t, "chain:5"), Types: []string{"PING"}, Seed: 1})
	p := &pinger{timerAt: 7 * TicksPerDelay}
	require.NoError(t, s.Run(p, []int{0}, nil))
	assert.Equal(t, int64(7*TicksPerDelay), p.decideAt)
	assert.Equal(t, 7.0, s.Time())
	s = New(Config{Name: "ping", Graph: graphOf(t, "chain:5"), Types: []string{"PING"}, UnitDelays: true})
	p = &pinger{timerAt: 1}
	require.NoError(t, s.Run(p, []int{0}, nil))
	assert.Equal(t, 4.0, s.Time(), "four unit delays after an early decision")
}

// A synchronous run calls AfterRound at the end of every round that had
// events, before the next round's, and stops when it says so.
func TestAfterRoundSeesEveryRound(t *testing.T) {
	run := func(stopAt int64) (*pinger, []int64) {
		s := New(Config{Name: "ping", Graph: graphOf(t, "chain:5"), Types: []string{"PING"}, Sync: true})
		var rounds []int64
		s.AfterRound(func(r int64) bool {
			rounds = append(rounds, r)
			return r == stopAt
		})
		p := &pinger{timerAt: 1 << 40}
		require.NoError(t, s.Run(p, []int{0}, nil))
		return p, rounds
	}
	p, rounds := run(-1)
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, rounds, "the start in round 1, a delivery in each of rounds 2–5, then the timer")
	assert.Equal(t, 6, p.events)
	p, rounds = run(3)
	assert.Equal(t, []int64{1, 2, 3}, rounds)
	assert.Equal(t, 3, p.events, "the start and the deliveries of rounds 2 and 3")
}
