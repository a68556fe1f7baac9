package hwtest_test

import (
	"io"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/view"
)

func init() {
	hwtest.SetSigrokVCDWriter(func(w io.Writer, res *bus.Result, trace []bus.TraceEvent) error {
		return view.WriteVCDWith(w, res, trace, view.VCDOptions{Dialect: view.VCDSigrok})
	})
}
