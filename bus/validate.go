package bus

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fwsim/fwsim/phy"
)

// Limits of the format beyond the standard's (docs/protocol.md §9.1, §9.4).
const (
	// selfIDMaxPorts is the most ports self-ID packets can describe (four
	// packets): a hard limit even for out-of-spec runs.
	selfIDMaxPorts = 27
	// powerUpGapCount is a PHY's gap count after power-up (docs/protocol.md §9.2).
	powerUpGapCount = 63
	maxGapCount     = 63
	maxPowerClass   = 7
	// specClockPPM is the clock tolerance the standard allows [U].
	specClockPPM = 100
	// maxClockPPM keeps even out-of-spec clocks meaningful: ±10%.
	maxClockPPM = 100_000
	// specCableDelayNs is the delay of the longest cable the standard
	// allows, 4.5 m at 5.05 ns/m.
	specCableDelayNs = phy.MaxCableLengthM * phy.CableNsPerMetre
	// maxCableDelayNs bounds out-of-spec cables (about 200 km) so virtual
	// times stay far from overflow.
	maxCableDelayNs = 1e6
	// maxEventTime bounds scenario times for the same reason.
	maxEventTime = Duration(time.Hour)
)

// specTolerance absorbs the rounding of decimal lengths: 4.5 m is within
// spec whichever way 4.5 × 5.05 rounds.
const specTolerance = 1e-9

// ResolveOptions tunes how a Topology is checked. The zero value uses the
// file's profile and rejects configurations beyond the spec's limits.
type ResolveOptions struct {
	// Profile overrides the file's profile when not empty.
	Profile string
	// AllowOutOfSpec runs configurations beyond the spec's limits (more
	// ports than the profile's PHYs have, more than 16 hops, cables longer
	// than 4.5 m, clocks beyond ±100 ppm) instead of failing with
	// ErrOutOfSpec; resolve lists why they are out of spec.
	AllowOutOfSpec bool
	// GraphOnly reads the topology as a graph for the election lab, which
	// never runs the bus on it: the limits of 1394's packets (63 nodes, 27
	// ports) and of its timing (16 hops) do not apply, and every check
	// left takes time linear in the topology.
	GraphOnly bool
}

// resolvedTopology is a validated Topology with defaults applied and names
// turned into indices: what the simulation consumes.
type resolvedTopology struct {
	profile phy.Profile
	// phys are the PHY generations on the bus, each with the file's timing
	// overrides applied: the bus's profile first, then those nodes name.
	phys      []phy.Profile
	nodes     []resolvedNode
	cables    []resolvedCable // every cable ever present, index = cable id; scenario connects add theirs
	events    []resolvedEvent // sorted by at, stable
	manager   resolvedManager
	traffic   []resolvedTraffic
	outOfSpec []string // why the configuration is out of spec; empty when within spec
	hasLoop   bool     // the cable graph at t=0 has a cycle (allowed: the run shows config-timeout)
}

type resolvedNode struct {
	id                         string
	ports                      int
	speed                      phy.Speed
	link, contender, forceRoot bool
	powerClass, gapCount       int
	uid                        uint64
	clockPPM                   float64
	phy                        uint8 // its PHY generation: an index of resolvedTopology.phys
}

type portRef struct{ node, port int }

type resolvedCable struct {
	a, b             portRef
	delayNs          int64 // rounded to the nearest ns
	connectedAtStart bool
}

type eventKind uint8

const (
	eventConnect eventKind = iota
	eventDisconnect
	eventReset
	eventPhyConfig
)

type resolvedEvent struct {
	at       int64
	kind     eventKind
	cable    int  // connect/disconnect; -1 otherwise
	node     int  // reset, phy_config: the sender; -1 otherwise
	short    bool // reset: the arbitrated short reset
	root     int  // phy_config: the node to force root; -1: none
	gapCount int  // phy_config: the gap count to set; -1: none
}

// Validate is resolve for users: it reports the first problem, or nil.
// Problems are *TopologyError values wrapping ErrInvalidTopology or, for a
// configuration beyond the spec's limits, ErrOutOfSpec.
func (t *Topology) Validate(o ResolveOptions) error {
	_, err := t.resolve(o)
	return err
}

// resolve checks t and returns the form the simulation runs. Hard errors come
// first, out-of-spec ones last, so that ErrOutOfSpec means allowing it will
// work.
func (t *Topology) resolve(o ResolveOptions) (*resolvedTopology, error) {
	// Sized once: a million nodes rehashed or copied as they grow cost more
	// than the checks.
	rt := &resolvedTopology{nodes: make([]resolvedNode, 0, len(t.Nodes)), cables: make([]resolvedCable, 0, len(t.Cables))}
	r := resolver{t: t, rt: rt, graphOnly: o.GraphOnly, nodeByID: make(map[string]int, len(t.Nodes))}
	if err := r.profile(o.Profile); err != nil {
		return nil, err
	}
	for _, step := range []func() error{r.nodes, r.cables, r.events, r.connected, r.busManager, r.traffic} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if len(r.outOfSpec) > 0 && !o.AllowOutOfSpec {
		first, more := r.outOfSpec[0], ""
		if n := len(r.outOfSpec) - 1; n > 0 {
			more = fmt.Sprintf(", and %d more out-of-spec problem%s", n, pluralSuffix(n))
		}
		return nil, r.fail(ErrOutOfSpec, first.path, "%s (out of spec%s)", first.msg, more)
	}
	for _, p := range r.outOfSpec {
		r.rt.outOfSpec = append(r.rt.outOfSpec, p.path+": "+p.msg)
	}
	return r.rt, nil
}

// resolver holds the state of one resolve.
type resolver struct {
	t         *Topology
	rt        *resolvedTopology
	graphOnly bool
	nodeByID  map[string]int
	cableAt   portTable // the cable plugged into each port, at the time being checked
	// connectedBy is the event that plugged in each cable after
	// Topology.Cables, whose ids are their indices.
	connectedBy []int
	outOfSpec   []specProblem
}

type specProblem struct{ path, msg string }

// item is the path of an item of the file, such as nodes[12] or
// events[3].connect, kept in parts: resolve spells it only to report a
// problem, as a million nodes need no paths.
type item struct {
	list  string // "nodes", "cables" or "events"
	index int
	field string // the part of the item being checked, such as ".connect"
}

// path spells the path of field of the item, such as nodes[12].ports.
func (it item) path(field string) string {
	return it.list + "[" + strconv.Itoa(it.index) + "]" + it.field + field
}

// in is field of the item as an item of its own: events[3] in ".connect"
// is events[3].connect.
func (it item) in(field string) item {
	it.field += field
	return it
}

func (r *resolver) fail(kind error, path, format string, args ...any) error {
	return &TopologyError{File: r.t.source.name, Line: r.t.source.line(path), Path: path, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

func (r *resolver) beyondSpec(path, format string, args ...any) {
	r.outOfSpec = append(r.outOfSpec, specProblem{path, fmt.Sprintf(format, args...)})
}

func pluralSuffix(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (r *resolver) profile(override string) error {
	p, err := phy.LookupProfile(cmp.Or(override, r.t.Profile))
	switch {
	case err != nil && override != "":
		return &TopologyError{Msg: "profile option: " + err.Error(), Kind: ErrUnknownProfile}
	case err != nil:
		return r.fail(ErrUnknownProfile, "profile", "%v", err)
	}
	if p, err = r.withTiming(p); err != nil {
		return err
	}
	r.rt.profile = p
	r.rt.phys = append(r.rt.phys[:0], p)
	return nil
}

// withTiming applies the file's timing overrides, which hold for every PHY
// on the bus, to profile p.
func (r *resolver) withTiming(p phy.Profile) (phy.Profile, error) {
	if r.t.Timing == nil {
		return p, nil
	}
	p.Timing = r.t.Timing.apply(p.Timing)
	if err := p.Timing.Validate(); err != nil {
		var te *phy.TimingError
		if !errors.As(err, &te) {
			return p, r.fail(ErrBadTiming, "timing", "%v", err)
		}
		msg := te.Msg
		if p.Name != r.rt.profile.Name && len(r.rt.phys) > 0 {
			msg += " (for the " + p.Name + " PHYs)"
		}
		return p, r.fail(ErrBadTiming, timingPath(te.Field), "%s", msg)
	}
	return p, nil
}

// nodePHY is the index in resolvedTopology.phys of the PHY generation a
// node names, "" for the bus's profile.
func (r *resolver) nodePHY(name string, it item) (uint8, error) {
	if name == "" {
		return 0, nil
	}
	for k, p := range r.rt.phys {
		if p.Name == name {
			return uint8(k), nil
		}
	}
	p, err := phy.LookupProfile(name)
	if err != nil {
		return 0, r.fail(ErrUnknownProfile, it.path(".phy"), "%v", err)
	}
	if p, err = r.withTiming(p); err != nil {
		return 0, err
	}
	r.rt.phys = append(r.rt.phys, p)
	return uint8(len(r.rt.phys) - 1), nil
}

// timingPath spells a phy.Timing field the way the file does:
// "RootContendFast.Max" is "timing.root_contend_fast.max". TimingOverrides
// and WindowOverride share phy's field names. Only overridden fields can be
// at fault, as every profile is valid, so every name is found.
func timingPath(field string) string {
	path, t := "timing", reflect.TypeFor[TimingOverrides]()
	for name := range strings.SplitSeq(field, ".") {
		f, ok := t.FieldByName(name)
		if !ok {
			break
		}
		path += "." + fieldNames(t)[f.Index[0]]
		if t = f.Type; t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	return path
}

// awaitingConnect lists the nodes with no cable at power-up that a
// scripted connect plugs in later, ascending. Such a node models a device
// plugged in during the run: it does not initialise a bus of its own at
// power-up, which would be a generation of one node ahead of the real
// bus's, shifting every index and the first generation's metrics.
func (rt *resolvedTopology) awaitingConnect() []int {
	cabled := make([]bool, len(rt.nodes))
	for _, c := range rt.cables {
		if c.connectedAtStart {
			cabled[c.a.node], cabled[c.b.node] = true, true
		}
	}
	var out []int
	for _, ev := range rt.events {
		if ev.kind != eventConnect {
			continue
		}
		for _, end := range []portRef{rt.cables[ev.cable].a, rt.cables[ev.cable].b} {
			if !cabled[end.node] && !slices.Contains(out, end.node) {
				out = append(out, end.node)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (r *resolver) nodes() error {
	switch n := len(r.t.Nodes); {
	case n == 0:
		return r.fail(ErrEmptyBus, "nodes", "the bus has no nodes (want 1 to %d)", phy.MaxNodes)
	case n > phy.MaxNodes && !r.graphOnly:
		r.beyondSpec("nodes", "%d nodes, more than %d: phy_ID has 6 bits and 63 is the broadcast address, so the PHYs number themselves 0 to %d but a self-ID packet's phy_ID field says %d from the 64th node on", n, phy.MaxNodes, n-1, phy.NoPhyID)
	}
	// Default uids, index+1, differ from one another: a uid can only repeat
	// a given one, found in a map of the given ones, or a default one,
	// found by its index. No map of a million uids.
	var given map[uint64]int
	forceRoot := -1
	for i, n := range r.t.Nodes {
		it := item{list: "nodes", index: i}
		if n.ForceRoot {
			if forceRoot >= 0 {
				// Two held nodes next to one PHY can keep it in T0 past its
				// CONFIG_TIMEOUT at every reset (docs/protocol.md §4).
				r.beyondSpec(it.path(".force_root"), "nodes %q and %q both have force_root: a PHY configuration packet sets RHB on one node and clears it on every other", r.t.Nodes[forceRoot].ID, n.ID)
			} else {
				forceRoot = i
			}
		}
		rn, err := r.node(n, it)
		if err != nil {
			return err
		}
		if other, ok := r.nodeByID[n.ID]; ok {
			return r.fail(ErrDuplicateNodeID, it.path(".id"), "node id %q is already the id of nodes[%d]", n.ID, other)
		}
		r.nodeByID[n.ID] = i
		other, ok := given[rn.uid]
		if j := rn.uid - 1; rn.uid > 0 && j < uint64(i) && r.t.Nodes[j].UID == nil {
			other, ok = int(j), true
		}
		if ok {
			return r.fail(ErrDuplicateUID, it.path(".uid"), "node %q has uid %d%s, the uid of nodes[%d] %q%s", n.ID, rn.uid, uidOrigin(n), other, r.t.Nodes[other].ID, uidOrigin(r.t.Nodes[other]))
		}
		if n.UID != nil {
			if given == nil {
				given = make(map[uint64]int)
			}
			given[rn.uid] = i
		}
		r.rt.nodes = append(r.rt.nodes, rn)
	}
	r.cableAt = newPortTable(r.rt.nodes)
	return nil
}

// node checks the node it on its own and applies its defaults.
func (r *resolver) node(n Node, it item) (resolvedNode, error) {
	rn := resolvedNode{
		id: n.ID, ports: n.Ports, speed: phy.S400, link: true, contender: n.Contender,
		forceRoot: n.ForceRoot, powerClass: n.PowerClass, gapCount: powerUpGapCount, clockPPM: n.ClockPPM,
	}
	rn.uid = uint64(it.index) + 1
	if n.UID != nil {
		rn.uid = *n.UID
	}
	if err := r.nodeID(n.ID, it); err != nil {
		return rn, err
	}
	var err error
	if rn.phy, err = r.nodePHY(n.PHY, it); err != nil {
		return rn, err
	}
	profile := &r.rt.phys[rn.phy]
	switch {
	case n.Ports < 1:
		return rn, r.fail(ErrBadPortCount, it.path(".ports"), "node %q has %d ports, want at least 1", n.ID, n.Ports)
	case r.graphOnly:
	case n.Ports > selfIDMaxPorts:
		return rn, r.fail(ErrBadPortCount, it.path(".ports"), "node %q has %d ports, more than %d: self-ID packets cannot describe them", n.ID, n.Ports, selfIDMaxPorts)
	case n.Ports > profile.MaxPorts:
		r.beyondSpec(it.path(".ports"), "node %q has %d ports, more than the %d of a %s PHY", n.ID, n.Ports, profile.MaxPorts, profile.Name)
	}
	if n.Speed != "" {
		s, err := phy.ParseSpeed(n.Speed)
		if err != nil {
			return rn, r.fail(ErrUnknownSpeed, it.path(".speed"), "node %q: %v", n.ID, err)
		}
		rn.speed = s
	}
	if n.Link != nil {
		rn.link = *n.Link
	}
	if n.PowerClass < 0 || n.PowerClass > maxPowerClass {
		return rn, r.fail(ErrBadPowerClass, it.path(".power_class"), "node %q has power class %d, want 0 to %d", n.ID, n.PowerClass, maxPowerClass)
	}
	if n.GapCount != nil {
		if *n.GapCount < 0 || *n.GapCount > maxGapCount {
			return rn, r.fail(ErrBadGapCount, it.path(".gap_count"), "node %q has gap count %d, want 0 to %d", n.ID, *n.GapCount, maxGapCount)
		}
		rn.gapCount = *n.GapCount
	}
	switch ppm := math.Abs(n.ClockPPM); {
	case !(ppm <= maxClockPPM): // NaN too
		return rn, r.fail(ErrBadClock, it.path(".clock_ppm"), "node %q has clock_ppm %v, want a number of ppm within ±%d", n.ID, n.ClockPPM, maxClockPPM)
	case ppm > specClockPPM:
		r.beyondSpec(it.path(".clock_ppm"), "node %q has a clock error of %v ppm, beyond the ±%d ppm the standard allows", n.ID, n.ClockPPM, specClockPPM)
	}
	// A fast clock near timing.clock_hz's 1 GHz limit would have edges less
	// than 1 ns apart: the run's clock would fail to build.
	hz := profile.Timing.ClockHz
	if _, err := phy.NewClock(hz, 0, int64(n.ClockPPM*1000)); err != nil {
		return rn, r.fail(ErrBadClock, it.path(".clock_ppm"), "node %q has clock_ppm %v with a %d Hz clock: %v", n.ID, n.ClockPPM, hz, err)
	}
	return rn, nil
}

// uidOrigin says when a node's uid is the default, for error messages.
func uidOrigin(n Node) string {
	if n.UID == nil {
		return " by default (index+1)"
	}
	return ""
}

// maxNodeIDLength bounds node ids, in characters: long enough for any name,
// short enough for a graph label or a column.
const maxNodeIDLength = 64

// nodeIDRule is what a node id may be, for error messages.
const nodeIDRule = "an id is 1 to 64 letters, digits, combining marks and _ - . + / @ #, starting with a letter, a digit or _"

// nodeIDPunctuation are the punctuation characters a node id may hold: none
// needs quoting in DOT, a VCD scope, CSV, YAML or a shell, and none is ':',
// which separates the id from the port in a cable's end.
const nodeIDPunctuation = "_-.+/@#"

// nodeID checks an id against nodeIDRule. Ids reach DOT files, VCD scopes,
// CSV columns and terminals, so anything that would need quoting there, or
// that a terminal would obey or hide (control and format characters,
// invisible letters), is out. A leading '-' would read as a command-line
// flag, a leading '#' or '@' needs quoting in YAML, so ids start with a
// letter, a digit or '_'.
func (r *resolver) nodeID(id string, it item) error {
	if id == "" {
		return r.fail(ErrBadNodeID, it.path(".id"), "node id is empty: %s", nodeIDRule)
	}
	if n := utf8.RuneCountInString(id); n > maxNodeIDLength {
		return r.fail(ErrBadNodeID, it.path(".id"), "node id %s is %d characters long: %s", quoteShort(id), n, nodeIDRule)
	}
	first := true
	for i, c := range id {
		if _, size := utf8.DecodeRuneInString(id[i:]); c == utf8.RuneError && size == 1 {
			return r.fail(ErrBadNodeID, it.path(".id"), "node id %s holds the byte %#x, which is not UTF-8 text: %s", quoteShort(id), id[i], nodeIDRule)
		}
		allowed := unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' ||
			!first && (unicode.IsMark(c) || strings.ContainsRune(nodeIDPunctuation, c))
		if allowed && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, c) {
			first = false
			continue
		}
		what := fmt.Sprintf("%U", c)
		if unicode.IsPrint(c) {
			what = fmt.Sprintf("%q (%U)", c, c)
		}
		if first {
			what += " as its first character"
		}
		return r.fail(ErrBadNodeID, it.path(".id"), "node id %s holds %s: %s", quoteShort(id), what, nodeIDRule)
	}
	return nil
}

func (r *resolver) cables() error {
	for i, c := range r.t.Cables {
		it := item{list: "cables", index: i}
		rc, err := r.cable(c, it)
		if err != nil {
			return err
		}
		rc.connectedAtStart = true
		if _, err := r.plug(rc, it); err != nil {
			return err
		}
	}
	return nil
}

// cable checks a cable on its own: its ends, and its length or delay.
func (r *resolver) cable(c Cable, it item) (resolvedCable, error) {
	var rc resolvedCable
	var err error
	if rc.a, err = r.port(c.From, it, ".from"); err != nil {
		return rc, err
	}
	if rc.b, err = r.port(c.To, it, ".to"); err != nil {
		return rc, err
	}
	// Errors alone name the cable: a million cables need no names.
	name := cableName{c.From, c.To}
	if rc.a.node == rc.b.node {
		return rc, r.fail(ErrSelfCable, it.path(""), "cable %s connects node %q to itself", name, r.t.Nodes[rc.a.node].ID)
	}
	delay := specCableDelayNs
	switch {
	case c.LengthM != nil && c.DelayNs != nil:
		return rc, r.fail(ErrLengthAndDelay, it.path(""), "cable %s gives both length_m and delay_ns: give one", name)
	case c.LengthM != nil:
		m := *c.LengthM
		delay = m * phy.CableNsPerMetre
		if !(m >= 0) || !(delay <= maxCableDelayNs) {
			return rc, r.fail(ErrBadCableLength, it.path(".length_m"), "cable %s has length %v m, want 0 m to %v km", name, m, math.Floor(maxCableDelayNs/phy.CableNsPerMetre/1000))
		}
		if m > phy.MaxCableLengthM+specTolerance {
			r.beyondSpec(it.path(".length_m"), "cable %s is %v m long, longer than the %v m the standard allows", name, m, phy.MaxCableLengthM)
		}
	case c.DelayNs != nil:
		delay = *c.DelayNs
		if !(delay >= 0) || !(delay <= maxCableDelayNs) {
			return rc, r.fail(ErrBadCableLength, it.path(".delay_ns"), "cable %s has delay %v ns, want 0 to %.0f ns", name, delay, float64(maxCableDelayNs))
		}
		if delay > specCableDelayNs+specTolerance {
			r.beyondSpec(it.path(".delay_ns"), "cable %s has a delay of %v ns, more than the %v ns of a %v m cable", name, delay, specCableDelayNs, phy.MaxCableLengthM)
		}
	}
	rc.delayNs = int64(math.Round(delay))
	return rc, nil
}

// cableName names a cable in messages by its two ends.
type cableName struct{ from, to string }

func (c cableName) String() string { return c.from + "–" + c.to }

// port reads a "node:port" reference, the field of the item it.
func (r *resolver) port(ref string, it item, field string) (portRef, error) {
	id, num, ok := strings.Cut(ref, ":")
	port, err := strconv.Atoi(num)
	if !ok || id == "" || err != nil || port < 0 || strings.ContainsAny(num, "+-") {
		return portRef{}, r.fail(ErrBadPortRef, it.path(field), "%q is not a port reference: want node:port, such as pc:0", ref)
	}
	node, ok := r.nodeByID[id]
	if !ok {
		return portRef{}, r.fail(ErrUnknownNode, it.path(field), "%q: no node %q on the bus", ref, id)
	}
	if ports := r.rt.nodes[node].ports; port >= ports {
		return portRef{}, r.fail(ErrPortOutOfRange, it.path(field), "%q: node %q has %s", ref, id, portRange(ports))
	}
	return portRef{node, port}, nil
}

func portRange(ports int) string {
	if ports == 1 {
		return "only port 0"
	}
	return fmt.Sprintf("only ports 0 to %d", ports-1)
}

// plug connects a new cable, created by the item it (a cable of
// Topology.Cables or an event's connect), and returns its id.
func (r *resolver) plug(rc resolvedCable, it item) (int, error) {
	for _, end := range []struct {
		field string
		p     portRef
	}{{".from", rc.a}, {".to", rc.b}} {
		if other := r.cableAt.get(end.p); other >= 0 {
			return 0, r.fail(ErrPortInUse, it.path(end.field), "port %s:%d is already in use by %s", r.t.Nodes[end.p.node].ID, end.p.port, r.origin(other))
		}
	}
	id := len(r.rt.cables)
	r.rt.cables = append(r.rt.cables, rc)
	r.cableAt.set(rc.a, id)
	r.cableAt.set(rc.b, id)
	return id, nil
}

// origin is the path of the item that created cable id.
func (r *resolver) origin(id int) string {
	if id < len(r.t.Cables) {
		return item{list: "cables", index: id}.path("")
	}
	return item{list: "events", index: r.connectedBy[id-len(r.t.Cables)], field: ".connect"}.path("")
}

// portTable holds the cable plugged into each port, -1 for none, in one
// slice indexed by node and port: a map of a million ports misses the
// caches at every lookup. Ports from selfIDMaxPorts up, which only
// graph-only topologies have, are in a map, so that a hub of a million
// ports or a node that claims a billion costs only the ports in use.
type portTable struct {
	first []int   // node v's ports below selfIDMaxPorts are slot[first[v]:first[v+1]]
	slot  []int32 // a cable id: far fewer than 2^31 cables fit in memory
	more  map[portRef]int32
}

func newPortTable(nodes []resolvedNode) portTable {
	first := make([]int, len(nodes)+1)
	for v, n := range nodes {
		first[v+1] = first[v] + min(n.ports, selfIDMaxPorts)
	}
	slot := make([]int32, first[len(nodes)])
	for i := range slot {
		slot[i] = -1
	}
	return portTable{first: first, slot: slot}
}

// get is the cable plugged into p, or -1.
func (t *portTable) get(p portRef) int {
	if p.port < selfIDMaxPorts {
		return int(t.slot[t.first[p.node]+p.port])
	}
	if id, ok := t.more[p]; ok {
		return int(id)
	}
	return -1
}

// set plugs cable id into p, or unplugs p when id is -1.
func (t *portTable) set(p portRef, id int) {
	switch {
	case p.port < selfIDMaxPorts:
		t.slot[t.first[p.node]+p.port] = int32(id)
	case id < 0:
		delete(t.more, p)
	default:
		if t.more == nil {
			t.more = make(map[portRef]int32)
		}
		t.more[p] = int32(id)
	}
}

// connected checks the cables at power-up make one bus, then measures it: its
// loops and its diameter in hops. A node without a cable at power-up is a
// device waiting to be plugged in, allowed when a scenario connect plugs it.
func (r *resolver) connected() error {
	n := len(r.rt.nodes)
	pluggedLater := make([]bool, n)
	cabled, cables := -1, 0 // a node cabled at power-up; cables then
	for _, c := range r.rt.cables {
		if !c.connectedAtStart {
			pluggedLater[c.a.node], pluggedLater[c.b.node] = true, true
			continue
		}
		if cabled < 0 {
			cabled = c.a.node
		}
		cables++
	}
	if cabled < 0 {
		cabled = 0 // no cables: a lone node is a bus
	}
	adjacent := newCableGraph(n, r.rt.cables, func(id int) bool { return r.rt.cables[id].connectedAtStart })
	var reachable hopCounter
	reach := reachable.from(adjacent, cabled)
	size := 0
	for node, h := range reach {
		id := r.rt.nodes[node].id
		switch {
		case h >= 0:
			size++
		case len(adjacent.neighbours(node)) > 0:
			return r.fail(ErrDisconnected, fmt.Sprintf("nodes[%d]", node), "node %q is not connected to node %q: the cables at power-up must join the cabled nodes into one bus", id, r.rt.nodes[cabled].id)
		case !pluggedLater[node]:
			return r.fail(ErrDisconnected, fmt.Sprintf("nodes[%d]", node), "node %q has no cable at power-up and no event connects it", id)
		}
	}
	// A connected graph is a tree exactly when it has one cable fewer than
	// nodes; any more cables close a loop.
	r.rt.hasLoop = cables > size-1
	if !r.graphOnly {
		r.checkHops(adjacent, "cables", "the bus")
	}
	return nil
}

// checkHops measures the longest shortest path, in cable hops, of the cable
// graph adjacent (each part of it when it is split) and reports a bus wider
// than the standard allows as out of spec, naming what at path makes it so.
func (r *resolver) checkHops(adjacent cableGraph, path, what string) {
	ecc := eccentricities(adjacent)
	diameter, from := 0, 0
	for v, e := range ecc {
		if e > diameter {
			diameter, from = e, v
		}
	}
	if diameter > phy.MaxHops {
		var across hopCounter
		to := slices.Index(across.from(adjacent, from), diameter)
		r.beyondSpec(path, "%s is %d cable hops across (from %q to %q), more than the %d the standard allows", what, diameter, r.rt.nodes[from].id, r.rt.nodes[to].id, phy.MaxHops)
	}
}

// Hops is the diameter of the bus at power-up: the most cable hops between
// two nodes its cables join. Errors are Validate's.
func (t *Topology) Hops(o ResolveOptions) (int, error) {
	rt, err := t.resolve(o)
	if err != nil {
		return 0, err
	}
	adjacent := newCableGraph(len(rt.nodes), rt.cables, func(id int) bool { return rt.cables[id].connectedAtStart })
	return slices.Max(append(eccentricities(adjacent), 0)), nil
}

// eccentricities is, per node, the most cable hops to any node of its part
// of the bus. On a part without a loop, two searches from the ends of a
// longest path give every node's (the farthest node from any node is one of
// those ends), so a tree of a million nodes costs three searches; a part
// with a loop takes one search per node.
func eccentricities(adjacent cableGraph) []int {
	n := adjacent.nodes()
	ecc := make([]int, n)
	seen := make([]bool, n)
	var h hopCounter
	for start := range n {
		if seen[start] {
			continue
		}
		h.from(adjacent, start)
		part := slices.Clone(h.queue)
		degrees := 0
		for _, v := range part {
			seen[v] = true
			degrees += len(adjacent.neighbours(v))
		}
		if degrees/2 != len(part)-1 { // a loop
			for _, v := range part {
				h.from(adjacent, v)
				ecc[v] = h.hops[h.queue[len(h.queue)-1]]
			}
			continue
		}
		end := part[len(part)-1] // breadth first: the last is a farthest
		hops := h.from(adjacent, end)
		other := h.queue[len(h.queue)-1]
		for _, v := range part {
			ecc[v] = hops[v]
		}
		hops = h.from(adjacent, other)
		for _, v := range part {
			ecc[v] = max(ecc[v], hops[v])
		}
	}
	return ecc
}

// adjacentNow is the cable graph of the cables plugged in at the time being
// checked.
func (r *resolver) adjacentNow() cableGraph {
	return newCableGraph(len(r.rt.nodes), r.rt.cables, func(id int) bool { return r.cableAt.get(r.rt.cables[id].a) == id })
}

// cableGraph is the graph of some cables: each node's neighbours are a
// stretch of one slice, not a slice per node, as a million nodes would be
// a million small allocations.
type cableGraph struct {
	first []int // node v's neighbours are next[first[v]:first[v+1]]
	next  []int
}

// newCableGraph is the graph on n nodes of the cables whose ids keep
// accepts, each node's neighbours in the order of the cables.
func newCableGraph(n int, cables []resolvedCable, keep func(id int) bool) cableGraph {
	g := cableGraph{first: make([]int, n+1)}
	for id, c := range cables {
		if keep(id) {
			g.first[c.a.node+1]++
			g.first[c.b.node+1]++
		}
	}
	for v := range n {
		g.first[v+1] += g.first[v]
	}
	g.next = make([]int, g.first[n])
	// first[v] is now where node v's stretch starts; filling advances it to
	// where the next node's starts, and one shift puts every start back.
	for id, c := range cables {
		if keep(id) {
			g.next[g.first[c.a.node]] = c.b.node
			g.first[c.a.node]++
			g.next[g.first[c.b.node]] = c.a.node
			g.first[c.b.node]++
		}
	}
	copy(g.first[1:], g.first[:n])
	g.first[0] = 0
	return g
}

func (g cableGraph) nodes() int { return len(g.first) - 1 }

func (g cableGraph) neighbours(v int) []int { return g.next[g.first[v]:g.first[v+1]] }

// hopCounter counts cable hops from a start node to every node by
// breadth-first search (-1 for nodes it cannot reach); queue lists those it
// reached, nearest first. It reuses its buffers and clears only what the
// last search reached, so that a search costs the size of its part of the
// bus.
type hopCounter struct{ hops, queue []int }

func (h *hopCounter) from(adjacent cableGraph, start int) []int {
	if n := adjacent.nodes(); len(h.hops) != n {
		h.hops = make([]int, n)
		for i := range h.hops {
			h.hops[i] = -1
		}
	} else {
		for _, v := range h.queue {
			h.hops[v] = -1
		}
	}
	h.hops[start] = 0
	h.queue = append(h.queue[:0], start)
	for head := 0; head < len(h.queue); head++ {
		node := h.queue[head]
		for _, next := range adjacent.neighbours(node) {
			if h.hops[next] < 0 {
				h.hops[next] = h.hops[node] + 1
				h.queue = append(h.queue, next)
			}
		}
	}
	return h.hops
}

// events checks the scenario in time order against the cables plugged in at
// each event's time.
func (r *resolver) events() error {
	order := make([]int, len(r.t.Events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r.t.Events[a].At, r.t.Events[b].At) })
	for _, i := range order {
		re, err := r.event(r.t.Events[i], item{list: "events", index: i})
		if err != nil {
			return err
		}
		r.rt.events = append(r.rt.events, re)
	}
	return nil
}

func (r *resolver) event(e Event, it item) (resolvedEvent, error) {
	re := resolvedEvent{at: int64(e.At), cable: -1, node: -1, root: -1, gapCount: -1}
	if e.At < 0 || e.At > maxEventTime {
		return re, r.fail(ErrBadEvent, it.path(".at"), "event at %v: want a time from 0 to %v", e.At, maxEventTime)
	}
	var actions []string
	for _, a := range []struct {
		name  string
		given bool
	}{{"connect", e.Connect != nil}, {"disconnect", e.Disconnect != nil}, {"reset", e.Reset != nil}, {"phy_config", e.PhyConfig != nil}} {
		if a.given {
			actions = append(actions, a.name)
		}
	}
	if len(actions) != 1 {
		got := "none"
		if len(actions) > 0 {
			got = strings.Join(actions, " and ")
		}
		return re, r.fail(ErrBadEvent, it.path(""), "event at %v: want exactly one of connect, disconnect, reset and phy_config, got %s", e.At, got)
	}
	var err error
	switch {
	case e.Connect != nil:
		re.kind = eventConnect
		if re.cable, err = r.connect(*e.Connect, it.in(".connect")); err == nil && !r.graphOnly {
			// Every generation's bus must keep to the hop limit, not only
			// the one at power-up.
			r.checkHops(r.adjacentNow(), it.path(".connect"), fmt.Sprintf("after the connect at %v, the bus", e.At))
		}
	case e.Disconnect != nil:
		re.kind = eventDisconnect
		re.cable, err = r.disconnect(*e.Disconnect, it.in(".disconnect"))
	case e.Reset != nil:
		re.kind, re.short = eventReset, e.Reset.Short
		re.node, err = r.eventNode(e.Reset.Node, it.in(".reset"), ".node")
		if p := r.phyOf(re.node); err == nil && e.Reset.Short && !p.ShortReset {
			what := "the " + p.Name + " profile"
			if p.Name != r.rt.profile.Name {
				what = fmt.Sprintf("node %q is a %s PHY, which", e.Reset.Node, p.Name)
			}
			err = r.fail(ErrBadEvent, it.path(".reset.short"), "%s has no short reset (PHYs with one: %s)", what, strings.Join(shortResetProfiles(), ", "))
		}
	case e.PhyConfig != nil:
		re.kind = eventPhyConfig
		re.node, re.root, re.gapCount, err = r.phyConfig(*e.PhyConfig, it.in(".phy_config"))
	}
	if err != nil {
		return re, r.eventError(err, e.At, actions[0])
	}
	return re, nil
}

// eventError makes a problem found in an event an ErrBadEvent that says when
// and what the event was.
func (r *resolver) eventError(err error, at Duration, action string) error {
	var te *TopologyError
	if !errors.As(err, &te) {
		return err
	}
	return &TopologyError{File: te.File, Line: te.Line, Path: te.Path, Msg: fmt.Sprintf("%s at %v: %s", action, at, te.Msg), Kind: ErrBadEvent}
}

func (r *resolver) connect(c Cable, it item) (int, error) {
	rc, err := r.cable(c, it)
	if err != nil {
		return -1, err
	}
	id, err := r.plug(rc, it)
	if err != nil {
		return -1, err
	}
	r.connectedBy = append(r.connectedBy, it.index)
	return id, nil
}

func (r *resolver) disconnect(c Cable, it item) (int, error) {
	if c.LengthM != nil || c.DelayNs != nil {
		return -1, r.fail(ErrBadEvent, it.path(""), "a disconnect names the ports only, not length_m or delay_ns")
	}
	a, err := r.port(c.From, it, ".from")
	if err != nil {
		return -1, err
	}
	b, err := r.port(c.To, it, ".to")
	if err != nil {
		return -1, err
	}
	id := r.cableAt.get(a)
	if id < 0 || r.cableAt.get(b) != id {
		return -1, r.fail(ErrBadEvent, it.path(""), "no cable connects %s and %s at that time", c.From, c.To)
	}
	r.cableAt.set(a, -1)
	r.cableAt.set(b, -1)
	return id, nil
}

// eventNode reads the node id in the field of the event's item it.
func (r *resolver) eventNode(id string, it item, field string) (int, error) {
	node, ok := r.nodeByID[id]
	if !ok {
		return -1, r.fail(ErrBadEvent, it.path(field), "no node %q on the bus", id)
	}
	return node, nil
}

func (r *resolver) phyConfig(pc PhyConfigEvent, it item) (sender, root, gapCount int, err error) {
	root, gapCount = -1, -1
	if sender, err = r.eventNode(pc.Node, it, ".node"); err != nil {
		return
	}
	if pc.Root == "" && pc.GapCount == nil {
		err = r.fail(ErrBadEvent, it.path(""), "a PHY configuration packet sets root, gap_count or both: give at least one")
		return
	}
	if pc.Root != "" {
		if root, err = r.eventNode(pc.Root, it, ".root"); err != nil {
			return
		}
	}
	if pc.GapCount != nil {
		if gapCount = *pc.GapCount; gapCount < 0 || gapCount > maxGapCount {
			err = r.fail(ErrBadEvent, it.path(".gap_count"), "gap count %d, want 0 to %d", gapCount, maxGapCount)
		}
	}
	return
}

// phyOf is node i's PHY generation; the bus's profile for -1.
func (r *resolver) phyOf(i int) *phy.Profile {
	if i < 0 {
		return &r.rt.phys[0]
	}
	return &r.rt.phys[r.rt.nodes[i].phy]
}

func shortResetProfiles() []string {
	var names []string
	for _, p := range phy.Profiles() {
		if p.ShortReset {
			names = append(names, p.Name)
		}
	}
	return names
}
