package bus

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"
)

// scenarioFromBytes builds a valid random bus from data: a random tree of 2
// to 8 nodes, a profile, and up to four scripted events (resets, a
// disconnect, a connect, PHY configurations) during the first
// initialisation, when they hurt most.
func scenarioFromBytes(data []byte) (*Topology, Options) {
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
	return topo, o
}

// FuzzRunScenario runs random valid buses with random scripted events
// through Run and checks the invariants every run must keep.
func FuzzRunScenario(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{3, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0},
		// A reset in tree identify, a disconnect in self identify.
		{4, 0x20, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0x88, 0x8c, 2, 0, 0, 0, 0, 0, 0x20, 0x92, 2, 0, 2, 0, 0, 0},
		// 1394a with a short reset and a connect.
		{5, 0x31, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 0x50, 0x8b, 2, 0, 0x80, 0, 0, 0, 0x90, 0x90, 2, 0, 3, 0, 0, 0, 0, 0x91, 2, 0, 4, 5, 1, 2},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, o := scenarioFromBytes(data)
		o.MaxEvents = 200_000
		res, problems, err := runTraced(topo, o)
		if err != nil {
			t.Fatalf("a generated bus is invalid: %v", err)
		}
		if len(problems) > 0 {
			var events []string
			for _, e := range topo.Events {
				events = append(events, fmt.Sprintf("%+v", e))
			}
			t.Fatalf("%d nodes, profile %q, seed %d, events %s:\n%s\n(%d generations)", len(topo.Nodes), topo.Profile, o.Seed, strings.Join(events, ", "), strings.Join(problems, "\n"), len(res.Generations))
		}
	})
}
