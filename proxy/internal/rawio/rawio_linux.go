//go:build linux

package rawio

import (
	"syscall"
	"unsafe"
)

// Enabled says Open finds sockets here.
const Enabled = true

// read and write are the calls themselves, made without entersyscall: a
// non-blocking socket's read or write never waits, so the scheduler has
// nothing to hand over while it runs.
func read(fd uintptr, p []byte) (int, syscall.Errno) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(ptr), uintptr(len(p)))
	return int(n), e
}

func write(fd uintptr, p []byte) (int, syscall.Errno) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(ptr), uintptr(len(p)))
	return int(n), e
}

func peek(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return int(n), e
}
