package bus

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/phy"
)

// WriteVCD writes a run as an IEEE 1364 Value Change Dump at a 1 ns
// timescale, for GTKWave, PulseView or sigrok (these two show the wires and
// skip the string variables, which they have no type for). res gives the
// nodes, the generations and the root-contention back-offs; trace, recorded with
// Options.Observer during the same run, gives every signal change. Every
// generation of the run is in the one file. The header records the seed and
// how the run was set, and holds no date, so the same run gives the same
// bytes.
//
// Scopes and variables (strings are GTKWave string variables; see
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
// Nodes come in phy_ID order of the first generation they belong to.
func WriteVCD(w io.Writer, res *Result, trace []TraceEvent) error {
	vw := vcd.NewWriter(w)
	if err := vw.Comment(runSummary(res)); err != nil {
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
	for _, c := range v.changes(res, trace) {
		if err := vw.Change(c.at, c.v, c.value); err != nil {
			return err
		}
		end = max(end, c.at)
	}
	return vw.Finish(end)
}

// runSummary is one line that reproduces the run: its seed and settings.
func runSummary(res *Result) string {
	s := fmt.Sprintf("fwsim run: seed %d, profile %s, policy %s, coin bias %g, timing %s, clock %s",
		res.Seed, res.Profile, res.Policy, res.CoinBias, res.Corner, clockName(res.IdealClock))
	if res.ForceRoot != "" {
		s += ", force root " + res.ForceRoot
	}
	if len(res.Initiators) > 0 {
		s += ", initiators " + strings.Join(res.Initiators, " ")
	}
	return s
}

// vcdPort holds the variables of one port.
type vcdPort struct{ tpaTx, tpbTx, lineTx, tpaRx, tpbRx, lineRx vcd.Var }

type vcdNode struct {
	state, backoff, selfID vcd.Var
	ports                  []vcdPort
}

type vcdVars struct {
	scenario vcd.Var
	gens     []vcd.Var
	nodes    map[string]*vcdNode
}

// viewNode is a node as the views list it.
type viewNode struct {
	id    string
	ports int
	state phy.State // before the first trace event
}

// viewNodes lists the nodes of a run: in phy_ID order of the first
// generation each belongs to, then any the trace alone names.
func viewNodes(res *Result, trace []TraceEvent) []viewNode {
	var out []viewNode
	index := map[string]int{}
	add := func(id string, ports int, state phy.State) {
		if i, ok := index[id]; ok {
			out[i].ports = max(out[i].ports, ports)
			return
		}
		index[id] = len(out)
		out = append(out, viewNode{id: id, ports: ports, state: state})
	}
	for _, g := range res.Generations {
		for _, n := range g.Nodes {
			add(n.ID, len(n.Ports), n.State)
		}
	}
	for _, e := range trace {
		if e.Node != "" {
			add(e.Node, e.Port+1, e.FromState)
		}
	}
	// A node's state before the run is where its first state change left
	// from.
	seen := map[string]bool{}
	for _, e := range trace {
		if e.Kind == TraceState && !seen[e.Node] {
			seen[e.Node] = true
			out[index[e.Node]].state = e.FromState
		}
	}
	return out
}

func declareVCD(vw *vcd.Writer, res *Result, trace []TraceEvent) (*vcdVars, error) {
	v := &vcdVars{nodes: map[string]*vcdNode{}}
	var err error
	declare := func(k vcd.Kind, name, initial string) vcd.Var {
		var x vcd.Var
		if err == nil {
			x, err = vw.Declare(k, name, initial)
		}
		return x
	}
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
	v.scenario = declare(vcd.String, "scenario", "-")
	for i := range res.Generations {
		v.gens = append(v.gens, declare(vcd.String, "gen"+strconv.Itoa(i), "-"))
	}
	upscope()
	for _, n := range viewNodes(res, trace) {
		vn := &vcdNode{}
		v.nodes[n.id] = vn
		scope(n.id)
		vn.state = declare(vcd.String, "state", n.state.String())
		vn.backoff = declare(vcd.String, "backoff", "-")
		vn.selfID = declare(vcd.String, "self_id", "-")
		for p := range n.ports {
			scope("p" + strconv.Itoa(p))
			vn.ports = append(vn.ports, vcdPort{
				tpaTx:  declare(vcd.Wire, "tpa_tx", "z"),
				tpbTx:  declare(vcd.Wire, "tpb_tx", "z"),
				lineTx: declare(vcd.String, "line_tx", vcd.Text(phy.TxIdle.TxName())),
				tpaRx:  declare(vcd.Wire, "tpa_rx", "z"),
				tpbRx:  declare(vcd.Wire, "tpb_rx", "z"),
				lineRx: declare(vcd.String, "line_rx", vcd.Text(phy.RxIdle.RxName())),
			})
			upscope()
		}
		upscope()
	}
	return v, err
}

// vcdChange is one value change before the changes are put in time order.
type vcdChange struct {
	at    int64
	v     vcd.Var
	value string
}

// changes lists every value change of the run in time order: the trace's,
// and the generation phases and back-offs res holds.
func (v *vcdVars) changes(res *Result, trace []TraceEvent) []vcdChange {
	out := make([]vcdChange, 0, 3*len(trace)) // a line state change is three
	add := func(at int64, x vcd.Var, value string) {
		out = append(out, vcdChange{at, x, value})
	}
	for i, e := range trace {
		if e.Kind == TraceScenario {
			add(e.TimeNs, v.scenario, vcd.Text(e.Detail))
			continue
		}
		n := v.nodes[e.Node]
		switch e.Kind {
		case TraceState:
			add(e.TimeNs, n.state, e.ToState.String())
		case TraceTransmit:
			p := n.ports[e.Port]
			add(e.TimeNs, p.tpaTx, e.ToLine.A().String())
			add(e.TimeNs, p.tpbTx, e.ToLine.B().String())
			add(e.TimeNs, p.lineTx, vcd.Text(e.ToLine.TxName()))
		case TraceReceive:
			p := n.ports[e.Port]
			add(e.TimeNs, p.tpaRx, e.ToLine.A().String())
			add(e.TimeNs, p.tpbRx, e.ToLine.B().String())
			add(e.TimeNs, p.lineRx, vcd.Text(e.ToLine.RxName()))
		case TracePacket:
			q := fmt.Sprintf("%08x", uint32(e.Packet))
			// The quadlets of one transmission arrive together: one value.
			if prev := trace[max(i-1, 0)]; i > 0 && prev.Kind == TracePacket && prev.TimeNs == e.TimeNs &&
				prev.Node == e.Node && prev.Port == e.Port {
				out[len(out)-1].value += "+" + q
				continue
			}
			from := "link"
			if e.Port >= 0 {
				from = "p" + strconv.Itoa(e.Port)
			}
			add(e.TimeNs, n.selfID, from+":"+q)
		}
	}
	for i, g := range res.Generations {
		add(g.StartNs, v.gens[i], "reset")
		for _, ph := range []struct {
			rel   int64
			value string
		}{{g.Timing.ResetEnd, "tree_id"}, {g.Timing.TreeIDDone, "self_id"}, {g.Timing.SelfIDDone, string(g.Outcome)}} {
			if ph.rel >= 0 {
				add(g.StartNs+ph.rel, v.gens[i], ph.value)
			}
		}
		for _, c := range g.Contention {
			for _, b := range c.Backoffs {
				n := v.nodes[b.Node]
				start := g.StartNs + b.StartNs
				add(start, n.backoff, fmt.Sprintf("%s_%dns", fastOrSlow(b.Fast), b.WaitNs))
				add(start+b.WaitNs, n.backoff, "-")
			}
		}
	}
	slices.SortStableFunc(out, func(a, b vcdChange) int { return cmp.Compare(a.at, b.at) })
	return out
}

func clockName(ideal bool) string {
	if ideal {
		return "ideal"
	}
	return "cycle"
}

func fastOrSlow(fast bool) string {
	if fast {
		return "fast"
	}
	return "slow"
}
