package election

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/lab/netsim"
)

// elect runs o on the generated topology spec and fails the test on error.
func elect(t testing.TB, spec string, o Options) *Result {
	t.Helper()
	topo, err := bus.Generate(spec)
	require.NoError(t, err)
	res, err := Run(topo, o)
	require.NoError(t, err, "%s on %s", o.Algo, spec)
	return res
}

// ringSizes are the ring sizes the figure tests check: the smallest ring
// and a spread up to the largest bus.
var ringSizes = []int{2, 3, 4, 5, 8, 13, 32, 63}

// assertArrangement checks that the IDs of a traced ring run are laid out
// as the notes' arrangement says: the first hop of each node's own ID
// reaches the node whose ID is step larger (ascending: +1, descending: −1),
// wrapping round 1…n. It pins both the ID layout and the direction.
func assertArrangement(t *testing.T, res *Result, step int64) {
	t.Helper()
	n := int64(len(res.Nodes))
	id := map[string]int64{}
	for _, node := range res.Nodes {
		id[node.Node] = node.ID
	}
	first := map[string]bool{}
	for _, m := range netsim.MessagesOnly(res.Trace) {
		if own := id[m.From]; m.Payload == fmt.Sprint(own) && !first[m.From] {
			first[m.From] = true
			assert.Equal(t, (own-1+step+n)%n+1, id[m.To], "ID %d goes first to %s", own, m.To)
		}
	}
	assert.Len(t, first, int(n), "every node sends its own ID")
}

// Chang–Roberts with every node starting. Convention: the figures count
// ELECTION messages only; the optional announcement is off.
func TestChangRobertsAllStart(t *testing.T) {
	for _, n := range ringSizes {
		ring := fmt.Sprintf("ring:%d", n)
		t.Run(ring, func(t *testing.T) {
			// Best case, IDs ascending along the direction: every ID but
			// the largest is swallowed by its successor (n−1 messages) and
			// the largest goes round (n): 2n−1.
			best := elect(t, ring, Options{Algo: "chang-roberts", UnitDelays: true, Trace: true})
			assertArrangement(t, best, +1)
			assert.Equal(t, 2*n-1, best.Messages.Total)
			assert.Equal(t, fmt.Sprintf("n%d", n-1), best.Leader)
			// Worst case, descending: the ID k travels k hops, Σk = n(n+1)/2.
			worst := elect(t, ring, Options{Algo: "chang-roberts", IDOrder: Descending, UnitDelays: true, Trace: true})
			assertArrangement(t, worst, -1)
			assert.Equal(t, n*(n+1)/2, worst.Messages.Total)
			assert.Equal(t, "n0", worst.Leader)
			// Either way the largest ID needs n message delays to come back.
			assert.Equal(t, float64(n), best.Time)
			assert.Equal(t, float64(n), worst.Time)
		})
	}
}

func TestChangRobertsAnnouncementAddsOneRound(t *testing.T) {
	for _, n := range ringSizes {
		res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "chang-roberts", Announce: true, UnitDelays: true})
		// LEADER goes once round the ring, back to the leader: n messages
		// and n more delays.
		assert.Equal(t, n, res.Messages.Count("LEADER"), "n=%d", n)
		assert.Equal(t, 2*n-1, res.Messages.Count("ELECTION"), "n=%d", n)
		assert.Equal(t, float64(2*n), res.Time, "n=%d", n)
	}
}

// Synchronous Chang–Roberts: the largest ID is sent in round 1 and is back
// at its node in round n+1, after every smaller ID has been swallowed (it
// travels fewer hops), so the leader decides in exactly round n+1, within
// the notes' bound; no node sends more than n times. Rounds count from 1.
func TestChangRobertsSyncWithinNPlus1Rounds(t *testing.T) {
	for _, n := range ringSizes {
		ring := fmt.Sprintf("ring:%d", n)
		for seed := range uint64(20) {
			res := elect(t, ring, Options{Algo: "chang-roberts", Mode: Sync, IDOrder: Random, Seed: seed})
			require.NotEmpty(t, res.Leader)
			assert.Equal(t, int64(n), res.LeaderID)
			assert.Equal(t, n+1, res.Rounds, "n=%d seed %d", n, seed)
			assert.LessOrEqual(t, res.Messages.Total, n*n, "n=%d seed %d", n, seed)
		}
		// The best and worst arrangements cost what they cost
		// asynchronously: who swallows what does not depend on timing
		// when every node starts at once.
		best := elect(t, ring, Options{Algo: "chang-roberts", Mode: Sync})
		assert.Equal(t, 2*n-1, best.Messages.Total, ring)
		worst := elect(t, ring, Options{Algo: "chang-roberts", Mode: Sync, IDOrder: Descending})
		assert.Equal(t, n*(n+1)/2, worst.Messages.Total, ring)
	}
}

// One initiator, the others woken by the first message they receive; time
// in message delays with every delay one unit. Convention: there are no
// separate wake-up messages, the first ELECTION a node receives wakes it.
func TestChangRobertsSingleInitiatorTime(t *testing.T) {
	for _, n := range ringSizes {
		ring := fmt.Sprintf("ring:%d", n)
		// Best: the largest ID initiates (descending puts it first); it
		// goes round in n delays.
		best := elect(t, ring, Options{Algo: "chang-roberts", IDOrder: Descending, InitiatorCount: 1, UnitDelays: true})
		assert.Equal(t, []string{"n0"}, best.Initiators)
		assert.Equal(t, "n0", best.Leader, "n=%d: the initiator has the largest ID", n)
		assert.Equal(t, float64(n), best.Time, "n=%d", n)
		// Worst: the largest ID is the last node woken (ascending puts it
		// just before the initiator): n−1 delays to wake it, n to go round.
		worst := elect(t, ring, Options{Algo: "chang-roberts", InitiatorCount: 1, UnitDelays: true})
		assert.Equal(t, []string{"n0"}, worst.Initiators)
		assert.Equal(t, fmt.Sprintf("n%d", n-1), worst.Leader, "n=%d: the last node woken has the largest ID", n)
		assert.Equal(t, float64(2*n-1), worst.Time, "n=%d", n)
		// With random delays, each at most one unit, the bound still holds.
		for seed := range uint64(10) {
			res := elect(t, ring, Options{Algo: "chang-roberts", IDOrder: Random, InitiatorCount: 1, Seed: seed})
			assert.LessOrEqual(t, res.Time, float64(2*n-1), "n=%d seed %d", n, seed)
		}
	}
}

// The optimisation: a node woken by a larger ID does not send its own. In
// the best case (the largest initiates) only its ID travels: n messages.
func TestChangRobertsSuppressionBestCase(t *testing.T) {
	for _, n := range ringSizes {
		o := Options{Algo: "chang-roberts", IDOrder: Descending, InitiatorCount: 1, UnitDelays: true}
		without := elect(t, fmt.Sprintf("ring:%d", n), o)
		o.Suppress = true
		with := elect(t, fmt.Sprintf("ring:%d", n), o)
		assert.Equal(t, n, with.Messages.Total, "n=%d", n)
		if n > 2 {
			assert.Greater(t, without.Messages.Total, n, "n=%d: woken nodes send their own IDs", n)
		}
	}
}

// LeLann: each of M initiators' lists goes all the way round (M·N), then the
// winner's LEADER goes round (N). Convention: the announcement counts; it is
// the notes' N.
func TestLeLannNPlusMN(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8, 13} {
		for m := 1; m <= n; m++ {
			res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "lelann", InitiatorCount: m, IDOrder: Random, Seed: uint64(m)})
			assert.Equal(t, n+m*n, res.Messages.Total, "N=%d M=%d", n, m)
			assert.Equal(t, m*n, res.Messages.Count("CANDIDATE"))
		}
	}
}

// The Greek notes' Chang–Roberts: only the M initiators stand and the
// smallest ID wins; the announcement counts. Best case, IDs descending along
// the direction (the M initiators come first): each initiator but the last
// is swallowed by the next, one message each (M−1), the smallest
// initiator's ID goes round (N) and so does LEADER (N): N+M−1+N, 2N for one
// initiator. Worst case, ascending: every initiator's ID passes the larger
// initiators after it and is swallowed only by the smallest, n0, N−j hops
// for the j-th: the notes' O(MN), here (M−1)N − M(M−1)/2 + 2N with every
// delay one unit (random delays can only swallow earlier).
func TestChangRobertsMinInitiators(t *testing.T) {
	for _, n := range ringSizes {
		ring := fmt.Sprintf("ring:%d", n)
		for _, m := range []int{1, 2, n / 2, n} {
			if m < 1 {
				continue
			}
			best := elect(t, ring, Options{Algo: "chang-roberts-min", IDOrder: Descending, InitiatorCount: m, Seed: uint64(m)})
			assert.Equal(t, n+m-1+n, best.Messages.Total, "N=%d M=%d", n, m)
			assert.Equal(t, n, best.Messages.Count("LEADER"), "N=%d M=%d", n, m)
			assert.Equal(t, int64(n-m+1), best.LeaderID, "N=%d M=%d: the smallest initiator", n, m)
			worstO := Options{Algo: "chang-roberts-min", InitiatorCount: m, UnitDelays: true}
			worst := elect(t, ring, worstO)
			assert.Equal(t, (m-1)*n-m*(m-1)/2+2*n, worst.Messages.Total, "N=%d M=%d", n, m)
			assert.Equal(t, int64(1), worst.LeaderID)
			worstO.UnitDelays, worstO.Seed = false, uint64(n)
			assert.LessOrEqual(t, elect(t, ring, worstO).Messages.Total, worst.Messages.Total, "N=%d M=%d", n, m)
		}
		// One initiator anywhere, any IDs: 2N.
		for seed := range uint64(5) {
			one := elect(t, ring, Options{Algo: "chang-roberts-min", IDOrder: Random, Initiators: []string{fmt.Sprintf("n%d", int(seed)%n)}, Seed: seed})
			assert.Equal(t, 2*n, one.Messages.Total, "N=%d seed %d", n, seed)
		}
	}
}

// The ring algorithm with a list, one initiator. Convention: our ELECTION
// count includes the hop that brings the list back to the initiator (the
// member test needs it): n ELECTION and n−1 COORDINATOR, 2n−1 in all, where
// the notes count 2(n−1) (docs/election.md). With M initiators every list
// goes round and every initiator announces: M(2n−1).
func TestRingListOneInitiator(t *testing.T) {
	for _, n := range ringSizes {
		res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "ring-list", IDOrder: Random, Seed: 3})
		assert.Equal(t, n, res.Messages.Count("ELECTION"), "n=%d", n)
		assert.Equal(t, n-1, res.Messages.Count("COORDINATOR"), "n=%d", n)
		assert.Equal(t, int64(n), res.LeaderID)
		for _, m := range []int{2, n} {
			res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "ring-list", IDOrder: Random, InitiatorCount: m, Seed: uint64(m)})
			assert.Equal(t, m*n, res.Messages.Count("ELECTION"), "n=%d M=%d", n, m)
			assert.Equal(t, m*(n-1), res.Messages.Count("COORDINATOR"), "n=%d M=%d", n, m)
			assert.Equal(t, int64(n), res.LeaderID)
		}
	}
}

// The message-efficient synchronous ring: the notes' "at most n messages"
// is exactly n here (the leader sends, the n−1 others pass it on once, and
// it stops at the leader); the smallest ID wins in round minID·n+1, and its
// message is back n rounds later.
func TestSyncRingAtMostNMessages(t *testing.T) {
	for _, n := range ringSizes {
		for _, minID := range []int64{0, 1, 4} {
			ids := map[string]int64{}
			for i := range n {
				ids[fmt.Sprintf("n%d", i)] = minID + int64((i*(n-1)+3)%n) // n−1 is prime to n: a permutation
			}
			res := elect(t, fmt.Sprintf("ring:%d", n), Options{Algo: "sync-ring", IDs: ids, Trace: true})
			assert.Equal(t, n, res.Messages.Total)
			assert.Equal(t, minID, res.LeaderID)
			require.NotEmpty(t, netsim.MessagesOnly(res.Trace))
			assert.Equal(t, float64(minID)*float64(n)+1, netsim.MessagesOnly(res.Trace)[0].Sent, "n=%d min ID %d: the leader speaks", n, minID)
			assert.Equal(t, int(minID)*n+1+n, res.Rounds, "n=%d min ID %d", n, minID)
		}
	}
}

// The tree algorithm from the leaves. Convention: one starter's WAKEUP
// reaches the other N−1 nodes over the N−1 cables. Every node proposes once,
// the moment all its neighbours but one have, so the last two proposals
// cross on one cable (N proposals) and both its ends tell their own sides
// (N−2 WINNER): 2N−2. The notes give 2N−1 and N wake-ups; docs/election.md
// explains the difference.
func TestTreeMin2NMinus2(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 10, 30, 63} {
		for seed := range uint64(10) {
			spec := fmt.Sprintf("tree:%d:%d", n, seed)
			res := elect(t, spec, Options{Algo: "tree-min", IDOrder: Random, Seed: seed})
			if n > 1 {
				assert.Equal(t, n, res.Messages.Count("PROPOSAL"), spec)
				assert.Equal(t, n-2, res.Messages.Count("WINNER"), spec)
			}
			assert.Equal(t, max(2*n-2, 0), res.Messages.Count("PROPOSAL")+res.Messages.Count("WINNER"), spec)
			assert.Equal(t, n-1, res.Messages.Count("WAKEUP"), spec)
			assert.Equal(t, int64(1), res.LeaderID, spec)
		}
	}
}

// FloodMax: every node sends to every neighbour in each of D rounds, 2·E·D
// messages; everyone decides in round D+1, when the last ones arrive.
// Convention: there is no announcement, every node decides for itself.
func TestFloodMax2ED(t *testing.T) {
	for _, spec := range []string{"ring:2", "ring:7", "ring:8", "chain:1", "chain:9", "star:6", "tree:20:4", "complete:2", "complete:7", "tree:63:1"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		g, err := netsim.NewGraph(topo)
		require.NoError(t, err)
		d, err := g.Diameter(nil)
		require.NoError(t, err)
		res := elect(t, spec, Options{Algo: "floodmax", IDOrder: Random, Seed: 5})
		assert.Equal(t, 2*g.Edges*d, res.Messages.Total, spec)
		assert.Equal(t, d+1, res.Rounds, spec)
	}
}

// Bully with the coordinator (the largest ID) crashed, every delay one unit.
// Convention: every message counts, the ELECTIONs lost to the crashed node
// included; the notes' best case n−2 counts the COORDINATOR messages only.
func TestBullyWorstAndBestCase(t *testing.T) {
	for _, n := range []int{3, 4, 5, 8, 16} {
		spec := fmt.Sprintf("complete:%d", n)
		// Worst: the smallest ID notices. Node of rank i (1 = smallest)
		// sends ELECTION to the n−i larger ones; the n−1−i live ones of
		// those answer; rank n−1 sends COORDINATOR to the n−2 below.
		worst := elect(t, spec, Options{Algo: "bully", InitiatorCount: 1, UnitDelays: true})
		assert.Equal(t, n*(n-1)/2, worst.Messages.Count("ELECTION"), spec)
		assert.Equal(t, (n-1)*(n-2)/2, worst.Messages.Count("ANSWER"), spec)
		assert.Equal(t, n-2, worst.Messages.Count("COORDINATOR"), spec)
		assert.Equal(t, n*n-n-1, worst.Messages.Total, spec)
		assert.Equal(t, fmt.Sprintf("n%d", n-2), worst.Leader)
		// Time: one delay for the first ELECTIONs; rank n−1 then waits out
		// its timeout (two delays and a tick, so that an ANSWER sent at
		// once is in) and its COORDINATOR takes one delay. 2·T with T the
		// timeout: the notes' bound with parallel links.
		assert.InDelta(t, 4.001, worst.Time, 1e-9, spec)

		// Best: the largest live node notices: one ELECTION, lost to the
		// crashed coordinator, and COORDINATOR to the n−2 others.
		best := elect(t, spec, Options{Algo: "bully", Initiators: []string{fmt.Sprintf("n%d", n-2)}, UnitDelays: true})
		assert.Equal(t, n-2, best.Messages.Count("COORDINATOR"), spec)
		assert.Equal(t, n-1, best.Messages.Total, spec)
		assert.Equal(t, 0, best.Messages.Count("ANSWER"), spec)
		assert.Equal(t, fmt.Sprintf("n%d", n-2), best.Leader)
		assert.InDelta(t, 3.001, best.Time, 1e-9, spec, "the timeout, then one delay")
	}
}

// Echo with one initiator on a tree of N nodes: one explorer per cable
// (N−1), one echo per cable plus the second on the cable where they meet
// (N), and the information wave to the N−2 other nodes.
func TestEchoMessages(t *testing.T) {
	for _, n := range []int{2, 3, 7, 20, 63} {
		for seed := range uint64(5) {
			spec := fmt.Sprintf("tree:%d:%d", n, seed)
			res := elect(t, spec, Options{Algo: "echo", IDOrder: Random, Seed: seed})
			assert.Equal(t, n-1, res.Messages.Count("EXPLORER"), spec)
			assert.Equal(t, n, res.Messages.Count("ECHO"), spec)
			assert.Equal(t, n-2, res.Messages.Count("INFO"), spec)
			assert.Equal(t, int64(n), res.LeaderID, spec)
		}
	}
}

// The depth-first token crosses every cable twice; LEADER goes down the
// N−1 cables of the depth-first tree.
func TestDFSTokenCrossesEveryCableTwice(t *testing.T) {
	for _, spec := range []string{"ring:2", "ring:9", "complete:6", "tree:15:2", "chain:1"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		res := elect(t, spec, Options{Algo: "dfs-token", IDOrder: Random, Seed: 2})
		assert.Equal(t, 2*len(topo.Cables), res.Messages.Count("TOKEN"), spec)
		assert.Equal(t, len(topo.Nodes)-1, res.Messages.Count("LEADER"), spec)
	}
}

// The notes stop the depth-first token when it comes back to the initiator
// over the cable it first left on. That is right when every other node is
// reachable through that first cable (a ring, the end of a chain), and
// stops too early when the initiator joins branches that meet only at it:
// at the centre of a star the token is back after one leaf, with 2 of N
// nodes visited. Our initiator stops when it has no unused cable left.
func TestDFSTokenNotesTerminationRule(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		visited int // nodes that have had the token when it first returns over the first cable
	}{{"star:3", 2}, {"star:6", 2}, {"star:12", 2}, {"ring:7", 7}, {"chain:5", 5}} {
		topo, err := bus.Generate(tc.spec)
		require.NoError(t, err)
		res := elect(t, tc.spec, Options{Algo: "dfs-token", Trace: true})
		first := netsim.MessagesOnly(res.Trace)[0]
		visited := map[string]bool{first.From: true}
		for _, m := range netsim.MessagesOnly(res.Trace) {
			if m.Type != "TOKEN" {
				continue
			}
			if m.From == first.To && m.To == first.From {
				break
			}
			visited[m.To] = true
		}
		assert.Len(t, visited, tc.visited, tc.spec)
		assert.Equal(t, 2*len(topo.Cables), res.Messages.Count("TOKEN"), tc.spec, "ours visits every node")
		assert.Equal(t, int64(len(topo.Nodes)), res.LeaderID, tc.spec)
	}
}

// Adoption with a single initiator is the echo algorithm on a graph: two
// messages on every cable.
func TestAdoptionSingleWave(t *testing.T) {
	for _, spec := range []string{"ring:2", "ring:9", "complete:6", "tree:15:2", "star:5"} {
		topo, err := bus.Generate(spec)
		require.NoError(t, err)
		res := elect(t, spec, Options{Algo: "adoption", InitiatorCount: 1, Announce: true})
		assert.Equal(t, 2*len(topo.Cables), res.Messages.Count("EXPLORER")+res.Messages.Count("ECHO"), spec)
		assert.Equal(t, len(topo.Nodes)-1, res.Messages.Count("LEADER"), spec)
		assert.Equal(t, "n0", res.Leader, "the only initiator wins")
	}
}

// 1394: every cable of the tree ends up with one child-parent handshake,
// one CHILD_NOTIFY; PARENT_NOTIFY is one per cable unless root contention
// adds the crossed one and the repeats after back-offs. The wake-up wave
// is BUS_RESET once per cable: both ends drive it, on the one wire. Self
// identify comes after the span and is not counted. Back-offs are waits,
// not messages: the bus result counts them.
func TestTreeIdentifyHandshakes(t *testing.T) {
	for _, spec := range []string{"chain:2", "chain:5", "star:4", "tree:20:3", "pair"} {
		for seed := range uint64(4) {
			topo, err := bus.Generate(spec)
			require.NoError(t, err)
			o := Options{Algo: "1394", Seed: seed}
			if seed%2 == 1 {
				o.Initiators = []string{topo.Nodes[len(topo.Nodes)-1].ID}
			}
			res := elect(t, spec, o)
			bo := bus.Options{Seed: seed, AllowOutOfSpec: true, Initiators: o.Initiators}
			if o.Initiators == nil {
				bo.PowerUp = bus.PowerUpAll // as the lab starts every node
			}
			r, err := bus.Run(topo, bo)
			require.NoError(t, err)
			backoffs := 0
			for _, c := range r.Generations[0].Contention {
				backoffs += len(c.Backoffs)
			}
			cables := len(topo.Cables)
			assert.Equal(t, cables, res.Messages.Count("BUS_RESET"), "%s seed %d: one reset per cable", spec, seed)
			assert.Equal(t, cables, res.Messages.Count("CHILD_NOTIFY"), "%s seed %d", spec, seed)
			assert.Zero(t, res.Messages.Count("SELF_ID"), "%s seed %d: self identify is after the span", spec, seed)
			// Every cable sees one PARENT_NOTIFY that succeeds; a root
			// contention adds the crossed one, and each round both nodes
			// back off and at least one notifies again.
			pn := res.Messages.Count("PARENT_NOTIFY")
			// Back-offs usually come in pairs; a node whose ROOT_CONTENTION
			// lasts less than one of its clock cycles (the peer answered at
			// once) never samples it and waits in T2 instead, so a round
			// can have one.
			if backoffs == 0 {
				assert.Equal(t, cables, pn, "%s seed %d", spec, seed)
			} else {
				assert.GreaterOrEqual(t, pn, cables+(backoffs+1)/2, "%s seed %d", spec, seed)
				assert.LessOrEqual(t, pn, cables+backoffs, "%s seed %d", spec, seed)
			}
			assert.NotEmpty(t, res.Leader)
			assert.Equal(t, Timed, res.Mode, "the PHY model's time")
			assert.Equal(t, "delays", res.TimeUnit, "in the asynchronous algorithms' unit")
			assert.Positive(t, res.Time)
		}
	}
}
