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

// The solver's limits are set from outside the module through
// explore.Limits: here every cycle is bounded by value iteration instead
// of solved exactly, and the answer says so.
func ExampleLimits() {
	topo, err := bus.Generate("pair")
	if err != nil {
		panic(err)
	}
	res, err := explore.Explore(topo, explore.Options{Limits: explore.Limits{MaxExactFeedback: -1, Precision: 1e-9}})
	if err != nil {
		panic(err)
	}
	fmt.Println("bounded:", res.Bounded, "ok:", res.Outcomes[0].Outcome)
	// Output: bounded: true ok: ok
}
