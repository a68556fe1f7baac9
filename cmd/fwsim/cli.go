package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/election"
	"github.com/fwsim/fwsim/lab/netsim"
	"github.com/fwsim/fwsim/view"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1   // the command ran; what it found is a failure
	exitUsage       = 2   // bad flags, arguments or input
	exitOutput      = 3   // an output could not be written
	exitIncomplete  = 4   // explore stopped at its budget before its answer was sure
	exitInterrupted = 130 // SIGINT: 128 + its number, as shells report it (interruptedStatus)
)

// env is what a command sees of the process.
type env struct {
	// ctx ends on SIGINT, SIGTERM or SIGHUP; inputs read through
	// interruptible stop with it.
	ctx   context.Context
	stdin io.Reader
	// stdout records the first write error: Run reports it, so that no
	// command can exit 0 after output that did not arrive.
	stdout *checkedWriter
	// stderr is for messages: a message clears the progress bar first, so
	// that it starts on a line of its own.
	stderr *messageWriter
}

// checkedWriter passes writes to w until one fails, then keeps that error
// and drops the rest.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = &writeError{fmt.Errorf("writing standard output: %w", err)}
	}
	return n, c.err
}

// messageWriter writes messages to the terminal (or file) w, clearing the
// progress bar first when one is drawn. Control characters other than
// newline and tab are written escaped (ESC as \x1b): a message quotes what
// the user gave, and that must never drive the terminal.
type messageWriter struct {
	w   io.Writer
	bar *view.ProgressBar
}

func (m *messageWriter) Write(p []byte) (int, error) {
	if m.bar != nil {
		m.bar.Clear()
	}
	if !bytes.ContainsFunc(p, isEscaped) {
		return m.w.Write(p)
	}
	var b bytes.Buffer
	for _, r := range string(p) {
		if isEscaped(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
		} else {
			b.WriteRune(r)
		}
	}
	if _, err := m.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isEscaped says whether a message shows r escaped: the C0 and C1 controls
// and DEL, except newline and tab.
func isEscaped(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }

// command is one entry of the command table.
type command struct {
	name    string
	summary string // one line, lower case, no final full stop
	// run executes the command with the arguments after its name. It
	// handles -h itself (printing its help to stdout, exit 0), so "fwsim
	// help NAME" is run with "-h".
	run func(ctx context.Context, e *env, args []string) int
}

// commands is the command table, in the order "fwsim help" lists it. A new
// command is one file with its run function and one line here.
func commands() []command {
	return []command{
		{"run", "emulate a bus initialisation and report the result", runRun},
		{"analyze", "run many seeded initialisations: distributions, deadlines, roots, failures", runAnalyze},
		{"explore", "every choice of a small bus: exact probabilities, bounds and counterexamples", runExplore},
		{"merge", "combine the shard outputs of analyze --shard into one result", runMerge},
		{"sweep", "analyze over a parameter grid; mark where the correctness conditions fail", runSweep},
		{"report", "write an HTML report with SVG plots of an analysis or a sweep", runReport},
		{"elect", "run a classic leader-election algorithm on a topology, or compare them", runElect},
		{"mutex", "run a mutual-exclusion algorithm on a topology, with faults, or compare them", runMutex},
		{"multicast", "run a reliable multicast algorithm over lossy links, with crashes, or compare them", runMulticast},
		{"decode", "read self-IDs from a capture of a real bus and check them", runDecode},
		{"crosscheck", "compare a real bus (capture or probe) with its emulation", runCrosscheck},
		{"linestates", "read a logic analyzer's TPA/TPB capture and compare it with an emulation", runLinestates},
		{"probe", "read the self-IDs of this machine's bus (Linux /dev/fw*, or USB)", runProbe},
		{"version", "print the fwsim version", runVersion},
		{"help", "explain a command and its flags", runHelp},
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Run is the whole program: args are the arguments after the program name.
// It returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdin: interruptible{ctx, stdin}, stdout: &checkedWriter{w: stdout}, stderr: &messageWriter{w: stderr}}
	name, code := "fwsim", exitUsage
	switch {
	case len(args) == 0:
		writeUsage(e.stderr)
	case isHelpFlag(args[0]):
		writeUsage(e.stdout)
		code = exitOK
	case args[0] == "-v" || args[0] == "-version" || args[0] == "--version":
		name, code = "fwsim version", runVersion(ctx, e, args[1:])
	default:
		c, ok := lookup(args[0])
		if !ok {
			fmt.Fprintf(e.stderr, "fwsim: unknown command %q (commands: %s; see 'fwsim help')\n", args[0], commandNames())
			return exitUsage
		}
		name, code = "fwsim "+c.name, c.run(ctx, e, args[1:])
	}
	switch {
	case code == exitInterrupted:
		return interruptedStatus(ctx)
	case e.stdout.err != nil && code != exitOutput:
		fmt.Fprintf(e.stderr, "%s: %v\n", name, e.stdout.err)
		return exitOutput
	}
	return code
}

// isHelpFlag reports whether arg asks for help, as -h does to every command.
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// interrupted reports whether err says the command was interrupted: its
// context ended (a signal), or a run that watched the context stopped.
func interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, bus.ErrInterrupted) || errors.Is(err, election.ErrInterrupted) || errors.Is(err, netsim.ErrInterrupted)
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// writeUsage writes the overview "fwsim help" prints.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, `fwsim emulates IEEE 1394 (FireWire) bus initialisation: bus reset, tree identify
with root contention, and self identify, on nanosecond virtual time.

Usage: fwsim <command> [flags]

Commands:
`)
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'fwsim help <command>' (or 'fwsim <command> -h') for its flags and examples;
'fwsim --version' (or -v) prints the version, as 'fwsim version' does.
Exit status: 0 success, 1 the run completed but its outcome is a failure,
2 usage or input error, 3 an output could not be written, 130 interrupted
(143 on SIGTERM, 129 on SIGHUP).
Time: the bus commands read durations with a unit, as Go writes them
(166.7us, 2ms, 1.5s; a topology file also takes an integer of ns), sweep
parameters too (delay=100ns..160ns:2ns); the labs (elect, mutex, multicast)
count virtual time in delays, one message delay on a cable: 2.5 or 2.5d.
Nodes: --initiator NODE names a node that starts (the reset, or an election),
--crash NODE@TIME crashes one during a lab's run (bully: NODE alone, down from
the start), --force-root NODE makes one root (probe: a phy_ID, the only name a
live bus gives its nodes); repeat --initiator and --crash for several.
`)
}

func runHelp(ctx context.Context, e *env, args []string) int {
	switch len(args) {
	case 0:
		writeUsage(e.stdout)
		return exitOK
	case 1:
		if args[0] == "help" || isHelpFlag(args[0]) {
			fmt.Fprint(e.stdout, "Usage: fwsim help [command]\n\nExplains a command and its flags; without one, lists the commands.\n\nExample:\n  fwsim help run\n")
			return exitOK
		}
		c, ok := lookup(args[0])
		if !ok {
			fmt.Fprintf(e.stderr, "fwsim help: unknown command %q (commands: %s)\n", args[0], commandNames())
			return exitUsage
		}
		return c.run(ctx, e, []string{"-h"})
	}
	fmt.Fprintf(e.stderr, "fwsim help: want at most one command, got %d arguments\n", len(args))
	return exitUsage
}

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlags("version", "Usage: fwsim version\n\nPrints the version of fwsim (the module version it was built at, or\n(devel)) and the Go release that built it.", "fwsim version")
	if code, done := fs.parse(e, args); done {
		return code
	}
	fmt.Fprintf(e.stdout, "fwsim %s\n", bus.FwsimVersion())
	return exitOK
}

// flags is a command's FlagSet with the help text around its flags.
type flags struct {
	*flag.FlagSet
	name     string
	intro    string // usage line and description
	examples []string
	names    []string // the order help lists flags in; others follow by name
	takes    string   // what the command takes, for an unexpected argument; "" is flags only
}

// order sets the order help lists the flags in.
func (fs *flags) order(names ...string) { fs.names = names }

// isSet reports whether the command line set the flag name.
func (fs *flags) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// visit calls fn for every flag in help order.
func (fs *flags) visit(fn func(*flag.Flag)) {
	seen := map[string]bool{}
	for _, name := range fs.names {
		if f := fs.Lookup(name); f != nil && !seen[name] {
			seen[name] = true
			fn(f)
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !seen[f.Name] {
			fn(f)
		}
	})
}

// newFlags starts the FlagSet of command name. intro is the usage line and
// a description; examples are whole command lines.
func newFlags(name, intro string, examples ...string) *flags {
	fs := flag.NewFlagSet("fwsim "+name, flag.ContinueOnError)
	// Parse errors are reported by parse, as one line with the command's
	// name; help goes to stdout. The FlagSet itself prints nothing.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, name: name, intro: intro, examples: examples}
}

// parse parses args. done is true when the command must stop and exit with
// code: help was asked for (printed to stdout, exit 0), a flag was bad or a
// positional argument was given (one line on stderr, exit 2). Commands take
// no positional arguments.
func (fs *flags) parse(e *env, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.writeHelp(e.stdout)
		return exitOK, true
	case err != nil:
		return fs.usageError(e, "%s", fs.doubleDash(err.Error())), true
	case fs.NArg() > 0:
		return fs.usageError(e, "unexpected argument %q (%s takes %s)", fs.Arg(0), fs.name, cmp.Or(fs.takes, "flags only")), true
	}
	return exitOK, false
}

// usageError reports a problem with the command line: one line on stderr
// that points to the command's help. It returns exitUsage.
func (fs *flags) usageError(e *env, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "fwsim %s: %s (see 'fwsim help %s')\n", fs.name, oneLine(fmt.Sprintf(format, args...)), fs.name)
	return exitUsage
}

// oneLine shows the newlines of a message, which may quote what the user
// gave, as \n: an error is one line, whatever the input.
func oneLine(msg string) string { return strings.ReplaceAll(msg, "\n", `\n`) }

// inputError reports bad input (a file, a node name): one line on stderr. It
// returns exitUsage; as the error of a run can also be an interruption or a
// failed write, it returns exitInterrupted or exitOutput for those.
func (fs *flags) inputError(e *env, err error) int {
	if interrupted(err) {
		return fs.interrupt(e)
	}
	fmt.Fprintf(e.stderr, "fwsim %s: %s\n", fs.name, oneLine(err.Error()))
	var we *writeError
	if errors.As(err, &we) {
		return exitOutput
	}
	return exitUsage
}

// outputError reports an output that could not be written. It returns
// exitOutput, or exitInterrupted when err is an interruption.
func (fs *flags) outputError(e *env, err error) int {
	if interrupted(err) {
		return fs.interrupt(e)
	}
	fmt.Fprintf(e.stderr, "fwsim %s: %s\n", fs.name, oneLine(err.Error()))
	return exitOutput
}

// interrupt reports that the command stopped on a signal, having written
// no partial file, and returns exitInterrupted.
func (fs *flags) interrupt(e *env) int {
	writeInterrupted(e.stderr, "fwsim "+fs.name)
	return exitInterrupted
}

// writeInterrupted writes the line of a command, named as "fwsim CMD",
// that a signal stopped.
func writeInterrupted(w io.Writer, command string) {
	fmt.Fprintf(w, "%s: interrupted; no output file was written or changed\n", command)
}

// writeHelp writes the intro, every flag as --name ARG with its usage and
// default, and the examples.
func (fs *flags) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n", strings.TrimRight(fs.intro, "\n"))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		fs.visit(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			if isBool(f) {
				arg = ""
			}
			fmt.Fprintf(w, "  --%s", f.Name)
			if arg != "" {
				fmt.Fprintf(w, " %s", arg)
			}
			fmt.Fprint(w, "\n")
			for line := range strings.SplitSeq(usage, "\n") {
				fmt.Fprintf(w, "        %s\n", line)
			}
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				fmt.Fprintf(w, "        (default %s)\n", f.DefValue)
			}
		})
	}
	if len(fs.examples) > 0 {
		fmt.Fprint(w, "\nExamples:\n")
		for _, ex := range fs.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// choice is a flag.Value that accepts one of a fixed set of names.
type choice struct {
	names []string
	value string
}

func newChoice(def string, names ...string) *choice { return &choice{names: names, value: def} }

func (c *choice) String() string { return c.value }

func (c *choice) Set(s string) error {
	for _, n := range c.names {
		if s == n {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("want %s", strings.Join(c.names, " or "))
}

// nonEmpty is a string flag that refuses "": an empty value is a mistake
// (an unset shell variable, a stray quote), not a request for the default.
type nonEmpty struct{ p *string }

func (v nonEmpty) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v nonEmpty) Set(s string) error {
	if s == "" {
		return errors.New("want a non-empty value")
	}
	*v.p = s
	return nil
}

// StringVar defines a string flag, as flag.FlagSet.StringVar does, that
// refuses an empty value.
func (fs *flags) StringVar(p *string, name, value, usage string) {
	*p = value
	fs.Var(nonEmpty{p}, name, usage)
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(s string) error {
	switch {
	case s == "":
		return errors.New("want a non-empty value")
	case slices.Contains(*l, s):
		return fmt.Errorf("%q is given twice; want each once", s)
	}
	*l = append(*l, s)
	return nil
}

// doubleDash rewrites the flag package's "-name" in a parse error as
// "--name", the spelling help uses.
func (fs *flags) doubleDash(msg string) string {
	for _, prefix := range []string{"flag provided but not defined: -", "flag needs an argument: -"} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return prefix + "-" + rest
		}
	}
	var out string
	fs.VisitAll(func(f *flag.Flag) {
		for _, pattern := range []string{" for flag -" + f.Name + ": ", " for -" + f.Name + ": "} {
			if i := strings.LastIndex(msg, pattern); i >= 0 && out == "" {
				out = msg[:i] + strings.Replace(pattern, "-", "--", 1) + wantOf(f, msg[i+len(pattern):])
			}
		}
	})
	if out != "" {
		return out
	}
	return msg
}

// wantOf replaces the flag package's own reasons for refusing a value of a
// built-in flag, "parse error" and "value out of range", with what f wants.
func wantOf(f *flag.Flag, reason string) string {
	if reason != "parse error" && reason != "value out of range" {
		return reason
	}
	getter, _ := f.Value.(flag.Getter)
	if getter == nil {
		return reason
	}
	switch getter.Get().(type) {
	case bool:
		return "want true or false"
	case int:
		if reason == "value out of range" {
			return "want an integer that fits in " + strconv.Itoa(strconv.IntSize) + " bits"
		}
		return "want an integer"
	case time.Duration:
		return "want a duration such as 500ms or 10s"
	}
	return reason
}

// uint64Value is an unsigned flag with a message that says so.
type uint64Value struct {
	p        *uint64
	positive bool // refuse 0, which the option it sets would take for "the default"
}

// newSeed is a bus's --seed: bus.DefaultSeed unless given, and never 0,
// which bus.Options takes for the default.
func newSeed(p *uint64) uint64Value {
	*p = bus.DefaultSeed
	return uint64Value{p: p, positive: true}
}

func newUint64(p *uint64, def uint64) uint64Value {
	*p = def
	return uint64Value{p: p}
}

func (v uint64Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v uint64Value) Set(s string) error {
	n, err := strconv.ParseUint(s, 0, 64)
	switch {
	case v.positive && (err != nil || n == 0):
		return errors.New("want a positive integer")
	case err != nil:
		return errors.New("want an unsigned integer")
	}
	*v.p = n
	return nil
}
