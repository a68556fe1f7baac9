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
		s := fmt.Sprintf("the coordinator %s granted %s, which crashed at %s %s: no RELEASE comes",
			name[w.coord], name[h], Format(w.nodes[h].crashAt), where)
		if i := slices.Index(coord.queue, c.v); i >= 0 {
			s += fmt.Sprintf("; %s is number %d in its queue", name[c.v], i+1)
		}
		return s
	}
	return "no grant came (a bug: no fault explains it)"
}
