// Package phy models one IEEE 1394 cable PHY: its ports and their
// arbitration line states, its clock, its timing constants, the PHY state
// machine of bus initialisation, and the PHY packets it sends (self-ID, PHY
// configuration, link-on).
//
// # Line states
//
// Each cable port has two twisted pairs, TPA and TPB, and during arbitration
// each carries 0, 1 or Z. A port transmits a LineState (a TPA/TPB pair) and
// receives the resolution of its own drivers with its peer's, the cable
// crossing TPA of one end to TPB of the other: Receive(local, peer). One
// table in linestate.go holds the encoding and both the transmit and the
// receive name of every pair (docs/protocol.md §2).
//
// # The state machine
//
// Machine is a pure state machine in the style of etcd raft: the caller (the
// bus) owns time, refreshes Ports().Rx and calls Step on the PHY's clock
// edges; Step drives Ports().Tx, arms at most one timer (Wake) and queues
// self-ID packets (TakeTransmit). It runs bus reset (R0, R1), hands tree
// identify (T0–T3) to a TreeIdentifier (package treeid), then runs self
// identify (S0–S4) and stops in A0. ExampleMachine (example_test.go; go
// test -run ExampleMachine -v runs it) drives a leaf PHY by hand through its
// reset into tree identify:
//
//	m, err := phy.NewMachine(phy.Config{Ports: 2, Timing: timing, Clock: phy.IdealClock(), TreeID: election})
//	m.Ports().Connected[0] = true
//	m.InitiateReset(0, false)        // R0: BUS_RESET on every connected port
//	m.Ports().Rx[0] = phy.RxBusReset // the neighbour resets too
//	now := m.Wake()                  // RESET_TIME later
//	m.Step(now)                      // R1: IDLE
//	m.Ports().Rx[0] = phy.RxIdle
//	m.Step(now + 1)                  // T0, T1, T2: PARENT_NOTIFY
//
// Several transitions can happen on one clock edge; Trail lists them.
// Enabled tells, changing nothing, whether a Step would change anything:
// half the edges a bus has a PHY evaluate find nothing to do (its own new
// drive resolving on its port, a line state it does not wait for), and the
// bus skips those steps. A PHY
// recognises a neighbour's BUS_RESET whatever it drives itself: it recovers
// the peer's line state from its own drive and the resolved pair
// (PeerLineState, ReceivesBusReset). TakeTransmit hands over self-ID packets
// once they have been sent whole; a reset cuts them off. Receive delivers
// the packets that reach the PHY as counts of quadlets and packet #0s (the
// caller keeps the stream once for every link), and the count of #0s is
// the phy_ID the PHY takes: past 63 on an out-of-spec bus, whose packets
// then carry NoPhyID. Profiles with
// Timing.MaxArbStateTime (1394a) bound T1–T3 and S0–S4 with a watchdog that
// initiates a reset.
//
// # Time
//
// Clock gives the edges of a PHY's own 49.152 MHz clock with a phase and a
// frequency error, in exact integer nanoseconds; timers count its cycles, so
// a timing window becomes the whole cycle counts inside it (CycleWindow).
// IdealClock has an edge every nanosecond, for comparison with
// continuous-time models.
//
// # Packets
//
// SelfID, PhyConfig and LinkOn are quadlets with accessors named after the
// standard's fields (docs/protocol.md §9.1). SelfIDInfo is one node's decoded self-ID
// across its packets; SplitSelfIDs groups a stream of quadlets by node.
package phy
