//go:build unix

package rawio

import "syscall"

// The calls as the syscall package makes them: through the scheduler's
// syscall state, and with what they tell the race detector.

func stdRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return fixup(n, err)
}

func stdWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return fixup(n, err)
}

func stdPeek(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, err := syscall.Recvfrom(int(fd), p, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return fixup(n, err)
}

func fixup(n int, err error) (int, syscall.Errno) {
	if err != nil {
		e, _ := err.(syscall.Errno)
		return 0, e
	}
	return n, 0
}
