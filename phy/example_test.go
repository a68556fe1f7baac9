package phy_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/treeid"
)

// A leaf PHY (one connected port) through its bus reset into tree identify,
// driven by hand as the bus package drives every PHY: set what each port
// receives, then step the machine at the cycle it asks for.
func ExampleMachine() {
	timing := phy.Profiles()[0].Timing
	clock := phy.IdealClock() // one cycle per ns
	election, err := treeid.NewElection(treeid.ElectionConfig{
		Fast: timing.RootContendFast, Slow: timing.RootContendSlow,
		ForceRootTimeout: timing.ForceRootTimeout, ConfigTimeout: timing.ConfigTimeout,
		Clock: clock, FastProbability: 0.5, Rand: rand.New(rand.NewPCG(1, 2)),
	})
	if err != nil {
		panic(err)
	}
	m, err := phy.NewMachine(phy.Config{Ports: 2, Speed: phy.S400, LinkActive: true, Timing: timing, Clock: clock, TreeID: election})
	if err != nil {
		panic(err)
	}
	m.Ports().Connected[0] = true

	m.InitiateReset(0, false)
	fmt.Println(m.State(), m.Ports().Tx[0])
	m.Ports().Rx[0] = phy.RxBusReset // the neighbour resets too
	now := m.Wake()                  // RESET_TIME later
	m.Step(now)
	fmt.Println(m.State(), m.Ports().Tx[0])
	m.Ports().Rx[0] = phy.RxIdle // the neighbour's reset ends
	m.Step(now + 1)              // the next edge sees it
	fmt.Println(m.Trail(), m.Ports().Tx[0])
	// Output:
	// R0 BUS_RESET (1,1)
	// R1 IDLE (z,z)
	// [T0 T1 T2] tx PARENT_NOTIFY, rx SELF_ID_GRANT/REQUEST (0,z)
}
