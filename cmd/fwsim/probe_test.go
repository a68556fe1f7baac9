package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
)

// fakeSystem replaces the devices the probe reaches for one test: /dev
// holds fw0 (a remote node) and fw1 (the local node, on the lab bus, an S400
// link), and sysfs says which is which.
func fakeSystem(t *testing.T, open hwtest.Opener) *hwtest.FakeDevice {
	t.Helper()
	dir, sysfs := t.TempDir(), t.TempDir()
	for name, local := range map[string]string{"fw0": "0\n", "fw1": "1\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
		require.NoError(t, os.Mkdir(filepath.Join(sysfs, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sysfs, name, "is_local"), []byte(local), 0o644))
	}
	gens, err := hwtest.Parse(mustRead(t, captures+"raw-two-resets.txt"), "")
	require.NoError(t, err)
	local := &hwtest.FakeDevice{Generation: 7, NodeID: 0xffc5, LocalNodeID: 0xffc5, Root: 0xffc5, IRMNodeID: 0xffc5,
		BMNodeID: 0xffc5, MaxSpeed: 2, Map: hwtest.EncodeTopologyMap(7, gens[0].SelfIDs), Next: [][]uint32{hwtest.EncodeTopologyMap(8, gens[1].SelfIDs)}}
	remote := &hwtest.FakeDevice{Generation: 7, NodeID: 0xffc2, LocalNodeID: 0xffc5}
	if open == nil {
		open = func(path string) (hwtest.Device, error) {
			if filepath.Base(path) == "fw1" {
				return local, nil
			}
			return remote, nil
		}
	}
	saved := []any{openFWDevice, fwDeviceDir, fwSysfsDir, probeSupported}
	openFWDevice, fwDeviceDir, fwSysfsDir, probeSupported = open, dir, sysfs, true
	t.Cleanup(func() {
		openFWDevice, fwDeviceDir, fwSysfsDir, probeSupported = saved[0].(hwtest.Opener), saved[1].(string), saved[2].(string), saved[3].(bool)
	})
	return local
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

func TestProbeGolden(t *testing.T) {
	for _, format := range []string{"txt", "json"} {
		t.Run(format, func(t *testing.T) {
			local := fakeSystem(t, nil)
			args := []string{"probe"}
			if format == "json" {
				args = append(args, "--json")
			}
			code, stdout, stderr := runCLI(t, args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Empty(t, stderr)
			// The fake /dev is a temporary directory: show it as /dev.
			golden(t, "probe/lab."+format, strings.ReplaceAll(stdout, fwDeviceDir, "/dev"))
			assert.Empty(t, local.Resets, "no reset unless asked")
		})
	}
}

func TestProbeDeviceAndReset(t *testing.T) {
	local := fakeSystem(t, nil)
	code, stdout, stderr := runCLI(t, "probe", "--device", filepath.Join(fwDeviceDir, "fw1"), "--reset", "short")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []uint32{1}, local.Resets)
	assert.Contains(t, stdout, ", generation 8: ")
	assert.Contains(t, stdout, "gap count: 10 on every node")

	code, _, stderr = runCLI(t, "probe", "--device", filepath.Join(fwDeviceDir, "fw0"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "not the local node's device file")

	code, _, stderr = runCLI(t, "probe", "--reset", "hard")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want short or long")
}

// --force-root and --gap-count send a PHY configuration packet before the
// reset, and the output says whether the bus shows what it forced.
func TestProbeForcesARootAndAGapCount(t *testing.T) {
	local := fakeSystem(t, nil)
	code, stdout, stderr := runCLI(t, "probe", "--reset", "short", "--force-root", "5", "--gap-count", "10")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []hwtest.FakePhyPacket{{Data: [2]uint32{0x05ca0000, 0xfa35ffff}, Generation: 7}}, local.PhyPackets)
	assert.Equal(t, []uint32{1}, local.Resets)
	assert.Contains(t, stdout, ", generation 8: ")
	assert.Contains(t, stdout, "\nbefore this reset fwsim sent the PHY configuration packet 0x05ca0000 (root phy 5, gap count 10): the bus shows it\n")

	local = fakeSystem(t, nil)
	code, stdout, stderr = runCLI(t, "probe", "--reset", "long", "--force-root", "2")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, []hwtest.FakePhyPacket{{Data: [2]uint32{0x02800000, 0xfd7fffff}, Generation: 7}}, local.PhyPackets)
	assert.Equal(t, []uint32{0}, local.Resets)
	assert.Contains(t, stdout, "packet 0x02800000 (root phy 2): the bus shows root phy 5: another PHY configuration followed, perhaps the Linux bus manager's\n")

	fakeSystem(t, nil)
	code, stdout, stderr = runCLI(t, "probe", "--reset", "short", "--gap-count", "5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "packet 0x00450000 (gap count 5): the bus shows gap counts that differ from it: ")

	local = fakeSystem(t, nil)
	code, stdout, stderr = runCLI(t, "probe", "--reset", "short", "--force-root", "9")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim probe: no such phy_ID on the bus: phy 9 to force as root, the bus has phy_IDs 0–5\n", stderr)
	assert.Empty(t, local.PhyPackets)
	assert.Empty(t, local.Resets, "no reset after a packet not sent")

	for _, c := range []struct{ args, want string }{
		{"--force-root 2", "--force-root and --gap-count need --reset: a PHY configuration packet takes effect at the next bus reset"},
		{"--gap-count 5 --watch", "--force-root and --gap-count need --reset: a PHY configuration packet takes effect at the next bus reset"},
		{"--reset short --force-root 63", "--force-root 63: want a phy_ID from 0 to 62 (63 is no node's)"},
		{"--reset short --force-root -1", "--force-root -1: want a phy_ID from 0 to 62 (63 is no node's)"},
		{"--reset short --gap-count 64", "--gap-count 64: want 0 to 63, what the packet's 6 bits hold"},
		{"--reset short --gap-count x", `invalid value "x" for flag --gap-count: want an integer`},
	} {
		code, _, stderr := runCLI(t, append([]string{"probe"}, strings.Fields(c.args)...)...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Equal(t, "fwsim probe: "+c.want+" (see 'fwsim help probe')\n", stderr, c.args)
	}
}

// After a reset the probe asks for, the bus manager may reset the bus
// again and again (forcing a root, fixing the gap count): the probe reads
// the last generation, whatever events of the others are queued.
func TestProbeResetFollowedByTheBusManagers(t *testing.T) {
	local := fakeSystem(t, nil)
	local.ManagerResets = 5
	code, stdout, stderr := runCLI(t, "probe", "--reset", "short")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, ", generation 13: ")
	assert.Len(t, local.Requests, 1, "one read of the map")
}

// The udev rule opens up only the local node's file; sysfs says which it
// is, so a remote node's file is never opened.
func TestProbeOpensOnlyTheLocalNode(t *testing.T) {
	var local *hwtest.FakeDevice
	local = fakeSystem(t, func(path string) (hwtest.Device, error) {
		if filepath.Base(path) != "fw1" {
			return nil, syscall.EACCES
		}
		return local, nil
	})
	code, stdout, stderr := runCLI(t, "probe")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "/fw1, generation 7: ")
}

func TestProbePermissionDenied(t *testing.T) {
	fakeSystem(t, func(string) (hwtest.Device, error) { return nil, syscall.EACCES })
	code, stdout, stderr := runCLI(t, "probe")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "fwsim probe: cannot open ")
	assert.Contains(t, stderr, hwtest.UdevRule)
	assert.Equal(t, 1, countLines(stderr), "one message")
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

func TestProbeOutsideLinux(t *testing.T) {
	fakeSystem(t, nil)
	probeSupported = false
	code, _, stderr := runCLI(t, "probe")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim probe: "+hwtest.ErrNeedsLinux.Error()+"\n", stderr)
	code, _, stderr = runCLI(t, "crosscheck", "--probe")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim crosscheck: "+hwtest.ErrNeedsLinux.Error()+"\n", stderr)
}

func TestCrosscheckProbe(t *testing.T) {
	fakeSystem(t, nil)
	code, stdout, stderr := runCLI(t, "crosscheck", "--probe", "--max-states", "0")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "(probe), seed 1")
	assert.Contains(t, stdout, "generation 1: match")
}

// fakeUSB is a host with one capture device that streams the lab bus.
type fakeUSB struct{ stream []byte }

func (u fakeUSB) List() ([]hwtest.USBDeviceInfo, error) {
	return []hwtest.USBDeviceInfo{{Bus: 1, Address: 4, VID: 0x1d50, PID: 0x6018, Class: "vendor-specific"}}, nil
}

func (u fakeUSB) Open(vid, pid uint16, ep int) (hwtest.USBStream, error) {
	if vid != 0x1d50 || pid != 0x6018 || ep != 2 {
		return nil, errors.New("no such device")
	}
	return &oneShot{data: u.stream}, nil
}

func (u fakeUSB) Close() error { return nil }

type oneShot struct{ data []byte }

func (s *oneShot) Read(ctx context.Context, buf []byte) (int, error) {
	if len(s.data) == 0 {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	n := copy(buf, s.data)
	s.data = s.data[n:]
	return n, nil
}

func (s *oneShot) Close() error { return nil }

// fakeUSBCapture replaces the USB devices for one test with a capture
// device on 1d50:6018 endpoint 2 that streams generation 3 of
// raw-two-resets.txt.
func fakeUSBCapture(t *testing.T) {
	gens, err := hwtest.Parse(mustRead(t, captures+"raw-two-resets.txt"), "")
	require.NoError(t, err)
	var stream []byte
	put := func(q uint32) { stream = append(stream, byte(q>>24), byte(q>>16), byte(q>>8), byte(q)) }
	put(0xffffffff)
	put(0xffffffff)
	put(3)
	for _, q := range gens[0].SelfIDs {
		put(uint32(q))
		put(^uint32(q))
	}
	saved := openUSB
	t.Cleanup(func() { openUSB = saved })
	openUSB = func() (hwtest.USB, error) { return fakeUSB{stream: stream}, nil }
}

func TestProbeUSB(t *testing.T) {
	fakeUSBCapture(t)
	code, stdout, stderr := runCLI(t, "probe", "--usb", "list")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "1d50:6018")
	assert.Contains(t, stdout, "None of them is a 1394 bus")
	list := jsonOutput[hwtest.USBListJSON](t, exitOK, "probe", "--usb", "list", "--json")
	assert.Equal(t, bus.NewVersionJSON(), list.VersionJSON)
	require.NotEmpty(t, list.Devices)
	assert.Equal(t, "1d50", list.Devices[0].VID)

	code, stdout, stderr = runCLI(t, "probe", "--usb", "1d50:6018,2", "--duration", "20ms")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "usb 1d50:6018 endpoint 2 (usb), 1 generation")
	assert.Contains(t, stdout, "bus generation 3")
	assert.Contains(t, stdout, "root: phy 5; hops: 4")

	code, _, stderr = runCLI(t, "probe", "--usb", "1d50:6018")
	assert.Equal(t, exitUsage, code, "endpoint 1 does not exist on the fake")
	assert.Contains(t, stderr, "no such device")

	code, _, stderr = runCLI(t, "probe", "--usb", "1d50")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want VID:PID[,ENDPOINT]")

	code, _, stderr = runCLI(t, "probe", "--usb", "list", "--watch")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--usb does not go with")

	// Without --usb, --duration would be ignored.
	code, _, stderr = runCLI(t, "probe", "--duration", "10s")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim probe: --duration needs --usb: a FireWire probe reads one snapshot (see 'fwsim help probe')\n", stderr)
}

func TestProbeUSBWithoutTheTag(t *testing.T) {
	if _, err := hwtest.OpenUSB(); !errors.Is(err, hwtest.ErrNoUSB) {
		t.Skip("built with -tags gousb")
	}
	code, stdout, stderr := runCLI(t, "probe", "--usb", "list")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim probe: "+hwtest.ErrNoUSB.Error()+"\n", stderr)
}

// --watch runs until Ctrl-C, which ends it as it ends every command.
func TestProbeWatchStopsOnInterrupt(t *testing.T) {
	fakeSystem(t, nil)
	code, stdout, stderr, after := runInterrupted(t, 200*time.Millisecond, strings.NewReader(""), "probe", "--watch")
	assert.Equal(t, exitInterrupted, code, stderr)
	assert.Contains(t, stdout, "generation 7")
	assert.Equal(t, "fwsim probe: interrupted; no output file was written or changed\n", stderr)
	assert.Less(t, after, time.Second)
}
