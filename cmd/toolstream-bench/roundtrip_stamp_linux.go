package main

import (
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// stampConn reads a TCP connection with recvmsg, asking the kernel for
// the time each read's bytes arrived (SO_TIMESTAMPNS).
type stampConn struct {
	*net.TCPConn
	raw syscall.RawConn
	a   arrivals
	oob []byte
}

// stampOn asks the kernel to stamp what ln's connections receive from
// the start: the flag is inherited by each accepted socket, and while
// the listener has it the kernel stamps every packet it takes in, so a
// request that arrived before its connection was accepted is stamped
// too.
func stampOn(ln net.Listener) {
	if tl, ok := ln.(*net.TCPListener); ok {
		if raw, err := tl.SyscallConn(); err == nil {
			raw.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1) })
		}
	}
}

// newStampConn stamps c's reads, or leaves c as it is when the kernel
// will not.
func newStampConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	return &stampConn{TCPConn: tc, raw: raw, oob: make([]byte, syscall.CmsgSpace(int(unsafe.Sizeof(syscall.Timespec{}))))}
}

func (c *stampConn) arrivals() *arrivals { return &c.a }

// Read reads as the connection would, through the runtime's poller, and
// notes the kernel's stamp of what it read.
func (c *stampConn) Read(p []byte) (int, error) {
	var n, oobn int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, c.oob, 0)
		return rerr != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: rerr}
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	if at, ok := kernelStamp(c.oob[:oobn]); ok {
		c.a.saw(at)
	}
	return n, nil
}

// kernelStamp is the SCM_TIMESTAMPNS of a recvmsg's control data.
func kernelStamp(oob []byte) (time.Time, bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&m.Data[0]))
			return time.Unix(ts.Sec, ts.Nsec), true
		}
	}
	return time.Time{}, false
}
