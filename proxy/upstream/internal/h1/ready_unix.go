//go:build unix

package h1

import "syscall"

// Ready returns once a Read of the body would not wait for the
// connection: bytes are there, or the body's end, an error, or an
// Interrupt — the Read after it says which. The caller holds no buffer
// meanwhile: a stream waits for its upstream for most of its life, and
// its event reader's buffer goes back to a pool while it does
// (sse.Reader.WaitWith).
//
// It reads as the Read it stands in for would, first, and waits only when
// the socket has nothing: the bytes it reads go into a pooled buffer,
// which the next Read empties, and no read more is made than without it.
// A connection that is no socket (a test's pipe) is not waited for here.
func (b *Body) Ready() {
	r := &b.r
	if len(r.pending) > 0 || r.end || r.err != nil {
		return
	}
	pc := b.pc
	if pc.raw == nil {
		sc, ok := pc.c.(syscall.Conn)
		if !ok {
			return
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			return
		}
		pc.raw = raw
	}
	if b.readAhead == nil {
		b.readAhead = b.readSocket
	}
	pc.raw.Read(b.readAhead) // an error, the Read that follows meets too
}

// readSocket is Ready's read of the socket: true when it read bytes, now
// pending, or met the socket's end or an error, which it leaves to the
// Read after; false, to wait for the socket, when nothing is there.
func (b *Body) readSocket(fd uintptr) bool {
	a := aheads.Get().(*[aheadBuf]byte)
	n, err := syscall.Read(int(fd), a[:])
	if n > 0 {
		b.r.ahead, b.r.pending = a, a[:n]
		return true
	}
	aheads.Put(a)
	return err != syscall.EAGAIN
}
