package mutex

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fwsim/fwsim/lab/netsim"
)

// Result is everything one run produced. Times are in delays.
type Result struct {
	// How the run was set, so that an output reproduces its run.
	Algo         string
	Seed         uint64
	Requests     int // per requesting node
	Requesters   []string
	Notify       bool
	CSTime       float64
	Think        float64
	Crashes      []Crash
	LoseToken    bool
	LoseTokenAt  float64
	RequestReply bool
	Regenerate   bool
	Loss         float64
	// Coordinator is central's coordinator and CoordinatorBy how it was
	// chosen ("1394 root, seed S", "floodmax, ids ascending" or "named");
	// both empty for the other algorithms, except the token ring's
	// coordinator that regenerates the token (Options.Regenerate).
	Coordinator, CoordinatorBy string
	// Ring is the token's way round, for token-ring.
	Ring []string

	// Entries lists every entry into the critical section, in order.
	Entries []Entry
	// Messages counts every message sent, lost ones included; PerEntry is
	// the algorithm's messages (all but Notify's NOTEs) divided by the
	// entries (0 when there are none).
	Messages netsim.Messages
	PerEntry float64
	// Hops is the length on the topology of every message counted in
	// Messages: the hops of a shortest path from sender to receiver. The
	// algorithms take every two nodes for linked; the topology says what a
	// message costs.
	Hops int64
	// Lost lists the messages Options.Loss lost, in the order sent.
	Lost []LostMessage
	// Regenerated lists when the coordinator regenerated the token
	// (Options.Regenerate); GaveUp is when it stopped, -1 if it did not.
	Regenerated []float64
	GaveUp      float64
	// Violations lists every entry while another node was inside: safety
	// held when it is empty.
	Violations []string
	// Unserved lists every request of a live node that was never served,
	// with the reason; Live is true when there is none and every live node
	// made all its entries.
	Unserved []Unserved
	Live     bool
	// Deadlock is "" when Live, else who waits for ever and why, the first
	// of Unserved: "n3 waits for ever: …".
	Deadlock string
	Order    Order
	// MeanWait and MaxWait are over the entries, from request to entry.
	MeanWait, MaxWait float64
	Nodes             []NodeResult
	// Time is the last delivery or exit from the critical section.
	Time  float64
	Trace []netsim.TraceEntry
}

// Entry is one stay in the critical section.
type Entry struct {
	Node               string
	Requested, Entered float64
	Left               float64 // -1 when the node crashed inside
	Stamp              int64   // the request's Lamport timestamp (ricart-agrawala, majority), else 0
	Wait               float64 // Entered − Requested
	CrashedInside      bool
}

// LostMessage is a message Options.Loss lost.
type LostMessage struct {
	Type     string
	From, To string
	At       float64
}

// Unserved is a request that waits for ever.
type Unserved struct {
	Node      string
	Requested float64
	// Reason says what it waits for and why that never comes.
	Reason string
	// NeverMade counts the node's later requests, never made.
	NeverMade int
	// Waited is how long it had waited when the run ended (Result.Time).
	Waited float64
}

// Order says whether entries followed the order of the requests.
type Order struct {
	// Pairs is the number of pairs of entries compared.
	Pairs int
	// Inversions counts pairs of entries in the other order than their
	// requests were made in (virtual time); Inversion describes the first.
	Inversions int
	Inversion  string
	// CausalInversions counts pairs whose requests are ordered by
	// happened-before (vector clocks over every message) and whose entries
	// are not; CausalInversion describes the first.
	CausalInversions int
	CausalInversion  string
}

// NodeResult is one node: what it did.
type NodeResult struct {
	Node string
	// Role is coordinator or client for central, process otherwise.
	Role     string
	Requests int // requests made
	Entries  int
	Unserved int // requests made and never served
	Sent     int // messages sent, lost ones included
	MeanWait float64
	MaxWait  float64
	// CrashedAt is when it crashed, -1 if it did not; CrashedInside says it
	// was in the critical section then.
	CrashedAt     float64
	CrashedInside bool
}

// Format renders a time in ticks as delays, to the tick.
func Format(t int64) string { return fmt.Sprintf("%.3f", delays(t)) }

func delays(t int64) float64 { return float64(t) / Delay }

// mean is the mean of count times that sum to sum ticks, in delays, to the
// tick.
func mean(sum int64, count int) float64 { return math.Round(float64(sum)/float64(count)) / Delay }

// result gathers the outcome.
func (w *world) result(out *netsim.Outcome) *Result {
	o := w.opts
	res := &Result{Algo: w.algo.Name, Seed: o.Seed, Requests: o.Requests, Requesters: o.Requesters, Notify: o.Notify,
		CSTime: delays(o.CSTime), Think: delays(o.Think), Crashes: o.Crashes, LoseToken: o.LoseToken,
		RequestReply: o.RequestReply, Regenerate: o.Regenerate, Loss: o.Loss, Messages: out.Messages, Hops: w.hops,
		Violations: w.violations, Trace: out.Trace, Time: out.Time, GaveUp: -1}
	for _, l := range w.lost {
		res.Lost = append(res.Lost, LostMessage{Type: w.typeName(l.typ), From: w.g.Nodes[l.from], To: w.g.Nodes[l.to], At: delays(l.at)})
	}
	for _, t := range w.regenerated {
		res.Regenerated = append(res.Regenerated, delays(t))
	}
	if w.gaveUp >= 0 {
		res.GaveUp = delays(w.gaveUp)
	}
	if o.LoseToken {
		res.LoseTokenAt = delays(o.LoseTokenAt)
	}
	if w.algo.Name == "central" || o.Regenerate {
		res.Coordinator, res.CoordinatorBy = w.g.Nodes[w.coord], w.coordBy
	}
	switch w.algo.Name {
	case "token-ring":
		for _, v := range w.order {
			res.Ring = append(res.Ring, w.g.Nodes[v])
		}
	}
	res.Nodes = make([]NodeResult, len(w.nodes))
	for v, s := range w.nodes {
		role := "process"
		if w.algo.Name == "central" {
			role = map[bool]string{true: "coordinator", false: "client"}[v == w.coord]
		}
		res.Nodes[v] = NodeResult{Node: w.g.Nodes[v], Role: role, Sent: s.sent, CrashedAt: -1}
		if s.crashed {
			res.Nodes[v].CrashedAt = delays(s.crashAt)
		}
	}
	var waitSum int64
	nodeSum := make([]int64, len(w.nodes))
	for _, i := range w.entries {
		r := w.requests[i]
		wait := r.entered - r.at
		e := Entry{Node: w.g.Nodes[r.node], Requested: delays(r.at), Entered: delays(r.entered), Left: -1, Stamp: r.stamp,
			Wait: delays(wait)}
		if r.left >= 0 {
			e.Left = delays(r.left)
			res.Time = max(res.Time, e.Left)
		} else {
			e.CrashedInside = true
			res.Nodes[r.node].CrashedInside = true
		}
		res.Time = max(res.Time, e.Entered)
		n := &res.Nodes[r.node]
		n.Entries++
		nodeSum[r.node] += wait
		n.MaxWait = max(n.MaxWait, e.Wait)
		waitSum += wait
		res.MaxWait = max(res.MaxWait, e.Wait)
		res.Entries = append(res.Entries, e)
	}
	if len(res.Entries) > 0 {
		res.MeanWait = mean(waitSum, len(res.Entries))
		res.PerEntry = float64(res.Messages.Total-res.Messages.Count("NOTE")) / float64(len(res.Entries))
	}
	for _, r := range w.requests {
		res.Nodes[r.node].Requests++
	}
	res.Live = true
	for v, s := range w.nodes {
		n := &res.Nodes[v]
		if n.Entries > 0 {
			n.MeanWait = mean(nodeSum[v], n.Entries)
		}
		if s.crashed {
			continue
		}
		if s.current >= 0 && w.requests[s.current].entered < 0 {
			n.Unserved = 1
			res.Unserved = append(res.Unserved, Unserved{Node: n.Node, Requested: delays(w.requests[s.current].at),
				Reason: w.machines[v].why(), NeverMade: s.wants - 1})
		}
		if s.wants > 0 {
			res.Live = false
		}
	}
	for i := range res.Unserved {
		u := &res.Unserved[i]
		u.Waited = max(res.Time-u.Requested, 0)
	}
	if len(res.Unserved) > 0 {
		// The root of the deadlock: a node that waits for a lost message,
		// the one the earliest loss hit; else the first that waits.
		u := res.Unserved[0]
		best := len(res.Lost)
		for _, c := range res.Unserved {
			if !strings.Contains(c.Reason, "lost") {
				continue
			}
			i := slices.IndexFunc(res.Lost, func(l LostMessage) bool { return l.To == c.Node || l.From == c.Node })
			if i < 0 {
				i = len(res.Lost)
			}
			if i < best || !strings.Contains(u.Reason, "lost") {
				u, best = c, i
			}
		}
		res.Deadlock = fmt.Sprintf("%s waits for ever: %s", u.Node, u.Reason)
		if more := len(res.Unserved) - 1; more > 0 {
			res.Deadlock += fmt.Sprintf(" (and %d more node%s)", more, map[bool]string{true: "s", false: ""}[more > 1])
		}
	}
	res.Order = w.ordering()
	return res
}

// ordering compares every two entries with their requests, in
// O(E·n·log E) for E entries: a run may have tens of thousands.
func (w *world) ordering() Order {
	e := len(w.entries)
	o := Order{Pairs: e * (e - 1) / 2}
	name := w.g.Nodes
	at := make([]int64, e)
	for i, r := range w.entries {
		at[i] = w.requests[r].at
	}
	o.Inversions = inversions(slices.Clone(at))
	if o.Inversions > 0 {
		// The first entry with a later one asked for earlier, and the first
		// such later one.
		later := make([]int64, e+1) // later[i]: the earliest request of the entries from i on
		later[e] = math.MaxInt64
		for i := e - 1; i >= 0; i-- {
			later[i] = min(at[i], later[i+1])
		}
		i := 0
		for later[i+1] >= at[i] {
			i++
		}
		j := i + 1
		for at[j] >= at[i] {
			j++
		}
		ra, rb := w.requests[w.entries[i]], w.requests[w.entries[j]]
		o.Inversion = fmt.Sprintf("%s asked at %s, %s at %s; %s entered first",
			name[rb.node], Format(rb.at), name[ra.node], Format(ra.at), name[ra.node])
	}
	// A node asks again only after it has left, so its entries are in the
	// order of its requests, and the requests of a node u that happened
	// before a request r are a prefix of u's: those whose own clock entry
	// is at most r's entry for u.
	byNode := make([][]int, len(w.nodes)) // positions in entry order
	for i, r := range w.entries {
		u := w.requests[r].node
		byNode[u] = append(byNode[u], i)
	}
	for i, r := range w.entries {
		ra := w.requests[r]
		first := -1
		for u, positions := range byNode {
			if u == ra.node {
				continue
			}
			before := sort.SearchInts(positions, i) // u's entries before i
			prefix := sort.Search(len(positions), func(k int) bool {
				rb := w.requests[w.entries[positions[k]]]
				return rb.vc[u] > ra.vc[u]
			})
			if prefix > before {
				o.CausalInversions += prefix - before
				if first < 0 || positions[before] < first {
					first = positions[before]
				}
			}
		}
		if first >= 0 && o.CausalInversion == "" {
			rb := w.requests[w.entries[first]]
			o.CausalInversion = fmt.Sprintf("%s's request at %s happened before %s's at %s; %s entered first",
				name[rb.node], Format(rb.at), name[ra.node], Format(ra.at), name[ra.node])
		}
	}
	return o
}

// inversions counts the pairs i < j with a[j] < a[i], sorting a.
func inversions(a []int64) int {
	if len(a) < 2 {
		return 0
	}
	mid := len(a) / 2
	n := inversions(a[:mid]) + inversions(a[mid:])
	merged := make([]int64, 0, len(a))
	i, j := 0, mid
	for i < mid && j < len(a) {
		if a[j] < a[i] {
			n += mid - i
			merged = append(merged, a[j])
			j++
		} else {
			merged = append(merged, a[i])
			i++
		}
	}
	merged = append(append(merged, a[i:mid]...), a[j:]...)
	copy(a, merged)
	return n
}
