package h1

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer is a TCP server that answers with scripted bytes: serve is
// called for each request read, and writes whatever it likes; returning
// false closes the connection. It counts the requests it read, and
// reports each connection the client closed on closed.
type rawServer struct {
	ln       net.Listener
	addr     string
	requests atomic.Int32
	closed   chan struct{}

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, serve func(c net.Conn, n int) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, addr: ln.Addr().String(), closed: make(chan struct{}, 64)}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Go(func() { s.conn(c, serve) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) conn(c net.Conn, serve func(c net.Conn, n int) bool) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				s.closed <- struct{}{}
			}
			return
		}
		io.Copy(io.Discard, req.Body)
		if !serve(c, int(s.requests.Add(1))) {
			return
		}
	}
}

// waitClosed waits until the client has closed a connection.
func (s *rawServer) waitClosed(t *testing.T) {
	t.Helper()
	select {
	case <-s.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not close the connection")
	}
}

// writeAll is a serve function writing answer to every request and
// keeping the connection.
func writeAll(answer string) func(net.Conn, int) bool {
	return func(c net.Conn, _ int) bool {
		_, err := io.WriteString(c, answer)
		return err == nil
	}
}
