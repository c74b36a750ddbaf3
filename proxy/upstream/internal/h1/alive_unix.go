//go:build unix

package h1

import (
	"syscall"

	"github.com/toolstream/toolstream/proxy/internal/rawio"
)

// alive reports whether a kept connection can carry a request: the
// server has not closed it, and sent nothing unasked. One non-blocking
// peek at its socket, raw (see rawio); nothing is read. A connection that
// is no socket (TLS) is taken as alive: one the server closed is found
// when a request on it fails, and sent again.
func (pc *pconn) alive() bool {
	s := pc.socket()
	if s == nil {
		return true
	}
	alive := false
	var b [1]byte
	err := s.Raw().Read(func(fd uintptr) bool {
		_, errno := rawio.PeekFD(fd, b[:])
		// Nothing there yet is a live, quiet connection; a closed one
		// reads 0 bytes, and bytes nobody asked for make it unusable.
		alive = errno == syscall.EAGAIN || errno == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && alive
}
