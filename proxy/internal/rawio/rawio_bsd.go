//go:build unix && !linux

package rawio

import "syscall"

// Enabled says Open finds sockets here; on Unix other than Linux
// they make their calls as the syscall package does.
const Enabled = true

func read(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return fixup(n, err)
}

func write(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return fixup(n, err)
}

func fixup(n int, err error) (int, syscall.Errno) {
	if err != nil {
		e, _ := err.(syscall.Errno)
		return 0, e
	}
	return n, 0
}

func peek(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, err := syscall.Recvfrom(int(fd), p, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return fixup(n, err)
}
