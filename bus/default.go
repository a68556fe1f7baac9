package bus

// DefaultTopology is the bus fwsim runs when given none: a PC with a hub, a
// DV camcorder, two daisy-chained disks and an audio interface. It is
// examples/default.yaml. Each call returns a new value, free to change.
//
//	pc ─┬─ hub ─┬─ camera (S100)
//	    │       └─ audio
//	    └─ disk1 ── disk2
func DefaultTopology() *Topology {
	return &Topology{
		Nodes: []Node{
			{ID: "pc", Ports: 3, Speed: "S400", Contender: true, PowerClass: 4},
			{ID: "hub", Ports: 3, Speed: "S400", Link: ptrTo(false)}, // a repeater: PHY only
			{ID: "camera", Ports: 1, Speed: "S100"},
			{ID: "disk1", Ports: 2, Speed: "S400"},
			{ID: "disk2", Ports: 2, Speed: "S400"},
			{ID: "audio", Ports: 2, Speed: "S400"},
		},
		Cables: []Cable{
			{From: "pc:0", To: "hub:0", LengthM: ptrTo(2.0)},
			{From: "pc:1", To: "disk1:0", LengthM: ptrTo(1.0)},
			{From: "disk1:1", To: "disk2:0", LengthM: ptrTo(0.5)},
			{From: "hub:1", To: "camera:0", LengthM: ptrTo(4.5)},
			{From: "hub:2", To: "audio:0", LengthM: ptrTo(3.0)},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }
