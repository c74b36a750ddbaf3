//go:build unix

package h1

import (
	"net"
	"syscall"
)

// connAlive reports whether a kept connection can carry a request: the
// server has not closed it, and sent nothing unasked. One non-blocking
// peek at its socket; nothing is read.
func connAlive(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing there yet is a live, quiet connection; a closed one
		// reads 0 bytes, and bytes nobody asked for make it unusable.
		alive = n < 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true
	})
	return err == nil && alive
}
