package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/phy"
	"github.com/fwsim/fwsim/view"
)

const probeIntro = `Usage: fwsim probe [--device /dev/fwN] [--reset short|long [--force-root N] [--gap-count N]]
                   [--watch] [--json]
       fwsim probe --usb list | --usb VID:PID[,ENDPOINT] [--duration D] [--json]

Reads the self-IDs of the bus this machine is on and prints what decode
prints. On Linux it opens the local node's /dev/fw* file read-only (no root
needed once a udev rule grants read access; see docs/hardware.md), reads the
bus generation and node IDs, then the TOPOLOGY_MAP, which holds every self-ID
of the last bus reset. It never resets the bus unless --reset asks for it: a reset disturbs
every device on the bus. With --force-root or --gap-count it sends a PHY
configuration packet just before that reset, so that the bus comes up with
the root or gap count an emulation forces too; the text report then says
whether the bus shows them (the Linux bus manager may force others after it).

With --usb it reads self-ID quadlets that a capture device streams over a
USB bulk endpoint (docs/hardware.md describes the stream), or lists the
attached USB devices (--usb list). USB needs a binary built with
'go build -tags gousb' (cgo and libusb-1.0-0-dev).

Exit status: 0 the bus is consistent; 1 it is not; 2 usage error, no device,
or no permission (the message names the udev rule to install).`

// The system the probe reaches; tests replace them with fakes.
var (
	openFWDevice   hwtest.Opener = hwtest.OpenDevice
	fwDeviceDir                  = "/dev"
	fwSysfsDir                   = hwtest.SysfsDevices
	probeSupported               = hwtest.ProbeSupported
	openUSB                      = hwtest.OpenUSB
)

func runProbe(ctx context.Context, e *env, args []string) int {
	fs := newFlags("probe", probeIntro,
		"fwsim probe   # needs a FireWire bus",
		"fwsim probe --device /dev/fw1 --json   # needs a FireWire bus",
		"fwsim probe --reset short   # needs a FireWire bus",
		"fwsim probe --reset short --force-root 2 --gap-count 5   # needs a FireWire bus",
		"fwsim probe --watch   # needs a FireWire bus",
		"fwsim probe --usb list   # needs a build with -tags gousb",
		"fwsim probe --usb 1209:0001,2 --duration 10s   # needs a USB capture device",
	)
	var (
		device, usb          string
		watch, jsonOutput    bool
		duration             = 5 * time.Second
		resetKind            = newChoice("", "short", "long")
		usbVID, usbPID, usbE = uint16(0), uint16(0), 0
		forceRoot, gapCount  int
	)
	fs.StringVar(&device, "device", "", "open `PATH` instead of the first local node's /dev/fw*, e.g. --device /dev/fw1")
	fs.Var(resetKind, "reset", "initiate a bus reset of `KIND` short (arbitrated, 1394a) or long first and read\nthe new generation, e.g. --reset short (default: never reset)")
	fs.IntVar(&forceRoot, "force-root", 0, "with --reset, first send a PHY configuration packet that makes phy_ID `N` the\nroot (0–62: a real bus's nodes have no names, only the phy_IDs its last self-IDs\ngave them, which probe prints), e.g. --reset short --force-root 2")
	fs.IntVar(&gapCount, "gap-count", 0, "with --reset, first send a PHY configuration packet that sets gap count `N`\n(0–63) on every node, e.g. --reset short --gap-count 5")
	fs.BoolVar(&watch, "watch", false, "keep reading: print every new generation after each bus reset until interrupted,\ne.g. --watch")
	fs.BoolVar(&jsonOutput, "json", false, "write JSON instead of the text report (one object per generation), e.g. --json")
	fs.StringVar(&usb, "usb", "", "read a USB capture device `VID:PID[,ENDPOINT]` (hex IDs, bulk IN endpoint,\ndefault 1), or list the attached USB devices with --usb list, e.g. --usb 04b4:8613,2")
	fs.DurationVar(&duration, "duration", duration, "with --usb, read the stream for `D`, e.g. --duration 10s")
	fs.order("device", "reset", "force-root", "gap-count", "watch", "json", "usb", "duration")
	if code, done := fs.parse(e, args); done {
		return code
	}
	config, err := probePhyConfig(fs, resetKind.value != "", forceRoot, gapCount)
	if err != nil {
		return fs.usageError(e, "%v", err)
	}
	if fs.isSet("duration") && usb == "" {
		return fs.usageError(e, "--duration needs --usb: a FireWire probe reads one snapshot")
	}
	if usb != "" {
		if device != "" || resetKind.value != "" || watch {
			return fs.usageError(e, "--usb does not go with --device, --reset or --watch")
		}
		if duration <= 0 {
			return fs.usageError(e, "--duration must be positive")
		}
		if usb != "list" {
			var err error
			if usbVID, usbPID, usbE, err = hwtest.ParseUSBTarget(usb); err != nil {
				return fs.usageError(e, "--usb: %v", err)
			}
		}
		return probeUSB(ctx, e, fs, usb == "list", usbVID, usbPID, usbE, duration, jsonOutput)
	}
	if !probeSupported {
		return fs.inputError(e, hwtest.ErrNeedsLinux)
	}
	p, err := openProbe(device)
	if err != nil {
		return fs.inputError(e, err)
	}
	defer p.Close()
	if config != nil {
		if err := p.SendPhyConfig(*config); err != nil {
			return fs.inputError(e, err)
		}
	}
	if resetKind.value != "" {
		if err := p.Reset(resetKind.value == "short"); err != nil {
			return fs.inputError(e, err)
		}
	}
	code := exitOK
	show := func(s *hwtest.Snapshot) error {
		b := hwtest.Decode(s.Generation)
		if !b.Consistent() {
			code = exitFailure
		}
		if jsonOutput {
			return jsonout.Write(e.stdout, hwtest.NewProbeJSON(s, b))
		}
		// The packet was for the first generation read: later ones are
		// other resets'.
		view.WriteSnapshotText(e.stdout, s, b, config)
		config = nil
		return nil
	}
	if watch {
		err = p.Watch(ctx, show) // until Ctrl-C: exit 130, as every command
	} else {
		var s *hwtest.Snapshot
		if s, err = p.Read(); err == nil {
			err = show(s)
		}
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	if code != exitOK {
		fmt.Fprintln(e.stderr, "fwsim probe: the bus is inconsistent (see problems)")
	}
	return code
}

// probePhyConfig is the PHY configuration packet --force-root and
// --gap-count ask for, nil when neither does. The packet takes effect at
// the next bus reset, so it needs --reset.
func probePhyConfig(fs *flags, reset bool, forceRoot, gapCount int) (*phy.PhyConfig, error) {
	root, gap := fs.isSet("force-root"), fs.isSet("gap-count")
	switch {
	case !root && !gap:
		return nil, nil
	case !reset:
		return nil, errors.New("--force-root and --gap-count need --reset: a PHY configuration packet takes effect at the next bus reset")
	case root && (forceRoot < 0 || forceRoot > 62):
		return nil, fmt.Errorf("--force-root %d: want a phy_ID from 0 to 62 (63 is no node's)", forceRoot)
	case gap && (gapCount < 0 || gapCount > 63):
		return nil, fmt.Errorf("--gap-count %d: want 0 to 63, what the packet's 6 bits hold", gapCount)
	}
	c, err := phy.NewPhyConfig(max(forceRoot, 0), root, gap, max(gapCount, 0))
	return &c, err
}

// openProbe opens device, or the first local node's device file.
func openProbe(device string) (*hwtest.Probe, error) {
	if device != "" {
		return hwtest.Open(openFWDevice, device)
	}
	return hwtest.OpenLocal(openFWDevice, hwtest.DevicePaths(fwDeviceDir, fwSysfsDir))
}

// probeCapture reads the bus now as a one-generation capture.
func probeCapture(device string) (*hwtest.Capture, error) {
	if !probeSupported {
		return nil, hwtest.ErrNeedsLinux
	}
	p, err := openProbe(device)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	s, err := p.Read()
	if err != nil {
		return nil, err
	}
	return hwtest.NewCapture(s.Path, "probe", []hwtest.Generation{s.Generation}), nil
}

// probeUSB lists USB devices or reads a capture device's stream.
func probeUSB(ctx context.Context, e *env, fs *flags, list bool, vid, pid uint16, ep int, d time.Duration, jsonOutput bool) int {
	host, err := openUSB()
	if err != nil {
		return fs.inputError(e, err)
	}
	defer host.Close()
	if list {
		devs, err := host.List()
		if err != nil {
			return fs.inputError(e, err)
		}
		if jsonOutput {
			if err := jsonout.Write(e.stdout, hwtest.NewUSBListJSON(devs)); err != nil {
				return fs.inputError(e, err)
			}
		} else {
			view.WriteUSBListText(e.stdout, devs)
		}
		return exitOK
	}
	stream, err := host.Open(vid, pid, ep)
	if err != nil {
		return fs.inputError(e, err)
	}
	defer stream.Close()
	gens, err := hwtest.ReadUSBCapture(ctx, stream, d)
	if err != nil {
		return fs.inputError(e, fmt.Errorf("USB %04x:%04x endpoint %d: %w", vid, pid, ep, err))
	}
	c := hwtest.NewCapture(fmt.Sprintf("usb %04x:%04x endpoint %d", vid, pid, ep), "usb", gens)
	return reportCapture(e, fs, c, jsonOutput)
}
