package explore

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/fwsim/fwsim/bus"
)

// FuzzExplore explores small buses with any delay, timing, coin bias,
// seed, time step (the seed's top bits, where one is allowed) and bound
// on the states: the exploration never fails on valid
// options, every answer is an interval inside [0, 1] with its minimum at
// most its maximum, and where the answer is exact and complete the
// outcomes' probabilities sum to exactly 1.
func FuzzExplore(f *testing.F) {
	f.Add(uint8(0), uint16(30), uint8(0), uint8(1), uint8(2), uint64(1), uint16(200))
	f.Add(uint8(1), uint16(300), uint8(3), uint8(1), uint8(3), uint64(7), uint16(50))
	f.Add(uint8(2), uint16(0), uint8(1), uint8(0), uint8(1), uint64(3), uint16(1))
	f.Add(uint8(0), uint16(30), uint8(1), uint8(1), uint8(2), uint64(10)<<60, uint16(300))
	f.Fuzz(func(t *testing.T, shape uint8, delay uint16, timing, ideal, biasNum uint8, seed uint64, maxStates uint16) {
		spec := [...]string{"pair", "chain:3", "star:3"}[int(shape)%3]
		topo, err := bus.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		d := float64(delay % 700)
		for i := range topo.Cables {
			topo.Cables[i].LengthM, topo.Cables[i].DelayNs = nil, &d
		}
		o := Options{
			Bus:       bus.Options{Seed: seed, IdealClock: ideal%2 == 1, AllowOutOfSpec: true},
			Timing:    Timing(timing % 4),
			CoinBias:  big.NewRat(int64(biasNum%5), 4),
			MaxStates: 1 + int(maxStates%400),
			Deadlines: []Deadline{{D: 1000}, {Metric: bus.MetricContention, D: 2500}},
		}
		if o.Bus.IdealClock && o.Timing != Random {
			o.Space.Resolution = int64(seed >> 60) // a time step of up to 15 ns
		}
		res, err := Explore(topo, o)
		if err != nil {
			t.Fatalf("%s, delay %v, %+v: %v", spec, d, o, err)
		}
		check := func(what string, i Interval) {
			if i.Min.Sign() < 0 || i.Max.Cmp(one) > 0 || i.Min.Cmp(i.Max) > 0 {
				t.Fatalf("%s: %v is not an interval inside [0, 1]", what, i)
			}
		}
		sum := new(big.Rat)
		exact := res.Complete && !res.Nondeterministic && !res.Bounded
		for _, r := range res.Outcomes {
			check(string(r.Outcome), r.P)
			exact = exact && r.P.Exact()
			sum.Add(sum, r.P.Min)
		}
		for _, r := range res.Deadlines {
			check(r.Metric, r.P)
		}
		if exact && sum.Cmp(one) != 0 {
			t.Fatalf("%s: exact outcome probabilities sum to %s", spec, sum.RatString())
		}
	})
}

// FuzzReadReplayFile reads any bytes as a counterexample file: it never
// panics, every error names the file, and a file it accepts replays in
// bus.Run, which fails or not but within its event budget.
func FuzzReadReplayFile(f *testing.F) {
	valid := stalledReplay(f)
	f.Add(valid)
	f.Add(bytes.Replace(valid, []byte(`"event_window_ns": null`), []byte(`"event_window_ns": [0, 3600000000000]`), 1))
	f.Add(bytes.Replace(valid, []byte(`"phase_grid": 0`), []byte(`"phase_grid": 4`), 1))
	f.Add(bytes.Replace(valid, []byte(`"resolution_ns": 1`), []byte(`"resolution_ns": 10`), 1))
	f.Add([]byte(`{"seed": 1, "seed": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, o, err := ReadReplayFile("cex.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cex.json") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		o.MaxEvents = 100_000
		_, _ = bus.Run(topo, o)
	})
}
