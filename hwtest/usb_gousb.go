//go:build gousb

package hwtest

import (
	"context"
	"fmt"

	"github.com/google/gousb"
)

// gousbHost is the USB stack through libusb.
type gousbHost struct{ ctx *gousb.Context }

// OpenUSB opens the host's USB stack through libusb.
func OpenUSB() (USB, error) { return &gousbHost{ctx: gousb.NewContext()}, nil }

func (h *gousbHost) List() ([]USBDeviceInfo, error) {
	var out []USBDeviceInfo
	// Returning false opens nothing: the descriptors are enough.
	_, err := h.ctx.OpenDevices(func(d *gousb.DeviceDesc) bool {
		out = append(out, USBDeviceInfo{Bus: d.Bus, Address: d.Address, VID: uint16(d.Vendor), PID: uint16(d.Product), Class: d.Class.String()})
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("listing USB devices: %w", err)
	}
	return out, nil
}

func (h *gousbHost) Open(vid, pid uint16, ep int) (USBStream, error) {
	dev, err := h.ctx.OpenDeviceWithVIDPID(gousb.ID(vid), gousb.ID(pid))
	if err != nil {
		return nil, fmt.Errorf("opening USB device %04x:%04x: %w", vid, pid, err)
	}
	if dev == nil {
		return nil, fmt.Errorf("no USB device %04x:%04x is attached (fwsim probe --usb list shows what is)", vid, pid)
	}
	if err := dev.SetAutoDetach(true); err != nil {
		dev.Close()
		return nil, fmt.Errorf("USB device %04x:%04x: %w", vid, pid, err)
	}
	intf, done, err := dev.DefaultInterface()
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("USB device %04x:%04x: claiming its interface: %w", vid, pid, err)
	}
	in, err := intf.InEndpoint(ep)
	if err != nil {
		done()
		dev.Close()
		return nil, fmt.Errorf("USB device %04x:%04x: bulk IN endpoint %d: %w", vid, pid, ep, err)
	}
	return &gousbStream{dev: dev, done: done, in: in}, nil
}

func (h *gousbHost) Close() error { return h.ctx.Close() }

// gousbStream is an open bulk IN endpoint.
type gousbStream struct {
	dev  *gousb.Device
	done func()
	in   *gousb.InEndpoint
}

func (s *gousbStream) Read(ctx context.Context, buf []byte) (int, error) {
	return s.in.ReadContext(ctx, buf)
}

func (s *gousbStream) Close() error {
	s.done()
	return s.dev.Close()
}
