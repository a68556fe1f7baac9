package main

import (
	"strconv"

	"github.com/fwsim/fwsim/analysis"
	"github.com/fwsim/fwsim/bus"
)

// csvPreamble is the comment lines every CSV file of fwsim starts with:
// what wrote it and everything needed to run it again. CSV readers take
// them as comments with e.g. pandas' comment="#", or skip 3 lines.
// A sweep's points each have their own configuration: it passes no hash.
func csvPreamble(command string, h analysis.Header) string {
	sha := ""
	if h.ConfigSHA256 != "" {
		sha = ", config sha256 " + h.ConfigSHA256
	}
	return "# fwsim " + bus.FwsimVersion() + "\n" +
		"# command: " + command + "\n" +
		"# seed " + strconv.FormatUint(h.Seed, 10) + ", profile " + h.Profile + ", timing " + h.Timing + ", clock " + h.Clock +
		", policy " + h.Policy + ", coin bias " + strconv.FormatFloat(h.CoinBias, 'g', -1, 64) + sha + "\n"
}
