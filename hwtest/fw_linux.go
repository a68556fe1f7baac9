//go:build linux && (amd64 || arm64)

package hwtest

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cdevFile is a /dev/fw* file opened through golang.org/x/sys/unix.
type cdevFile struct{ fd int }

// OpenDevice opens a firewire-cdev device file read-only: the kernel checks
// no access mode for the ioctls, so read access is all the probe needs.
func OpenDevice(path string) (Device, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &cdevFile{fd: fd}, nil
}

// ioctl passes arg, a pointer to an argument struct, to the kernel.
func (f *cdevFile) ioctl(req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(f.fd), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

func (f *cdevFile) GetInfo(version uint32, closure uint64, busReset []byte) error {
	// The kernel writes through the BusReset pointer during the call: pin
	// the buffer so that it neither moves nor dies before the call ends.
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&busReset[0])
	arg := cdevGetInfo{
		Version:         version,
		BusReset:        uint64(uintptr(unsafe.Pointer(&busReset[0]))),
		BusResetClosure: closure,
	}
	return f.ioctl(iocGetInfo, unsafe.Pointer(&arg))
}

func (f *cdevFile) SendRequest(tcode, length uint32, offset, closure uint64, generation uint32) error {
	// A read request has no payload: Data stays 0.
	arg := cdevSendRequest{Tcode: tcode, Length: length, Offset: offset, Closure: closure, Generation: generation}
	return f.ioctl(iocSendRequest, unsafe.Pointer(&arg))
}

func (f *cdevFile) SendPhyPacket(closure uint64, data [2]uint32, generation uint32) error {
	arg := cdevSendPhyPacket{Closure: closure, Data: data, Generation: generation}
	return f.ioctl(iocSendPhyPacket, unsafe.Pointer(&arg))
}

func (f *cdevFile) Speed() (uint32, error) {
	speed, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(f.fd), iocGetSpeed, 0)
	if errno != 0 {
		return 0, errno
	}
	return uint32(speed), nil
}

func (f *cdevFile) InitiateBusReset(typ uint32) error {
	arg := cdevInitiateBusReset{Type: typ}
	return f.ioctl(iocInitiateBusReset, unsafe.Pointer(&arg))
}

func (f *cdevFile) ReadEvent(buf []byte, timeout time.Duration) (int, error) {
	fds := []unix.PollFd{{Fd: int32(f.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(timeout.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, ErrNoEvent
		}
		return unix.Read(f.fd, buf)
	}
}

func (f *cdevFile) Close() error { return unix.Close(f.fd) }

// ProbeSupported reports whether this build can open /dev/fw* files.
const ProbeSupported = true
