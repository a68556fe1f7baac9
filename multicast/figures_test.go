package multicast

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The loss table of docs/multicast.md is what the runs give, and so are the
// figures of srm --stop's suppression.
func TestDocLossTable(t *testing.T) {
	b, err := os.ReadFile("../docs/multicast.md")
	require.NoError(t, err)
	doc := string(b)
	rows := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) == 9 && (strings.Contains(line, "held") || strings.Contains(line, "VIOLATED")) {
			rows[strings.TrimSpace(cells[0])] = line
		}
	}
	for _, c := range []struct {
		row  string
		algo string
		stop bool
	}{{"ack", "ack", false}, {"nack", "nack", false}, {"nack --stop", "nack", true}, {"srm", "srm", false}, {"srm --stop", "srm", true}} {
		res := run(t, "ring:8", Options{Algo: c.algo, Messages: 50, Loss: 0.2, Seed: 1, Stop: c.stop})
		cell := func(typ string) string {
			switch {
			case c.algo == "ack" && (typ == "NACK" || typ == "STOP"), c.algo != "ack" && typ == "ACK":
				return " "
			case c.algo == "srm" && typ == "RETRANS":
				typ = "REPAIR"
			}
			return fmt.Sprintf(" %d ", res.Sent.Count(typ))
		}
		whole := "held"
		if !res.Guarantees[1].Held {
			whole = "VIOLATED"
		}
		want := fmt.Sprintf("| %s |%s|%s|%s|%s|%s| %d | %d | %s |", c.row, cell("DATA"), cell("RETRANS"), cell("ACK"),
			cell("NACK"), cell("STOP"), res.Sent.Total, res.Lost, whole)
		assert.Equal(t, want, rows[c.row])
		if c.row == "srm --stop" {
			assert.Contains(t, doc, fmt.Sprintf("srm --stop spared %d NACKs and %d repairs", res.NACKsSpared, res.RepairsSpared))
		}
	}
}
