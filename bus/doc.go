// Package bus is the world in which PHYs initialise a bus: the topology
// (what users write), the event kernel on virtual time, cables, scripted
// scenarios, and the Result of a run.
//
// # Running a bus
//
// A Topology is declarative: nodes with their ports and self-ID fields,
// cables between ports, and optional scripted events (connect, disconnect,
// reset, phy_config). Load one from YAML or JSON (LoadTopology,
// ReadTopology, ParseTopology), generate one (Generate: chain, star, tree,
// pair, ring, complete) or take DefaultTopology. Run validates it, builds
// the runtime world privately, and emulates:
//
//	topo, _ := bus.Generate("tree:20:3")
//	res, err := bus.Run(topo, bus.Options{Seed: 7})
//	// err is bad input only; res.Generations[0].Outcome says how the bus fared.
//
// At time 0 the bus powers up as Options.PowerUp says (powerup.go): by
// default it is up but for one PHY, drawn from the seed or named by
// Options.Initiators, which powers up last and resets it; PowerUpAll
// resets every PHY at once, PowerUpStaggered brings them up one by one. A
// node with no cable that a scripted connect plugs in later
// (Result.AwaitingConnect) joins the bus then, rather than initialising a
// bus of its own first. A node may name its own PHY generation
// (Node.PHY): each PHY runs its own profile's timing and rules. Each
// scripted event then happens at its time (a short reset and a PHY
// configuration packet once the bus is idle, as arbitration allows), and
// every bus reset is a new Generation: root, nodes in phy_ID order
// (Generation.Node finds one), self-IDs, phase times and every root
// contention with its back-offs. Generation.Cause says what began it, and
// Result.CausedBy finds the generations a scripted event began. A node the
// topology names bus manager (Topology.BusManager, busmanager.go) acts
// after each generation as Linux's firewire-core does, and may reset the
// bus again to set the root and the gap count (Generation.Manager).
//
// With traffic (Topology.Traffic) or Options.Until, the bus then runs on
// after its last generation (arbitration.go, docs/protocol.md §9.6): the
// root sends a cycle start every 125 µs when it can be cycle master,
// talkers send once a cycle, requests win the bus by fair arbitration once
// their node has seen a subaction gap and are acknowledged, and where the
// gap count is too small for the bus's round trip transmissions collide.
// Result.Traffic holds what it carried; a Simulator gives its totals
// (Metrics.Traffic).
//
// In Go, Node.Port and CableBetween name cable ends through the nodes, so
// that a typo in an id is a compile error:
//
//	pc, camera := bus.Node{ID: "pc", Ports: 3}, bus.Node{ID: "camera", Ports: 1}
//	topo := &bus.Topology{Nodes: []bus.Node{pc, camera},
//		Cables: []bus.Cable{bus.CableBetween(pc.Port(0), camera.Port(0))}}
//
// # Time
//
// Durations are time.Duration in Options and in phy.Timing. A topology's
// times (Event.At, the timing block) are Duration, a time.Duration that
// reads and writes as text such as "2ms" in files (convert with
// time.Duration(d)). The instants of a Result (fields ending in Ns) are
// int64 nanoseconds since power-up, the numbers a VCD and a JSONL trace
// show, and phase times are int64 ns after the generation's StartNs: an
// instant is not a duration, and keeping the same integers as the views
// lets a test compare them directly. A generation whose bus did not
// initialise correctly says so in its Outcome and Problems; nothing is
// smoothed over. Events may fall at any instant: a reset in tree or self
// identify, a cable change mid-packet, a PHY configuration during a reset
// (it waits for the bus to be idle, as a link's packet does). Each PHY draws
// its RESET_TIME, CONFIG_TIMEOUT and FORCE_ROOT_TIMEOUT from the standard's
// ranges unless Options.NominalTimers is set.
//
// # How time passes
//
// Kernel orders events by time, then by when each was queued (its
// origin), then by sequence number, so that events of one nanosecond run
// in a fixed order; it keeps those due within a few microseconds on a
// timing wheel and the later ones in a 4-ary heap, or, while only a
// handful are pending (a small bus), all in one sorted array. The world
// schedules four kinds of
// things on it: a PHY evaluating its inputs on a clock edge; a PHY's timer
// expiring; the end of a self-ID transmission; and scripted events. A line
// state is no event of its own: sent, it waits in the far port's inbox,
// and the evaluation of the receiver's first edge at or after its arrival
// is queued then, where the arrival would have queued it
// (Kernel.ScheduleAsOf), unless it resolves, against what the receiver
// drives, to what the port receives already: such a quiet line state
// queues nothing until the receiver drives something else. Every
// evaluation first takes what has arrived by its instant, so a PHY
// evaluating an edge sees every line state that arrived at or before it,
// whenever that evaluation was queued; and where the PHY says a step would
// change nothing (phy.Machine.Enabled: half the evaluations of a 63-node
// run), none is made. A PHY's
// self-ID packets reach every link after the cable and repeat delays on the
// way: without tracing they are not walked cable by cable, the
// cable forest (forest.go) gives those times from the tree's distances,
// and each link counts its generation's stream, kept once. Randomness comes from per-node PCG streams derived from
// Options.Seed, so the same seed gives the same Result.
//
// # Following choices
//
// A Follower (follow.go) runs the same bus again and again along given
// choices (coins, waits, clock phases, the time of the scripted events)
// and stops at the first choice past them, with the key of the state
// there: what package explore builds its state graph from. Each such stop
// can be saved (Snapshot, snapshot.go: a copy of everything a run
// changes), and FollowFrom goes on from it instead of from power-up.
//
// # Watching
//
// Options.Observer receives every state change, line-state change, packet
// arrival and scripted event as a TraceEvent; Trace collects them.
//
// The views of a run (VCD, GTKWave, the JSON-lines trace, DOT, SVG, the
// text report) are in package view, which reads a Result and its trace;
// bus knows no view. Its own outputs are the run's JSON form (ResultJSON)
// and the schema version and metric names every JSON output uses.
package bus
