// Package player writes the page that plays a run: one self-contained HTML
// file (its data as JSON, its script and style inline, nothing fetched)
// that draws a graph of nodes and edges and replays, on a time axis, every
// change to it: a node's state and badge, what each end of an edge drives
// and receives, messages in flight, and notes, each explained in words.
//
// The page computes the state after every event once, keeping it whole
// every 256 events, so that a seek applies at most 256 of them: a bus of 63
// nodes or an election of 10,000 messages moves with the slider. A slider,
// play and pause, a speed, steps to the next and previous event (the
// arrow keys too) and the phases of the axis (click to zoom) move the
// cursor; a link ending in #t=T opens at instant T, and the page keeps its
// address at the instant shown. Printed, it shows the graph and the event
// at the cursor without the controls.
//
// The page knows nothing of buses or labs: package view turns their
// results and traces into a Page. It imports nothing of fwsim.
package player
