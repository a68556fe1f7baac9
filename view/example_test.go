package view_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/view"
)

// Save the waveform of a run, as a conformance test might for a failing
// case: trace the run, then write the VCD. Here, the variables of node a.
func ExampleWriteVCD() {
	topo, err := bus.Generate("pair")
	if err != nil {
		log.Fatal(err)
	}
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 7, Observer: trace.Record})
	if err != nil {
		log.Fatal(err)
	}
	var vcd bytes.Buffer // an *os.File in a test that keeps it
	if err := view.WriteVCD(&vcd, res, trace.Events); err != nil {
		log.Fatal(err)
	}
	inA := false
	for _, line := range strings.Split(vcd.String(), "\n") {
		inA = inA || line == "$scope module a $end"
		if inA && strings.HasPrefix(line, "$var") {
			fmt.Println(line)
		}
	}
	// Output:
	// $var string 1 / state $end
	// $var string 1 2 backoff $end
	// $var string 1 3 self_id $end
	// $var wire 1 4 tpa_tx $end
	// $var wire 1 5 tpb_tx $end
	// $var string 1 6 line_tx $end
	// $var wire 1 7 tpa_rx $end
	// $var wire 1 8 tpb_rx $end
	// $var string 1 9 line_rx $end
}

// The same run for PulseView and sigrok-cli, as a logic analyzer with
// window comparators would record it: two channels per pair (driven to 1,
// driven to 0; Z is both 0), named in full.
func ExampleWriteVCDWith() {
	topo, err := bus.Generate("pair")
	if err != nil {
		log.Fatal(err)
	}
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 7, Observer: trace.Record})
	if err != nil {
		log.Fatal(err)
	}
	var vcd bytes.Buffer
	if err := view.WriteVCDWith(&vcd, res, trace.Events, view.VCDOptions{Dialect: view.VCDSigrok}); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(vcd.String(), "\n") {
		if strings.HasPrefix(line, "$var") && strings.Contains(line, " a.") {
			fmt.Println(line)
		}
	}
	// Output:
	// $var wire 1 ' a.p0.tpa.hi $end
	// $var wire 1 ( a.p0.tpa.lo $end
	// $var wire 1 ) a.p0.tpb.hi $end
	// $var wire 1 * a.p0.tpb.lo $end
}

// The event trace as JSON lines: the run's settings, then every event.
func ExampleWriteTraceJSONL() {
	topo, err := bus.Generate("pair")
	if err != nil {
		log.Fatal(err)
	}
	var trace bus.Trace
	res, err := bus.Run(topo, bus.Options{Seed: 7, Observer: trace.Record})
	if err != nil {
		log.Fatal(err)
	}
	if err := view.WriteTraceJSONL(os.Stdout, res, trace.Events[:3]); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"time_ns":0,"kind":"run","seed":7,"profile":"1394-1995","policy":"coin","coin_bias":0.5,"timing":"random","clock":"cycle","force_root":null,"power_up":"one","initiators":["a"]}
	// {"time_ns":12,"kind":"state","node":"a","port":null,"from":"A0","to":"R0"}
	// {"time_ns":12,"kind":"tx","node":"a","port":0,"from":"IDLE","to":"BUS_RESET","from_signals":"(z,z)","to_signals":"(1,1)"}
	// {"time_ns":12,"kind":"rx","node":"a","port":0,"from":"IDLE","to":"BUS_RESET","from_signals":"(z,z)","to_signals":"(1,1)"}
}

// The bus as Graphviz DOT; dot -Tsvg draws it. Tracing is not needed.
func ExampleWriteDOT() {
	topo, err := bus.Generate("chain:2")
	if err != nil {
		log.Fatal(err)
	}
	res, err := bus.Run(topo, bus.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	if err := view.WriteDOT(os.Stdout, res); err != nil {
		log.Fatal(err)
	}
	// Output:
	// digraph fwsim {
	//   label="fwsim run: seed 1, profile 1394-1995, policy coin, coin bias 0.5, timing random, clock cycle, first reset power-up of n1, the last PHY of the bus";
	//   labelloc=t;
	//   rankdir=BT;
	//   node [shape=box, fontname="Helvetica"];
	//   edge [fontname="Helvetica", fontsize=10, labeldistance=2, labelangle=35];
	//   subgraph cluster_g0 {
	//     label="generation 0 at 15 ns (power-up of n1, the last PHY of the bus): ok";
	//     "g0/n1" [label="n1\nphy_ID 0"];
	//     "g0/n0" [label="n0\nphy_ID 1, root", peripheries=2, style=bold];
	//     "g0/n1:p1" [label="p1 ncon", shape=plaintext, fontsize=10];
	//     "g0/n1" -> "g0/n1:p1" [style=dashed, arrowhead=none];
	//     "g0/n0:p0" [label="p0 ncon", shape=plaintext, fontsize=10];
	//     "g0/n0" -> "g0/n0:p0" [style=dashed, arrowhead=none];
	//     "g0/n1" -> "g0/n0" [taillabel="p0", headlabel="p1"];
	//   }
	// }
}
