//go:build unix

// Package rawio reads and writes a socket the way the net package does,
// through its poller, but makes the read and write system calls raw.
//
// Why: every system call Go makes through syscall.Read or Write enters
// the scheduler's syscall state, and the first one after the process was
// idle wakes the runtime's monitor thread, which then polls every 20 µs
// until the process is idle again. A proxy streaming many paced chunks
// goes idle between most of them, so that wake-up and its polling cost
// more CPU than the chunk itself. A read or write of a non-blocking
// socket never waits, so it needs no scheduler hand-off.
//
// The monitor thread also preempts a goroutine that runs on for 10 ms,
// and through a stretch of raw calls it may sleep. Only a stream's own
// reads and writes are raw: it does little per event, and what computes
// at length (a request's parsing, a tool's execution) starts with calls
// made the usual way, which wake the monitor.
//
// It cannot skip the read that answers EAGAIN before each wait, as nginx
// does after a short read: the poller forgets, as a read begins, that the
// socket became readable, so only a read can tell.
package rawio

import (
	"io"
	"net"
	"os"
	"syscall"
)

// Socket is a connection's socket, read and written raw. Its zero value
// is no socket. One Socket is read from one goroutine at a time and
// written from one goroutine at a time, as a net.Conn is, and it is not
// copied once opened.
type Socket struct {
	c   net.Conn
	raw syscall.RawConn

	// The state of the Read and of the Write under way, for the
	// functions the poller calls: those are made once, at the first
	// call, as a closure made per call would be an allocation per chunk.
	rp     []byte
	rn     int
	rerrno syscall.Errno
	rf     func(uintptr) bool
	wp     []byte
	wdone  int
	werrno syscall.Errno
	wf     func(uintptr) bool
}

// Open makes s c's socket and reports true, or reports false when c is
// not one (a TLS connection, a test's pipe): the caller then reads and
// writes c itself. c must be the socket's own connection, not a wrapper
// that reads or writes anything differently.
func (s *Socket) Open(c net.Conn) bool {
	*s = Socket{}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	s.c, s.raw = c, raw
	return true
}

// Valid says s is a socket (Open returned true).
func (s *Socket) Valid() bool { return s.raw != nil }

// Raw is the socket's syscall.RawConn, for a caller that waits on it
// itself and reads with [ReadFD].
func (s *Socket) Raw() syscall.RawConn { return s.raw }

// Read reads into p, as net.Conn's Read does: at least one byte, io.EOF
// at the peer's end, or an error. It waits through the socket's poller,
// so read deadlines and Close end it as they end net.Conn's Read (with
// the same errors: os.ErrDeadlineExceeded, net.ErrClosed, wrapped).
func (s *Socket) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.rf == nil {
		s.rf = s.readOnce
	}
	s.rp, s.rn, s.rerrno = p, 0, 0
	err := s.raw.Read(s.rf)
	n, errno := s.rn, s.rerrno
	s.rp = nil // no view of the caller's buffer while idle
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, s.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readOnce is Read's function for the poller: done unless the socket is
// empty.
func (s *Socket) readOnce(fd uintptr) bool {
	s.rn, s.rerrno = ReadFD(fd, s.rp)
	return s.rerrno != syscall.EAGAIN
}

// ReadFD reads fd, a socket's descriptor inside a function given to its
// RawConn's Read, into p once (again on EINTR). n is 0 with errno 0 at
// the peer's end.
func ReadFD(fd uintptr, p []byte) (n int, errno syscall.Errno) { return once(read, fd, p) }

// PeekFD looks at fd, a socket's descriptor inside a function given to
// its RawConn's Read, without reading and without waiting: n bytes are
// there (p, not empty, shows them), 0 with errno 0 is the peer's end,
// and errno EAGAIN says nothing is there yet.
func PeekFD(fd uintptr, p []byte) (n int, errno syscall.Errno) { return once(peek, fd, p) }

// once makes call, again while a signal interrupts it; n is 0 on an
// error.
func once(call func(uintptr, []byte) (int, syscall.Errno), fd uintptr, p []byte) (n int, errno syscall.Errno) {
	for {
		n, errno = call(fd, p)
		if errno != syscall.EINTR {
			break
		}
	}
	if errno != 0 {
		n = 0
	}
	return n, errno
}

// Write writes all of p, waiting through the socket's poller while its
// send buffer is full, so write deadlines and Close end it as they end
// net.Conn's Write.
func (s *Socket) Write(p []byte) (int, error) {
	if s.wf == nil {
		s.wf = s.writeAll
	}
	s.wp, s.wdone, s.werrno = p, 0, 0
	err := s.raw.Write(s.wf)
	done, errno := s.wdone, s.werrno
	s.wp = nil
	if err != nil {
		return done, err
	}
	if errno != 0 {
		return done, s.opError("write", errno)
	}
	return done, nil
}

// writeAll is Write's function for the poller: done once every byte is
// written or a call failed; not done while the send buffer is full.
func (s *Socket) writeAll(fd uintptr) bool {
	for s.wdone < len(s.wp) {
		n, e := write(fd, s.wp[s.wdone:])
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return false
		case e != 0:
			s.werrno = e
			return true
		}
		s.wdone += n
	}
	return true
}

// opError is the error net.Conn gives for a failed call.
func (s *Socket) opError(op string, errno syscall.Errno) error {
	e := &net.OpError{Op: op, Source: s.c.LocalAddr(), Addr: s.c.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
	if e.Source != nil {
		e.Net = e.Source.Network()
	}
	return e
}
