package bus

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzRunScenario runs random valid buses with random scripted events
// through Run and checks the invariants every run must keep.
func FuzzRunScenario(f *testing.F) {
	for _, seed := range ScenarioSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, o := ScenarioFromBytes(data)
		o.MaxEvents = 200_000
		res, problems, err := runTraced(topo, o)
		if err != nil {
			t.Fatalf("a generated bus is invalid: %v", err)
		}
		problems = append(problems, trafficProblems(res.Traffic)...)
		if len(problems) > 0 {
			var events []string
			for _, e := range topo.Events {
				events = append(events, fmt.Sprintf("%+v", e))
			}
			t.Fatalf("%d nodes, profile %q, seed %d, events %s:\n%s\n(%d generations)", len(topo.Nodes), topo.Profile, o.Seed, strings.Join(events, ", "), strings.Join(problems, "\n"), len(res.Generations))
		}
	})
}

// trafficProblems lists what breaks the bookkeeping of a traffic phase:
// counts that contradict each other, or damage with no collision to cause
// it.
func trafficProblems(t *TrafficResult) []string {
	if t == nil {
		return nil
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if t.Utilisation < 0 || t.Utilisation > 1 {
		bad("utilisation %v outside [0, 1]", t.Utilisation)
	}
	if t.BusyNs < 0 || t.EndNs < t.StartNs {
		bad("busy %d ns, traffic from %d to %d ns", t.BusyNs, t.StartNs, t.EndNs)
	}
	if t.CycleMaster == "" && t.Cycles > 0 {
		bad("%d cycle starts without a cycle master", t.Cycles)
	}
	for _, f := range t.Flows {
		if f.Acked > f.Sent || f.Acked+f.Failed > f.Queued || f.Retries > f.Sent || f.Broken > f.Sent {
			bad("flow of %s: queued %d, sent %d, acked %d, failed %d, retries %d, broken %d", f.Node, f.Queued, f.Sent, f.Acked, f.Failed, f.Retries, f.Broken)
		}
		if t.Collisions == 0 && (f.Broken > 0 || f.AcksLost > 0) {
			bad("flow of %s: %d broken and %d acknowledgements lost without a collision", f.Node, f.Broken, f.AcksLost)
		}
		if f.Unsent != "" && f.Sent > 0 {
			bad("flow of %s sent %d packets though %s", f.Node, f.Sent, f.Unsent)
		}
	}
	return out
}
