package bus

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fwsim/fwsim/phy"
)

// Topology is the declarative, serialisable description of a bus (YAML and
// JSON share field names). docs/topology.md describes the format; Validate
// checks it. The zero value is an empty bus, which Validate rejects.
type Topology struct {
	// Profile names the timing profile, the generation of the bus's PHYs:
	// "1394-1995" (the default), "1394a-2000", "1394b-2002" or "prism". A
	// node's PHY field overrides it for that node.
	Profile string `json:"profile,omitempty" yaml:"profile,omitempty"`
	// Timing overrides single timing constants of the profile.
	Timing *TimingOverrides `json:"timing,omitempty" yaml:"timing,omitempty"`
	Nodes  []Node           `json:"nodes" yaml:"nodes"`
	// Cables are the cables plugged in when the bus powers up. They join
	// the cabled nodes into one bus; a node without a cable is a device
	// that a Connect event plugs in later.
	Cables []Cable `json:"cables" yaml:"cables"`
	// Events is the scenario: what happens to the bus after power-up.
	Events []Event `json:"events,omitempty" yaml:"events,omitempty"`
	// BusManager, when set, has a node manage the bus after each
	// initialisation, as an operating system's FireWire stack does: it
	// picks the root and the gap count and resets the bus again to set
	// them (docs/protocol.md §9.5).
	BusManager *BusManager `json:"bus_manager,omitempty" yaml:"bus_manager,omitempty"`
	// Traffic is what the nodes send once the bus has initialised: the bus
	// then runs on for Options.Until (docs/protocol.md §9.6).
	Traffic []Traffic `json:"traffic,omitempty" yaml:"traffic,omitempty"`

	// source locates items in the file ParseTopology read, so that resolve
	// can name the line of a problem. Empty for a topology built in Go.
	source topologySource
}

// TimingOverrides replaces the profile's value of every constant it sets
// (phy.Timing documents each one); the rest keep the profile's values.
type TimingOverrides struct {
	RootContendFast  *WindowOverride `json:"root_contend_fast,omitempty" yaml:"root_contend_fast,omitempty"`
	RootContendSlow  *WindowOverride `json:"root_contend_slow,omitempty" yaml:"root_contend_slow,omitempty"`
	ResetTime        *Duration       `json:"reset_time,omitempty" yaml:"reset_time,omitempty"`
	ResetWait        *Duration       `json:"reset_wait,omitempty" yaml:"reset_wait,omitempty"`
	ConfigTimeout    *Duration       `json:"config_timeout,omitempty" yaml:"config_timeout,omitempty"`
	ForceRootTimeout *Duration       `json:"force_root_timeout,omitempty" yaml:"force_root_timeout,omitempty"`
	ShortResetTime   *Duration       `json:"short_reset_time,omitempty" yaml:"short_reset_time,omitempty"`
	ConnectTimeout   *Duration       `json:"connect_timeout,omitempty" yaml:"connect_timeout,omitempty"`
	DataPrefix       *Duration       `json:"data_prefix,omitempty" yaml:"data_prefix,omitempty"`
	DataEnd          *Duration       `json:"data_end,omitempty" yaml:"data_end,omitempty"`
	SpeedSignal      *Duration       `json:"speed_signal,omitempty" yaml:"speed_signal,omitempty"`
	RepeatDelay      *Duration       `json:"repeat_delay,omitempty" yaml:"repeat_delay,omitempty"`
	ClockHz          *int64          `json:"clock_hz,omitempty" yaml:"clock_hz,omitempty"`
}

// WindowOverride is a timing window, such as ROOT_CONTEND_FAST.
type WindowOverride struct {
	Min Duration `json:"min" yaml:"min"`
	Max Duration `json:"max" yaml:"max"`
}

// apply returns t with the overridden constants replaced.
func (o *TimingOverrides) apply(t phy.Timing) phy.Timing {
	window := func(w *WindowOverride, into *phy.Window) {
		if w != nil {
			*into = phy.Window{Min: time.Duration(w.Min), Max: time.Duration(w.Max)}
		}
	}
	duration := func(d *Duration, into *time.Duration) {
		if d != nil {
			*into = time.Duration(*d)
		}
	}
	window(o.RootContendFast, &t.RootContendFast)
	window(o.RootContendSlow, &t.RootContendSlow)
	// A value given in the file is the value of every PHY: it pins the
	// range each PHY's value is otherwise drawn from.
	pinned := func(d *Duration, into *time.Duration, r *phy.Window) {
		if d != nil {
			*into, *r = time.Duration(*d), phy.Window{}
		}
	}
	pinned(o.ResetTime, &t.ResetTime, &t.ResetTimeRange)
	duration(o.ResetWait, &t.ResetWait)
	pinned(o.ConfigTimeout, &t.ConfigTimeout, &t.ConfigTimeoutRange)
	pinned(o.ForceRootTimeout, &t.ForceRootTimeout, &t.ForceRootTimeoutRange)
	duration(o.ShortResetTime, &t.ShortResetTime)
	duration(o.ConnectTimeout, &t.ConnectTimeout)
	duration(o.DataPrefix, &t.DataPrefix)
	duration(o.DataEnd, &t.DataEnd)
	duration(o.SpeedSignal, &t.SpeedSignal)
	duration(o.RepeatDelay, &t.RepeatDelay)
	if o.ClockHz != nil {
		t.ClockHz = *o.ClockHz
	}
	return t
}

// Node is one PHY and the link layer above it. Only ID and Ports are
// required; the zero value of every other field is its default.
type Node struct {
	// ID names the node in cables and events: not empty, no ':' and no
	// whitespace, unique on the bus.
	ID string `json:"id" yaml:"id"`
	// Ports is the number of physical ports: at least 1, at most its
	// PHY's MaxPorts (more is out of spec) and never more than 27.
	Ports int `json:"ports" yaml:"ports"`
	// Speed is the PHY's maximum speed: S100, S200, S400 (empty means S400)
	// or S800.
	Speed string `json:"speed,omitempty" yaml:"speed,omitempty"`
	// Link is the self-ID L bit, the link layer being active; nil means true.
	Link *bool `json:"link,omitempty" yaml:"link,omitempty"`
	// Contender is the self-ID c bit: the node can be isochronous resource
	// manager.
	Contender bool `json:"contender,omitempty" yaml:"contender,omitempty"`
	// PowerClass is the self-ID pwr field, 0–7.
	PowerClass int `json:"power_class,omitempty" yaml:"power_class,omitempty"`
	// ForceRoot is RHB set before the first reset: the node holds off in T0
	// to become root.
	ForceRoot bool `json:"force_root,omitempty" yaml:"force_root,omitempty"`
	// GapCount is the PHY's gap count, 0–63; nil means 63, the power-up
	// value.
	GapCount *int `json:"gap_count,omitempty" yaml:"gap_count,omitempty"`
	// UID is the node's numeric identity for the "larger ID wins"
	// root-contention policy; nil means its index in Nodes plus one. Unique
	// on the bus.
	UID *uint64 `json:"uid,omitempty" yaml:"uid,omitempty"`
	// ClockPPM is the PHY clock's frequency error in parts per million; the
	// standard allows ±100.
	ClockPPM float64 `json:"clock_ppm,omitempty" yaml:"clock_ppm,omitempty"`
	// PHY names the PHY's generation when it differs from the bus's
	// profile: "1394-1995", "1394a-2000", "1394b-2002" (a 1394b PHY on
	// legacy ports) or "prism"; empty means the topology's profile.
	PHY string `json:"phy,omitempty" yaml:"phy,omitempty"`
}

// Cable joins two ports, each written "node:port" (port numbers from 0). Its
// propagation delay is given by LengthM (at 5.05 ns/m) or DelayNs, not both;
// with neither the cable is 4.5 m long.
type Cable struct {
	From    string   `json:"from" yaml:"from"`
	To      string   `json:"to" yaml:"to"`
	LengthM *float64 `json:"length_m,omitempty" yaml:"length_m,omitempty"`
	DelayNs *float64 `json:"delay_ns,omitempty" yaml:"delay_ns,omitempty"`
}

// Port names one port of one node, as a cable end: Port{"pc", 0} is "pc:0".
// Built with Node.Port, it keeps the ids of a topology written in Go checked
// by the compiler rather than by Validate.
type Port struct {
	Node  string
	Index int
}

func (p Port) String() string { return p.Node + ":" + strconv.Itoa(p.Index) }

// Port is port i of n.
func (n Node) Port(i int) Port { return Port{n.ID, i} }

// CableBetween is the cable from a to b, with the default length.
func CableBetween(a, b Port) Cable { return Cable{From: a.String(), To: b.String()} }

// Event is one scenario step: exactly one of Connect, Disconnect, Reset and
// PhyConfig, happening At a time after power-up.
type Event struct {
	At Duration `json:"at" yaml:"at"`
	// Connect plugs a cable in; it need not be one of Topology.Cables.
	Connect *Cable `json:"connect,omitempty" yaml:"connect,omitempty"`
	// Disconnect unplugs the cable connected between From and To (either
	// way round) at that time; a disconnect has no length or delay.
	Disconnect *Cable          `json:"disconnect,omitempty" yaml:"disconnect,omitempty"`
	Reset      *ResetEvent     `json:"reset,omitempty" yaml:"reset,omitempty"`
	PhyConfig  *PhyConfigEvent `json:"phy_config,omitempty" yaml:"phy_config,omitempty"`
}

// ResetEvent is a software-initiated bus reset from Node: long (IBR) or, in
// profiles that have it, the arbitrated short reset (ISBR).
type ResetEvent struct {
	Node  string `json:"node" yaml:"node"`
	Short bool   `json:"short,omitempty" yaml:"short,omitempty"`
}

// PhyConfigEvent is Node sending a PHY configuration packet: Root (a node id)
// gets force-root and every other node loses it, GapCount sets every gap
// count. At least one of the two is given.
type PhyConfigEvent struct {
	Node     string `json:"node" yaml:"node"`
	Root     string `json:"root,omitempty" yaml:"root,omitempty"`
	GapCount *int   `json:"gap_count,omitempty" yaml:"gap_count,omitempty"`
}

// BusManager names the node that acts as bus manager, and its policy.
type BusManager struct {
	Node string `json:"node" yaml:"node"`
	// Policy is how it manages: "linux" (the default), as Linux's
	// firewire-core does since 2024, or "linux-short", as it did before:
	// the same decisions, but every reset it asks for is short, even
	// after the gap counts disagreed.
	Policy string `json:"policy,omitempty" yaml:"policy,omitempty"`
}

// Duration is a time after power-up in nanoseconds. It is written as a Go
// duration string ("500µs", "1.5s") and read from such a string ("500us"
// works too) or from an integer number of nanoseconds.
type Duration int64

func (d Duration) String() string { return time.Duration(d).String() }

func errBadDuration(got string) error {
	return fmt.Errorf("want a duration such as 2ms or 500us, or an integer number of nanoseconds, got %s", got)
}

// parseDuration reads a duration string; integers of nanoseconds come as
// numbers, not strings.
func parseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errBadDuration(strconv.Quote(s))
	}
	return Duration(d), nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		v, err := parseDuration(s)
		*d = v
		return err
	}
	var n int64
	if json.Unmarshal(data, &n) != nil {
		return errBadDuration(string(data))
	}
	*d = Duration(n)
	return nil
}

func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str":
			v, err := parseDuration(n.Value)
			*d = v
			return err
		case "!!int":
			var v int64
			if n.Decode(&v) == nil {
				*d = Duration(v)
				return nil
			}
		}
	}
	return errBadDuration(describeNode(n))
}
