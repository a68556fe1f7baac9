//go:build !(linux && (amd64 || arm64))

package hwtest

// OpenDevice fails outside Linux on amd64 and arm64: firewire-cdev is a
// Linux interface, and its struct layouts are pinned for LP64 only.
func OpenDevice(path string) (Device, error) { return nil, ErrNeedsLinux }

// ProbeSupported reports whether this build can open /dev/fw* files.
const ProbeSupported = false
