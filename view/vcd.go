package view

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/phy"
)

// VCDDialect is the flavour of VCD a waveform is written in: the text
// signals (PHY states, line state names, phases, back-offs, self-IDs) have
// no IEEE 1364 type, and the viewers disagree on how to carry them.
type VCDDialect uint8

const (
	// VCDGTKWave, the default, writes the text signals as GTKWave string
	// variables, which GTKWave shows as text. sigrok skips them, with a
	// warning for each.
	VCDGTKWave VCDDialect = iota
	// VCDSigrok writes what a logic analyzer with window comparators on
	// every pair would record, for PulseView and sigrok-cli: per port and
	// pair two one-bit channels, <node>.p<n>.tpa.hi (the pair is driven to
	// 1) and <node>.p<n>.tpa.lo (driven to 0), both 0 for Z; the levels are
	// those the port receives, the resolved pair on the cable at that port.
	// libsigrok names a channel by its variable alone, without the scopes,
	// and reads Z as 0, so each variable carries the whole name and a pair
	// takes two channels. Nothing else is in it: the states, phases,
	// back-offs and self-IDs are text, which a logic analyzer does not
	// record (the GTKWave dialect and the JSONL trace have them).
	VCDSigrok
)

// VCDDialects lists the dialects, the default first.
func VCDDialects() []VCDDialect { return []VCDDialect{VCDGTKWave, VCDSigrok} }

func (d VCDDialect) String() string {
	switch d {
	case VCDGTKWave:
		return "gtkwave"
	case VCDSigrok:
		return "sigrok"
	}
	return fmt.Sprintf("VCDDialect(%d)", uint8(d))
}

// VCDOptions sets how WriteVCDWith writes; the zero value is WriteVCD's.
type VCDOptions struct {
	Dialect VCDDialect // VCDGTKWave unless set
}

// WriteVCD writes a run as an IEEE 1364 Value Change Dump at a 1 ns
// timescale in the GTKWave dialect (see VCDDialect; WriteVCDWith writes the
// others). res gives the nodes, the generations and the root-contention
// back-offs; trace, recorded with Options.Observer during the same run,
// gives every signal change. Every generation of the run is in the one
// file. The header records the seed and how the run was set, and holds no
// date, so the same run gives the same bytes.
//
// Scopes and variables (text is a string variable; see
// docs/reading-a-bus-reset.md for a walkthrough):
//
//	bus.scenario             the last scripted event
//	bus.gen<i>               generation i's phase: reset, tree_id, self_id, then its outcome
//	<node>.state             the PHY state, R0 … A0
//	<node>.backoff           during a root-contention wait: fast_<ns> or slow_<ns>
//	<node>.self_id           self-ID packets as they reach the node: p<port>:<hex> (link: its own)
//	<node>.p<n>.tpa_tx       what port n drives on TPA: 0, 1 or z
//	<node>.p<n>.tpb_tx       … on TPB
//	<node>.p<n>.line_tx      the transmitted line state's name (PARENT_NOTIFY, …)
//	<node>.p<n>.tpa_rx       the resolved TPA value port n receives
//	<node>.p<n>.tpb_rx       … TPB
//	<node>.p<n>.line_rx      the received line state's name (ROOT_CONTENTION/GRANT, …)
//
// Nodes come in phy_ID order of the first generation they belong to. A
// node's scope is its id, with any character outside printable ASCII, and
// '.', written as the %XX of its UTF-8 bytes ("caf%C3%A9" for café).
func WriteVCD(w io.Writer, res *bus.Result, trace []bus.TraceEvent) error {
	return WriteVCDWith(w, res, trace, VCDOptions{})
}

// WriteVCDWith is WriteVCD in the dialect opts asks for (see VCDDialect).
func WriteVCDWith(w io.Writer, res *bus.Result, trace []bus.TraceEvent, opts VCDOptions) error {
	vw := vcd.NewWriter(w)
	switch opts.Dialect {
	case VCDGTKWave:
	case VCDSigrok:
		return hwtest.WriteSigrokVCD(w, res, trace)
	default:
		return fmt.Errorf("%w: VCD dialect %d", bus.ErrInvalidOptions, opts.Dialect)
	}
	if err := vw.Comment(res.Summary()); err != nil {
		return err
	}
	v, err := declareVCD(vw, res, trace)
	if err != nil {
		return err
	}
	if err := vw.EndDefinitions(); err != nil {
		return err
	}
	end := res.EndNs
	if res.Traffic != nil {
		end = max(end, res.Traffic.EndNs)
	}
	return vw.WriteChanges(v.changes(res, trace), end)
}

// vcdPort holds the variables of one port.
type vcdPort struct{ tpaTx, tpbTx, lineTx, tpaRx, tpbRx, lineRx vcd.Var }

type vcdNode struct {
	state, backoff, selfID vcd.Var
	// bus is what the node sees on the bus after initialisation, declared
	// only for a run with traffic (bus.TraceBus).
	bus   vcd.Var
	ports []vcdPort
}

type vcdVars struct {
	scenario vcd.Var
	gens     []vcd.Var
	nodes    map[string]*vcdNode
}

// declareVCD declares the variables of the GTKWave dialect.
func declareVCD(vw *vcd.Writer, res *bus.Result, trace []bus.TraceEvent) (*vcdVars, error) {
	v := &vcdVars{nodes: map[string]*vcdNode{}}
	var err error
	declare := func(k vcd.Kind, name, initial string) vcd.Var {
		if err != nil {
			return -1
		}
		x, e := vw.Declare(k, name, initial)
		err = e
		return x
	}
	text := func(name, initial string) vcd.Var { return declare(vcd.String, name, initial) }
	scope := func(name string) {
		if err == nil {
			err = vw.Scope(name)
		}
	}
	upscope := func() {
		if err == nil {
			err = vw.Upscope()
		}
	}
	scope("bus")
	v.scenario = text("scenario", "-")
	for i := range res.Generations {
		v.gens = append(v.gens, text("gen"+strconv.Itoa(i), "-"))
	}
	upscope()
	traffic := slices.ContainsFunc(trace, func(e bus.TraceEvent) bool { return e.Kind == bus.TraceBus })
	for _, n := range bus.TracedNodes(res, trace) {
		vn := &vcdNode{}
		v.nodes[n.ID] = vn
		scope(vcd.ScopeName(n.ID))
		vn.state = text("state", n.State.String())
		vn.backoff = text("backoff", "-")
		vn.selfID = text("self_id", "-")
		if traffic {
			vn.bus = text("bus", "-")
		}
		for p := range n.Ports {
			scope("p" + strconv.Itoa(p))
			vn.ports = append(vn.ports, vcdPort{
				tpaTx:  declare(vcd.Wire, "tpa_tx", "z"),
				tpbTx:  declare(vcd.Wire, "tpb_tx", "z"),
				lineTx: text("line_tx", vcd.Text(phy.TxIdle.TxName())),
				tpaRx:  declare(vcd.Wire, "tpa_rx", "z"),
				tpbRx:  declare(vcd.Wire, "tpb_rx", "z"),
				lineRx: text("line_rx", vcd.Text(phy.RxIdle.RxName())),
			})
			upscope()
		}
		upscope()
	}
	return v, err
}

// changes lists every value change of the run in time order: the trace's,
// and the generation phases and back-offs res holds.
func (v *vcdVars) changes(res *bus.Result, trace []bus.TraceEvent) []vcd.VarChange {
	out := make([]vcd.VarChange, 0, 3*len(trace)) // a line state change is three
	var scratch []byte
	packets := map[string]string{}
	add := func(at int64, x vcd.Var, value string) {
		out = append(out, vcd.VarChange{At: at, Var: x, Value: value})
	}
	for i, e := range trace {
		if e.Kind == bus.TraceScenario {
			add(e.TimeNs, v.scenario, vcd.Text(e.Detail))
			continue
		}
		n := v.nodes[e.Node]
		switch e.Kind {
		case bus.TraceState:
			add(e.TimeNs, n.state, e.ToState.String())
		case bus.TraceBus:
			add(e.TimeNs, n.bus, vcd.Text(e.Detail))
		case bus.TraceTransmit:
			p := n.ports[e.Port]
			add(e.TimeNs, p.tpaTx, e.ToLine.A().String())
			add(e.TimeNs, p.tpbTx, e.ToLine.B().String())
			add(e.TimeNs, p.lineTx, vcd.Text(e.ToLine.TxName()))
		case bus.TraceReceive:
			p := n.ports[e.Port]
			add(e.TimeNs, p.tpaRx, e.ToLine.A().String())
			add(e.TimeNs, p.tpbRx, e.ToLine.B().String())
			add(e.TimeNs, p.lineRx, vcd.Text(e.ToLine.RxName()))
		case bus.TracePacket:
			// The quadlets of one transmission arrive together: one value.
			if prev := trace[max(i-1, 0)]; i > 0 && prev.Kind == bus.TracePacket && prev.TimeNs == e.TimeNs &&
				prev.Node == e.Node && prev.Port == e.Port {
				last := &out[len(out)-1]
				last.Value = string(appendHex32(append([]byte(last.Value), '+'), uint32(e.Packet)))
				continue
			}
			// A packet reaches every node: thousands of values on a large
			// bus, but few distinct ones, each made into a string once.
			scratch = scratch[:0]
			if e.Port >= 0 {
				scratch = strconv.AppendInt(append(scratch, 'p'), int64(e.Port), 10)
			} else {
				scratch = append(scratch, "link"...)
			}
			scratch = appendHex32(append(scratch, ':'), uint32(e.Packet))
			value, ok := packets[string(scratch)]
			if !ok {
				value = string(scratch)
				packets[value] = value
			}
			add(e.TimeNs, n.selfID, value)
		}
	}
	for i := range res.Generations {
		g := &res.Generations[i]
		for _, ph := range generationPhases(g) {
			add(ph.at, v.gens[i], ph.phase)
		}
		for _, c := range g.Contention {
			for _, b := range c.Backoffs {
				n := v.nodes[b.Node]
				start := g.StartNs + b.StartNs
				add(start, n.backoff, fastOrSlow(b.Fast)+"_"+strconv.FormatInt(b.WaitNs, 10)+"ns")
				add(start+b.WaitNs, n.backoff, "-")
			}
		}
	}
	slices.SortStableFunc(out, func(a, b vcd.VarChange) int { return cmp.Compare(a.At, b.At) })
	return out
}

// phaseStart is where a generation enters a phase.
type phaseStart struct {
	at    int64  // ns since power-up
	phase string // as bus.gen<i> shows it: reset, tree_id, self_id, then the outcome
}

// generationPhases lists the phases g entered, in order: a generation that
// stopped in a phase has no later ones, and no outcome.
func generationPhases(g *bus.Generation) []phaseStart {
	out := []phaseStart{{g.StartNs, "reset"}}
	for _, ph := range []struct {
		rel   int64
		phase string
	}{{g.Timing.ResetEnd, "tree_id"}, {g.Timing.TreeIDDone, "self_id"}, {g.Timing.SelfIDDone, string(g.Outcome)}} {
		if ph.rel >= 0 {
			out = append(out, phaseStart{g.StartNs + ph.rel, ph.phase})
		}
	}
	return out
}

func fastOrSlow(fast bool) string {
	if fast {
		return "fast"
	}
	return "slow"
}
