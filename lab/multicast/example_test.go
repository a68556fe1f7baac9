package multicast_test

import (
	"fmt"
	"log"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/multicast"
)

// The weakness of negative acknowledgements: a member finds a lost message
// only when a later one arrives, so a loss at the end of the stream goes
// unnoticed. The sender's repeated stop signal, carrying the last number,
// reveals it.
func Example() {
	topo, err := bus.Generate("ring:5") // the sender n0 and members n1 to n4
	if err != nil {
		log.Fatal(err)
	}
	for _, stop := range []bool{false, true} {
		res, err := multicast.Run(topo, multicast.Options{Algo: "nack", Messages: 5, Loss: 0.3, Seed: 1, Stop: stop})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("stop signal %v:", stop)
		for _, m := range res.Members {
			fmt.Printf(" %s %d/%d", m.Node, m.Delivered, m.Expected)
		}
		fmt.Printf("; violated: %v\n", res.Violated())
	}
	// Output:
	// stop signal false: n1 4/5 n2 4/5 n3 5/5 n4 5/5; violated: true
	// stop signal true: n1 5/5 n2 5/5 n3 5/5 n4 5/5; violated: false
}
