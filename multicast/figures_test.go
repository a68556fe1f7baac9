package multicast

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The loss table of docs/multicast.md is what the runs give.
func TestDocLossTable(t *testing.T) {
	f, err := os.Open("../docs/multicast.md")
	require.NoError(t, err)
	defer f.Close()
	rows := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "|"), "|")
		if len(cells) == 9 && (strings.Contains(sc.Text(), "held") || strings.Contains(sc.Text(), "VIOLATED")) {
			rows[strings.TrimSpace(cells[0])] = sc.Text()
		}
	}
	for _, c := range []struct {
		row  string
		algo string
		stop bool
	}{{"ack", "ack", false}, {"nack", "nack", false}, {"nack --stop", "nack", true}} {
		res := run(t, "ring:8", Options{Algo: c.algo, Messages: 50, Loss: 0.2, Seed: 1, Stop: c.stop})
		cell := func(typ string) string {
			if c.algo == "ack" && (typ == "NACK" || typ == "STOP") || c.algo == "nack" && typ == "ACK" {
				return " "
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
	}
}
