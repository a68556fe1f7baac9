package analysis

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"regexp"
	"strconv"

	"github.com/fwsim/fwsim/bus"
)

// numberPair is a two-number JSON array as indented by json.MarshalIndent:
// a histogram bin or an interval.
var numberPair = regexp.MustCompile(`\[\s+([-+.0-9eE]+),\s+([-+.0-9eE]+)\s+\]`)

// WriteJSON writes v, a Summary or what holds summaries, indented, with
// each two-number array (a histogram bin, an interval) on one line, which
// keeps a histogram of thousands of bins readable; unlike the other JSON
// outputs it escapes "<", ">" and "&".
func WriteJSON(w io.Writer, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	out = numberPair.ReplaceAll(out, []byte("[$1, $2]"))
	_, err = w.Write(append(out, '\n'))
	return err
}

// RunCSV writes a CSV file of one row per run (Sample).
type RunCSV struct {
	w      *csv.Writer
	row    []string
	header bool // the header row is written
}

// NewRunCSV starts the CSV with preamble (CSVPreamble). The header row
// follows with the first row, whose run says whether the columns of the
// traffic metrics (bus.TrafficMetricNames) are there.
func NewRunCSV(w io.Writer, preamble string) *RunCSV {
	c := &RunCSV{w: csv.NewWriter(w)}
	_, _ = io.WriteString(w, preamble) // an error recurs at the first row
	return c
}

func (c *RunCSV) writeHeader(traffic bool) {
	c.header = true
	head := []string{"run", "seed", "outcome", bus.MetricTreeID, bus.MetricSelfID, bus.MetricContention, bus.MetricContentionRounds, "root"}
	if traffic {
		head = append(head, bus.TrafficMetricNames...)
	}
	c.row = make([]string, len(head))
	_ = c.w.Write(head)
}

// Write writes the row of s.
func (c *RunCSV) Write(s Sample) error {
	if !c.header {
		c.writeHeader(s.Traffic.Present)
	}
	ns := func(v int64) string {
		if v < 0 {
			return "" // not reached
		}
		return strconv.FormatInt(v, 10)
	}
	contention := ""
	if s.Contended {
		contention = ns(s.ContentionNs)
	}
	c.row[0], c.row[1], c.row[2] = strconv.Itoa(s.Run), strconv.FormatUint(s.Seed, 10), string(s.Outcome)
	c.row[3], c.row[4], c.row[5] = ns(s.TreeIDNs), ns(s.SelfIDNs), contention
	c.row[6], c.row[7] = strconv.Itoa(s.ContentionRounds), s.Root
	for i := 8; i < len(c.row); i++ {
		c.row[i] = strconv.FormatInt(s.Traffic.Value(bus.TrafficMetricNames[i-8]), 10)
	}
	return c.w.Write(c.row)
}

// Close writes the header row if no run did, flushes the rows and says
// whether any failed to write.
func (c *RunCSV) Close() error {
	if !c.header {
		c.writeHeader(false)
	}
	c.w.Flush()
	return c.w.Error()
}

// CSVPreamble is the comment lines every CSV file of fwsim starts with:
// what wrote it and everything needed to run it again. CSV readers take
// them as comments with e.g. pandas' comment="#", or skip 3 lines.
// A sweep's points each have their own configuration: it passes no hash.
func CSVPreamble(command string, h Header) string {
	sha := ""
	if h.ConfigSHA256 != "" {
		sha = ", config sha256 " + h.ConfigSHA256
	}
	return "# fwsim " + bus.FwsimVersion() + "\n" +
		"# command: " + command + "\n" +
		"# seed " + strconv.FormatUint(h.Seed, 10) + ", profile " + h.Profile + ", timing " + h.Timing + ", clock " + h.Clock +
		", policy " + h.Policy + ", coin bias " + strconv.FormatFloat(h.CoinBias, 'g', -1, 64) + sha + "\n"
}
