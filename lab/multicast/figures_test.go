package multicast

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// The loss table of docs/multicast.md is what the runs give, and so are the
// figures of srm --stop's suppression.
func TestDocLossTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/multicast.md")
	require.NoError(t, err)
	doc := string(b)
	rows := map[string]string{}
	runs := map[string]*Result{}
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) == 10 && (strings.Contains(line, "held") || strings.Contains(line, "VIOLATED")) {
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
		want := fmt.Sprintf("| %s |%s|%s|%s|%s|%s| %d | %d | %d | %s |", c.row, cell("DATA"), cell("RETRANS"), cell("ACK"),
			cell("NACK"), cell("STOP"), res.Sent.Total, res.Transmissions.Total, res.Lost, whole)
		assert.Equal(t, want, rows[c.row])
		assert.Contains(t, strings.Join(strings.Fields(doc), " "),
			fmt.Sprintf("%d of the 50 DATA multicasts missed some member, in every run", res.LostData))
		if c.row == "srm --stop" {
			assert.Contains(t, doc, fmt.Sprintf("srm --stop spared %d NACKs and %d repairs", res.NACKsSpared, res.RepairsSpared))
		}
		runs[c.row] = res
	}
	// The lesson under the table, its figures from the runs.
	flat := strings.Join(strings.Fields(doc), " ")
	ack, nack, srm := runs["ack"], runs["nack"], runs["srm"]
	assert.Contains(t, flat, fmt.Sprintf("%.1f times nack's packets here", float64(ack.Sent.Total)/float64(nack.Sent.Total)))
	// And the lesson under the first --compare, the same runs: ack the
	// dearest of the three, srm the cheapest in packets and crossings and
	// the dearest in receptions.
	assert.Less(t, srm.Sent.Total, nack.Sent.Total)
	assert.Less(t, srm.Transmissions.Total, nack.Transmissions.Total)
	assert.Greater(t, ack.Transmissions.Total, nack.Transmissions.Total)
	assert.Greater(t, srm.Receptions, ack.Receptions)
	duplicates := 0
	for _, m := range srm.Members {
		duplicates += m.Duplicates
	}
	assert.Contains(t, flat, fmt.Sprintf("%.1f times nack's receptions, %d of them copies of DATA a member already had",
		float64(srm.Receptions)/float64(nack.Receptions), duplicates))
}

// The table of docs/multicast.md where the position of the loss on a
// chain of 8 decides between nack and srm is what its runs give, and the
// lesson under it holds of it: nack's NACKs per loss grow with the members
// behind the lossy cable and outnumber srm's; srm crosses fewer cables
// while two members or more share a loss, and more when one alone does.
func TestDocLossPositionTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/multicast.md")
	require.NoError(t, err)
	topo, err := bus.Generate("chain:8")
	require.NoError(t, err)
	perLoss := func(r *Result) float64 { return float64(r.Sent.Count("NACK")) / float64(r.LostData) }
	last := 0.0
	for k := 6; k >= 0; k-- {
		cable := CableLoss{A: fmt.Sprintf("n%d", k), B: fmt.Sprintf("n%d", k+1), P: 0.2}
		rs, err := Compare(topo, Options{Messages: 200, Stop: true, Seed: 1, CableLosses: []CableLoss{cable}})
		require.NoError(t, err)
		nack, srm := rs[1], rs[2]
		require.Equal(t, "nack", nack.Algo)
		require.Equal(t, "srm", srm.Algo)
		row := fmt.Sprintf("| %s-%s | %d | %d | %d | %.2f | %d | %d | %.2f |", cable.A, cable.B, 7-k, nack.Sent.Total,
			nack.Transmissions.Total, perLoss(nack), srm.Sent.Total, srm.Transmissions.Total, perLoss(srm))
		assert.Contains(t, string(b), row)
		assert.Less(t, perLoss(srm), perLoss(nack), row)
		assert.Greater(t, perLoss(nack), last, "%s: more members behind, more NACKs per loss", row)
		last = perLoss(nack)
		if k < 6 {
			assert.Less(t, srm.Transmissions.Total, nack.Transmissions.Total, row)
		} else {
			assert.Greater(t, srm.Transmissions.Total, nack.Transmissions.Total, row)
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
		"| a node joins | n−2 | n−2 | n−1 | n−1 | JOIN: 2 |",
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
				{Options{Joins: []Event{{Node: last, At: 10 * Delay}}}, n - 2, n - 1, 2, 0},
				{Options{Leaves: []Event{{Node: last, At: 10 * Delay}}}, n - 1, n - 1, 0, 2},
				{Options{Crashes: []Crash{{Node: last, At: 10 * Delay}}}, n - 2, n - 2, 0, 0},
				{Options{Crashes: []Crash{{Node: "n0", At: 10 * Delay}}}, n - 2, n - 2, 0, 0},
			} {
				o := c.o
				o.Algo, o.Messages, o.Seed = "vsync", 3, seed
				res := run(t, fmt.Sprintf("ring:%d", n), o)
				name := fmt.Sprintf("n %d seed %d %+v", n, seed, c.o)
				o.Medium = MediumMesh // the same packets, but JOIN's n−1 per multicast
				mesh := run(t, fmt.Sprintf("ring:%d", n), o)
				assert.Equal(t, c.joins*(n-1), mesh.Sent.Count("JOIN"), name)
				assert.Equal(t, res.Sent.Count("FLUSH")+res.Sent.Count("VIEW"), mesh.Sent.Count("FLUSH")+mesh.Sent.Count("VIEW"), name)
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
	var costs []string
	for _, medium := range Media() {
		vsync := run(t, "ring:8", Options{Algo: "vsync", Messages: 50, Loss: 0.2, Seed: 1, Medium: medium})
		ack := run(t, "ring:8", Options{Algo: "ack", Messages: 50, Loss: 0.2, Seed: 1, Medium: medium})
		require.Len(t, vsync.Views, 1)
		costs = append(costs, fmt.Sprintf("%d heartbeats of %d packets, where ack sends %d", vsync.Sent.Count("HEARTBEAT"), vsync.Sent.Total, ack.Sent.Total))
	}
	assert.Contains(t, doc, fmt.Sprintf("sends %s; with `--medium mesh`, %s;", costs[0], costs[1]))
	// "n heartbeat packets every two delays on the bus, each crossing the
	// n−1 cables of the tree, and n(n−1) packets on the mesh": every member
	// beats to every other at 2, 4, … delays until the run ends, lost beats
	// counted; without loss, every crossing is made.
	require.Contains(t, doc, "n heartbeat packets every two delays on the bus, each crossing the n−1 cables of the tree, and n(n−1) packets on the mesh")
	for _, n := range []int{3, 5, 8} {
		for seed := range uint64(5) {
			for _, loss := range []float64{0, 0.1} {
				for medium, per := range map[string]int{MediumBus: n, MediumMesh: n * (n - 1)} {
					res := run(t, fmt.Sprintf("ring:%d", n), Options{Algo: "vsync", Messages: 20, Loss: loss, Seed: seed, Medium: medium})
					beats := int(res.Time / 2)
					assert.Equal(t, per*beats, res.Sent.Count("HEARTBEAT"), "n=%d seed %d loss %g %s", n, seed, loss, medium)
					if loss == 0 {
						assert.Equal(t, n*(n-1)*beats, res.Transmissions.Count("HEARTBEAT"), "n=%d seed %d %s", n, seed, medium)
					}
				}
			}
		}
	}
}

// The lesson under the --compare on the mesh: srm sends three times
// nack's packets, each of its NACKs and repairs n−1 of them.
func TestDocMeshLesson(t *testing.T) {
	b, err := os.ReadFile("../../docs/multicast.md")
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(b)), " "),
		"each of its NACKs and repairs is seven packets: it sends three times nack's packets")
	o := Options{Messages: 50, Loss: 0.2, Seed: 1, Stop: true, Medium: MediumMesh}
	o.Algo = "nack"
	nack := run(t, "ring:8", o)
	o.Algo = "srm"
	srm := run(t, "ring:8", o)
	assert.InDelta(t, 3, float64(srm.Sent.Total)/float64(nack.Sent.Total), 0.5)
	assert.Zero(t, (srm.Sent.Count("NACK")+srm.Sent.Count("REPAIR"))%7)
}
