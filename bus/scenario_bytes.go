package bus

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwsim/fwsim/phy"
)

// ScenarioFromBytes builds a valid random bus from data, for the fuzz
// targets of bus and of every package above it that needs buses with
// events, timing overrides and unusual ids. It reads data as
// little-endian 32-bit words (missing words read as 0):
//
//	head        nodes 2 + head%7; bit 8: 1394a-2000; bit 9: ideal clock;
//	            (head>>12)%5 events
//	tree, seed  the random tree's seed and the run's
//	per event   its time in the first initialisation, when events hurt
//	            most, and its kind (reset, disconnect, connect,
//	            phy_config) with its arguments
//	timing      one word per TimingOverrides field, in order: 0 keeps the
//	            profile's value, any other picks a value the standard
//	            allows (scenarioTiming)
//	per node    its fields (scenarioNode; force root on the first node
//	            that asks), then its uid; 0 keeps defaults
//	per cable   length_m or delay_ns within 4.5 m (scenarioCable): the
//	            cables at power-up, then a connect event's
//	ids         0 keeps n0, n1, …; any other draws every id from the
//	            characters ids may hold (scenarioIDs)
//	manager     0 for none; any other puts a bus manager on node
//	            (v>>2)%nodes, with a PHY of 1394a or later, policy by v%3
//	            (default, linux, linux-short)
//	traffic     v%4 traffic items, the bus then running 300 µs after
//	            initialisation; each one word (scenarioTraffic)
//
// Words are read in this order, so inputs that end early mean the defaults
// and keep the scenarios they gave before fields were added.
func ScenarioFromBytes(data []byte) (*Topology, Options) {
	next := func() uint32 {
		var b [4]byte
		n := copy(b[:], data)
		data = data[n:]
		return binary.LittleEndian.Uint32(b[:])
	}
	head := next()
	topo := treeTopology(2+int(head%7), uint64(next()))
	if head&0x100 != 0 {
		topo.Profile = "1394a-2000"
		debounce := Duration(time.Microsecond) // keeps a connect inside the run
		topo.Timing = &TimingOverrides{ConnectTimeout: &debounce}
	}
	o := Options{Seed: uint64(next()), IdealClock: head&0x200 != 0}
	node := func(v uint32) string { return topo.Nodes[int(v)%len(topo.Nodes)].ID }
	disconnected, connected := false, false
	for range (head >> 12) % 5 {
		v := next()
		at := Duration(v % 180000) // power-up to the end of self identify
		switch op := next(); op % 5 {
		case 0, 1:
			topo.Events = append(topo.Events, Event{At: at, Reset: &ResetEvent{Node: node(op >> 8), Short: topo.Profile != "" && op&0x80 != 0}})
		case 2:
			if !disconnected {
				disconnected = true
				last := topo.Cables[len(topo.Cables)-1]
				topo.Events = append(topo.Events, Event{At: at, Disconnect: &Cable{From: last.From, To: last.To}})
			}
		case 3:
			if !connected {
				connected = true
				port := freePort(topo)
				topo.Nodes = append(topo.Nodes, Node{ID: "plugged", Ports: 1 + int(op>>8)%3})
				topo.Events = append(topo.Events, Event{At: at, Connect: &Cable{From: port, To: "plugged:0"}})
			}
		case 4:
			gap := int(op>>8) % 64
			topo.Events = append(topo.Events, Event{At: at, PhyConfig: &PhyConfigEvent{Node: node(op >> 16), Root: node(op >> 24), GapCount: &gap}})
		}
	}
	scenarioTiming(topo, next)
	forceRoot := false
	for i := range topo.Nodes {
		scenarioNode(&topo.Nodes[i], next())
		// One force-root node at most, as a PHY configuration packet leaves it.
		topo.Nodes[i].ForceRoot = topo.Nodes[i].ForceRoot && !forceRoot
		forceRoot = forceRoot || topo.Nodes[i].ForceRoot
		if u := next(); u != 0 {
			// Above every default uid (index+1), and unique by the index.
			uid := uint64(u)<<8 | uint64(i)
			topo.Nodes[i].UID = &uid
		}
	}
	// A short reset comes from a PHY that has one.
	for _, e := range topo.Events {
		if e.Reset != nil && e.Reset.Short {
			p := cmp.Or(topo.Nodes[slices.IndexFunc(topo.Nodes, func(n Node) bool { return n.ID == e.Reset.Node })].PHY, topo.Profile)
			e.Reset.Short = p != "" && p != "1394-1995"
		}
	}
	for i := range topo.Cables {
		scenarioCable(&topo.Cables[i], next())
	}
	for _, e := range topo.Events {
		if e.Connect != nil {
			scenarioCable(e.Connect, next())
		}
	}
	if v := next(); v != 0 {
		scenarioIDs(topo, v)
	}
	if v := next(); v != 0 {
		// A bus manager on a node whose link it turns on, with either
		// policy, and whose PHY loads the PHY configuration packets it
		// sends: a 1394-1995 PHY does not, and never agrees with the gap
		// count it sends the others (docs/protocol.md §9.5).
		n := &topo.Nodes[int(v>>2)%len(topo.Nodes)]
		n.Link = nil
		if cmp.Or(n.PHY, topo.Profile, "1394-1995") == "1394-1995" {
			n.PHY = "1394a-2000"
		}
		topo.BusManager = &BusManager{Node: n.ID, Policy: []string{"", string(ManagerLinux), string(ManagerLinuxShort)}[v%3]}
	}
	if v := next(); v%4 != 0 {
		for range v % 4 {
			scenarioTraffic(topo, next())
		}
		o.Until = 300 * time.Microsecond
	}
	return topo, o
}

// scenarioTraffic adds a traffic item from word v: bit 0 a talker, else
// requests, or pings with bit 29 on a 1394a bus; the node (v>>1)%nodes,
// the destination the next one; the payload (v>>8)%513 bytes; the speed
// S100 with bit 17, else the fastest; a new request or ping every
// (v>>18)%64 µs, 0 keeping one always waiting; retries (v>>24)%4, from 0
// with bit 28. It turns on the links it needs.
func scenarioTraffic(topo *Topology, v uint32) {
	n := int(v>>1) % len(topo.Nodes)
	node := &topo.Nodes[n]
	node.Link = nil
	tr := Traffic{Node: node.ID}
	speed := ""
	if v&(1<<17) != 0 {
		speed = "S100"
	}
	every := Duration(v>>18%64) * Duration(time.Microsecond)
	if v&1 != 0 {
		tr.Iso = &IsoTraffic{Bytes: int(v>>8) % 513, Speed: speed}
	} else if to := &topo.Nodes[(n+1)%len(topo.Nodes)]; v&(1<<29) != 0 && pings(topo, node, to) {
		tr.Ping = &PingTraffic{To: to.ID}
		if every > 0 {
			tr.Ping.Every = &every
		}
	} else {
		to := &topo.Nodes[(n+1)%len(topo.Nodes)]
		to.Link = nil
		tr.Async = &AsyncTraffic{To: to.ID, Size: int(v>>8) % 513, Speed: speed}
		if every > 0 {
			tr.Async.Every = &every
		}
		if v&(1<<28) != 0 {
			retries := int(v>>24) % 4
			tr.Async.Retries = &retries
		}
	}
	topo.Traffic = append(topo.Traffic, tr)
}

// scenarioTiming overrides each timing constant whose word is not 0 with a
// value within the standard's ranges (docs/protocol.md §6), or one of the
// profiles' windows: the runs must stay correct.
func scenarioTiming(topo *Topology, next func() uint32) {
	ns := func(v uint32, least, span int64) *Duration {
		d := Duration(least + int64(v)%span)
		return &d
	}
	var fast, slow []*WindowOverride
	for _, p := range phy.Profiles() {
		f, s := p.Timing.RootContendFast, p.Timing.RootContendSlow
		fast = append(fast, &WindowOverride{Min: Duration(f.Min), Max: Duration(f.Max)})
		slow = append(slow, &WindowOverride{Min: Duration(s.Min), Max: Duration(s.Max)})
	}
	for _, field := range []func(tm *TimingOverrides, v uint32){
		func(tm *TimingOverrides, v uint32) { tm.RootContendFast = fast[v%uint32(len(fast))] },
		func(tm *TimingOverrides, v uint32) { tm.RootContendSlow = slow[v%uint32(len(slow))] },
		func(tm *TimingOverrides, v uint32) { tm.ResetTime = ns(v, 166600, 201) },
		func(tm *TimingOverrides, v uint32) { tm.ResetWait = ns(v, 166860, 200) },
		func(tm *TimingOverrides, v uint32) { tm.ConfigTimeout = ns(v, 166600, 201) },
		func(tm *TimingOverrides, v uint32) { tm.ForceRootTimeout = ns(v, 83300, 83401) },
		func(tm *TimingOverrides, v uint32) { tm.ShortResetTime = ns(v, 1260, 141) },
		// At most 10 µs: a connect debounced that long still happens in the run.
		func(tm *TimingOverrides, v uint32) { tm.ConnectTimeout = ns(v, 1000, 9000) },
		func(tm *TimingOverrides, v uint32) { tm.DataPrefix = ns(v, 100, 101) },
		func(tm *TimingOverrides, v uint32) { tm.DataEnd = ns(v, 200, 101) },
		func(tm *TimingOverrides, v uint32) { tm.RepeatDelay = ns(v, 1, 144) },
		func(tm *TimingOverrides, v uint32) {
			hz := []int64{24576000, 49152000, 98304000}[v%3]
			tm.ClockHz = &hz
		},
		func(tm *TimingOverrides, v uint32) { tm.SpeedSignal = ns(v, 100, 21) },
	} {
		if v := next(); v != 0 {
			if topo.Timing == nil {
				topo.Timing = &TimingOverrides{}
			}
			field(topo.Timing, v)
		}
	}
}

// scenarioNode sets a node's fields from f unless f is 0: bits 0–1 speed,
// 2 no link, 3 contender, 4–6 power class, 7 force root, 8 a gap count of
// bits 9–14, bits 16–23 a clock error within ±100 ppm, and bits 24–25 its
// PHY's generation (none, 1394-1995, 1394a-2000, 1394b-2002): a mixed bus.
func scenarioNode(n *Node, f uint32) {
	if f == 0 {
		return
	}
	n.Speed = []string{"S400", "S100", "S200", "S800"}[f&3]
	if f&4 != 0 {
		n.Link = new(bool)
	}
	n.Contender = f&8 != 0
	n.PowerClass = int(f>>4) & 7
	n.ForceRoot = f&0x80 != 0
	if f&0x100 != 0 {
		gap := int(f>>9) & 63
		n.GapCount = &gap
	}
	n.ClockPPM = float64(max(int8(f>>16), -127)) * 100 / 127 // -128 would be beyond -100
	n.PHY = []string{"", "1394-1995", "1394a-2000", "1394b-2002"}[f>>24&3]
}

// scenarioCable gives a cable a length (bit 0 clear) or a delay within the
// 4.5 m the standard allows, unless c is 0.
func scenarioCable(cable *Cable, c uint32) {
	switch {
	case c == 0:
	case c&1 == 0:
		m := float64(c>>1%451) / 100
		cable.LengthM = &m
	default:
		d := float64(c>>1%2273) / 100
		cable.DelayNs = &d
	}
}

// scenarioIDs renames every node with an id drawn, seeded by v, from the
// characters ids may hold: letters of several scripts, a combining mark and
// the punctuation. The index, in ASCII digits the drawn part never holds,
// ends each id and keeps them unique.
func scenarioIDs(topo *Topology, v uint32) {
	first := []rune("aZ_éжλ日")
	rest := append(slices.Clone(first), []rune("\u0301_-.+/@#")...)
	r := rand.New(rand.NewPCG(uint64(v), 0))
	rename := map[string]string{}
	for i := range topo.Nodes {
		id := []rune{first[r.IntN(len(first))]}
		for range r.IntN(8) {
			id = append(id, rest[r.IntN(len(rest))])
		}
		rename[topo.Nodes[i].ID] = string(id) + strconv.Itoa(i)
		topo.Nodes[i].ID = rename[topo.Nodes[i].ID]
	}
	port := func(ref *string) {
		id, p, _ := strings.Cut(*ref, ":")
		*ref = rename[id] + ":" + p
	}
	cable := func(c *Cable) {
		if c != nil {
			port(&c.From)
			port(&c.To)
		}
	}
	for i := range topo.Cables {
		cable(&topo.Cables[i])
	}
	for _, e := range topo.Events {
		cable(e.Connect)
		cable(e.Disconnect)
		if e.Reset != nil {
			e.Reset.Node = rename[e.Reset.Node]
		}
		if pc := e.PhyConfig; pc != nil {
			pc.Node, pc.Root = rename[pc.Node], rename[pc.Root]
		}
	}
}

// words packs a scenario's words (see ScenarioFromBytes) as fuzz input.
func words(w ...uint32) []byte {
	var b []byte
	for _, x := range w {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// ScenarioSeeds are the seeds of the fuzz targets that run scenarios: a few
// event sequences, then two that set every field a scenario can
// (TestScenarioSeedsReachEveryField).
var ScenarioSeeds = [][]byte{
	{},
	{3, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0},
	// A reset in tree identify, a disconnect in self identify.
	{4, 0x20, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0x88, 0x8c, 2, 0, 0, 0, 0, 0, 0x20, 0x92, 2, 0, 2, 0, 0, 0},
	// 1394a with a short reset and a connect.
	{5, 0x31, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 0x50, 0x8b, 2, 0, 0x80, 0, 0, 0, 0x90, 0x90, 2, 0, 3, 0, 0, 0, 0, 0x91, 2, 0, 4, 5, 1, 2},
	// Four nodes in 1394a-2000 (head%7 = 2) with a short reset, a
	// disconnect, a connect of a fifth node and a PHY configuration; every
	// timing constant; node fields, two words per node; a cable with a
	// length, one with a delay, one as it is, the connect's with a length;
	// drawn ids; and a bus manager of the policy before 2024.
	words(0x4101, 5, 9,
		40000, 0x82, 90000, 2, 120000, 0x102, 150000, 0x2010704,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
		1|4|8|7<<4|0x80|0x100|5<<9|0x7f<<16|3<<24, 1, 2|3<<4|0x81<<16|1<<24, 2, 3, 3, 0x100|63<<9, 4, 4, 5,
		100<<1, 1|2272<<1, 0, 300<<1,
		7, 1<<2|1),
	// The same bus with a connect by delay.
	words(0x4101, 5, 9,
		40000, 0x82, 90000, 2, 120000, 0x102, 150000, 0x2010704,
		2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1|500<<1, 0, 0, 1|100<<1,
		0),
	// Five nodes, their first one the root as a contender, with traffic:
	// requests at S100 every 20 µs with 2 retries, a talker, and requests
	// kept always waiting.
	words(3, 2, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		8|0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0,
		3, 2<<1|100<<8|1<<17|20<<18|2<<24|1<<28, 1|3<<1|64<<8|1<<17, 4<<1|512<<8),
	// The same bus in 1394a-2000 (head bit 8) with a ping every 30 µs.
	words(0x106, 2, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		8|0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0,
		1, 1<<1|30<<18|1<<29),
}

// pings reports whether both nodes have 1394a PHYs or later, which send
// and answer pings.
func pings(topo *Topology, nodes ...*Node) bool {
	for _, n := range nodes {
		if cmp.Or(n.PHY, topo.Profile, "1394-1995") == "1394-1995" {
			return false
		}
	}
	return true
}

// freePort adds a port to n0 when it has none free and returns one that is.
func freePort(topo *Topology) string {
	used := map[string]bool{}
	for _, c := range topo.Cables {
		used[c.From], used[c.To] = true, true
	}
	for _, n := range topo.Nodes {
		for p := range n.Ports {
			if ref := fmt.Sprintf("%s:%d", n.ID, p); !used[ref] {
				return ref
			}
		}
	}
	topo.Nodes[0].Ports++
	return fmt.Sprintf("%s:%d", topo.Nodes[0].ID, topo.Nodes[0].Ports-1)
}
