package hwtest

import (
	"bytes"
	"testing"
)

// BenchmarkReadLines reads the sigrok-dialect VCD of a 9-node run and a
// 24 MS/s CSV export of it, the largest captures a lab makes of one bus
// initialisation; MB/s is of the capture's text.
func BenchmarkReadLines(b *testing.B) {
	r := lineRuns[4]
	res, trace := emulate(b, r.topo(b), r.opts)
	csv, m := sigrokCSV(EmulatedLines(res, trace), 24e6, csvStyle{label: "units"})
	for _, c := range []struct {
		name string
		data []byte
		opts LineOptions
	}{
		{"vcd", sigrokVCD(b, res, trace), LineOptions{}},
		{"csv-24MSps", csv, LineOptions{Channels: m}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadLines(bytes.NewReader(c.data), "", c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
