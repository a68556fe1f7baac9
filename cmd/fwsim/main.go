// Command fwsim emulates IEEE 1394 (FireWire) bus initialisation. Run
// "fwsim help" for its commands; internal/cli implements them.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/fwsim/fwsim/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
