package bus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/phy"
)

// Traffic is what one node sends once the bus has initialised: exactly one
// of Async, Iso and Ping (docs/topology.md#traffic).
type Traffic struct {
	Node  string        `json:"node" yaml:"node"`
	Async *AsyncTraffic `json:"async,omitempty" yaml:"async,omitempty"`
	Iso   *IsoTraffic   `json:"iso,omitempty" yaml:"iso,omitempty"`
	Ping  *PingTraffic  `json:"ping,omitempty" yaml:"ping,omitempty"`
}

// PingTraffic is a 1394a ping: a PHY packet to one node, whose PHY answers
// with its self-ID packet at once; the sender times the round trip, as a
// bus manager does to choose the gap count.
type PingTraffic struct {
	// To is the node pinged.
	To string `json:"to" yaml:"to"`
	// Every sends a ping every so long from the start of traffic; nil pings
	// again as soon as the answer is in.
	Every *Duration `json:"every,omitempty" yaml:"every,omitempty"`
}

// AsyncTraffic is a stream of acknowledged asynchronous write requests to
// one node.
type AsyncTraffic struct {
	// To is the destination node.
	To string `json:"to" yaml:"to"`
	// Size is the payload in bytes: 0 to the speed's largest, 512 bytes at
	// S100 and twice that at each speed above.
	Size int `json:"size" yaml:"size"`
	// Speed is the speed the packets are sent at; empty means the slower of
	// the two nodes' speeds.
	Speed string `json:"speed,omitempty" yaml:"speed,omitempty"`
	// Every queues a new request every so long from the start of traffic;
	// nil keeps one always waiting, as a node with more to send than the
	// bus carries does.
	Every *Duration `json:"every,omitempty" yaml:"every,omitempty"`
	// Retries is how often a request whose acknowledgement went missing is
	// sent again before it is given up; nil means DefaultRetries.
	Retries *int `json:"retries,omitempty" yaml:"retries,omitempty"`
}

// IsoTraffic is an isochronous talker: one packet in every cycle.
type IsoTraffic struct {
	// Bytes is the payload of each cycle's packet: 0 to the speed's
	// largest, 1024 bytes at S100 and twice that at each speed above.
	Bytes int `json:"bytes" yaml:"bytes"`
	// Speed is the speed the packets are sent at; empty means the node's.
	Speed string `json:"speed,omitempty" yaml:"speed,omitempty"`
}

// DefaultRetries is how often an asynchronous request whose acknowledgement
// went missing is sent again by default.
const DefaultRetries = 3

// maxRetries bounds AsyncTraffic.Retries.
const maxRetries = 100

// DefaultUntil is how long the bus runs after initialisation when the
// topology has traffic and Options.Until is zero: eight isochronous cycles.
const DefaultUntil = 8 * phy.CycleTime

// maxUntil bounds Options.Until: a second of bus time.
const maxUntil = time.Second

// resolvedTraffic is one Traffic item resolved.
type resolvedTraffic struct {
	node    int
	iso     bool
	to      int // async: the destination
	size    int // async: the payload; iso: the bytes of each cycle
	speed   phy.Speed
	every   int64 // async, ping: ns between new requests; 0 keeps one waiting
	retries int
	ping    bool // a ping: to is the node pinged
}

// traffic resolves Topology.Traffic.
func (r *resolver) traffic() error {
	for i, tr := range r.t.Traffic {
		it := item{list: "traffic", index: i}
		node, ok := r.nodeByID[tr.Node]
		if !ok {
			return r.fail(ErrBadTraffic, it.path(".node"), "no node %q on the bus", tr.Node)
		}
		if !r.rt.nodes[node].link {
			return r.fail(ErrBadTraffic, it.path(".node"), "node %q has its link off (link: false): only a link sends packets", tr.Node)
		}
		var rtr resolvedTraffic
		var err error
		kinds := 0
		for _, given := range []bool{tr.Async != nil, tr.Iso != nil, tr.Ping != nil} {
			if given {
				kinds++
			}
		}
		switch {
		case kinds != 1:
			return r.fail(ErrBadTraffic, it.path(""), "give exactly one of async, iso and ping")
		case tr.Async != nil:
			rtr, err = r.asyncTraffic(node, *tr.Async, it.in(".async"))
		case tr.Iso != nil:
			rtr, err = r.isoTraffic(node, *tr.Iso, it.in(".iso"))
		default:
			rtr, err = r.pingTraffic(node, *tr.Ping, it.in(".ping"))
		}
		if err != nil {
			return err
		}
		r.rt.traffic = append(r.rt.traffic, rtr)
	}
	return nil
}

func (r *resolver) asyncTraffic(node int, a AsyncTraffic, it item) (resolvedTraffic, error) {
	to, ok := r.nodeByID[a.To]
	if !ok {
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".to"), "no node %q on the bus", a.To)
	}
	if to == node {
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".to"), "node %q sends to itself", a.To)
	}
	if !r.rt.nodes[to].link {
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".to"), "node %q has its link off (link: false): nothing would acknowledge", a.To)
	}
	fastest := min(r.rt.nodes[node].speed, r.rt.nodes[to].speed)
	speed, err := r.trafficSpeed(a.Speed, fastest, it)
	if err != nil {
		return resolvedTraffic{}, err
	}
	if a.Size < 0 || a.Size > speed.MaxAsyncPayload() {
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".size"), "payload %d bytes, want 0 to %d at %v", a.Size, speed.MaxAsyncPayload(), speed)
	}
	rt := resolvedTraffic{node: node, to: to, size: a.Size, speed: speed, retries: DefaultRetries}
	if rt.every, err = r.every(a.Every, it); err != nil {
		return resolvedTraffic{}, err
	}
	if a.Retries != nil {
		if *a.Retries < 0 || *a.Retries > maxRetries {
			return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".retries"), "%d retries, want 0 to %d", *a.Retries, maxRetries)
		}
		rt.retries = *a.Retries
	}
	return rt, nil
}

func (r *resolver) pingTraffic(node int, p PingTraffic, it item) (resolvedTraffic, error) {
	to, ok := r.nodeByID[p.To]
	switch {
	case !ok:
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".to"), "no node %q on the bus", p.To)
	case to == node:
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".to"), "node %q pings itself", p.To)
	}
	for _, n := range []int{node, to} {
		if p := r.phyOf(n); !p.ShortReset {
			return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(""), "node %q has a %s PHY: ping is a 1394a PHY packet", r.rt.nodes[n].id, p.Name)
		}
	}
	every, err := r.every(p.Every, it)
	return resolvedTraffic{node: node, to: to, speed: phy.S100, ping: true, every: every}, err
}

// every reads the every of a traffic item: ns between new requests or
// pings, 0 when not given.
func (r *resolver) every(d *Duration, it item) (int64, error) {
	if d == nil {
		return 0, nil
	}
	if *d < Duration(time.Microsecond) || *d > Duration(maxUntil) {
		return 0, r.fail(ErrBadTraffic, it.path(".every"), "every %v, want 1µs to %v", *d, maxUntil)
	}
	return int64(*d), nil
}

func (r *resolver) isoTraffic(node int, iso IsoTraffic, it item) (resolvedTraffic, error) {
	speed, err := r.trafficSpeed(iso.Speed, r.rt.nodes[node].speed, it)
	if err != nil {
		return resolvedTraffic{}, err
	}
	if iso.Bytes < 0 || iso.Bytes > speed.MaxIsoPayload() {
		return resolvedTraffic{}, r.fail(ErrBadTraffic, it.path(".bytes"), "payload %d bytes, want 0 to %d at %v", iso.Bytes, speed.MaxIsoPayload(), speed)
	}
	return resolvedTraffic{node: node, iso: true, to: -1, size: iso.Bytes, speed: speed}, nil
}

// trafficSpeed reads a traffic item's speed: empty is fastest, the fastest
// its nodes' PHYs allow; S800 is a 1394b speed the legacy ports fwsim
// models do not signal.
func (r *resolver) trafficSpeed(name string, fastest phy.Speed, it item) (phy.Speed, error) {
	fastest = min(fastest, phy.S400)
	if name == "" {
		return fastest, nil
	}
	speed, err := phy.ParseSpeed(name)
	if err != nil || speed > phy.S400 {
		return 0, r.fail(ErrBadTraffic, it.path(".speed"), "speed %s, want S100, S200 or S400", strconv.Quote(name))
	}
	if speed > fastest {
		return 0, r.fail(ErrBadTraffic, it.path(".speed"), "speed %v is faster than %v, the fastest its nodes' PHYs signal", speed, fastest)
	}
	return speed, nil
}

// until is how long the bus runs after initialisation: Options.Until, or
// DefaultUntil for a topology with traffic.
func (o *Options) until(hasTraffic bool) time.Duration {
	if o.Until == 0 && hasTraffic {
		return DefaultUntil
	}
	return o.Until
}

// ParseTrafficSpec reads a traffic item written as comma-separated
// key=value pairs, as fwsim's --traffic takes it: node=N and one of to=D
// (requests to D, with size=BYTES, and optionally speed=S, every=DUR and
// retries=K), iso=BYTES (a talker, optionally with speed=S) and ping=D
// (pings of D, optionally every=DUR), e.g.
// "node=n0,to=n15,size=512,every=20us", "node=n7,iso=1000" or
// "node=n0,ping=n15". It checks
// the form only; Validate checks the values against the bus.
func ParseTrafficSpec(spec string) (Traffic, error) {
	fail := func(format string, args ...any) (Traffic, error) {
		return Traffic{}, fmt.Errorf("%w: %q: %s (want node=N,to=D,size=BYTES[,speed=S][,every=DUR][,retries=K], node=N,iso=BYTES[,speed=S] or node=N,ping=D[,every=DUR])",
			ErrBadTraffic, spec, fmt.Sprintf(format, args...))
	}
	values := map[string]string{}
	for part := range strings.SplitSeq(spec, ",") {
		key, value, ok := strings.Cut(part, "=")
		switch {
		case !ok || value == "":
			return fail("%q is not key=value", part)
		case !slices.Contains([]string{"node", "to", "size", "speed", "every", "retries", "iso", "ping"}, key):
			return fail("unknown key %q", key)
		case values[key] != "":
			return fail("%s given twice", key)
		}
		values[key] = value
	}
	number := func(key string) (int, error) {
		n, err := strconv.Atoi(values[key])
		if err != nil {
			return 0, fmt.Errorf("%s=%s is not a whole number", key, values[key])
		}
		return n, nil
	}
	every := func() (*Duration, error) {
		v := values["every"]
		if v == "" {
			return nil, nil
		}
		d, err := parseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("every=%s: %v", v, err)
		}
		return &d, nil
	}
	var err error
	tr := Traffic{Node: values["node"]}
	kinds := 0
	for _, key := range []string{"to", "iso", "ping"} {
		if values[key] != "" {
			kinds++
		}
	}
	switch {
	case tr.Node == "":
		return fail("no node=")
	case kinds != 1:
		return fail("give exactly one of to=, iso= and ping=")
	case values["ping"] != "":
		for _, key := range []string{"size", "speed", "retries"} {
			if values[key] != "" {
				return fail("%s= is not for a ping", key)
			}
		}
		tr.Ping = &PingTraffic{To: values["ping"]}
		if tr.Ping.Every, err = every(); err != nil {
			return fail("%v", err)
		}
		return tr, nil
	case values["iso"] != "":
		for _, key := range []string{"size", "every", "retries"} {
			if values[key] != "" {
				return fail("%s= is for requests (to=), not a talker (iso=)", key)
			}
		}
		bytes, err := number("iso")
		if err != nil {
			return fail("%v", err)
		}
		tr.Iso = &IsoTraffic{Bytes: bytes, Speed: values["speed"]}
		return tr, nil
	}
	if values["size"] == "" {
		return fail("requests (to=) need size=")
	}
	size, err := number("size")
	if err != nil {
		return fail("%v", err)
	}
	tr.Async = &AsyncTraffic{To: values["to"], Size: size, Speed: values["speed"]}
	if tr.Async.Every, err = every(); err != nil {
		return fail("%v", err)
	}
	if values["retries"] != "" {
		k, err := number("retries")
		if err != nil {
			return fail("%v", err)
		}
		tr.Async.Retries = &k
	}
	return tr, nil
}
