package hwtest

// LineReport is what linestates found: the capture, and its comparison
// with an emulation when one was asked for.
type LineReport struct {
	Source     string
	Capture    *LineCapture
	Emulated   string // the bus emulated, as busFlags.load names it
	Seed       uint64
	Comparison *LineComparison
}
