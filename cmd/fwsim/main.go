package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

func main() {
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
	os.Exit(Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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
