package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/treeid"
	"github.com/fwsim/fwsim/view"
)

const electIntro = `Usage: fwsim elect --algo NAME [--topology FILE | --gen SPEC] [flags]
       fwsim elect --compare [--topology FILE | --gen SPEC] [flags]
       fwsim elect --sweep n=FROM..TO [--algo NAME] [--gen ring|tree] [--ids CASE] [flags]

Runs a classic leader-election algorithm on the nodes and cables of a bus, on
virtual time: each node is a process, each cable a FIFO link. Reports the
leader, every node's final state, the messages by type and the time (message
delays for asynchronous runs, each delay at most one unit; rounds for
synchronous runs; for 1394, whose mode is "timed" as it runs tree identify on
the PHY model's virtual time, delays of one cable's propagation and one PHY's
repeat delay, 167 ns on 4.5 m cables, with the ns beside). Without --topology
or --gen it uses the built-in default bus. The same flags and seed always give
the same output; docs/election.md explains every algorithm and how its
messages are counted.

--compare runs every algorithm that applies to the topology in one scenario
and prints one table: the initiators of --initiator or --initiators (all by
default), the leader announced to every node (as --announce), and the faults
of --crash and --recover (none by default; bully then holds a plain election).
A row that cannot start as asked (dfs-token: one initiator; sync-ring,
anonymous, floodmax, virtual-tree: every node) runs as near as it can and
says "differs" and how; a row that cannot honour the faults is not run, and
says why.

tree-min also reports the tree's height h from its core (the two nodes where
the last proposals cross) and the notes' delay bound, wake-up + h·RTT with
RTT = 2 delays, beside the time; with --crash its repair takes the crashed
node out of the tree, resends changed proposals and counts the messages sent
again. adoption is the notes' adoption procedure: --trace-table follows its four
cases of an explorer meeting a marked edge.

--sweep runs the message-complexity curves: Chang–Roberts best (IDs
ascending along the ring: 2n−1), average (random IDs, the mean of --runs
seeds: n·H(n)) and worst (descending: n(n+1)/2) on rings, echo on trees
(3(n−1)) and FloodMax on rings and trees (2·E·D), every node initiating,
at each size, with the formula's value beside the count. --algo, --gen
ring|tree and --ids best|average|worst pick some of the curves; --report
writes the log–log plot. A run whose formula gives more than
--max-messages is skipped, not run: the worst case is quadratic, and
n = 100000 would be 5·10^9 messages. A sweep that would take longer than
--max-duration here, as timed from the first runs of each case, is
refused before it starts.

Algorithms:
%s
Exit status: 0 a leader was elected (for anonymous: the symmetry held; for
--compare: by every row that ran the scenario); 1 the run, or a --compare row
that ran the scenario, ended without one, an announced leader never reached a
node that is up, or the run used up its event budget; 2 usage or input error
(including an algorithm that does not apply to the topology), or a sweep
that would take longer than --max-duration.`

// electConfig is what the flags of "fwsim elect" ask for.
type electConfig struct {
	source     topologyFlags
	opts       election.Options
	policy     *choice // --policy: 1394's root contention
	ids        string
	initiators string
	// initiator names the nodes that start; crashes are NODE (crashed from
	// the start) and NODE@TIME (during the run), recoveries NODE@TIME.
	initiator, crashes, recoveries list
	sync, async,
	compare, jsonOutput bool
	trace labTrace
	sweep electSweep
}

func runElect(ctx context.Context, e *env, args []string) int {
	algos := algorithmList(election.Algorithms(), func(a election.Info) (string, string) { return a.Name, a.Summary })
	fs := newFlags("elect", fmt.Sprintf(electIntro, algos),
		"fwsim elect --algo chang-roberts --gen ring:8 --ids descending",
		"fwsim elect --algo chang-roberts --gen ring:8 --initiators one --suppress --unit-delays",
		"fwsim elect --algo bully --gen complete:6 --initiators one --trace-table",
		"fwsim elect --algo bully --gen complete:6 --crash n5 --crash n4 --initiator n0",
		"fwsim elect --algo bully --gen complete:6 --initiators one --crash n4@2.5 --recover n5@12",
		"fwsim elect --algo anonymous --gen ring:5",
		"fwsim elect --algo adoption --gen ring:3 --unit-delays --trace-table",
		"fwsim elect --algo tree-min --gen star:4 --ids descending --unit-delays --crash n3@4",
		"fwsim elect --compare --gen ring:8 --seed 1",
		"fwsim elect --sweep n=10..300 --report curves.html",
		"fwsim elect --sweep n=10..1000 --algo chang-roberts --ids average --runs 30 --csv cr.csv",
	)
	var cfg electConfig
	cfg.register(fs)
	if code, done := fs.parse(e, args); done {
		return code
	}
	if msg := cfg.prepareSweep(fs); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	if cfg.sweep.sizes != nil {
		return cfg.runElectSweep(ctx, e, fs, args)
	}
	cfg.opts.Trace, cfg.opts.MaxTrace = cfg.trace.wanted(), cfg.trace.maxEntries
	if msg := labUsage(cfg.compare, cfg.opts.Algo, cfg.opts.Trace, cfg.source); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	switch {
	case cfg.sync && cfg.async:
		return fs.usageError(e, "--sync and --async are mutually exclusive")
	case cfg.sync:
		cfg.opts.Mode = election.Sync
	case cfg.async:
		cfg.opts.Mode = election.Async
	}
	if fs.isSet("policy") && !cfg.compare && cfg.opts.Algo != "1394" {
		return fs.usageError(e, "--policy resolves 1394's root contention: it goes with --algo 1394 or --compare")
	}
	cfg.opts.Policy, _ = treeid.ParsePolicy(cfg.policy.value)
	if err := cfg.parseInitiators(); err != nil {
		return fs.usageError(e, "%v", err)
	}
	if err := cfg.parseFaults(); err != nil {
		return fs.usageError(e, "%v", err)
	}
	if err := cfg.readIDs(ctx); err != nil {
		return fs.inputError(e, err)
	}
	topo, source, err := cfg.source.load(ctx)
	if err != nil {
		return fs.inputError(e, err)
	}
	if k := cfg.opts.InitiatorCount; k > len(topo.Nodes) {
		return fs.inputError(e, fmt.Errorf("--initiators %d: want all, one or 1 to %d (the bus has %d nodes)", k, len(topo.Nodes), len(topo.Nodes)))
	}
	cfg.opts.Interrupt = ctx.Done()
	if cfg.compare {
		return cfg.runCompare(e, fs, topo, source)
	}
	if err := cfg.trace.open(e, topo); err != nil {
		return fs.inputError(e, err)
	}
	defer cfg.trace.out.abort()
	res, err := election.Run(topo, cfg.opts)
	if err != nil {
		return labError(e, fs, cfg.runError(err))
	}
	cfg.trace.down = res.Crashed
	if err := cfg.trace.take(labTraceHeader{Command: "elect", Algo: res.Algo, Source: source, Seed: res.Seed, TimeUnit: res.TimeUnit}, &res.Trace); err != nil {
		return viewError(e, fs, err)
	}
	if cfg.jsonOutput {
		err = jsonout.Write(e.stdout, election.NewJSON(source, res))
	} else {
		view.WriteElectText(e.stdout, source, res)
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	if err := cfg.trace.out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	if res.Leader == "" && res.Algo != "anonymous" {
		fmt.Fprintf(e.stderr, "fwsim elect: %s elected no leader: %s\n", res.Algo, res.NoLeader)
		return exitFailure
	}
	if unaware := res.Unaware(); unaware != "" {
		fmt.Fprintf(e.stderr, "fwsim elect: %s elected %s, but %s, up, never learnt it\n", res.Algo, res.Leader, unaware)
		return exitFailure
	}
	return exitOK
}

// register adds the flags of elect to fs.
func (c *electConfig) register(fs *flags) {
	fs.StringVar(&c.opts.Algo, "algo", "",
		"run the algorithm `NAME` (listed above), e.g. --algo lelann")
	fs.BoolVar(&c.compare, "compare", false,
		"run every algorithm that applies and print one table, e.g. --compare --gen ring:8")
	c.source.registerLab(fs, "ring:8")
	fs.StringVar(&c.ids, "ids", "ascending",
		"give the nodes IDs 1…n by `ORDER`: ascending or descending along the ring in the\n"+
			"direction messages travel (in topology order on other graphs), random (from the\n"+
			"seed), or read them from a file of NODE ID lines, e.g. --ids descending")
	fs.Var(&c.initiator, "initiator",
		"`NODE` starts the election, as in fwsim run it starts the reset; repeat for\n"+
			"several, e.g. --initiator n3")
	fs.StringVar(&c.initiators, "initiators", "",
		"start the election at `WHO`: all, one (the first node along the ID order) or K\n"+
			"(the first K; crashed nodes are passed over), e.g. --initiators one (default:\n"+
			"the algorithm's own; with --compare, all)")
	fs.Var(&c.crashes, "crash",
		"`NODE@TIME`: the node crashes at TIME delays, during the run, taken by\n"+
			faultTakers()+";\nNODE alone, bully: the node is down from the start (default: the node with the\n"+
			"largest election ID, the old coordinator; with --compare, none); repeat for\n"+
			"several, e.g. --crash n5 --crash n4@2.5")
	fs.Var(&c.recoveries, "recover",
		"bully: `NODE@TIME`: the crashed node recovers at TIME delays and holds an election;\n"+
			"repeat for several, e.g. --recover n5@12")
	fs.BoolVar(&c.sync, "sync", false,
		"run in synchronous rounds, e.g. --sync (default: the algorithm's own mode)")
	fs.BoolVar(&c.async, "async", false,
		"run asynchronously, every message with its own delay, e.g. --async")
	fs.BoolVar(&c.opts.UnitDelays, "unit-delays", false,
		"make every asynchronous message take exactly one time unit, the worst case the\n"+
			"time bounds assume, e.g. --unit-delays")
	c.policy = newChoice(treeid.Coin.String(), treeid.Coin.String(), treeid.LargerIDWins.String())
	fs.Var(c.policy, "policy",
		"1394: resolve root contention by `POLICY`: coin, the standard's coin flip, or\nlarger-id-wins, the notes' alternative, as fwsim run --policy does,\ne.g. --algo 1394 --gen pair --policy larger-id-wins")
	fs.BoolVar(&c.opts.Suppress, "suppress", false,
		"chang-roberts: a node woken by a larger ID does not send its own, e.g. --suppress")
	fs.BoolVar(&c.opts.Announce, "announce", false,
		"add the optional leader announcement (chang-roberts, chang-roberts-bidi,\nadoption; --compare always adds it), e.g. --announce")
	fs.Var(newUint64(&c.opts.Seed, 1), "seed",
		"seed the message delays, random IDs and directions with `N`, e.g. --seed 42")
	c.trace.register(fs, "every message (when sent and received, between whom, its type and\ncontent)")
	fs.BoolVar(&c.jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .leader")
	c.sweep.register(fs)
	fs.order("algo", "compare", "topology", "gen", "ids", "initiator", "initiators", "crash", "recover", "sync", "async", "unit-delays",
		"suppress", "announce", "policy", "seed", "trace", "trace-table", "html", "max-trace-events", "json", "sweep", "runs", "max-messages", "max-duration", "csv", "report")
}

// parseInitiators reads --initiator or --initiators into the options.
func (c *electConfig) parseInitiators() error {
	if c.initiator != nil && c.initiators != "" {
		return errors.New("--initiator names the nodes that start, --initiators how many: give one of them")
	}
	if c.initiator != nil {
		c.opts.Initiators = c.initiator
		return nil
	}
	if c.initiators == "" {
		return nil
	}
	k, err := election.ParseInitiatorCount(c.initiators)
	if err != nil {
		return fmt.Errorf("--initiators %s: want all, one or a number of nodes from 1", c.initiators)
	}
	c.opts.InitiatorCount = k
	return nil
}

// parseFaults reads --crash and --recover into the options: a --crash
// without a time is a node down from the start.
func (c *electConfig) parseFaults() error {
	var during list
	for _, s := range c.crashes {
		if strings.Contains(s, "@") {
			during = append(during, s)
			continue
		}
		if strings.ContainsAny(s, ", ") {
			return fmt.Errorf("--crash %s: want one NODE or NODE@TIME; repeat --crash for several", s)
		}
		c.opts.Crashed = append(c.opts.Crashed, s)
	}
	for _, f := range []struct {
		flag  string
		specs list
		to    *[]election.NodeEvent
	}{{"--crash", during, &c.opts.Crashes}, {"--recover", c.recoveries, &c.opts.Recoveries}} {
		events, err := labNodeTimes(f.flag, f.specs)
		if err != nil {
			return err
		}
		for _, e := range events {
			*f.to = append(*f.to, election.NodeEvent{Node: e.Node, At: e.At})
		}
	}
	return nil
}

// runError names the ID file in an error about the IDs it gives, such as a
// node of the bus it leaves out.
func (c *electConfig) runError(err error) error {
	if c.opts.IDs != nil && errors.Is(err, election.ErrBadIDs) {
		return fmt.Errorf("--ids %s: %w", c.ids, err)
	}
	return err
}

// maxIDFileSize bounds an ID file: 63 nodes take a few hundred bytes.
const maxIDFileSize = 1 << 20

// readIDs reads --ids: an order, or the file it names.
func (c *electConfig) readIDs(ctx context.Context) error {
	if order, ok := election.ParseIDOrder(c.ids); ok {
		c.opts.IDOrder = order
		return nil
	}
	f, err := openInput(ctx, c.ids)
	if err != nil {
		return fmt.Errorf("--ids %s: not ascending, descending or random, and not a readable ID file: %w",
			c.ids, withoutPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIDFileSize+1))
	err = withoutPath(err)
	if err == nil && len(data) > maxIDFileSize {
		err = fmt.Errorf("larger than %d KiB", maxIDFileSize>>10)
	}
	if err != nil {
		return fmt.Errorf("--ids %s: not a readable ID file: %w", c.ids, err)
	}
	c.opts.IDs, err = election.ParseIDs(data, c.ids)
	return err
}

// withoutPath drops the path an *os.PathError repeats: the message names
// the flag and the file already.
func withoutPath(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

func (c *electConfig) runCompare(e *env, fs *flags, topo *bus.Topology, source string) int {
	rows, err := election.Compare(topo, c.opts)
	if err != nil {
		return labError(e, fs, c.runError(err))
	}
	header := fmt.Sprintf("seed %d, ids %s, delays %s", c.opts.Seed, c.idsName(), election.DelayName(c.opts.UnitDelays))
	scenario := "scenario: initiators " + orAll(c.startedBy()) + ", announced"
	if c.opts.Crashed != nil {
		scenario += ", crashed " + strings.Join(c.opts.Crashed, " ")
	}
	if during := slices.DeleteFunc(slices.Clone(c.crashes), func(s string) bool { return !strings.Contains(s, "@") }); len(during) > 0 {
		scenario += ", crash " + strings.Join(during, " ")
	}
	if c.recoveries != nil {
		scenario += ", recover " + strings.Join(c.recoveries, " ")
	}
	opts := strings.TrimPrefix(view.OptionNames(c.opts.Suppress, false), ", ")
	text := view.ElectComparison(header, opts, source, rows)
	text.Lines = append([]string{scenario}, text.Lines...)
	var failed []string
	for _, r := range rows {
		if r.Failed() {
			failed = append(failed, r.Algo)
		}
	}
	return writeComparison(e, fs, c.jsonOutput, election.NewCompareJSON(source, c.opts, c.idsName(), c.startedBy(), rows), text, failed)
}

func (c *electConfig) idsName() string {
	if c.opts.IDs != nil {
		return "from " + c.ids
	}
	return c.opts.IDOrder.String()
}

// startedBy is the scenario's initiators as the command line gave them:
// the nodes of --initiator, or --initiators ("" for neither).
func (c *electConfig) startedBy() string {
	if c.initiator != nil {
		return strings.Join(c.initiator, ",")
	}
	return c.initiators
}

func orAll(s string) string {
	if s == "" {
		return "all"
	}
	return s
}

// faultTakers lists, for --crash's help, the algorithms that take crashes
// during the run, two lines at most.
func faultTakers() string {
	var names []string
	for _, a := range election.Algorithms() {
		if a.Faults {
			names = append(names, a.Name)
		}
	}
	list := strings.Join(names, ", ")
	if i := strings.LastIndex(list[:min(len(list), 60)], ", "); len(list) > 60 && i > 0 {
		list = list[:i+1] + "\n" + list[i+2:]
	}
	return list
}
