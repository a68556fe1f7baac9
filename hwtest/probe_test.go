package hwtest

import (
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

// ioc is the generic Linux _IOC encoding (include/uapi/asm-generic/ioctl.h):
// nr in bits 0–7, type 8–15, size 16–29, direction 30–31 (1 write, 2 read).
func ioc(dir, typ, nr, size uintptr) uintptr { return dir<<30 | size<<16 | typ<<8 | nr }

// The ioctl numbers and struct layouts, against firewire-cdev.h: each C
// struct laid out by hand with the LP64 rules (u32 at 4, u64 at 8, the
// struct padded to a multiple of its largest member).
func TestCdevABI(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the probe is built for LP64 (amd64, arm64) only")
	}
	const write, readWrite = 1, 3
	assert.Equal(t, ioc(readWrite, '#', 0x00, 40), uintptr(iocGetInfo), "FW_CDEV_IOC_GET_INFO")
	assert.Equal(t, ioc(write, '#', 0x01, 40), uintptr(iocSendRequest), "FW_CDEV_IOC_SEND_REQUEST")
	assert.Equal(t, ioc(write, '#', 0x05, 4), uintptr(iocInitiateBusReset), "FW_CDEV_IOC_INITIATE_BUS_RESET")
	assert.Equal(t, ioc(0, '#', 0x11, 0), uintptr(iocGetSpeed), "FW_CDEV_IOC_GET_SPEED")
	assert.Equal(t, ioc(readWrite, '#', 0x15, 24), uintptr(iocSendPhyPacket), "FW_CDEV_IOC_SEND_PHY_PACKET")

	// struct fw_cdev_get_info { u32 version; u32 rom_length; u64 rom;
	// u64 bus_reset; u64 bus_reset_closure; u32 card; } — 36 bytes, padded to 40.
	var gi cdevGetInfo
	assert.Equal(t, uintptr(40), unsafe.Sizeof(gi))
	assert.Equal(t, []uintptr{0, 4, 8, 16, 24, 32}, []uintptr{unsafe.Offsetof(gi.Version), unsafe.Offsetof(gi.RomLength),
		unsafe.Offsetof(gi.Rom), unsafe.Offsetof(gi.BusReset), unsafe.Offsetof(gi.BusResetClosure), unsafe.Offsetof(gi.Card)})

	// struct fw_cdev_send_request { u32 tcode; u32 length; u64 offset;
	// u64 closure; u64 data; u32 generation; } — 36, padded to 40.
	var sr cdevSendRequest
	assert.Equal(t, uintptr(40), unsafe.Sizeof(sr))
	assert.Equal(t, []uintptr{0, 4, 8, 16, 24, 32}, []uintptr{unsafe.Offsetof(sr.Tcode), unsafe.Offsetof(sr.Length),
		unsafe.Offsetof(sr.Offset), unsafe.Offsetof(sr.Closure), unsafe.Offsetof(sr.Data), unsafe.Offsetof(sr.Generation)})

	assert.Equal(t, uintptr(4), unsafe.Sizeof(cdevInitiateBusReset{}))

	// struct fw_cdev_send_phy_packet { u64 closure; u32 data[2];
	// u32 generation; } — 20, padded to 24.
	var pp cdevSendPhyPacket
	assert.Equal(t, uintptr(24), unsafe.Sizeof(pp))
	assert.Equal(t, []uintptr{0, 8, 16}, []uintptr{unsafe.Offsetof(pp.Closure), unsafe.Offsetof(pp.Data), unsafe.Offsetof(pp.Generation)})

	// struct fw_cdev_event_bus_reset { u64 closure; u32 type; u32 node_id;
	// u32 local_node_id; u32 bm_node_id; u32 irm_node_id; u32 root_node_id;
	// u32 generation; } — 36, padded to 40.
	var br cdevBusReset
	assert.Equal(t, uintptr(40), unsafe.Sizeof(br))
	assert.Equal(t, []uintptr{0, 8, 12, 16, 20, 24, 28, 32}, []uintptr{offClosure, offType, offNodeID, offLocalNode,
		offBMNode, offIRMNode, offRootNode, offGeneration})

	// struct fw_cdev_event_response { u64 closure; u32 type; u32 rcode;
	// u32 length; u32 data[]; } — data at 20, sizeof 24.
	assert.Equal(t, uintptr(24), unsafe.Sizeof(cdevResponse{}))
	assert.Equal(t, []uintptr{12, 16, 20}, []uintptr{offRcode, offLength, offData})
}

// labDevice is the local node of the lab bus, an S400 link.
func labDevice() *FakeDevice {
	return &FakeDevice{Generation: 4, NodeID: 0xffc5, LocalNodeID: 0xffc5, Root: 0xffc5, IRMNodeID: 0xffc5, BMNodeID: 0xffff,
		MaxSpeed: 2, Map: EncodeTopologyMap(4, labBus(63))}
}

func TestProbeReadsTheTopologyMap(t *testing.T) {
	dev := labDevice()
	p, err := Open(func(string) (Device, error) { return dev, nil }, "/dev/fw0")
	require.NoError(t, err)
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(63), s.SelfIDs)
	assert.Equal(t, 4, s.Number, "the generation GET_INFO reported")
	assert.Equal(t, 5, s.LocalPhyID)
	assert.Empty(t, s.Problems)
	assert.Equal(t, []FakeRequest{{Tcode: 5, Length: 0x400, Offset: 0xfffff0001000, Generation: 4}}, dev.Requests,
		"one block read of the whole TOPOLOGY_MAP in the current generation")
	assert.Empty(t, dev.Resets, "reading never resets the bus")
	require.NoError(t, p.Close())
	assert.True(t, dev.Closed)
}

// A bus reset before the kernel handles the read ends its generation; the
// probe reads the new generation's map.
func TestProbeRetriesAfterABusResetMidRead(t *testing.T) {
	dev := labDevice()
	dev.SpoilReads = 2
	dev.Next = [][]uint32{EncodeTopologyMap(5, labBus(10)), EncodeTopologyMap(6, labBus(7))}
	p := &Probe{Path: "/dev/fw0", Dev: dev}
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(7), s.SelfIDs, "the map of the last generation")
	assert.Equal(t, 6, s.Number)
	require.Len(t, dev.Requests, 3)
	for i, r := range dev.Requests {
		assert.Equal(t, uint32(4+i), r.Generation, "request %d is sent in the then current generation", i)
	}
}

// The kernel refuses a request longer than 512 << speed bytes (EIO): an
// S100 local node's map is read in 512-byte parts, and no further than
// its length: 63 nodes of four ports, two packets each, fill 129 quadlets.
func TestProbeReadsInPartsTheSpeedAllows(t *testing.T) {
	dev := labDevice()
	dev.MaxSpeed, dev.Map = 0, EncodeTopologyMap(4, chainBus(63, 4))
	require.Len(t, dev.Map, 129)
	s, err := (&Probe{Dev: dev}).Read()
	require.NoError(t, err)
	assert.Equal(t, chainBus(63, 4), s.SelfIDs)
	assert.Equal(t, dev.Map, s.Map)
	assert.Equal(t, []FakeRequest{
		{Tcode: 5, Length: 512, Offset: 0xfffff0001000, Generation: 4},
		{Tcode: 5, Length: 4, Offset: 0xfffff0001200, Generation: 4},
	}, dev.Requests)
}

// noBlockReads refuses every block read, as the kernel refuses one longer
// than the speed allows.
type noBlockReads struct{ *FakeDevice }

func (d noBlockReads) SendRequest(tcode, length uint32, offset, closure uint64, generation uint32) error {
	if tcode == tcodeReadBlockRequest {
		d.Requests = append(d.Requests, FakeRequest{tcode, length, offset, generation})
		return syscall.EIO
	}
	return d.FakeDevice.SendRequest(tcode, length, offset, closure, generation)
}

func TestProbeFallsBackToQuadletReads(t *testing.T) {
	dev := labDevice()
	p := &Probe{Dev: noBlockReads{dev}}
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(63), s.SelfIDs)
	want := []FakeRequest{{Tcode: 5, Length: 0x400, Offset: 0xfffff0001000, Generation: 4}}
	for i := range dev.Map {
		want = append(want, FakeRequest{Tcode: 4, Length: 4, Offset: 0xfffff0001000 + uint64(4*i), Generation: 4})
	}
	assert.Equal(t, want, dev.Requests, "one refused block read, then a quadlet read per quadlet of the map")

	dev.Requests = nil
	_, err = p.Read()
	require.NoError(t, err)
	assert.Len(t, dev.Requests, len(dev.Map), "the probe remembers that block reads are refused")
}

// Resets before the read leave their events queued (the bus manager's,
// after a reset the user asked for): they say nothing of the map read now.
func TestProbeIgnoresQueuedResets(t *testing.T) {
	dev := labDevice()
	for range 5 {
		dev.busReset()
	}
	s, err := (&Probe{Dev: dev}).Read()
	require.NoError(t, err)
	assert.Equal(t, 9, s.Number)
	assert.Equal(t, []FakeRequest{{Tcode: 5, Length: 0x400, Offset: 0xfffff0001000, Generation: 9}}, dev.Requests)
}

// lateEvent delivers the BUS_RESET event of the current generation after
// the probe has asked GET_INFO about it, as the kernel's device update,
// which runs apart from the bus reset, may.
type lateEvent struct{ *FakeDevice }

func (d lateEvent) SendRequest(tcode, length uint32, offset, closure uint64, generation uint32) error {
	d.events = append(d.events, d.busResetEvent(0))
	return d.FakeDevice.SendRequest(tcode, length, offset, closure, generation)
}

func TestProbeReadsThroughALateEventOfItsGeneration(t *testing.T) {
	dev := labDevice()
	s, err := (&Probe{Dev: lateEvent{dev}, Attempts: 1}).Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(63), s.SelfIDs)
	assert.Len(t, dev.Requests, 1)
}

func TestNewerGeneration(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		want bool
	}{{5, 4, true}, {4, 5, false}, {4, 4, false}, {0, 255, true}, {255, 0, false}, {3, 250, true}, {130, 2, false}} {
		assert.Equal(t, c.want, newer(c.a, c.b), "%d after %d", c.a, c.b)
	}
}

// pastEventFirst delivers the event of an earlier generation between the
// reset the probe asks for and the event of that reset.
type pastEventFirst struct{ *FakeDevice }

func (d pastEventFirst) InitiateBusReset(typ uint32) error {
	old := d.busResetEvent(0)
	binary.NativeEndian.PutUint32(old[32:], (d.Generation-1)&0xff)
	d.events = append(d.events, old)
	return d.FakeDevice.InitiateBusReset(typ)
}

func TestProbeResetWaitsForANewerGeneration(t *testing.T) {
	for _, gen := range []uint32{4, 255} {
		dev := labDevice()
		dev.Generation = gen
		p := &Probe{Dev: pastEventFirst{dev}}
		require.NoError(t, p.Reset(true))
		s, err := p.Read()
		require.NoError(t, err)
		assert.Equal(t, int(gen+1)&0xff, s.Number, "from generation %d: the reset's own generation, modulo 256", gen)
	}
}

// silentInfo is a GET_INFO that succeeds and writes nothing.
type silentInfo struct{ *FakeDevice }

func (silentInfo) GetInfo(uint32, uint64, []byte) error { return nil }

func TestProbeRefusesAnEmptyGetInfo(t *testing.T) {
	dev := labDevice()
	_, err := Open(func(string) (Device, error) { return silentInfo{dev}, nil }, "/dev/fw0")
	assert.ErrorIs(t, err, ErrNoBusInfo)
	assert.True(t, dev.Closed)
	_, err = OpenLocal(func(string) (Device, error) { return silentInfo{dev}, nil }, []string{"/dev/fw0"})
	assert.ErrorIs(t, err, ErrNoDevice)
}

func TestProbeGivesUpOnAnUnstableBus(t *testing.T) {
	dev := labDevice()
	dev.SpoilReads = 100
	p := &Probe{Path: "/dev/fw0", Dev: dev, Attempts: 3}
	_, err := p.Read()
	assert.ErrorIs(t, err, ErrBusUnstable)
	assert.Len(t, dev.Requests, 3)
}

func TestProbeRefusesARemoteNode(t *testing.T) {
	dev := labDevice()
	dev.NodeID = 0xffc2
	_, err := Open(func(string) (Device, error) { return dev, nil }, "/dev/fw3")
	assert.ErrorIs(t, err, ErrNotLocal)
	assert.True(t, dev.Closed)

	// OpenLocal skips it and takes the next file.
	local := labDevice()
	devs := map[string]*FakeDevice{"/dev/fw0": dev, "/dev/fw1": local}
	p, err := OpenLocal(func(path string) (Device, error) { return devs[path], nil }, []string{"/dev/fw0", "/dev/fw1"})
	require.NoError(t, err)
	assert.Equal(t, "/dev/fw1", p.Path)

	// A remote node's file that the udev rule leaves closed does not stop
	// the search.
	p, err = OpenLocal(func(path string) (Device, error) {
		if path == "/dev/fw0" {
			return nil, syscall.EACCES
		}
		return local, nil
	}, []string{"/dev/fw0", "/dev/fw1"})
	require.NoError(t, err)
	assert.Equal(t, "/dev/fw1", p.Path)

	_, err = OpenLocal(func(string) (Device, error) { return nil, syscall.ENOENT }, []string{"/dev/fw0"})
	assert.ErrorIs(t, err, ErrNoDevice)
	_, err = OpenLocal(func(string) (Device, error) { return nil, nil }, nil)
	assert.ErrorIs(t, err, ErrNoDevice)
}

func TestProbePermissionErrorNamesTheUdevRule(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EPERM} {
		deny := func(string) (Device, error) { return nil, errno }
		for _, open := range []func() error{
			func() error { _, err := Open(deny, "/dev/fw1"); return err },
			func() error { _, err := OpenLocal(deny, []string{"/dev/fw0", "/dev/fw1"}); return err },
		} {
			err := open()
			var pe *PermissionError
			require.ErrorAs(t, err, &pe, "%v", errno)
			assert.ErrorIs(t, err, fs.ErrPermission)
			assert.Contains(t, err.Error(), UdevRule)
			assert.Contains(t, err.Error(), "/etc/udev/rules.d/")
			assert.Contains(t, err.Error(), "needs read access")
			assert.NotContains(t, err.Error(), "write")
		}
	}
	assert.NotErrorIs(t, OpenError("/dev/fw0", syscall.ENOENT), fs.ErrPermission)
}

func TestProbeReset(t *testing.T) {
	dev := labDevice()
	dev.Next = [][]uint32{EncodeTopologyMap(5, labBus(10))}
	p := &Probe{Path: "/dev/fw0", Dev: dev}
	require.NoError(t, p.Reset(true))
	assert.Equal(t, []uint32{1}, dev.Resets, "FW_CDEV_SHORT_RESET is 1")
	s, err := p.Read()
	require.NoError(t, err)
	assert.Equal(t, 5, s.Number)
	assert.Equal(t, labBus(10), s.SelfIDs)
	require.NoError(t, p.Reset(false))
	assert.Equal(t, []uint32{1, 0}, dev.Resets, "FW_CDEV_LONG_RESET is 0")
}

func TestProbeWatchFollowsResets(t *testing.T) {
	dev := labDevice()
	dev.Next = [][]uint32{EncodeTopologyMap(5, labBus(10))}
	p := &Probe{Path: "/dev/fw0", Dev: dev}
	ctx, cancel := context.WithCancel(context.Background())
	var seen []int
	err := p.Watch(ctx, func(s *Snapshot) error {
		seen = append(seen, s.Number)
		if len(seen) == 1 {
			dev.busReset() // someone plugs a device in
		} else {
			cancel()
		}
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, []int{4, 5}, seen)
}

func TestParseEventErrors(t *testing.T) {
	_, err := parseEvent(make([]byte, 8))
	assert.Error(t, err, "shorter than the header")
	short := labDevice().busResetEvent(0)[:30]
	_, err = parseEvent(short)
	assert.Error(t, err, "a truncated bus reset event")
	resp := response(1, rcodeComplete, []byte{1, 2, 3, 4})
	binary.NativeEndian.PutUint32(resp[16:], 8) // claims more payload than arrived
	_, err = parseEvent(resp)
	assert.Error(t, err)
	e, err := parseEvent(response(7, rcodeComplete, []byte{1, 2, 3, 4}))
	require.NoError(t, err)
	assert.Equal(t, event{closure: 7, typ: eventResponse, rcode: rcodeComplete, data: []byte{1, 2, 3, 4}}, e)
}

// answers answers every request with rcode and payload.
type answers struct {
	*FakeDevice
	rcode   uint32
	payload []byte
}

func (d answers) SendRequest(_, _ uint32, _, closure uint64, _ uint32) error {
	d.events = append(d.events, response(closure, d.rcode, d.payload))
	return nil
}

func TestProbeReportsAFailedRead(t *testing.T) {
	_, err := (&Probe{Dev: answers{labDevice(), 0x07, nil}}).Read()
	assert.EqualError(t, err, "reading the TOPOLOGY_MAP: response code 0x7")
	_, err = (&Probe{Dev: answers{labDevice(), rcodeComplete, make([]byte, 8)}}).Read()
	assert.EqualError(t, err, "reading the TOPOLOGY_MAP: 8 bytes, asked for 1024")

	dev := labDevice()
	dev.Map = []uint32{0x01000000} // a length of 256 quadlets: more than the CSR holds
	_, err = (&Probe{Dev: dev}).Read()
	assert.ErrorIs(t, err, ErrCapture)
}

func TestDevicePaths(t *testing.T) {
	dir, sysfs := t.TempDir(), t.TempDir()
	for _, name := range []string{"fw10", "fw2", "fw0", "fw3", "fwx", "null"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
	}
	// sysfs as Linux writes it: fw0 and fw3 are remote nodes, fw2 the
	// local one; fw10 has no is_local (an older kernel).
	for name, local := range map[string]string{"fw0": "0\n", "fw2": "1\n", "fw3": "0\n"} {
		require.NoError(t, os.Mkdir(filepath.Join(sysfs, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sysfs, name, "is_local"), []byte(local), 0o644))
	}
	assert.Equal(t, []string{filepath.Join(dir, "fw2"), filepath.Join(dir, "fw10")}, DevicePaths(dir, sysfs))
	assert.Equal(t, []string{filepath.Join(dir, "fw0"), filepath.Join(dir, "fw2"), filepath.Join(dir, "fw3"), filepath.Join(dir, "fw10")},
		DevicePaths(dir, filepath.Join(sysfs, "none")), "without sysfs every file stays, in numeric order")
}

// staleOnce reports an outdated generation in its first GET_INFO, as when a
// bus reset happens between GET_INFO and SEND_REQUEST.
type staleOnce struct {
	*FakeDevice
	done bool
}

func (s *staleOnce) GetInfo(version uint32, closure uint64, busReset []byte) error {
	err := s.FakeDevice.GetInfo(version, closure, busReset)
	if !s.done {
		s.done = true
		binary.NativeEndian.PutUint32(busReset[32:], s.Generation-1)
	}
	return err
}

func TestProbeRetriesOnRcodeGeneration(t *testing.T) {
	dev := labDevice()
	s, err := (&Probe{Dev: &staleOnce{FakeDevice: dev}}).Read()
	require.NoError(t, err)
	assert.Equal(t, labBus(63), s.SelfIDs)
	require.Len(t, dev.Requests, 2)
	assert.Equal(t, []uint32{3, 4}, []uint32{dev.Requests[0].Generation, dev.Requests[1].Generation},
		"the kernel answers a request of a past generation with RCODE_GENERATION; the probe asks again")
}

// A PHY configuration packet goes out as its quadlet and the inverse, in
// the current generation, and again in the next when a reset ends that
// one first.
func TestProbeSendsAPhyConfiguration(t *testing.T) {
	c, err := phy.NewPhyConfig(2, true, true, 5)
	require.NoError(t, err)
	dev := labDevice()
	require.NoError(t, (&Probe{Dev: dev}).SendPhyConfig(c))
	assert.Equal(t, []FakePhyPacket{{[2]uint32{0x02c50000, 0xfd3affff}, 4}}, dev.PhyPackets)
	assert.Empty(t, dev.Resets, "the packet resets nothing")

	dev = labDevice()
	require.NoError(t, (&Probe{Dev: &staleOnce{FakeDevice: dev}}).SendPhyConfig(c))
	assert.Equal(t, []FakePhyPacket{{[2]uint32{0x02c50000, 0xfd3affff}, 3}, {[2]uint32{0x02c50000, 0xfd3affff}, 4}}, dev.PhyPackets)

	dev = labDevice()
	c, err = phy.NewPhyConfig(6, true, false, 0)
	require.NoError(t, err)
	err = (&Probe{Dev: dev}).SendPhyConfig(c)
	assert.ErrorIs(t, err, ErrNoSuchPhy)
	assert.EqualError(t, err, "no such phy_ID on the bus: phy 6 to force as root, the bus has phy_IDs 0–5")
	assert.Empty(t, dev.PhyPackets)
}
