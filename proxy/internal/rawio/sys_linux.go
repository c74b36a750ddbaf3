//go:build linux

package rawio

import (
	"syscall"
	"unsafe"
)

// Under the race detector the calls are the syscall package's: they tell
// it that what one goroutine wrote to a socket happens before another
// reads it, which a raw call cannot, and a test that talks to the proxy
// through a socket would be reported as racing. forceRaw makes them raw
// anyway, for this package's own tests of the raw calls.
var forceRaw bool

func read(fd uintptr, p []byte) (int, syscall.Errno) {
	if raceEnabled && !forceRaw {
		return stdRead(fd, p)
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(bufPtr(p)), uintptr(len(p)))
	return int(n), e
}

func write(fd uintptr, p []byte) (int, syscall.Errno) {
	if raceEnabled && !forceRaw {
		return stdWrite(fd, p)
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(bufPtr(p)), uintptr(len(p)))
	return int(n), e
}

func peek(fd uintptr, p []byte) (int, syscall.Errno) {
	if raceEnabled && !forceRaw {
		return stdPeek(fd, p)
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(bufPtr(p)), uintptr(len(p)), syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return int(n), e
}

// bufPtr is where p's bytes are, or nil for none.
func bufPtr(p []byte) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Pointer(&p[0])
}
