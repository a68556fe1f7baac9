// Package mutex runs the classic mutual-exclusion algorithms (a central
// coordinator, Ricart–Agrawala and its majority-voting improvement, the
// token ring) on the nodes of a bus
// topology and the virtual-time runtime of package netsim (netsim.Drive),
// and checks every run for what mutual exclusion promises.
//
// # Running
//
//	topo, _ := bus.Generate("ring:5")
//	res, err := mutex.Run(topo, mutex.Options{Algo: "ricart-agrawala", Requests: 2, CSTime: mutex.Delay})
//	// err is bad input only; a run that deadlocks is a Result that says so.
//	fmt.Println(len(res.Entries), res.Messages.Total, res.Violations, res.Unserved)
//
// Every node of the topology is a process, and every two processes share a
// FIFO link (the algorithms assume that anyone can send to anyone; the
// topology gives the processes, the coordinator and the ring). Messages
// take a delay of up to one time unit drawn from the seed, as in the
// election lab, and are counted by type. Each requesting node asks for the
// critical section Options.Requests times, after a wait drawn from
// [0, Think), stays CSTime, and asks again after another such wait.
// Central's coordinator is Options.Coordinator, or the leader an election
// gives: on a tree the root 1394 tree identify elects from a power-up
// (bus.Run), on any other graph the largest ID, which floodmax elects,
// with IDs ascending along the ring or the topology's order.
//
// # What every run checks
//
// Safety: never two nodes in the critical section (Result.Violations).
// Liveness: every request of a node that did not crash is served, or
// Result.Unserved says what it waits for and why that never comes.
// Ordering: whether entries followed the order of the requests in time,
// and the order of happened-before (vector clocks over every message).
// And the messages per entry, the hops they take on the topology
// (Result.Hops) and the waiting times.
//
// # Faults
//
// Options.Crashes stops nodes at given times (a message to a crashed node
// is counted and lost); Options.Loss loses every message with a
// probability (no algorithm resends); Options.LoseToken loses the token
// ring's token and Options.Regenerate lets a coordinator regenerate it;
// Options.RequestReply is the remedy that lets Ricart–Agrawala go on when
// a process crashes. A run always ends: a deadlock is reported
// (Result.Deadlock), never waited out.
//
// docs/mutex.md describes the model, the algorithms and the figures.
//
// Compare runs every algorithm with the faults each takes; Result.Failed
// is the verdict (mutual exclusion broken, or requests left unserved,
// whatever the fault). The JSON forms are in json.go; package view
// renders the text.
package mutex
