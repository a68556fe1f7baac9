package election_test

import (
	"fmt"
	"log"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/election"
)

// Run Chang–Roberts on a ring in its worst arrangement and count messages.
func Example() {
	topo, err := bus.Generate("ring:5")
	if err != nil {
		log.Fatal(err)
	}
	res, err := election.Run(topo, election.Options{
		Algo:       "chang-roberts",
		IDOrder:    election.Descending, // each ID travels until a larger one
		UnitDelays: true,                // every message takes one time unit
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("leader %s (id %d), %d messages, %g %s\n",
		res.Leader, res.LeaderID, res.Messages.Total, res.Time, res.TimeUnit)
	// Output:
	// leader n0 (id 5), 15 messages, 5 delays
}

// Compare the tree algorithms with 1394 tree identify on one tree.
func Example_compare() {
	topo, err := bus.Generate("tree:6:2")
	if err != nil {
		log.Fatal(err)
	}
	for _, algo := range []string{"echo", "tree-min", "1394"} {
		res, err := election.Run(topo, election.Options{Algo: algo, Seed: 1})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8s leader %s, %d messages (%v)\n", algo, res.Leader, res.Messages.Total, res.Messages.ByType)
	}
	// Output:
	// echo     leader n5, 15 messages ([{EXPLORER 5} {ECHO 6} {INFO 4}])
	// tree-min leader n0, 15 messages ([{WAKEUP 5} {PROPOSAL 6} {WINNER 4}])
	// 1394     leader n0, 21 messages ([{BUS_RESET 5} {PARENT_NOTIFY 11} {CHILD_NOTIFY 5}])
}

// An algorithm on a topology it does not support is an error.
func ExampleRun_unsupported() {
	topo, _ := bus.Generate("tree:4")
	_, err := election.Run(topo, election.Options{Algo: "lelann"})
	fmt.Println(err)
	// Output:
	// unsupported topology: lelann needs a ring, got a tree of 4 nodes
}
