//go:build !gousb

package hwtest

// OpenUSB fails: USB support needs the gousb build tag (and cgo, libusb).
func OpenUSB() (USB, error) { return nil, ErrNoUSB }
