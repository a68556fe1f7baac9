package bus

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/phy"
)

// treePredicates holds every step a PHY takes in tree identify against the
// state-machine predicates of docs/protocol.md §4, with the line states the
// PHY sampled on that edge: each transition it takes must be enabled, and
// none may be left enabled once the step is over (the PHY takes every
// enabled transition on an edge). A PHY that stays in T0 after
// CONFIG_TIMEOUT while PARENT_NOTIFY arrives on its last port fails it.
// runTraced sets it on every run it checks (Options.checkSteps).
type treePredicates struct {
	problems []string
	nodes    map[int]*predicateNode
	// at is the PHY's view when the step in progress began.
	at struct {
		state          phy.State
		rx             []phy.LineState
		status         []phy.PortStatus
		connected      []bool
		configTimedOut bool
		rhb            bool
	}
}

// predicateNode is what the predicates read of one PHY's past: when it
// entered T0 and with how many connected ports, and when it entered T3.
type predicateNode struct {
	t0Entry, t3Entry int64
	nport            int
	rhb              bool
	// parent is the port T2 asked to be parent on: the last connected
	// port that was not a child when T2 was entered. A cable plugged or
	// unplugged since changes nothing until the reset it starts.
	parent int
}

// maxPredicateProblems keeps a broken run's report short.
const maxPredicateProblems = 5

func newTreePredicates() *treePredicates { return &treePredicates{nodes: map[int]*predicateNode{}} }

func (c *treePredicates) node(i int) *predicateNode {
	p := c.nodes[i]
	if p == nil {
		p = &predicateNode{t0Entry: -1, t3Entry: -1}
		c.nodes[i] = p
	}
	return p
}

func (c *treePredicates) before(w *world, i int, _ int64) {
	n := &w.nodes[i]
	ports := n.m.Ports()
	b := &c.at
	b.state = n.m.State()
	b.rx = append(b.rx[:0], ports.Rx...)
	b.status = append(b.status[:0], ports.Status...)
	b.connected = append(b.connected[:0], ports.Connected...)
	b.configTimedOut = n.m.ConfigTimedOut()
	b.rhb = n.m.ForceRoot()
}

func (c *treePredicates) after(w *world, i int, cycle int64) {
	n := &w.nodes[i]
	p := c.node(i)
	b := &c.at
	fail := func(format string, args ...any) {
		if len(c.problems) < maxPredicateProblems {
			c.problems = append(c.problems, fmt.Sprintf("%s at cycle %d (%d ns): ", n.cfg.id, cycle, n.clock.Edge(cycle))+fmt.Sprintf(format, args...))
		}
	}
	status := slices.Clone(b.status)
	// The shortest and longest waits either window allows (a file may
	// make SLOW the shorter).
	fastLo, fastHi := n.clock.CycleWindow(n.phy.Timing.RootContendFast)
	slowLo, slowHi := n.clock.CycleWindow(n.phy.Timing.RootContendSlow)
	leastWait, mostWait := min(fastLo, slowLo), max(fastHi, slowHi)
	frt, cfg := n.clock.Cycles(n.forceRootTimeout), n.clock.Cycles(n.configTimeout)
	children := func() int {
		k := 0
		for _, s := range status {
			if s == phy.PortChild {
				k++
			}
		}
		return k
	}
	remainingPort := func() int {
		parent := -1
		for port, conn := range b.connected {
			if conn && status[port] != phy.PortChild {
				parent = port
			}
		}
		return parent
	}
	// next is the transition the predicates enable from s with the sampled
	// inputs, phy.A0Idle standing for none; T0 marks its new children
	// first, as the PHY does on every T0 step.
	next := func(s phy.State) phy.State {
		switch s {
		case phy.T0TreeIDStart:
			for port, conn := range b.connected {
				if conn && status[port] != phy.PortChild && b.rx[port] == phy.RxParentNotify {
					status[port] = phy.PortChild
				}
			}
			k, elapsed := children(), cycle-p.t0Entry
			held := p.rhb && elapsed < frt
			if k == p.nport || k == p.nport-1 && !held {
				return phy.T1ChildHandshake
			}
		case phy.T1ChildHandshake:
			for port, st := range status {
				if st == phy.PortChild && b.rx[port] != phy.RxChildHandshake {
					return phy.A0Idle
				}
			}
			return phy.T2ParentHandshake
		case phy.T2ParentHandshake:
			if children() == p.nport {
				return phy.S0SelfIDStart // root
			}
			switch parent := p.parent; {
			case parent < 0:
			case b.rx[parent] == phy.RxParentHandshake:
				return phy.S0SelfIDStart
			case b.rx[parent] == phy.RxRootContention:
				return phy.T3RootContention
			}
		case phy.T3RootContention:
			if cycle-p.t3Entry < leastWait {
				break
			}
			switch parent := p.parent; {
			case parent < 0:
			case b.rx[parent] == phy.RxIdle:
				return phy.T2ParentHandshake
			case b.rx[parent] == phy.RxParentNotify:
				return phy.T1ChildHandshake
			}
		}
		return phy.A0Idle
	}
	cur := b.state
	for _, to := range n.m.Trail() {
		if to == phy.R0ResetStart || !cur.InTreeID() && to != phy.T0TreeIDStart {
			return // a reset may come at any time; self identify is not checked here
		}
		if to == phy.T0TreeIDStart {
			p.t0Entry, p.nport, p.rhb, cur = cycle, countTrue(b.connected), b.rhb, to
			continue
		}
		want := next(cur)
		if want != to {
			// T3 decides on its own wait, which the predicates leave free
			// inside the windows: leaving it is checked, not when.
			if !(cur == phy.T3RootContention && want == phy.A0Idle && (to == phy.T2ParentHandshake || to == phy.T1ChildHandshake)) {
				fail("%s → %s, but the predicates give %s with rx %v, ports %v", cur, to, nameOrStay(want), b.rx, status)
				return
			}
			fail("%s → %s before the shortest back-off (%d cycles after %d) or without IDLE or PARENT_NOTIFY on the parent port: rx %v", cur, to, leastWait, p.t3Entry, b.rx)
			return
		}
		switch {
		case cur == phy.T3RootContention && to == phy.T1ChildHandshake:
			status[p.parent] = phy.PortChild
		case to == phy.T2ParentHandshake:
			p.parent = remainingPort()
		}
		if to == phy.T3RootContention {
			p.t3Entry = cycle
		}
		cur = to
	}
	if !cur.InTreeID() {
		return
	}
	// Nothing may be left enabled: the PHY takes every enabled transition
	// on an edge. T3 may stay while its wait, which only the PHY knows,
	// runs: up to the longest the windows allow.
	if want := next(cur); want != phy.A0Idle && (cur != phy.T3RootContention || cycle-p.t3Entry >= mostWait) {
		fail("stays in %s although the predicates give %s (rx %v, ports %v, %d of %d ports children, config timeout signalled %v)",
			cur, want, b.rx, status, children(), p.nport, n.m.ConfigTimedOut())
	}
	// CONFIG_TIMEOUT: signalled once, on the edge the PHY's timer reaches
	// it in T0, and never else.
	if n.m.ConfigTimedOut() && !b.configTimedOut {
		if elapsed := cycle - p.t0Entry; b.state != phy.T0TreeIDStart || elapsed < cfg {
			fail("signals CONFIG_TIMEOUT %d cycles into %s; its CONFIG_TIMEOUT is %d cycles of T0", elapsed, b.state, cfg)
		}
	}
	if cur == phy.T0TreeIDStart && !n.m.ConfigTimedOut() && cycle-p.t0Entry >= cfg {
		fail("has been in T0 %d cycles, past its CONFIG_TIMEOUT of %d, and has not signalled it", cycle-p.t0Entry, cfg)
	}
}

func nameOrStay(s phy.State) string {
	if s == phy.A0Idle {
		return "no transition"
	}
	return s.String()
}

func countTrue(bs []bool) int {
	k := 0
	for _, b := range bs {
		if b {
			k++
		}
	}
	return k
}
