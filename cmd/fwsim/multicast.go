package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/multicast"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/view"
)

const multicastIntro = `Usage: fwsim multicast --algo NAME [--topology FILE | --gen SPEC] [flags]
       fwsim multicast --compare [--topology FILE | --gen SPEC] [flags]

Runs a reliable multicast algorithm on the nodes of a bus, on the virtual time
of fwsim elect: each message takes a delay of at most one unit drawn from the
seed. With --medium bus (the default) the packets travel the bus's tree (the
topology's cables, or a breadth-first spanning tree of them from the first node
when they close loops): every node repeats a packet on toward its addressees,
so a multicast crosses each cable once, a unicast the cables of its path, and a
cable loses a packet crossing it with probability --loss (or its own,
--loss-cable), cutting off every addressee behind it. With --medium mesh every
two nodes share a link and a multicast is one packet per addressee, each lost
on its own. The fate of every crossing is drawn from the seed and the packet
(type, number, sender, addressee, how often sent before), so runs that send the
same packet over the same cable lose it alike. The sender (the first node)
multicasts --messages numbered messages, one per delay, to every other node.
Every run reports what each member delivered against what it should have, and
whether each guarantee held: every member delivered in order and once each, and
every member alive at the end delivered the whole stream when the sender stayed
alive; it counts the packets sent by type, the cables they crossed, the copies
received and lost, and the DATA multicasts lost. vsync runs the group in views,
changed by a flush when a node crashes, joins or leaves, and checks instead
that the members agreed on the views and delivered, per view, the same
messages, in the view they were sent in. --compare runs every algorithm with
the same seed, stream, losses and faults and prints one table; --stop goes to
nack and srm, --join and --leave to vsync, --medium and the losses to all.
Times are in message delays. docs/multicast.md explains the algorithms and
faults.

Algorithms:
%s
Exit status: 0 every promised guarantee held; 1 one was broken, or the run used
up its event budget; 2 usage or input error.`

// multicastConfig is what the flags of "fwsim multicast" ask for.
type multicastConfig struct {
	source                            topologyFlags
	opts                              multicast.Options
	crashes, joins, leaves, cableLoss list
	compare, jsonOutput               bool
	trace                             labTrace
}

func runMulticast(ctx context.Context, e *env, args []string) int {
	algos := algorithmList(multicast.Algorithms(), func(a multicast.Info) (string, string) { return a.Name, a.Summary })
	fs := newFlags("multicast", fmt.Sprintf(multicastIntro, algos),
		"fwsim multicast --algo ack --gen ring:5 --messages 10 --loss 0.2",
		"fwsim multicast --algo nack --gen ring:5 --messages 5 --loss 0.3   # exit 1: a gap",
		"fwsim multicast --algo nack --gen ring:5 --messages 5 --loss 0.3 --stop",
		"fwsim multicast --algo srm --gen ring:12 --messages 30 --loss 0.2 --stop",
		"fwsim multicast --algo ack --gen tree:6:2 --messages 5 --crash n2@1.5",
		"fwsim multicast --algo vsync --gen ring:6 --messages 10 --loss 0.3 --crash n0@4.5",
		"fwsim multicast --algo vsync --gen ring:5 --messages 10 --loss 0.2 --join n3@2 --leave n1@5",
		"fwsim multicast --compare --gen ring:8 --messages 50 --loss 0.2 --stop",
		"fwsim multicast --compare --gen chain:8 --messages 50 --loss-cable n0-n1=0.2 --stop",
		"fwsim multicast --compare --gen ring:8 --messages 50 --loss 0.2 --stop --medium mesh",
	)
	var cfg multicastConfig
	cfg.register(fs)
	if code, done := fs.parse(e, args); done {
		return code
	}
	cfg.opts.Trace, cfg.opts.MaxTrace = cfg.trace.wanted(), cfg.trace.maxEntries
	if msg := labUsage(cfg.compare, cfg.opts.Algo, cfg.opts.Trace, cfg.source); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	// --compare gives the joins and leaves to vsync.
	switch {
	case len(cfg.joins) > 0 && !cfg.compare && cfg.opts.Algo != "vsync":
		return fs.usageError(e, "--join is for --algo vsync")
	case len(cfg.leaves) > 0 && !cfg.compare && cfg.opts.Algo != "vsync":
		return fs.usageError(e, "--leave is for --algo vsync")
	}
	for _, f := range []struct {
		flag  string
		specs list
		into  *[]multicast.Event
	}{{"--crash", cfg.crashes, &cfg.opts.Crashes}, {"--join", cfg.joins, &cfg.opts.Joins}, {"--leave", cfg.leaves, &cfg.opts.Leaves}} {
		events, err := labNodeTimes(f.flag, f.specs)
		if err != nil {
			return fs.usageError(e, "%s", err)
		}
		*f.into = events
	}
	for _, spec := range cfg.cableLoss {
		c, err := parseCableLoss(spec)
		if err != nil {
			return fs.usageError(e, "--loss-cable %s", err)
		}
		cfg.opts.CableLosses = append(cfg.opts.CableLosses, c)
	}
	topo, source, err := cfg.source.load(ctx)
	if err != nil {
		return fs.inputError(e, err)
	}
	cfg.opts.Interrupt = ctx.Done()
	if cfg.compare {
		return cfg.runCompare(e, fs, topo, source)
	}
	if err := cfg.trace.open(e, topo); err != nil {
		return fs.inputError(e, err)
	}
	defer cfg.trace.out.abort()
	res, err := multicast.Run(topo, cfg.opts)
	return reportLabRun(e, fs, res, err, cfg.jsonOutput, &cfg.trace,
		func(res *multicast.Result) (labTraceHeader, *[]netsim.TraceEntry) {
			return labTraceHeader{Command: "multicast", Algo: res.Algo, Source: source, Seed: res.Seed, TimeUnit: "delays"}, &res.Trace
		},
		func(res *multicast.Result) any { return multicast.NewJSON(source, res) },
		func(w io.Writer, res *multicast.Result) { view.WriteMulticastText(w, source, res) },
		func(res *multicast.Result) string {
			if g := res.Broken(); g != nil {
				return fmt.Sprintf("fwsim multicast: %s broke a guarantee: %s: %s", res.Algo, g.Name, g.Detail)
			}
			return ""
		})
}

// register adds the flags of multicast to fs.
func (c *multicastConfig) register(fs *flags) {
	c.opts.Messages = 1
	fs.StringVar(&c.opts.Algo, "algo", "", "run the algorithm `NAME` (listed above), e.g. --algo nack")
	fs.BoolVar(&c.compare, "compare", false,
		"run every algorithm on the same stream, losses and faults; print one table, e.g. --compare")
	c.source.registerLab(fs, "ring:5")
	fs.Func("messages", fmt.Sprintf("the sender multicasts `M` messages, 1 to %d, e.g. --messages 10 (default 1)", multicast.MaxMessages),
		func(s string) error {
			m, err := strconv.Atoi(s)
			if err != nil || m < 1 || m > multicast.MaxMessages {
				return fmt.Errorf("want a whole number from 1 to %d", multicast.MaxMessages)
			}
			c.opts.Messages = m
			return nil
		})
	fs.Func("loss", fmt.Sprintf("every cable (link, on the mesh) loses a packet crossing it with probability `P`,\nfrom 0 to %g, e.g. --loss 0.2 (default 0)", multicast.MaxLoss),
		func(s string) error {
			p, err := strconv.ParseFloat(s, 64)
			if err != nil || !(p >= 0 && p <= multicast.MaxLoss) {
				return fmt.Errorf("want a probability from 0 to %g, e.g. 0.2", multicast.MaxLoss)
			}
			c.opts.Loss = p
			return nil
		})
	fs.Var(&c.cableLoss, "loss-cable", fmt.Sprintf(
		"`A-B=P`: the cable between nodes A and B (of the bus's tree; on the mesh, their link) loses\na packet with probability P, from 0 to %g, instead of --loss; repeat for several,\ne.g. --loss-cable n0-n1=0.3", multicast.MaxLoss))
	fs.Func("medium", "`NAME`: bus (the default: packets travel the bus's tree, a loss cuts off what lies\nbehind the cable) or mesh (a link between every two nodes, each copy lost on its own),\ne.g. --medium mesh",
		func(s string) error {
			if !slices.Contains(multicast.Media(), s) {
				return fmt.Errorf("want %s", strings.Join(multicast.Media(), " or "))
			}
			c.opts.Medium = s
			return nil
		})
	fs.BoolVar(&c.opts.Stop, "stop", false,
		"nack, srm: the sender repeats a stop signal with the last number every two delays, so that\na loss at the end of the stream is found, e.g. --stop")
	fs.Var(newUint64(&c.opts.Seed, 1), "seed", "seed the message delays and losses with `N`, e.g. --seed 42")
	fs.Var(&c.crashes, "crash",
		"`NODE@TIME`: the node crashes at TIME delays; repeat for several, e.g. --crash n2@1.5")
	fs.Var(&c.joins, "join",
		"`NODE@TIME`, vsync: the node starts outside the group and asks to join at TIME delays;\nrepeat for several, e.g. --join n3@2")
	fs.Var(&c.leaves, "leave",
		"`NODE@TIME`, vsync: the node asks to leave the group at TIME delays (after it joins);\nrepeat for several, e.g. --leave n1@5")
	c.trace.register(fs, "every message (when sent and received, between whom, its type and\nvalue; a copy lost on the way shows lost) and what each node did (its start, timers\nSEND, RETRY, STOP, REQUEST, REPAIR, BEAT, JOIN, LEAVE, CHANGE and CRASH, crash, every\ndelivery to its application, DELIVER, and in vsync its join and leave)")
	fs.BoolVar(&c.jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .members")
	fs.order("algo", "compare", "topology", "gen", "medium", "messages", "loss", "loss-cable", "stop", "seed", "crash", "join", "leave", "trace", "trace-table", "html", "max-trace-events", "json")
}

// parseCableLoss reads A-B=P: the nodes at the first '-', P after the last
// '='.
func parseCableLoss(spec string) (multicast.CableLoss, error) {
	i := strings.LastIndexByte(spec, '=')
	a, b, ok := strings.Cut(spec[:max(i, 0)], "-")
	if i < 0 || !ok || a == "" || b == "" {
		return multicast.CableLoss{}, fmt.Errorf("%q: want A-B=P, two nodes and a probability, e.g. n0-n1=0.3", spec)
	}
	p, err := strconv.ParseFloat(spec[i+1:], 64)
	if err != nil || !(p >= 0 && p <= multicast.MaxLoss) {
		return multicast.CableLoss{}, fmt.Errorf("%q: want a probability from 0 to %g after '='", spec, multicast.MaxLoss)
	}
	return multicast.CableLoss{A: a, B: b, P: p}, nil
}

func (c *multicastConfig) runCompare(e *env, fs *flags, topo *bus.Topology, source string) int {
	results, err := multicast.Compare(topo, c.opts)
	if err != nil {
		return labError(e, fs, err)
	}
	var failed []string
	for _, r := range results {
		if r.Violated() {
			failed = append(failed, r.Algo)
		}
	}
	js := multicast.NewCompareJSON(source, c.opts, results)
	return writeComparison(e, fs, c.jsonOutput, js, view.MulticastComparison(c.opts, source, results, js), failed)
}
