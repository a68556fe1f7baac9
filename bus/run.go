package bus

import (
	"fmt"
	"time"
)

// Run emulates the bus initialisation of t: the first reset at time 0 from
// the initiators, then every scripted event. It returns an error only for
// bad input (the topology or the options); a bus that fails to initialise is
// a Result whose generations say how, and ErrInterrupted when
// Options.Interrupt closed during the run.
func Run(t *Topology, o Options) (*Result, error) {
	w, err := build(t, o)
	if err != nil {
		return nil, err
	}
	rt := w.topo
	if ch := w.choices; ch != nil && ch.err != nil {
		return nil, ch.err // a phase or event shift the path does not fit
	}
	w.run()
	if w.interrupted {
		return nil, ErrInterrupted
	}
	if ch := w.choices; ch != nil {
		if ch.err != nil {
			return nil, ch.err
		}
		if ch.next < len(ch.path) {
			return nil, fmt.Errorf("%w: replay: the run ended after %d of the path's %d choices: the path is of another bus or options", ErrInvalidOptions, ch.next, len(ch.path))
		}
	}
	res := &Result{
		Seed: w.opts.Seed, Profile: rt.profile.Name, Policy: o.Policy, CoinBias: w.bias, Corner: o.Corner,
		ForceRoot: o.ForceRoot, PowerUp: w.powerUp, PowerUpInterval: time.Duration(w.powerUpEvery),
		IdealClock: o.IdealClock, OutOfSpec: rt.outOfSpec,
		Events: w.events(), EndNs: w.lastActive,
	}
	for _, i := range w.initiators {
		res.Initiators = append(res.Initiators, rt.nodes[i].id)
	}
	for _, i := range w.awaiting {
		res.AwaitingConnect = append(res.AwaitingConnect, rt.nodes[i].id)
	}
	for _, g := range w.gens {
		res.Generations = append(res.Generations, g.result)
	}
	if until := o.until(len(rt.traffic) > 0); until > 0 {
		res.Traffic = w.runTraffic(int64(until))
	}
	return res, nil
}

// build checks t and o and builds the world of a run with o.Seed.
func build(t *Topology, o Options) (*world, error) {
	rt, err := t.resolve(ResolveOptions{Profile: o.Profile, AllowOutOfSpec: o.AllowOutOfSpec})
	if err != nil {
		return nil, err
	}
	return newWorld(rt, o)
}
