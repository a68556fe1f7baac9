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
		if len(problems) > 0 {
			var events []string
			for _, e := range topo.Events {
				events = append(events, fmt.Sprintf("%+v", e))
			}
			t.Fatalf("%d nodes, profile %q, seed %d, events %s:\n%s\n(%d generations)", len(topo.Nodes), topo.Profile, o.Seed, strings.Join(events, ", "), strings.Join(problems, "\n"), len(res.Generations))
		}
	})
}
