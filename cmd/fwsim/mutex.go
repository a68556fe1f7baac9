package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/mutex"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/view"
)

const mutexIntro = `Usage: fwsim mutex --algo NAME [--topology FILE | --gen SPEC] [flags]
       fwsim mutex --compare [--topology FILE | --gen SPEC] [flags]

Runs a mutual-exclusion algorithm on the nodes of a bus, on the virtual time of
fwsim elect: every node is a process, every two processes share a FIFO link,
and each message takes a delay of at most one unit drawn from the seed. Each
node asks for the critical section --requests times, each time after a wait
drawn from [0, --think), and stays --cs-time. Every run checks safety (never
two nodes inside), liveness (every request served, or which wait for ever and
why) and order (whether entries followed the order of the requests in time and
by happened-before), and counts messages per entry and waiting times.
--loss P loses every message with probability P (no algorithm resends: a loss
deadlocks all but a token ring with --regenerate). --compare runs every
algorithm on the same workload and prints one table, with the hops the
messages take on the topology; --crash and --loss go to every run,
--lose-token-at and --regenerate to token-ring, --request-reply to
ricart-agrawala. Times are in message delays. docs/mutex.md explains the
algorithms and faults.

Algorithms:
%s
Exit status: 0 the run ended safe (a crash or a lost token may leave requests
waiting: that is reported); 1 two nodes were in the critical section at once,
a request was never served although no crash or lost token was injected (a
deadlock after a --loss is a failure), or the run used up its event budget;
2 usage or input error.`

// mutexConfig is what the flags of "fwsim mutex" ask for.
type mutexConfig struct {
	source              topologyFlags
	opts                mutex.Options
	crashes             list
	requesters          list
	compare, jsonOutput bool
	trace               labTrace
}

func runMutex(ctx context.Context, e *env, args []string) int {
	algos := algorithmList(mutex.Algorithms(), func(a mutex.Info) (string, string) { return a.Name, a.Summary })
	fs := newFlags("mutex", fmt.Sprintf(mutexIntro, algos),
		"fwsim mutex --algo ricart-agrawala --gen ring:5 --requests 2",
		"fwsim mutex --algo central --gen tree:6:2 --crash n0@2   # exit 1: deadlocked",
		"fwsim mutex --algo ricart-agrawala --gen ring:5 --crash n2@0.2 --request-reply",
		"fwsim mutex --algo token-ring --gen ring:5 --lose-token-at 3 --trace-table   # exit 1: deadlocked",
		"fwsim mutex --algo token-ring --gen ring:5 --requests 3 --lose-token-at 3 --regenerate",
		"fwsim mutex --algo central --gen ring:5 --requests 2 --loss 0.1 --seed 3   # exit 1: deadlocked",
		"fwsim mutex --algo majority --gen ring:9 --requests 2",
		"fwsim mutex --compare --gen ring:8 --requests 3",
		"fwsim mutex --algo central --gen ring:5 --requests 2 --think 4 --notify",
		"fwsim mutex --algo ricart-agrawala --gen chain:3 --requester n0 --requester n1 \\\n      --clock n0=11 --clock n1=7 --think 0 --trace-table   # the textbook: timestamps 12 and 8",
	)
	var cfg mutexConfig
	cfg.register(fs)
	if code, done := fs.parse(e, args); done {
		return code
	}
	cfg.opts.Trace, cfg.opts.MaxTrace = cfg.trace.wanted(), cfg.trace.maxEntries
	if msg := labUsage(cfg.compare, cfg.opts.Algo, cfg.opts.Trace, cfg.source); msg != "" {
		return fs.usageError(e, "%s", msg)
	}
	crashes, err := labCrashes(cfg.crashes)
	if err != nil {
		return fs.usageError(e, "%s", err)
	}
	cfg.opts.Crashes = crashes
	cfg.opts.Requesters = cfg.requesters
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
	res, err := mutex.Run(topo, cfg.opts)
	return reportLabRun(e, fs, res, err, cfg.jsonOutput, &cfg.trace,
		func(res *mutex.Result) (labTraceHeader, *[]netsim.TraceEntry) {
			return labTraceHeader{Command: "mutex", Algo: res.Algo, Source: source, Seed: res.Seed, TimeUnit: "delays"}, &res.Trace
		},
		func(res *mutex.Result) any { return mutex.NewJSON(source, res) },
		func(w io.Writer, res *mutex.Result) { view.WriteMutexText(w, source, cfg.opts, res) },
		func(res *mutex.Result) string {
			switch {
			case len(res.Violations) > 0:
				return fmt.Sprintf("fwsim mutex: %s broke mutual exclusion: %s", res.Algo, res.Violations[0])
			case res.LossDeadlock():
				return fmt.Sprintf("fwsim mutex: %s deadlocked after %d lost message%s: %s", res.Algo, len(res.Lost), view.Plural(len(res.Lost)), res.Deadlock)
			case !res.Live && res.Faulty():
				return fmt.Sprintf("fwsim mutex: %s deadlocked after %s: %s", res.Algo, view.MutexFaults(res), res.Deadlock)
			case !res.Live:
				return fmt.Sprintf("fwsim mutex: %s left requests unserved without a fault", res.Algo)
			}
			return ""
		})
}

// reportLabRun reports one run of a lab's algorithm: its --trace file
// (traced gives its header and the result's trace), its JSON or its text
// on stdout, then, when verdict finds the run broke what it promises, why
// on stderr and exit 1.
func reportLabRun[R any](e *env, fs *flags, res R, err error, jsonOutput bool, trace *labTrace,
	traced func(R) (labTraceHeader, *[]netsim.TraceEntry), toJSON func(R) any, text func(io.Writer, R), verdict func(R) string) int {
	if err != nil {
		return labError(e, fs, err)
	}
	if err := trace.take(traced(res)); err != nil {
		return viewError(e, fs, err)
	}
	if jsonOutput {
		if err := jsonout.Write(e.stdout, toJSON(res)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		text(e.stdout, res)
	}
	if err := trace.out.commit(); err != nil {
		return fs.outputError(e, err)
	}
	if why := verdict(res); why != "" {
		fmt.Fprintln(e.stderr, why)
		return exitFailure
	}
	return exitOK
}

// algorithmList is a lab's algorithms as its help lists them: each name
// in a column one wider than the longest, then its summary.
func algorithmList[T any](algos []T, describe func(T) (name, summary string)) string {
	width := 0
	for _, a := range algos {
		name, _ := describe(a)
		width = max(width, len(name))
	}
	var b strings.Builder
	for _, a := range algos {
		name, summary := describe(a)
		fmt.Fprintf(&b, "  %-*s %s\n", width+1, name, summary)
	}
	return b.String()
}

// labUsage is what elect and mutex alike refuse in their flags: --compare
// with --algo or a trace, neither --compare nor --algo, --topology with
// --gen. It returns "" when the flags go together.
func labUsage(compare bool, algo string, trace bool, source topologyFlags) string {
	switch {
	case compare && algo != "":
		return "--compare runs every algorithm: give it no --algo"
	case !compare && algo == "":
		return "want --algo NAME or --compare"
	case compare && trace:
		return "--trace, --trace-table and --html follow one run: not with --compare"
	case source.check() != nil:
		return source.check().Error()
	}
	return ""
}

// labCrashes reads the --crash NODE@TIME values of mutex and multicast.
func labCrashes(specs list) ([]mutex.Crash, error) { return labNodeTimes("--crash", specs) }

// labNodeTimes reads the NODE@TIME values of flag: crashes, or elect's
// recoveries.
func labNodeTimes(flag string, specs list) ([]mutex.Crash, error) {
	crashes, err := mutex.ParseCrashes(specs)
	if err != nil {
		return nil, fmt.Errorf("%s %w", flag, err)
	}
	return crashes, nil
}

// registerLab adds --topology, --gen and --max-memory to the flags of a
// lab, which reads a topology as a graph.
func (t *topologyFlags) registerLab(fs *flags, genExample string) {
	t.memory.estimate, t.memory.what = netsim.GraphMemory, "graph"
	t.register(fs, "its scripted events are ignored", genExample)
}

// register adds the flags of mutex to fs.
func (c *mutexConfig) register(fs *flags) {
	c.opts.Requests, c.opts.CSTime, c.opts.Think = 1, mutex.Delay, 2*mutex.Delay
	fs.StringVar(&c.opts.Algo, "algo", "",
		"run the algorithm `NAME` (listed above), e.g. --algo token-ring")
	fs.BoolVar(&c.compare, "compare", false,
		"run every algorithm on the same workload and print one table, e.g. --compare")
	c.source.registerLab(fs, "ring:5")
	fs.Func("requests", "every node enters the critical section `K` times, 1 to 100, e.g. --requests 3\n(default 1)",
		func(s string) error {
			k, err := strconv.Atoi(s)
			if err != nil || k < 1 || k > maxRequests {
				return fmt.Errorf("want a whole number from 1 to %d", maxRequests)
			}
			c.opts.Requests = k
			return nil
		})
	fs.Func("cs-time", "stay `DUR` delays in the critical section, e.g. --cs-time 0.5 (default 1)", durationFlag(&c.opts.CSTime))
	fs.Func("think", "wait a time drawn from [0, `DUR`) delays before each request; 0 makes every\nfirst request at time 0, e.g. --think 0 (default 2)", durationFlag(&c.opts.Think))
	fs.BoolVar(&c.opts.Notify, "notify", false,
		"a node that asks tells its predecessor on the logical ring (NOTE), which then asks\ntoo if it can: the test of ordering by happened-before, e.g. --notify")
	fs.Var(newUint64(&c.opts.Seed, 1), "seed",
		"seed the message delays, the waits and the 1394 root with `N`, e.g. --seed 42")
	fs.Var(&c.crashes, "crash",
		"`NODE@TIME`: the node crashes at TIME delays; repeat for several, e.g. --crash n2@1.5")
	fs.Func("lose-token-at", "token-ring: lose the first token sent at or after `TIME` delays,\ne.g. --lose-token-at 3",
		func(s string) error {
			c.opts.LoseToken = true
			return durationFlag(&c.opts.LoseTokenAt)(s)
		})
	fs.BoolVar(&c.opts.Regenerate, "regenerate", false,
		"token-ring: a coordinator (--coordinator, or the elected leader) that has not seen the\ntoken for its longest round trip regenerates it, e.g. --regenerate")
	fs.Func("loss", "lose every message with probability `P`, from 0 to 1, drawn per message, link and\nattempt from the seed; no algorithm resends, e.g. --loss 0.1 (default 0)",
		func(s string) error {
			p, err := strconv.ParseFloat(s, 64)
			if err != nil || !(p >= 0 && p <= 1) {
				return errors.New("want a probability from 0 to 1, e.g. 0.1")
			}
			c.opts.Loss = p
			return nil
		})
	fs.Var(&c.requesters, "requester",
		"only `NODE` asks for the critical section; repeat for several (default: every\nnode), e.g. --requester n0 --requester n1")
	fs.Func("clock", "ricart-agrawala: start `NODE=N`'s Lamport clock at N, so that its first request\nis stamped N+1; repeat for several (default 0), e.g. --clock n1=7",
		func(s string) error {
			name, value, ok := strings.Cut(s, "=")
			n, err := strconv.ParseInt(value, 10, 64)
			_, given := c.opts.Clocks[name]
			switch {
			case !ok || name == "":
				return errors.New("want NODE=N, e.g. n1=7")
			case err != nil || n < 0:
				return fmt.Errorf("%s: want a clock from 0, e.g. %s=7", name, name)
			case given:
				return fmt.Errorf("%s's clock is given twice; want it once", name)
			}
			if c.opts.Clocks == nil {
				c.opts.Clocks = map[string]int64{}
			}
			c.opts.Clocks[name] = n
			return nil
		})
	fs.StringVar(&c.opts.Coordinator, "coordinator", "",
		"central, and token-ring with --regenerate: `NODE` coordinates instead of the elected\nleader, e.g. --coordinator n3")
	fs.BoolVar(&c.opts.RequestReply, "request-reply", false,
		"ricart-agrawala: answer every REQUEST at once (REPLY or DEFER) and give up on a\nnode silent for two delays, the remedy against crashes, e.g. --request-reply")
	c.trace.register(fs, "every message (when sent and received or lost, between whom, its\ntype and value) and what each node does (its start, its timers WANT, EXIT, CRASH,\nSUSPECT, TOKEN and TIMEOUT, entering and leaving the critical section, crashing,\nregenerating the token)")
	fs.BoolVar(&c.jsonOutput, "json", false,
		"write one JSON object instead of the text report, e.g. --json | jq .unserved")
	fs.order("algo", "compare", "topology", "gen", "requests", "requester", "cs-time", "think", "notify", "seed", "crash", "loss", "lose-token-at",
		"regenerate", "request-reply", "clock", "coordinator", "trace", "trace-table", "html", "max-trace-events", "json")
}

// maxRequests bounds --requests: 63 nodes asking 100 times each make 6300
// entries, which a run checks and reports in about a second.
const maxRequests = 100

// durationFlag parses a time in delays into ticks.
func durationFlag(p *int64) func(string) error {
	return func(s string) error {
		t, err := mutex.ParseTime(s)
		if err != nil {
			return err
		}
		*p = t
		return nil
	}
}

func (c *mutexConfig) runCompare(e *env, fs *flags, topo *bus.Topology, source string) int {
	results, err := mutex.Compare(topo, c.opts)
	if err != nil {
		return labError(e, fs, err)
	}
	var failed []string
	for _, r := range results {
		if r.Failed() {
			failed = append(failed, r.Algo)
		}
	}
	return writeComparison(e, fs, c.jsonOutput, mutex.NewCompareJSON(source, c.opts, results), view.MutexComparison(c.opts, source, results), failed)
}

// labError reports a lab run that gave no result. One that used up its
// event budget ran and failed, as run's and analyze's do: exit 1, with the
// algorithm and the budget the error names; anything else is bad input.
func labError(e *env, fs *flags, err error) int {
	if errors.Is(err, netsim.ErrTraceFull) {
		return fs.inputError(e, fmt.Errorf("%w, the bound of --max-trace-events on the trace that --trace, --trace-table and --html are written from; no file was written: raise the bound, or trace a smaller run", err))
	}
	if errors.Is(err, netsim.ErrNoTermination) || errors.Is(err, election.ErrNoTermination) || errors.Is(err, mutex.ErrTooLong) {
		fmt.Fprintf(e.stderr, "fwsim %s: %s\n", fs.name, oneLine(err.Error()))
		return exitFailure
	}
	return fs.inputError(e, err)
}

// writeComparison is the one way every lab's --compare ends: its JSON or
// its table on stdout, then, when an algorithm's run failed, which on
// stderr and exit 1.
func writeComparison(e *env, fs *flags, jsonOutput bool, js any, text *view.Comparison, failed []string) int {
	if jsonOutput {
		if err := jsonout.Write(e.stdout, js); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		text.WriteText(e.stdout)
	}
	if len(failed) > 0 {
		which := "it"
		if len(failed) > 1 {
			which = "each"
		}
		fmt.Fprintf(e.stderr, "fwsim %s: %s failed; run %s alone for the details\n", text.Command, strings.Join(failed, ", "), which)
		return exitFailure
	}
	return exitOK
}
