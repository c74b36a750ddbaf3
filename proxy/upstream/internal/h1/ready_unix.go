//go:build unix

package h1

import (
	"syscall"

	"github.com/toolstream/toolstream/proxy/internal/rawio"
)

// socket is pc's socket, read raw, or nil when pc's connection is none.
func (pc *pconn) socket() *rawio.Socket {
	if !pc.looked {
		pc.sock.Open(pc.c)
		pc.looked = true
	}
	if !pc.sock.Valid() {
		return nil
	}
	return &pc.sock
}

// read is a body's read of the connection: raw when it is a socket, so
// that a paced stream's reads do not enter the scheduler's syscall state
// (see rawio).
func (pc *pconn) read(p []byte) (int, error) {
	if s := pc.socket(); s != nil {
		return s.Read(p)
	}
	return pc.c.Read(p)
}

// Ready reads the connection into p as the body's next Read would, but
// when nothing is there it calls park and waits for the socket without
// p: a stream waits for its upstream for most of its life, and its event
// reader gives its buffer back while it does (sse.Reader.WaitWith). It
// returns once a Read would not wait: with the bytes it read pending for
// that Read (which must be given p, or a copy of what p holds), or after
// park, when the socket has something, or the body's end, an error or an
// Interrupt is there — the Read says which.
//
// It reads first, as Go's own Read does, and no read is made more than
// without it. A connection that is no socket (a test's pipe) is not waited for
// here: Ready returns at once.
func (b *Body) Ready(p []byte, park func()) {
	r := &b.r
	if len(r.pending) > 0 || r.end || r.err != nil || len(p) == 0 {
		return
	}
	s := b.pc.socket()
	if s == nil {
		return
	}
	if b.readSocket == nil {
		b.readSocket = b.tryRead
	}
	b.p, b.park, b.parked = p, park, false
	s.Raw().Read(b.readSocket) // an error, the Read that follows meets too
	b.p, b.park = nil, nil
}

// tryRead is Ready's read of the socket: true when it read bytes, now
// pending, or met the socket's end or an error, which it leaves to the
// Read after; false, to wait for the socket, when nothing is there — once:
// after the wait it reads nothing, and the Read after does.
func (b *Body) tryRead(fd uintptr) bool {
	if b.parked {
		return true
	}
	n, errno := rawio.ReadFD(fd, b.p)
	if n > 0 {
		b.r.pending = b.p[:n]
		return true
	}
	if errno != syscall.EAGAIN {
		return true
	}
	b.parked = true
	b.park()
	return false
}
