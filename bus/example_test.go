package bus_test

import (
	"fmt"
	"log"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// Build a bus in Go, initialise it, and read the outcome.
func Example() {
	topo := &bus.Topology{
		Nodes: []bus.Node{
			{ID: "pc", Ports: 3},
			{ID: "camera", Ports: 1},
			{ID: "disk", Ports: 2},
		},
		Cables: []bus.Cable{
			{From: "pc:0", To: "camera:0"},
			{From: "pc:1", To: "disk:0"},
		},
	}
	res, err := bus.Run(topo, bus.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	g := res.Generations[0]
	fmt.Println("outcome:", g.Outcome, "root:", g.Root)
	for _, n := range g.Nodes {
		fmt.Printf("phy_ID %d: %s, parent port %d\n", n.PhyID, n.ID, n.ParentPort)
	}
	// Output:
	// outcome: ok root: pc
	// phy_ID 0: camera, parent port 0
	// phy_ID 1: disk, parent port 0
	// phy_ID 2: pc, parent port -1
}

// A conformance test asserts on the self-ID packets every link received.
// The bus powered up with one PHY last, drawn from the seed: its self-ID
// alone carries i, the initiated-reset bit.
func Example_selfIDs() {
	topo, err := bus.Generate("chain:3")
	if err != nil {
		log.Fatal(err)
	}
	res, err := bus.Run(topo, bus.Options{Seed: 7})
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range res.Generations[0].SelfIDs {
		fmt.Printf("%08x  %v\n", uint32(q), q)
	}
	// Output:
	// 807f8060  phy 0 #0 L gap 63 S400 pwr 0 p0:ncon p1:parent p2:absent
	// 817f8092  phy 1 #0 L gap 63 S400 pwr 0 p0:parent p1:ncon p2:absent i
	// 827f80f0  phy 2 #0 L gap 63 S400 pwr 0 p0:child p1:child p2:absent
}

// Root contention on the classic two-node bus, with every back-off.
func Example_rootContention() {
	topo, err := bus.Generate("pair")
	if err != nil {
		log.Fatal(err)
	}
	res, err := bus.Run(topo, bus.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	c := res.Generations[0].Contention[0]
	fmt.Printf("%s and %s contended for %d rounds; %s became the root\n", c.Nodes[0], c.Nodes[1], c.Rounds, c.Parent)
	for _, b := range c.Backoffs {
		fmt.Printf("%s waited %s %d ns\n", b.Node, map[bool]string{true: "fast", false: "slow"}[b.Fast], b.WaitNs)
	}
	// Output:
	// a and b contended for 3 rounds; a became the root
	// b waited slow 590 ns
	// a waited slow 590 ns
	// a waited slow 590 ns
	// b waited slow 590 ns
	// b waited fast 244 ns
	// a waited slow 590 ns
}

// A trace records every state change, line-state change and packet; a test
// can look for the moment a node entered root contention.
func Example_trace() {
	topo, err := bus.Generate("pair")
	if err != nil {
		log.Fatal(err)
	}
	var trace bus.Trace
	if _, err := bus.Run(topo, bus.Options{Seed: 3, Observer: trace.Record}); err != nil {
		log.Fatal(err)
	}
	for _, e := range trace.Events {
		if e.Kind == bus.TraceState && e.ToState == phy.T3RootContention {
			fmt.Println(e)
			break
		}
	}
	// Output:
	// 166725 ns b        state T2 → T3
}
