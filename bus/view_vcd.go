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

// VCDDialect is the flavour of VCD a waveform is written in: the text
// signals (PHY states, line state names, phases, back-offs, self-IDs) have
// no IEEE 1364 type, and the viewers disagree on how to carry them.
type VCDDialect uint8

const (
	// VCDGTKWave, the default, writes the text signals as GTKWave string
	// variables, which GTKWave shows as text. sigrok skips them, with a
	// warning for each.
	VCDGTKWave VCDDialect = iota
	// VCDSigrok writes each text signal as an IEEE 1364 real variable that
	// numbers its texts, with the legend in a $comment: PulseView and
	// sigrok-cli read every variable without a warning (reals as analog
	// channels), and GTKWave opens it too.
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
// Scopes and variables (text is a string variable, or a numbered real in
// the sigrok dialect; see docs/reading-a-bus-reset.md for a walkthrough):
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
func WriteVCD(w io.Writer, res *Result, trace []TraceEvent) error {
	return WriteVCDWith(w, res, trace, VCDOptions{})
}

// WriteVCDWith is WriteVCD in the dialect opts asks for. In the sigrok
// dialect each text variable is a real whose values 0, 1, 2 … stand for the
// texts a $comment before $enddefinitions lists, per variable name:
//
//	state: 0=R0 1=R1 2=T0 …
//
// States, line states and the first phases have fixed numbers (the order
// of the standard); other texts are numbered as they first occur.
func WriteVCDWith(w io.Writer, res *Result, trace []TraceEvent, opts VCDOptions) error {
	if opts.Dialect != VCDGTKWave && opts.Dialect != VCDSigrok {
		return fmt.Errorf("%w: VCD dialect %d", ErrInvalidOptions, opts.Dialect)
	}
	vw := vcd.NewWriter(w)
	if err := vw.Comment(runSummary(res)); err != nil {
		return err
	}
	var leg *legend
	if opts.Dialect == VCDSigrok {
		leg = newLegend()
	}
	v, err := declareVCD(vw, res, trace, leg)
	if err != nil {
		return err
	}
	changes := v.changes(res, trace)
	if leg != nil {
		for i := range changes {
			if g := v.groups[changes[i].v]; g != nil {
				changes[i].value = g.number(changes[i].value)
			}
		}
		if err := vw.Comment(leg.String()); err != nil {
			return err
		}
	}
	if err := vw.EndDefinitions(); err != nil {
		return err
	}
	end := res.EndNs
	for _, c := range changes {
		if err := vw.Change(c.at, c.v, c.value); err != nil {
			return err
		}
		end = max(end, c.at)
	}
	return vw.Finish(end)
}

// legend numbers the texts of the sigrok dialect, one group per variable
// name.
type legend struct {
	scenario, gen, state, backoff, selfID, lineTx, lineRx *textGroup
}

// textGroup numbers the texts of the variables of one name.
type textGroup struct {
	name    string
	texts   []string
	numbers map[string]int
}

func newTextGroup(name string, fixed ...string) *textGroup {
	g := &textGroup{name: name, numbers: map[string]int{}}
	for _, t := range fixed {
		g.number(t)
	}
	return g
}

func newLegend() *legend {
	var states, tx, rx []string
	for s := phy.R0ResetStart; s <= phy.A0Idle; s++ {
		states = append(states, s.String())
	}
	for line := range phy.LineState(9) {
		tx = append(tx, vcd.Text(line.TxName()))
		rx = append(rx, vcd.Text(line.RxName()))
	}
	return &legend{
		scenario: newTextGroup("scenario", "-"),
		gen:      newTextGroup("gen", "-", "reset", "tree_id", "self_id"),
		state:    newTextGroup("state", states...),
		backoff:  newTextGroup("backoff", "-"),
		selfID:   newTextGroup("self_id", "-"),
		lineTx:   newTextGroup("line_tx", tx...),
		lineRx:   newTextGroup("line_rx", rx...),
	}
}

// number is the number of text, given the next one on first sight.
func (g *textGroup) number(text string) string {
	n, ok := g.numbers[text]
	if !ok {
		n = len(g.texts)
		g.numbers[text] = n
		g.texts = append(g.texts, text)
	}
	return strconv.Itoa(n)
}

func (l *legend) String() string {
	var b strings.Builder
	b.WriteString("sigrok dialect: each text signal is a real; its values stand for these texts")
	// In declaration order, so that the legend reads like the scopes.
	for _, g := range []*textGroup{l.scenario, l.gen, l.state, l.backoff, l.selfID, l.lineTx, l.lineRx} {
		b.WriteString("\n" + g.name + ":")
		for i, t := range g.texts {
			b.WriteString(" " + strconv.Itoa(i) + "=" + t)
		}
	}
	return b.String()
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
	groups   []*textGroup // by variable: the sigrok dialect's numbering of a text variable
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

// declareVCD declares the variables; with a legend (the sigrok dialect) the
// text variables are reals that number their texts.
func declareVCD(vw *vcd.Writer, res *Result, trace []TraceEvent, leg *legend) (*vcdVars, error) {
	v := &vcdVars{nodes: map[string]*vcdNode{}}
	groups := leg // the group of each text variable
	if groups == nil {
		groups = &legend{} // unused: text variables are strings
	}
	var err error
	declare := func(k vcd.Kind, name, initial string) vcd.Var {
		if err != nil {
			return -1
		}
		x, e := vw.Declare(k, name, initial)
		err = e
		v.groups = append(v.groups, nil)
		return x
	}
	text := func(g *textGroup, name, initial string) vcd.Var {
		if leg == nil {
			return declare(vcd.String, name, initial)
		}
		x := declare(vcd.Real, name, g.number(initial))
		if err == nil {
			v.groups[x] = g
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
	v.scenario = text(groups.scenario, "scenario", "-")
	for i := range res.Generations {
		v.gens = append(v.gens, text(groups.gen, "gen"+strconv.Itoa(i), "-"))
	}
	upscope()
	for _, n := range viewNodes(res, trace) {
		vn := &vcdNode{}
		v.nodes[n.id] = vn
		scope(vcdScope(n.id))
		vn.state = text(groups.state, "state", n.state.String())
		vn.backoff = text(groups.backoff, "backoff", "-")
		vn.selfID = text(groups.selfID, "self_id", "-")
		for p := range n.ports {
			scope("p" + strconv.Itoa(p))
			vn.ports = append(vn.ports, vcdPort{
				tpaTx:  declare(vcd.Wire, "tpa_tx", "z"),
				tpbTx:  declare(vcd.Wire, "tpb_tx", "z"),
				lineTx: text(groups.lineTx, "line_tx", vcd.Text(phy.TxIdle.TxName())),
				tpaRx:  declare(vcd.Wire, "tpa_rx", "z"),
				tpbRx:  declare(vcd.Wire, "tpb_rx", "z"),
				lineRx: text(groups.lineRx, "line_rx", vcd.Text(phy.RxIdle.RxName())),
			})
			upscope()
		}
		upscope()
	}
	return v, err
}

// vcdScope is the VCD scope name of a node id. Scope names are printable
// ASCII without '$', and viewers split paths at '.', so each byte of the id
// outside that set, '.', and '%' itself, are written %XX as in a URL: "café"
// is "caf%C3%A9". Distinct ids keep distinct scopes.
func vcdScope(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if c := id[i]; c > ' ' && c <= '~' && !strings.ContainsRune(".%$", rune(c)) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
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
	var scratch []byte
	packets := map[string]string{}
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
			// The quadlets of one transmission arrive together: one value.
			if prev := trace[max(i-1, 0)]; i > 0 && prev.Kind == TracePacket && prev.TimeNs == e.TimeNs &&
				prev.Node == e.Node && prev.Port == e.Port {
				last := &out[len(out)-1]
				last.value = string(appendHex32(append([]byte(last.value), '+'), uint32(e.Packet)))
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
				add(start, n.backoff, fastOrSlow(b.Fast)+"_"+strconv.FormatInt(b.WaitNs, 10)+"ns")
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
