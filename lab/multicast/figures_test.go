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
	b, err := os.ReadFile("../../docs/multicast.md")
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
		switch c.row {
		case "srm --stop":
			assert.Contains(t, doc, fmt.Sprintf("srm --stop spared %d NACKs and %d repairs", res.NACKsSpared, res.RepairsSpared))
		case "srm":
			for _, m := range res.Members {
				if len(m.Missing) > 0 {
					assert.Contains(t, doc, fmt.Sprintf("srm missed the tail (%s, message %d)", m.Node, m.Missing[0]))
					assert.Equal(t, []int{50}, m.Missing, "the tail is the last message")
				}
			}
		}
	}
}

// The cost of a view change in docs/multicast.md, by counting: without
// loss, after the stream, on n nodes all in the group but a joiner, a
// change flushes the survivors (FLUSH and FLUSH_OK from every one but the
// coordinator) and installs the view (VIEW and VIEW_OK to the same and the
// joiner), and a request is sent for two round trips; every other message
// is a heartbeat.
func TestDocViewChangeTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/multicast.md")
	require.NoError(t, err)
	for _, row := range []string{
		"| a node joins | n−2 | n−2 | n−1 | n−1 | JOIN: 2(n−1) |",
		"| a member leaves | n−1 | n−1 | n−1 | n−1 | LEAVE: 2 |",
		"| a member crashes | n−2 | n−2 | n−2 | n−2 | |",
		"| the coordinator crashes | n−2 | n−2 | n−2 | n−2 | |",
	} {
		assert.True(t, strings.Contains(string(b), row), "docs/multicast.md has no row %q", row)
	}
	for _, n := range []int{3, 6, 12} {
		last := fmt.Sprintf("n%d", n-1)
		for seed := range uint64(4) {
			for _, c := range []struct {
				o                  Options
				flush, view, joins int
				leaves             int
			}{
				{Options{Joins: []Event{{Node: last, At: 10 * Delay}}}, n - 2, n - 1, 2 * (n - 1), 0},
				{Options{Leaves: []Event{{Node: last, At: 10 * Delay}}}, n - 1, n - 1, 0, 2},
				{Options{Crashes: []Crash{{Node: last, At: 10 * Delay}}}, n - 2, n - 2, 0, 0},
				{Options{Crashes: []Crash{{Node: "n0", At: 10 * Delay}}}, n - 2, n - 2, 0, 0},
			} {
				o := c.o
				o.Algo, o.Messages, o.Seed = "vsync", 3, seed
				res := run(t, fmt.Sprintf("ring:%d", n), o)
				name := fmt.Sprintf("n %d seed %d %+v", n, seed, c.o)
				require.False(t, res.Violated(), name)
				require.Len(t, res.Views, 2, name)
				assert.Equal(t, c.flush, res.Sent.Count("FLUSH"), name)
				assert.Equal(t, c.flush, res.Sent.Count("FLUSH_OK"), name)
				assert.Equal(t, c.view, res.Sent.Count("VIEW"), name)
				assert.Equal(t, c.view, res.Sent.Count("VIEW_OK"), name)
				assert.Equal(t, c.joins, res.Sent.Count("JOIN"), name)
				assert.Equal(t, c.leaves, res.Sent.Count("LEAVE"), name)
				assert.Zero(t, res.Sent.Count("FORWARD")+res.Sent.Count("RETRANS"), name)
			}
		}
	}
}

// The failure detector's cost in docs/multicast.md is what the run gives.
func TestDocHeartbeatCost(t *testing.T) {
	b, err := os.ReadFile("../../docs/multicast.md")
	require.NoError(t, err)
	doc := strings.Join(strings.Fields(string(b)), " ")
	vsync := run(t, "ring:8", Options{Algo: "vsync", Messages: 50, Loss: 0.2, Seed: 1})
	ack := run(t, "ring:8", Options{Algo: "ack", Messages: 50, Loss: 0.2, Seed: 1})
	require.Len(t, vsync.Views, 1)
	assert.Contains(t, doc, fmt.Sprintf("sends %d heartbeats of %d messages, where ack sends %d;",
		vsync.Sent.Count("HEARTBEAT"), vsync.Sent.Total, ack.Sent.Total))
	// "n(n−1) heartbeats every two delays": every member beats to every
	// other at 2, 4, … delays until the run ends, lost beats counted.
	require.Contains(t, doc, "n(n−1) heartbeats every two delays")
	for _, n := range []int{3, 5, 8} {
		for seed := range uint64(5) {
			for _, loss := range []float64{0, 0.2} {
				res := run(t, fmt.Sprintf("ring:%d", n), Options{Algo: "vsync", Messages: 20, Loss: loss, Seed: seed})
				assert.Equal(t, n*(n-1)*int(res.Time/2), res.Sent.Count("HEARTBEAT"), "n=%d seed %d loss %g", n, seed, loss)
			}
		}
	}
}
