package hwtest

import (
	"io"

	"github.com/fwsim/fwsim/bus"
)

// SetSigrokVCDWriter gives the internal tests view's sigrok-dialect VCD
// writer, which they cannot import.
func SetSigrokVCDWriter(write func(w io.Writer, res *bus.Result, trace []bus.TraceEvent) error) {
	writeSigrokVCD = write
}
