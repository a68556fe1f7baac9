// Command fwsim emulates IEEE 1394 (FireWire) bus initialisation. Run
// "fwsim help" for its commands.
//
// default.pgo, beside this file, is a CPU profile of the emulator's
// benchmarks: the go command uses it whenever it builds fwsim, to inline
// and devirtualise the hot path (profile-guided optimisation), which saves
// about a tenth of the instructions of a run. pgo.sh writes it again after
// the hot path changes (docs/performance.md).
//
//go:generate sh pgo.sh
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		// The command stops on the first Ctrl-C; a second one, should it
		// not, ends the process at once, as Ctrl-C does by default.
		<-ctx.Done()
		stop()
	}()
	code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
