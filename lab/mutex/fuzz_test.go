package mutex

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fwsim/fwsim/bus"
)

// FuzzParseCrash: NODE@TIME either parses to a node and a time in range
// that print back as given, or fails with a message; it never panics.
func FuzzParseCrash(f *testing.F) {
	for _, s := range []string{"n3@2.5", "n0@0", "a@1.000", "@1", "n1@", "n1@1.2345", "n1@-1", "n1@1e3", "n1@1000000", "n1@1000000.001", "x@@1", "n1@.5", "n1@5.", "n1@2.5d", "n1@2us", "n1@d", "n1@2dd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCrash(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", s)
			}
			return
		}
		node, at, _ := strings.Cut(s, "@")
		if c.Node != node || c.At < 0 || c.At > maxTime {
			t.Fatalf("%q: parsed %+v", s, c)
		}
		// The time reads back: the same ticks from its printed form.
		back, err := ParseTime(Format(c.At))
		if err != nil || back != c.At {
			t.Fatalf("%q: %d ticks print as %s, which reads %d, %v", s, c.At, Format(c.At), back, err)
		}
		if again, _ := ParseTime(at); again != c.At {
			t.Fatalf("%q: the time parses differently alone", s)
		}
	})
}

// FuzzRunUnderFaults runs every algorithm under random crashes, token
// losses and the remedy: a run never breaks safety, always ends, and gives
// every request that waits for ever a reason a fault explains.
func FuzzRunUnderFaults(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(3))
	f.Add(uint64(77), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, spec uint8) {
		topo, err := bus.Generate(specs[int(spec)%len(specs)])
		if err != nil {
			t.Fatal(err)
		}
		o := randomFaults(rand.New(rand.NewPCG(seed, 1)), topo)
		o.MaxEvents = 2_000_000
		res, err := Run(topo, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if len(res.Violations) > 0 {
			t.Fatalf("%+v: %v", o, res.Violations)
		}
		for _, u := range res.Unserved {
			if strings.Contains(u.Reason, "a bug") {
				t.Fatalf("%+v: %s waits: %s", o, u.Node, u.Reason)
			}
		}
		if len(o.Crashes) == 0 && !o.LoseToken && !res.Live {
			t.Fatalf("%+v: no fault, yet not live: %v", o, res.Unserved)
		}
	})
}
