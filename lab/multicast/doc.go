// Package multicast is the reliable group communication lab: one sender
// multicasts a stream of numbered messages to every other node of a bus,
// over a medium that loses packets, and the run checks what each member
// delivered.
//
// It runs on the virtual time of package netsim (netsim.Drive), which
// draws every message's delay, at most one unit, from the seed. The medium
// (medium.go) carries the packets: on the bus (MediumBus, the default) a
// packet travels the topology's spanning tree (netsim.Graph.SpanningTree),
// a multicast crossing every cable toward its addressees once and a
// unicast the cables of its path, and a cable that loses it cuts off every
// addressee behind it; on the mesh (MediumMesh) every two nodes share a
// link and a multicast is a packet per addressee. Whether a crossing loses
// its packet is a hash of the seed, the packet (type, value, sender,
// addressee, attempt) and the cable, so that a seed gives one run and two
// algorithms that send the same packet over the same cable lose it alike.
//
// The algorithms:
//
//   - ack: positive acknowledgements. The sender knows every member; each
//     member acknowledges every message (ACK), and the sender retransmits
//     (RETRANS) to the members that have not acknowledged within a round
//     trip, two delays, giving a member up after MaxTries sendings.
//   - nack: negative acknowledgements. A member that receives a message
//     with a higher number than the next it expects has found a gap and
//     asks the sender for what is missing (NACK); the sender retransmits.
//     A loss at the end of the stream shows no gap and goes undetected;
//     Options.Stop makes the sender repeat a stop signal (STOP) carrying
//     the last number every two delays, which reveals it.
//   - srm: Scalable Reliable Multicast. NACKs and repairs go to the whole
//     group; a member waits a random back-off before it asks, and puts its
//     NACK off when it hears another's for the same message (request
//     suppression); any node that holds the message repairs it, after a
//     back-off, unless another's repair comes first (repair suppression).
//     The run counts the NACKs and repairs suppression spared.
//   - vsync: virtual synchrony. The group has numbered views; within one,
//     the stream goes as in ack. A failure detector (heartbeats among the
//     members, a timeout), a join or a leave makes the coordinator, the
//     oldest member, change the view by a flush: every survivor freezes
//     and reports its prefix, the coordinator gathers the longest (the
//     cut) and forwards it to whoever lacks part of it, then installs the
//     next view. A view change is a barrier: every message is delivered in
//     the view it was sent in, by every member that survives the view or
//     by none.
//
// Every run checks its guarantees: that every member delivered a prefix of
// the stream, in order and once each, and that every member alive at the
// end delivered the whole stream when the sender stayed alive; vsync
// checks instead that the members agreed on the views, and delivered, per
// view, the same messages, in the view they were sent in.
//
// Sources: Tanenbaum & van Steen, Distributed Systems, the section on
// reliable multicasting (positive and negative feedback, and the scaling
// problem of feedback implosion); Floyd, Jacobson, Liu, McCanne and Zhang,
// "A Reliable Multicast Framework for Light-weight Sessions and
// Application Level Framing", IEEE/ACM Transactions on Networking, 1997,
// for SRM and for why a receiver must learn the last sequence number to
// detect a loss at the tail; Birman and Joseph, "Exploiting Virtual
// Synchrony in Distributed Systems", SOSP 1987, for the flush.
//
// Compare runs every algorithm with the options each takes; the JSON forms
// are in json.go; package view renders the text.
package multicast
