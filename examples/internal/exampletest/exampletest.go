// Package exampletest holds what the examples' tests share: a free
// loopback port to start a process on, and a buffer a process writes
// while the test reads it.
package exampletest

import (
	"bytes"
	"net"
	"sync"
	"testing"
)

// FreeAddr returns a loopback address no one listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// SyncBuffer is a bytes.Buffer another goroutine or process writes while
// the test may read it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
