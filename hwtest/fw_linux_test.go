//go:build linux && (amd64 || arm64)

package hwtest

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fwsim/fwsim/phy"
)

// The kernel checks no access mode for the firewire-cdev ioctls: the probe
// opens read-only, so read access is enough. A read-only sysfs attribute
// refuses a read-write open even to root.
func TestOpenDeviceNeedsOnlyReadAccess(t *testing.T) {
	const readOnly = "/sys/devices/system/cpu/online"
	if _, err := os.Stat(readOnly); err != nil {
		t.Skipf("%s: %v", readOnly, err)
	}
	dev, err := OpenDevice(readOnly)
	require.NoError(t, err)
	require.NoError(t, dev.Close())
}

// The probe reads the map through the real kernel's ioctl path: GET_INFO
// announces ABI 5 and closure 0 and gets the bus through its pointer, the
// reads carry the generation, offset and closure that come back, block
// reads as long as GET_SPEED allows.
func TestProbeThroughTheKernel(t *testing.T) {
	bus := labDevice()
	bus.MaxSpeed = 0 // S100: 512-byte reads
	srv, path := mountCdev(t, bus)
	p, err := Open(OpenDevice, path)
	require.NoError(t, err)
	defer p.Close()
	p.Timeout = 500 * time.Millisecond
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(63), s.SelfIDs)
	assert.Equal(t, 4, s.Number)
	assert.Equal(t, BusInfo{Generation: 4, NodeID: 0xffc5, LocalNodeID: 0xffc5, BMNodeID: 0xffff, IRMNodeID: 0xffc5, RootNodeID: 0xffc5}, s.Info)
	srv.with(func(bus *FakeDevice) {
		require.NotEmpty(t, bus.Infos)
		for _, info := range bus.Infos {
			assert.Equal(t, FakeInfo{Version: 5, Closure: 0}, info, "ABI 5 and the closure of bus reset events")
		}
		assert.Equal(t, []FakeRequest{{tcodeReadBlockRequest, 512, topologyMapOffset, 4}}, bus.Requests,
			"the map (%d quadlets) fits in one S100 block read", len(bus.Map))
	})
	srv.mu.Lock()
	defer srv.mu.Unlock()
	require.Len(t, srv.opens, 1)
	assert.Equal(t, uint32(unix.O_RDONLY), srv.opens[0]&unix.O_ACCMODE, "opened read-only")
}

// A reset goes through INITIATE_BUS_RESET with the type asked for, and its
// event comes back through poll(2) and read(2).
func TestProbeResetsThroughTheKernel(t *testing.T) {
	bus := labDevice()
	bus.Next = [][]uint32{EncodeTopologyMap(5, labBus(63)), EncodeTopologyMap(6, labBus(10))}
	srv, path := mountCdev(t, bus)
	p, err := Open(OpenDevice, path)
	require.NoError(t, err)
	defer p.Close()
	p.Timeout = 500 * time.Millisecond
	require.NoError(t, p.Reset(true))
	require.NoError(t, p.Reset(false))
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, 6, s.Number)
	assert.Equal(t, labBus(10), s.SelfIDs)
	srv.with(func(bus *FakeDevice) {
		assert.Equal(t, []uint32{resetShort, resetLong}, bus.Resets)
		assert.Equal(t, uint32(6), bus.Requests[len(bus.Requests)-1].Generation)
	})
}

// A PHY configuration packet goes through SEND_PHY_PACKET as its quadlet
// and the inverse, in the current generation, before the reset it is for.
func TestProbeSendsAPhyConfigurationThroughTheKernel(t *testing.T) {
	bus := labDevice()
	srv, path := mountCdev(t, bus)
	p, err := Open(OpenDevice, path)
	require.NoError(t, err)
	defer p.Close()
	p.Timeout = 500 * time.Millisecond
	c, err := phy.NewPhyConfig(3, true, true, 7)
	require.NoError(t, err)
	require.NoError(t, p.SendPhyConfig(c))
	require.NoError(t, p.Reset(true))
	srv.with(func(bus *FakeDevice) {
		assert.Equal(t, []FakePhyPacket{{[2]uint32{0x03c70000, 0xfc38ffff}, 4}}, bus.PhyPackets)
		assert.Equal(t, []uint32{resetShort}, bus.Resets)
	})
}
