//go:build !unix

// Package rawio reads and writes a socket through its poller with raw
// system calls. It is built for Unix only: here Open finds no socket.
package rawio

import (
	"net"
	"syscall"
)

// Socket is no socket here.
type Socket struct{}

// Open reports false here: callers read and write c themselves.
func (s *Socket) Open(c net.Conn) bool { return false }

// Valid is false here.
func (s *Socket) Valid() bool { return false }

// Raw is nil here.
func (s *Socket) Raw() syscall.RawConn { return nil }

// Read is never called here: Open found no socket.
func (s *Socket) Read(p []byte) (int, error) { panic("rawio: no socket") }

// Write is never called here: Open found no socket.
func (s *Socket) Write(p []byte) (int, error) { panic("rawio: no socket") }
