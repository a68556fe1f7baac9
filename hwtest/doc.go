// Package hwtest is fwsim's hardware path: everything that touches a real
// IEEE 1394 bus. It reads captures of real buses in the formats below,
// reads the local bus through Linux's firewire-cdev (and a USB capture
// device), cross-checks a real bus against its emulation, and reads logic
// analyzers' captures of the line states. Its results have JSON forms
// (json.go: DecodeJSON, CrosscheckJSON, ProbeJSON, LinestatesJSON) for the
// command line's --json; package view renders them as text.
//
// # Captures
//
// Parse reads a capture in one of the Formats (Detect names it): raw hex
// quadlets with or without inverses, Linux firewire_ohci debug log lines,
// Linux firewire tracepoint text, the old ieee1394 stack's log lines, Apple
// FireBug text exports, nosy-dump -x output, FreeBSD fwcontrol -t tables
// (lossy), FireSpy quadlets files, Data Transit analyzer text, and
// TOPOLOGY_MAP dumps, any of them quoted in mail ("> " on every line).
// Each bus reset in the capture is a Generation: its self-ID quadlets, inverses removed, and the
// Problems reading found (a wrong inverse, a count that disagrees). Bad
// input is a *ParseError naming the line and the field; nothing panics.
//
//	gens, err := hwtest.Parse(data, "") // "" detects the format
//	b := hwtest.Decode(gens[0])         // nodes, tree, hops, IRM, gap counts
//	for _, p := range b.Problems { fmt.Println(p) }
//
// Decode splits the self-IDs into nodes with package phy and builds the
// tree with treeid.Build, the checks Linux's firewire core makes (docs/protocol.md §9.3);
// it adds the gap-count and hop-count checks. ReadCapture reads a capture
// into a Capture, the decoded bus of each of its resets; WriteTopologyOf
// writes the last one that forms a tree as a topology file, what decode
// --emit-topology writes.
//
// # Cross-check
//
// Bus.Topology turns a decoded bus into a bus.Topology (nodes node-a,
// node-b … for phy_IDs 0, 1 …, with their self-ID fields, one cable per
// parent–child link, no root forced), with the profile and per-node PHY
// generations its self-IDs show (Bus.PHYs). Cross emulates it, or a
// topology of the caller's, with the observed initiators, and lists every
// difference as a Diff: node, field, real and emulated value. A root the
// emulation elects differently is one RootDiff, and the nodes are then
// compared with the captured root forced. With CrossOptions.Odds it gives
// the Likelihood of the captured root and self-ID order, the Odds of the
// bus with no root forced: exact, from an exploration (package explore)
// within OddsOptions.MaxStates, or estimated from OddsRuns Monte Carlo
// runs with their Wilson intervals. A CrossResult is the cross-check of
// one generation of a capture.
//
// # Line states
//
// ReadLines reads a logic analyzer's capture of the TPA/TPB comparators as
// sigrok exports it (a VCD, read through internal/vcd's Scanner, or a CSV)
// into each port's received line states, a LineCapture; WriteSigrokVCD
// writes fwsim's own sigrok-dialect VCD of a run, which ReadLines reads
// back. EmulatedLines gives the line states of an emulated run,
// CompareLines compares the two reset by reset, and a LineReport holds a
// capture and its comparison.
//
// # Devices
//
// Probe reads the bus through a Linux firewire-cdev device file (/dev/fwN of
// the local node, found through sysfs is_local): GET_INFO for the generation
// and node IDs, then the TOPOLOGY_MAP in the longest reads the link's speed
// allows, again when the kernel says a bus reset ended the generation. The Device
// interface stands between the probe logic and the ioctls, so FakeDevice
// runs it in tests; OpenDevice is the real thing on Linux (amd64, arm64),
// built on golang.org/x/sys/unix without cgo.
//
// The USB path (build tag gousb, github.com/google/gousb) reads a capture
// device that streams self-ID quadlets over a bulk endpoint; ParseUSBStream
// documents the stream. Without the tag, OpenUSB returns ErrNoUSB.
// docs/hardware.md says what was verified on hardware: nothing yet.
package hwtest
