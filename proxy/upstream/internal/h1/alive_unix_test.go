//go:build unix

package h1

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
)

// waitEnd blocks until every connection tr keeps has something to read
// (the server's end of it), without reading it: the poller's event, not
// a sleep.
func waitEnd(t *testing.T, tr *Transport) {
	t.Helper()
	tr.mu.Lock()
	var cs []net.Conn
	for _, pcs := range tr.idle {
		for _, pc := range pcs {
			cs = append(cs, pc.c)
		}
	}
	tr.mu.Unlock()
	for _, c := range cs {
		rc, err := c.(syscall.Conn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var b [1]byte
		err = rc.Read(func(fd uintptr) bool {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return err != syscall.EAGAIN && err != syscall.EWOULDBLOCK // false: wait until readable
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestH1StaleConnection: a kept connection the upstream closed meanwhile
// costs nothing: it is found dead before the request is written, and the
// request goes out once, on a new one (pconn.alive, unix only).
func TestH1StaleConnection(t *testing.T) {
	var mu sync.Mutex
	var conns []net.Conn
	srv := newCountingServerHook(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}, func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	})
	c := newH1(t)
	for i := range 2 {
		resp, err := post(t, c, context.Background(), srv.URL)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("request %d: %q", i, b)
		}
		// The server drops the connection while it is idle; the
		// client's socket has its end to read before the next request.
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		waitEnd(t, c)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 2 {
		t.Errorf("%d connections, want 2 (the second request on a new one)", len(conns))
	}
}
