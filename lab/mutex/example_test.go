package mutex_test

import (
	"fmt"
	"log"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/mutex"
)

// The textbook example of Ricart and Agrawala (Tanenbaum & van Steen): two
// processes ask for the critical section at once, n1 with timestamp 8 and
// n0 with 12; n2 does not want it. n1 enters first; n0's request waits in
// n1's queue, and n1's REPLY lets n0 in when n1 leaves.
func Example() {
	topo, err := bus.Generate("chain:3") // processes n0, n1, n2
	if err != nil {
		log.Fatal(err)
	}
	res, err := mutex.Run(topo, mutex.Options{
		Algo:       "ricart-agrawala",
		Requesters: []string{"n0", "n1"},
		Clocks:     map[string]int64{"n0": 11, "n1": 7}, // the next request is stamped 12 and 8
		CSTime:     mutex.Delay,
		Seed:       1,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.Entries {
		fmt.Printf("%s (timestamp %d) enters at %.3f, leaves at %.3f\n", e.Node, e.Stamp, e.Entered, e.Left)
	}
	fmt.Printf("%d messages, %g per entry = 2(n-1)\n", res.Messages.Total, res.PerEntry)
	// Output:
	// n1 (timestamp 8) enters at 1.799, leaves at 2.799
	// n0 (timestamp 12) enters at 2.905, leaves at 3.905
	// 8 messages, 4 per entry = 2(n-1)
}
