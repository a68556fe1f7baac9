package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// topologyFlags are --topology and --gen: the bus a command works on. With
// neither, it is the built-in default bus.
type topologyFlags struct {
	file string // --topology
	gen  string // --gen
	// memory is --max-memory, registered with the other two when the
	// command sets its estimate: the bus or graph load refuses.
	memory memoryBudget
}

// register adds --topology and --gen to fs. fileNote, when not empty, is a
// sentence the command adds to --topology's help; genExample is a SPEC that
// suits the command.
func (t *topologyFlags) register(fs *flags, fileNote, genExample string) {
	help := "read the bus from `FILE`, YAML or JSON (see docs/topology.md),\ne.g. --topology examples/default.yaml"
	if fileNote != "" {
		help = "read the bus from `FILE`, YAML or JSON (see docs/topology.md);\n" + fileNote + ", e.g. --topology examples/default.yaml"
	}
	fs.StringVar(&t.file, "topology", "", help)
	fs.StringVar(&t.gen, "gen", "",
		"generate the bus from `SPEC`: chain:N, star:N, tree:N[:SEED], ring:N, complete:N\nor pair, e.g. --gen "+genExample+" (not with --topology)")
	if t.memory.estimate != nil {
		t.memory.register(fs)
	}
}

// check reports flags that cannot go together.
func (t *topologyFlags) check() error {
	if t.file != "" && t.gen != "" {
		return errors.New("--topology and --gen are mutually exclusive")
	}
	return nil
}

// load returns the bus the flags name and how to name it in the output: the
// file, "gen SPEC" or "default". Reading the file ends when ctx does.
func (t *topologyFlags) load(ctx context.Context) (*bus.Topology, string, error) {
	switch {
	case t.file != "":
		f, err := openInput(ctx, t.file)
		var topo *bus.Topology
		if err == nil {
			topo, err = bus.ReadTopology(f, t.file)
			f.Close()
		}
		if pe, ok := errors.AsType[*os.PathError](err); ok {
			err = fmt.Errorf("topology file %s: %w", pe.Path, pe.Err)
		}
		if err == nil {
			if err = t.memory.check(len(topo.Nodes), len(topo.Cables)); err != nil {
				err = fmt.Errorf("topology file %s: %w", t.file, err)
			}
		}
		return topo, t.file, err
	case t.gen != "":
		nodes, cables, err := bus.GeneratedSize(t.gen)
		if err != nil {
			return nil, "", err
		}
		if err := t.memory.check(nodes, cables); err != nil {
			return nil, "", fmt.Errorf("--gen %s: %w", t.gen, err)
		}
		topo, err := bus.Generate(t.gen)
		return topo, "gen " + t.gen, err
	}
	return bus.DefaultTopology(), "default", nil
}

// busFlags are the flags that say which bus to emulate and how: the
// topology and every bus.Options field a user sets. run, analyze, sweep and
// report share them, so each flag means the same everywhere.
type busFlags struct {
	topologyFlags
	opts       bus.Options // the fields the flags set directly
	initiators list
	coinBias   *big.Rat // exact, as written: 0.25 or 1/4
	policy     *choice
	corner     *choice
	clock      *choice
	// nondet offers --timing nondet, the adversary's waits of fwsim
	// explore; set before register.
	nondet bool
}

// register adds the flags to fs and returns their names in help order.
// seedHelp says what --seed seeds, which differs between one run and many.
func (b *busFlags) register(fs *flags, genExample, seedHelp string) []string {
	b.policy = newChoice(treeid.Coin.String(), treeid.Coin.String(), treeid.LargerIDWins.String())
	corners := []string{treeid.CornerRandom.String(), treeid.CornerMin.String(), treeid.CornerMax.String()}
	timingHelp := "place root-contention waits in their windows at `CORNER`: random (uniform), min\n(lower bound) or max (upper bound), e.g. --timing max"
	if b.nondet {
		corners = slices.Insert(corners, 1, "nondet")
		timingHelp = "choose root-contention waits by `T`: random (uniform over the window's whole\ncycle counts), nondet (an adversary: every answer is [min, max] over all\nschedulers), min or max (the window's bound), e.g. --timing nondet"
	}
	b.corner = newChoice(treeid.CornerRandom.String(), corners...)
	b.clock = newChoice("cycle", "cycle", "ideal")

	b.memory.estimate = func(nodes, _ int) int64 { return bus.RunMemory(nodes) }
	b.memory.what = "bus"
	b.topologyFlags.register(fs, "", genExample)
	fs.Var(newSeed(&b.opts.Seed), "seed", seedHelp)
	fs.Func("profile",
		"use the timing profile `P` instead of the topology's: 1394-1995, 1394a-2000,\n1394b-2002 or prism, e.g. --profile prism (default: the topology's, else\n1394-1995)",
		func(s string) error {
			if _, err := phy.LookupProfile(s); err != nil || s == "" {
				return errors.New(profileNames())
			}
			b.opts.Profile = s
			return nil
		})
	fs.StringVar(&b.opts.ForceRoot, "force-root", "",
		"set force root (RHB) on `NODE` before the first reset, as a PHY configuration\npacket would (every other node's RHB is cleared), e.g. --force-root camera")
	fs.Var(&b.initiators, "initiator",
		"`NODE` starts the first reset of a bus that is up; repeat for several,\ne.g. --initiator pc --initiator hub (default: --power-up's)")
	fs.Func("power-up",
		"how the PHYs come up: `MODE` one (the bus is up but for one PHY, which powers\nup last and resets it: drawn from the seed, or --initiator), all (every PHY\nat once, each resetting) or staggered (one by one, 1 ms apart, each a\ngeneration), e.g. --power-up all (default: all for the prism profile, else one)",
		func(s string) error {
			p, err := bus.ParsePowerUp(s)
			b.opts.PowerUp = p
			return err
		})
	fs.Var(b.policy, "policy",
		"resolve root contention by `POLICY`: coin, the standard's coin flip, or\nlarger-id-wins, the larger uid waits SLOW and becomes parent,\ne.g. --policy larger-id-wins")
	fs.Func("coin-bias",
		"the coin picks FAST with probability `P` in [0,1], a decimal or a fraction,\ne.g. --coin-bias 0.25 or --coin-bias 1/3 (default 0.5, a fair coin)",
		func(s string) error {
			p, ok := new(big.Rat).SetString(s)
			if !ok || p.Sign() < 0 || p.Cmp(big.NewRat(1, 1)) > 0 {
				return errors.New("want a probability from 0 to 1, e.g. 0.25 or 1/4")
			}
			b.coinBias = p
			return nil
		})
	fs.Var(b.corner, "timing", timingHelp)
	fs.Var(b.clock, "clock",
		"run PHY clocks as `CLOCK`: cycle quantises to each PHY's clock with a random\nphase and its ppm error; ideal samples every nanosecond, e.g. --clock ideal")
	fs.BoolVar(&b.opts.NominalTimers, "nominal-timers", false,
		"give every PHY the profile's nominal RESET_TIME, CONFIG_TIMEOUT and\nFORCE_ROOT_TIMEOUT instead of its own drawn from the standard's ranges,\ne.g. --gen pair --nominal-timers")
	fs.BoolVar(&b.opts.AllowOutOfSpec, "allow-out-of-spec", false,
		"run a topology beyond the standard's limits (ports, hops, cable length, clock\nppm) and list why it is out of spec, e.g. --gen chain:20 --allow-out-of-spec")
	maxEvents := newUint64(&b.opts.MaxEvents, 0)
	maxEvents.positive = true
	fs.Var(maxEvents, "max-events", fmt.Sprintf(
		"end a run after `N` kernel events; it then ends budget-exhausted\n(default %d, or %d a node on a bus of more nodes than that allows),\ne.g. --max-events 10000",
		bus.DefaultMaxEvents, bus.DefaultEventsPerNode))
	return []string{"topology", "gen", "seed", "profile", "force-root", "initiator", "power-up", "policy", "coin-bias",
		"timing", "clock", "nominal-timers", "allow-out-of-spec", "max-events", "max-memory"}
}

// options returns the bus options the flags ask for.
func (b *busFlags) options() bus.Options {
	o := b.opts
	o.Initiators = b.initiators
	if b.coinBias != nil {
		p, _ := b.coinBias.Float64()
		o.CoinBias = &p
	}
	// The choices hold only the names these read.
	o.Policy, _ = treeid.ParsePolicy(b.policy.value)
	o.Corner, _ = treeid.ParseCorner(b.corner.value)
	o.IdealClock = b.clock.value == "ideal"
	return o
}

// explain turns an error of running topo into what the user can act on: the
// node flag that names no node, the flag that allows an out-of-spec bus, the
// generator spec that made the bus.
func (b *busFlags) explain(topo *bus.Topology, err error) error {
	switch {
	case errors.Is(err, bus.ErrInvalidOptions) && topo != nil:
		if msg := b.unknownNode(topo); msg != "" {
			return errors.New(msg)
		}
	case errors.Is(err, bus.ErrOutOfSpec) && !b.opts.AllowOutOfSpec:
		err = fmt.Errorf("%w; rerun with --allow-out-of-spec", err)
	}
	if b.gen != "" {
		err = fmt.Errorf("--gen %s: %w", b.gen, err)
	}
	return err
}

// unknownNode names the first node flag that names no node of t, and t's
// nodes; "" when every node flag is fine.
func (b *busFlags) unknownNode(t *bus.Topology) string {
	ids := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		ids[i] = n.ID
	}
	check := func(flag, id string) string {
		if id == "" || slices.Contains(ids, id) {
			return ""
		}
		const maxListed = 12
		listed := strings.Join(ids[:min(len(ids), maxListed)], ", ")
		if len(ids) > maxListed {
			listed += fmt.Sprintf(", … (%d in all)", len(ids))
		}
		return fmt.Sprintf("--%s: unknown node %q (the bus has %s)", flag, id, listed)
	}
	if msg := check("force-root", b.opts.ForceRoot); msg != "" {
		return msg
	}
	for _, id := range b.initiators {
		if msg := check("initiator", id); msg != "" {
			return msg
		}
	}
	return ""
}

// profileNames is the error for an unknown --profile: the profiles there are.
func profileNames() string {
	names := make([]string, 0, len(phy.Profiles()))
	for _, p := range phy.Profiles() {
		names = append(names, p.Name)
	}
	return "want " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// trafficFlags are --until and --traffic, of the commands that run the bus
// after initialisation: run, analyze, sweep and report.
type trafficFlags struct {
	until time.Duration
	specs list
}

func (f *trafficFlags) register(fs *flags) {
	fs.DurationVar(&f.until, "until", 0,
		"after initialisation, run the bus for `DUR` with the topology's traffic: cycle\nstarts, arbitration, acknowledgements, collisions (default 1ms when the\ntopology has traffic), e.g. --until 2ms")
	fs.Var(&f.specs, "traffic",
		"add traffic `SPEC` to the topology's: node=N,to=D,size=BYTES[,speed=S][,every=DUR]\n[,retries=K] for requests, node=N,iso=BYTES[,speed=S] for a talker; repeat for\nseveral, e.g. --traffic node=pc,to=disk,size=512,every=20us")
}

// names lists the flags in help order.
func (f *trafficFlags) names() []string { return []string{"until", "traffic"} }

// check refuses a --until the bus cannot run.
func (f *trafficFlags) check(fs *flags) error {
	if fs.isSet("until") && (f.until <= 0 || f.until > time.Second) {
		return fmt.Errorf("--until %v: want more than 0 and at most 1s", f.until)
	}
	return nil
}

// apply adds the --traffic items to topo, a copy when there are any, and
// checks them against the bus: an error names the flag.
func (f *trafficFlags) apply(topo *bus.Topology, o bus.ResolveOptions) (*bus.Topology, error) {
	if len(f.specs) == 0 {
		return topo, nil
	}
	copied := *topo
	copied.Traffic = slices.Clone(topo.Traffic)
	for _, spec := range f.specs {
		tr, err := bus.ParseTrafficSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("--traffic: %w", err)
		}
		copied.Traffic = append(copied.Traffic, tr)
	}
	err := copied.Validate(o)
	if te, ok := errors.AsType[*bus.TopologyError](err); ok && errors.Is(err, bus.ErrBadTraffic) {
		var k int
		if _, scan := fmt.Sscanf(te.Path, "traffic[%d]", &k); scan == nil && k >= len(topo.Traffic) {
			return nil, fmt.Errorf("--traffic %s: %s", f.specs[k-len(topo.Traffic)], te.Msg)
		}
	}
	return &copied, nil
}
