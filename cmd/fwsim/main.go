package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	setMemoryLimit = debug.SetMemoryLimit
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, stopSignals()...)
	go func() {
		sig := <-signals
		// The command stops on the first signal; a second one, should it
		// not, ends the process at once, as the signal does by default.
		signal.Stop(signals)
		cancel(signalled{sig})
	}()
	exit := make(chan int, 1)
	go func() { exit <- Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }()
	os.Exit(awaitExit(ctx, exit, os.Stderr, os.Args[1:]))
}

// stopGrace is how long a command has after a signal to stop by itself.
// The runs look at the context every fraction of a millisecond, but a few
// phases do not: building the graph of a topology of millions of cables,
// one step of a solver. Past it the process abandons the command.
const stopGrace = 250 * time.Millisecond

// awaitExit returns the exit status of the command args running in the
// background, which sends it on exit: on a signal, the command's own, or
// after stopGrace the status of an interruption, having removed the
// command's temporary files and directories and reported it as the
// command would.
func awaitExit(ctx context.Context, exit <-chan int, stderr io.Writer, args []string) int {
	select {
	case code := <-exit:
		return code
	case <-ctx.Done():
	}
	select {
	case code := <-exit:
		return code
	case <-time.After(stopGrace):
	}
	if !abandonOutputs() {
		return <-exit // it is putting its files in place: its work is done
	}
	name := "fwsim"
	if len(args) > 0 {
		if c, ok := lookup(args[0]); ok {
			name += " " + c.name
		}
	}
	writeInterrupted(stderr, name)
	return interruptedStatus(ctx)
}

// stopSignals are the signals that stop a command as Ctrl-C (SIGINT) does:
// SIGTERM, which kill, timeout, systemd and batch schedulers send, and
// SIGHUP, which a closing terminal sends, unless the command was started
// ignoring it (nohup): then it stays ignored.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// signalled is the cause of the end of a command's context when a signal
// stopped it. It is a cancellation, as Ctrl-C's always was, for code that
// reports context.Cause rather than ctx.Err.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return s.sig.String() }
func (s signalled) Unwrap() error { return context.Canceled }

// interruptedStatus is the exit status of a command that ctx interrupted:
// 128 plus the number of the signal, as shells report a process the signal
// killed (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
func interruptedStatus(ctx context.Context) int {
	if s, ok := errors.AsType[signalled](context.Cause(ctx)); ok {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return exitInterrupted
}
