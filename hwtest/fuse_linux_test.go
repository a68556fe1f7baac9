//go:build linux && (amd64 || arm64)

package hwtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cdevFUSE is a file served through the kernel's FUSE driver that answers
// the firewire-cdev ioctls and events the probe uses as
// drivers/firewire/core-cdev.c does, with a FakeDevice as the bus behind it.
// The probe's Linux file (OpenDevice) opens it, makes its ioctls and reads
// its events through the real kernel: the kernel, not the probe, decides
// from each command's _IOC size and direction bits how many bytes of the
// argument struct to copy in and out, and the server decodes them at the
// offsets of include/uapi/linux/firewire-cdev.h, written out here
// independently of the probe's mirrors.
//
// What this covers: the ioctl numbers (size and direction included), every
// field the probe puts in GET_INFO, SEND_REQUEST, INITIATE_BUS_RESET and
// SEND_PHY_PACKET, GET_SPEED's return value, the open mode, poll(2) and read(2) of events. A
// FUSE ioctl on a regular file is restricted: the server sees the struct's
// bytes, not the caller's memory. The bus reset struct that GET_INFO writes
// through its bus_reset pointer is therefore written into the calling
// process with process_vm_writev, which fails like copy_to_user on a bad
// pointer; the pointer's lifetime (the runtime.Pinner) is not tested, since
// Go's collector does not move heap memory. SEND_REQUEST's payload pointer
// is not followed: the probe sends only reads, which have no payload, and
// the server refuses a non-zero one (the kernel would copy length bytes from
// it). What is not covered is the kernel's firewire stack itself (the bus,
// the controller, the 2 s reset grace period): the FakeDevice models it.
type cdevFUSE struct {
	dev  *os.File // /dev/fuse, non-blocking so that Close ends serve
	done chan struct{}

	mu sync.Mutex
	// bus is the fake behind the file; lock mu to look at it.
	bus *FakeDevice
	// held is an event that poll found and no read has taken yet.
	held []byte
	// opens are the flags of each open(2); complaints what the server
	// refused, for the test to fail on.
	opens      []uint32
	complaints []string
}

// The FUSE protocol (include/uapi/linux/fuse.h), as far as this server
// speaks it.
const (
	fuseLookup      = 1
	fuseForget      = 2
	fuseGetattr     = 3
	fuseOpen        = 14
	fuseRead        = 15
	fuseRelease     = 18
	fuseFlush       = 25
	fuseInit        = 26
	fuseInterrupt   = 36
	fuseDestroy     = 38
	fuseIoctl       = 39
	fusePoll        = 40
	fuseBatchForget = 42

	fuseInHeader  = 40
	fuseOutHeader = 16
	fuseRootID    = 1
	fuseFileID    = 2
	// fuseDirectIO makes each read(2) one FUSE_READ answered with one
	// event, as the kernel answers a read of /dev/fw*; fuseNonseekable
	// leaves offsets out.
	fuseDirectIO    = 1 << 0
	fuseNonseekable = 1 << 2
)

// The ioctls as firewire-cdev.h declares them (ioc: dir 1 _IOW, 3 _IOWR,
// 0 _IO), and the ABI version the kernel reports.
var (
	fuseGetInfo       = uint32(ioc(3, '#', 0x00, 40)) // struct fw_cdev_get_info
	fuseSendRequest   = uint32(ioc(1, '#', 0x01, 40)) // struct fw_cdev_send_request
	fuseBusReset      = uint32(ioc(1, '#', 0x05, 4))  // struct fw_cdev_initiate_bus_reset
	fuseGetSpeed      = uint32(ioc(0, '#', 0x11, 0))
	fuseSendPhyPacket = uint32(ioc(3, '#', 0x15, 24)) // struct fw_cdev_send_phy_packet
	fuseKernelVersion = uint32(6)                     // FW_CDEV_KERNEL_VERSION of Linux 6.3 on
)

// mountCdev mounts a FUSE file system holding one file, fw0, served from
// bus, and returns the server and the file's path. The test is skipped
// where FUSE cannot be mounted.
func mountCdev(t *testing.T, bus *FakeDevice) (*cdevFUSE, string) {
	t.Helper()
	scratch := make([]byte, 4)
	if err := writeCaller(uint32(unix.Gettid()), uint64(uintptr(unsafe.Pointer(&scratch[0]))), []byte{1, 2, 3, 4}); err != nil {
		t.Skipf("the probe's ioctls are not tested through the kernel: process_vm_writev, which stands for the kernel's copy to the caller: %v", err)
	}
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("the probe's ioctls are not tested through the kernel: /dev/fuse: %v", err)
	}
	dir := t.TempDir()
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=%d,group_id=%d", fd, os.Getuid(), os.Getgid())
	if err := unix.Mount("fwsim-test", dir, "fuse", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		unix.Close(fd)
		t.Skipf("the probe's ioctls are not tested through the kernel: mounting FUSE needs CAP_SYS_ADMIN: %v", err)
	}
	// Only now, mounted, does /dev/fuse poll without an error, which the
	// runtime's poller would keep.
	s := &cdevFUSE{dev: os.NewFile(uintptr(fd), "/dev/fuse"), done: make(chan struct{}), bus: bus}
	go s.serve()
	t.Cleanup(func() {
		// Unmounted first, the kernel aborts the connection once the last
		// file is closed; closing /dev/fuse aborts it in any case, so that
		// nothing waits for a server that is gone.
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
		s.dev.Close()
		<-s.done
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.complaints {
			t.Errorf("firewire-cdev over FUSE: %s", c)
		}
	})
	return s, filepath.Join(dir, "fw0")
}

// with runs fn on the fake bus, which the server changes as it serves.
func (s *cdevFUSE) with(fn func(bus *FakeDevice)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.bus)
}

// serve answers the kernel's requests until /dev/fuse is closed or the
// file system is gone.
func (s *cdevFUSE) serve() {
	defer close(s.done)
	// Closing /dev/fuse aborts the connection: a server that stops for
	// any reason leaves no caller waiting for an answer.
	defer s.dev.Close()
	buf := make([]byte, 1<<20)
	for {
		n, err := s.dev.Read(buf)
		if err != nil {
			return
		}
		if n < fuseInHeader {
			s.complain("a request of %d bytes", n)
			continue
		}
		s.mu.Lock()
		reply, errno, answer := s.handle(buf[:n])
		s.mu.Unlock()
		if !answer {
			continue
		}
		out := make([]byte, fuseOutHeader, fuseOutHeader+len(reply))
		binary.NativeEndian.PutUint32(out[0:], uint32(fuseOutHeader+len(reply)))
		binary.NativeEndian.PutUint32(out[4:], uint32(-int32(errno)))
		binary.NativeEndian.PutUint64(out[8:], binary.NativeEndian.Uint64(buf[8:])) // unique
		if errno == 0 {
			out = append(out, reply...)
		}
		// ENOENT: the request was interrupted meanwhile.
		if _, err := s.dev.Write(out); err != nil && !errors.Is(err, syscall.ENOENT) {
			return
		}
	}
}

// complain records what the server refused; mu is held.
func (s *cdevFUSE) complain(format string, args ...any) {
	s.complaints = append(s.complaints, fmt.Sprintf(format, args...))
}

// handle answers one request: the reply's payload or an errno, and whether
// the kernel waits for an answer at all. mu is held.
func (s *cdevFUSE) handle(req []byte) (reply []byte, errno syscall.Errno, answer bool) {
	ne := binary.NativeEndian
	op, node, pid := ne.Uint32(req[4:]), ne.Uint64(req[16:]), ne.Uint32(req[32:])
	in := req[fuseInHeader:]
	switch op {
	case fuseInit:
		out := make([]byte, 64) // struct fuse_init_out
		ne.PutUint32(out[0:], 7)
		ne.PutUint32(out[4:], min(ne.Uint32(in[4:]), 31))
		ne.PutUint32(out[8:], ne.Uint32(in[8:])) // max_readahead
		ne.PutUint16(out[16:], 16)               // max_background
		ne.PutUint16(out[18:], 12)               // congestion_threshold
		ne.PutUint32(out[20:], 1<<16)            // max_write
		ne.PutUint32(out[24:], 1)                // time_gran
		return out, 0, true
	case fuseLookup:
		if node != fuseRootID || string(bytes.TrimRight(in, "\x00")) != "fw0" {
			return nil, syscall.ENOENT, true
		}
		out := make([]byte, 40, 128) // struct fuse_entry_out
		ne.PutUint64(out[0:], fuseFileID)
		return append(out, fuseAttr(fuseFileID)...), 0, true
	case fuseGetattr:
		out := make([]byte, 16, 104) // struct fuse_attr_out
		return append(out, fuseAttr(node)...), 0, true
	case fuseOpen:
		s.opens = append(s.opens, ne.Uint32(in[0:]))
		out := make([]byte, 16) // struct fuse_open_out
		ne.PutUint32(out[8:], fuseDirectIO|fuseNonseekable)
		return out, 0, true
	case fuseRead:
		e := s.event()
		if e == nil {
			// The kernel would block; the probe polls first, so a read
			// without an event is its error.
			s.complain("read(2) without an event queued")
			return nil, syscall.EAGAIN, true
		}
		s.held = nil
		return e[:min(len(e), int(ne.Uint32(in[16:])))], 0, true // the kernel truncates too
	case fusePoll:
		out := make([]byte, 8) // struct fuse_poll_out
		if s.event() != nil {
			ne.PutUint32(out[0:], unix.POLLIN)
		}
		return out, 0, true
	case fuseIoctl:
		return s.ioctl(pid, in)
	case fuseRelease, fuseFlush, fuseDestroy:
		return nil, 0, true
	case fuseForget, fuseBatchForget, fuseInterrupt:
		return nil, 0, false
	}
	return nil, syscall.ENOSYS, true
}

// fuseAttr is the struct fuse_attr of the root directory or of fw0.
func fuseAttr(node uint64) []byte {
	ne := binary.NativeEndian
	a := make([]byte, 88)
	ne.PutUint64(a[0:], node)
	mode, links := uint32(syscall.S_IFREG|0o600), uint32(1)
	if node == fuseRootID {
		mode, links = syscall.S_IFDIR|0o755, 2
	}
	ne.PutUint32(a[60:], mode)
	ne.PutUint32(a[64:], links)
	ne.PutUint32(a[68:], uint32(os.Getuid()))
	ne.PutUint32(a[72:], uint32(os.Getgid()))
	return a
}

// event is the next event, without taking it; nil when none is queued.
// mu is held.
func (s *cdevFUSE) event() []byte {
	if s.held == nil {
		buf := make([]byte, eventBufferSize)
		if n, err := s.bus.ReadEvent(buf, 0); err == nil {
			s.held = buf[:n]
		}
	}
	return s.held
}

// ioctl answers FUSE_IOCTL: struct fuse_ioctl_in, then the argument struct
// as the kernel copied it in. mu is held.
func (s *cdevFUSE) ioctl(pid uint32, in []byte) ([]byte, syscall.Errno, bool) {
	ne := binary.NativeEndian
	cmd, inSize, outSize := ne.Uint32(in[12:]), ne.Uint32(in[24:]), ne.Uint32(in[28:])
	arg := in[32:]
	// _IOC_WRITE (bit 30) copies the struct in, _IOC_READ (bit 31) out.
	size, wantIn, wantOut := cmd>>16&0x3fff, uint32(0), uint32(0)
	if cmd&(1<<30) != 0 {
		wantIn = size
	}
	if cmd&(1<<31) != 0 {
		wantOut = size
	}
	if uint32(len(arg)) != inSize || inSize != wantIn || outSize != wantOut {
		s.complain("ioctl %#x: %d bytes in, %d out", cmd, inSize, outSize)
		return nil, syscall.EINVAL, true
	}
	var (
		out    []byte // struct fuse_ioctl_out, then the struct copied out
		result int32
		err    error
	)
	switch cmd {
	case fuseGetInfo:
		// struct fw_cdev_get_info: version@0, rom_length@4, rom@8,
		// bus_reset@16, bus_reset_closure@24, card@32.
		if ne.Uint64(arg[8:]) != 0 {
			s.complain("GET_INFO asks for the configuration ROM, which the server does not model")
			return nil, syscall.EINVAL, true
		}
		event := make([]byte, 36) // the kernel copies the unpadded struct
		if err = s.bus.GetInfo(ne.Uint32(arg[0:]), ne.Uint64(arg[24:]), event); err == nil {
			if ptr := ne.Uint64(arg[16:]); ptr != 0 {
				err = writeCaller(pid, ptr, event)
			}
		}
		ne.PutUint32(arg[0:], fuseKernelVersion)
		ne.PutUint32(arg[4:], 0) // rom_length: the fake node has no ROM
		ne.PutUint32(arg[32:], 0)
		out = arg
	case fuseSendRequest:
		// struct fw_cdev_send_request: tcode@0, length@4, offset@8,
		// closure@16, data@24, generation@32.
		if ne.Uint64(arg[24:]) != 0 {
			s.complain("SEND_REQUEST with a payload pointer: the probe's reads have no payload")
			return nil, syscall.EINVAL, true
		}
		err = s.bus.SendRequest(ne.Uint32(arg[0:]), ne.Uint32(arg[4:]), ne.Uint64(arg[8:]), ne.Uint64(arg[16:]), ne.Uint32(arg[32:]))
	case fuseBusReset:
		err = s.bus.InitiateBusReset(ne.Uint32(arg[0:]))
	case fuseSendPhyPacket:
		// struct fw_cdev_send_phy_packet: closure@0, data[2]@8,
		// generation@16; copied back unchanged.
		err = s.bus.SendPhyPacket(ne.Uint64(arg[0:]), [2]uint32{ne.Uint32(arg[8:]), ne.Uint32(arg[12:])}, ne.Uint32(arg[16:]))
		out = arg
	case fuseGetSpeed:
		var speed uint32
		speed, err = s.bus.Speed()
		result = int32(speed)
	default:
		s.complain("ioctl %#x, not one of the probe's", cmd)
		return nil, syscall.ENOTTY, true
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return nil, errno, true
	}
	if err != nil {
		s.complain("ioctl %#x: %v", cmd, err)
		return nil, syscall.EINVAL, true
	}
	reply := make([]byte, 16, 16+len(out))
	binary.NativeEndian.PutUint32(reply[0:], uint32(result))
	return append(reply, out...), 0, true
}

// writeCaller writes b at address ptr of the calling process, as the
// kernel's copy_to_user does: EFAULT where the caller has no such memory.
func writeCaller(pid uint32, ptr uint64, b []byte) error {
	local := []unix.Iovec{{Base: unsafe.SliceData(b)}}
	local[0].SetLen(len(b))
	n, err := unix.ProcessVMWritev(int(pid), local, []unix.RemoteIovec{{Base: uintptr(ptr), Len: len(b)}}, 0)
	if err == nil && n != len(b) {
		err = syscall.EFAULT
	}
	return err
}
