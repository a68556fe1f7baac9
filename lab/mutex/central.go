package mutex

import (
	"fmt"
	"slices"

	"github.com/fwsim/fwsim/lab/netsim"
)

var centralTypes = []string{"REQUEST", "OK", "RELEASE"}

const (
	cRequest uint8 = iota
	cOK
	cRelease
)

// central is one node of the central algorithm. The coordinator's machine
// keeps the grant and the FIFO queue; it requests for itself without a
// message.
type central struct {
	w      *world
	v      int
	holder int   // coordinator: whom it granted, -1 when the region is free
	queue  []int // coordinator: who waits, in the order their requests arrived
}

func newCentral(w *world, v int) machine { return &central{w: w, v: v, holder: -1} }

func (c *central) start(*netsim.Net) {}

func (c *central) want(x *netsim.Net) {
	if c.v == c.w.coord {
		c.request(x, c.v)
		return
	}
	c.w.send(x, c.v, c.w.coord, netsim.Message{Type: cRequest})
}

func (c *central) release(x *netsim.Net) {
	if c.v == c.w.coord {
		c.freed(x)
		return
	}
	c.w.send(x, c.v, c.w.coord, netsim.Message{Type: cRelease})
}

func (c *central) receive(x *netsim.Net, from int, m netsim.Message) {
	switch m.Type {
	case cRequest:
		c.request(x, from)
	case cOK:
		c.w.enter(x, c.v)
	case cRelease:
		c.freed(x)
	}
}

func (c *central) timer(*netsim.Net, netsim.Message) {}

// request is the coordinator's answer to a request of node u.
func (c *central) request(x *netsim.Net, u int) {
	if c.holder >= 0 {
		c.queue = append(c.queue, u)
		return
	}
	c.grant(x, u)
}

// freed passes the grant to the first in the queue.
func (c *central) freed(x *netsim.Net) {
	c.holder = -1
	if len(c.queue) > 0 {
		u := c.queue[0]
		c.queue = c.queue[1:]
		c.grant(x, u)
	}
}

func (c *central) grant(x *netsim.Net, u int) {
	c.holder = u
	if u == c.v {
		c.w.enter(x, u)
		return
	}
	c.w.send(x, c.v, u, netsim.Message{Type: cOK})
}

func (c *central) why() string {
	w := c.w
	coord := w.machines[w.coord].(*central)
	name := w.g.Nodes
	queued := func(s string) string {
		if i := slices.Index(coord.queue, c.v); i >= 0 {
			s += fmt.Sprintf("; %s is number %d in its queue", name[c.v], i+1)
		}
		return s
	}
	switch {
	case !w.live(w.coord):
		return fmt.Sprintf("the coordinator %s crashed at %s; a client cannot tell that from a long queue",
			name[w.coord], Format(w.nodes[w.coord].crashAt))
	case coord.holder >= 0 && !w.live(coord.holder):
		h := coord.holder
		where := "inside the critical section"
		if r := w.requests[w.nodes[h].current]; r.entered < 0 {
			where = "before the OK reached it"
		}
		return queued(fmt.Sprintf("the coordinator %s granted %s, which crashed at %s %s: no RELEASE comes",
			name[w.coord], name[h], Format(w.nodes[h].crashAt), where))
	case coord.holder >= 0:
		// A live holder that never releases: its OK or its RELEASE was lost.
		h := coord.holder
		cur := w.nodes[h].current
		if ok, lost := w.lostLast(cOK, w.coord, h, -1); lost && cur >= 0 && w.requests[cur].entered < 0 && !slices.Contains(coord.queue, h) {
			if h == c.v {
				return fmt.Sprintf("the coordinator %s's OK to it was lost at %s: %s counts it inside and grants no one else",
					name[w.coord], Format(ok.at), name[w.coord])
			}
			return queued(fmt.Sprintf("the coordinator %s granted %s, whose OK was lost at %s: %s never enters, so no RELEASE comes",
				name[w.coord], name[h], Format(ok.at), name[h]))
		}
		if rel, lost := w.lostLast(cRelease, h, w.coord, -1); lost {
			return queued(fmt.Sprintf("%s's RELEASE to the coordinator %s was lost at %s: %s counts %s inside for ever",
				name[h], name[w.coord], Format(rel.at), name[w.coord], name[h]))
		}
	case c.v != w.coord && !slices.Contains(coord.queue, c.v):
		if req, lost := w.lostLast(cRequest, c.v, w.coord, -1); lost {
			return fmt.Sprintf("its REQUEST to the coordinator %s was lost at %s: %s never heard of it",
				name[w.coord], Format(req.at), name[w.coord])
		}
	}
	return "no grant came (a bug: no fault explains it)"
}
