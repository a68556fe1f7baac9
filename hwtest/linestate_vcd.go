package hwtest

import (
	"fmt"
	"io"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/vcd"
	"github.com/fwsim/fwsim/phy"
)

// sigrokPair is the two channels of one pair in the sigrok dialect.
type sigrokPair struct{ hi, lo vcd.Var }

// WriteSigrokVCD writes a run as a logic analyzer records it in the VCD
// that sigrok writes and ReadLines reads: the received levels of every pair
// of every port, two channels each, <node>.p<n>.tpa.hi while the pair port n
// receives is driven to 1 and .lo while it is driven to 0. The first
// comment says how the run was made (Result.Summary).
func WriteSigrokVCD(w io.Writer, res *bus.Result, trace []bus.TraceEvent) error {
	vw := vcd.NewWriter(w)
	if err := vw.Comment(res.Summary()); err != nil {
		return err
	}
	if err := vw.Comment("sigrok dialect: per port and pair, <node>.p<n>.tpa.hi is 1 while the pair port n receives is driven to 1 " +
		"and .lo while it is driven to 0; both 0 is Z (undriven, or two drivers cancelling). States, phases and self-IDs " +
		"are in the GTKWave dialect."); err != nil {
		return err
	}
	if err := vw.Scope("fwsim"); err != nil {
		return err
	}
	pairs := map[string][][2]sigrokPair{} // by node, per port: TPA, TPB
	for _, n := range bus.TracedNodes(res, trace) {
		for p := range n.Ports {
			var pp [2]sigrokPair
			for k, pair := range [2]string{"tpa", "tpb"} {
				name := fmt.Sprintf("%s.p%d.%s", vcd.ScopeName(n.ID), p, pair)
				hi, err := vw.Declare(vcd.Wire, name+".hi", "0")
				if err != nil {
					return err
				}
				lo, err := vw.Declare(vcd.Wire, name+".lo", "0")
				if err != nil {
					return err
				}
				pp[k] = sigrokPair{hi, lo}
			}
			pairs[n.ID] = append(pairs[n.ID], pp)
		}
	}
	if err := vw.Upscope(); err != nil {
		return err
	}
	if err := vw.EndDefinitions(); err != nil {
		return err
	}
	var changes []vcd.VarChange
	for _, e := range trace {
		if e.Kind != bus.TraceReceive {
			continue
		}
		pp := pairs[e.Node][e.Port]
		for k, sig := range [2]phy.Signal{e.ToLine.A(), e.ToLine.B()} {
			hi, lo := "0", "0"
			switch sig {
			case phy.Sig1:
				hi = "1"
			case phy.Sig0:
				lo = "1"
			}
			changes = append(changes, vcd.VarChange{At: e.TimeNs, Var: pp[k].hi, Value: hi}, vcd.VarChange{At: e.TimeNs, Var: pp[k].lo, Value: lo})
		}
	}
	return vw.WriteChanges(changes, res.EndNs)
}
