package explore_test

import (
	"fmt"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/explore"
)

// A conformance test proves that no instant of a hot plug breaks a bus:
// the topology's disconnect is moved to every clock edge of a window
// during tree identify, and every reachable outcome is ok.
func ExampleExplore() {
	topo, err := bus.LoadTopology("../examples/unplug-window.yaml")
	if err != nil {
		panic(err)
	}
	res, err := explore.Explore(topo, explore.Options{
		Bus:   bus.Options{Seed: 1},
		Space: bus.ChoiceSpace{EventWindow: &bus.Window{From: 168_000, To: 168_200}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("complete:", res.Complete)
	for _, o := range res.Outcomes {
		fmt.Println(o.Outcome, o.P)
	}
	// Output:
	// complete: true
	// ok 1
}
