package handback

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func listen(t *testing.T, idle time.Duration) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, idle)
	t.Cleanup(func() { l.Close() })
	return l
}

// connect dials l and accepts the connection: the client's end and the
// server's, both closed when the test ends.
func connect(t *testing.T, l *Listener) (client, server net.Conn) {
	t.Helper()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err = l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return client, server
}

// TestAcceptBoth: Accept returns new connections and given-back ones
// alike, and a given-back connection reads the byte it was given first.
func TestAcceptBoth(t *testing.T) {
	l := listen(t, time.Minute)
	client, server := connect(t, l)
	io.WriteString(client, "xyz")
	var one [1]byte
	if _, err := io.ReadFull(server, one[:]); err != nil || one[0] != 'x' {
		t.Fatalf("read %q, %v", one, err)
	}
	given := make(chan bool, 1)
	go func() { given <- l.Give(WithByte(server, one[0])) }()
	back, err := l.Accept()
	if err != nil || !<-given {
		t.Fatalf("the given-back connection was not accepted: %v", err)
	}
	got := make([]byte, 3)
	if _, err := io.ReadFull(back, got); err != nil || string(got) != "xyz" {
		t.Fatalf("given back, the connection reads %q (%v), want the byte read before it first", got, err)
	}
	if WithByte(back, 'a') != back {
		t.Error("a connection given back twice is wrapped twice")
	}
	if u, ok := back.(interface{ NetConn() net.Conn }); !ok || u.NetConn() != server {
		t.Error("the wrapper does not name the connection it wraps")
	}
}

// TestClose: Close ends a waiting Accept, refuses connections given back
// later, and ends the wait of those noted as waiting for their next
// request.
func TestClose(t *testing.T) {
	l := listen(t, time.Minute)
	_, server := connect(t, l)
	l.Waiting(server)
	read := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := server.Read(b[:])
		read <- err
	}()
	accepted := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		accepted <- err
	}()
	l.Close()
	if err := <-accepted; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v", err)
	}
	var ne net.Error
	if err := <-read; !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a waiting connection's read ended with %v, want its deadline passed", err)
	}
	if l.Give(server) {
		t.Error("a closed listener took a connection back")
	}
	l.Waiting(server) // after Close: its deadline passes at once
	server.SetReadDeadline(time.Time{})
	l.Done(server)
}

// TestConnContext: the server's requests find the listener.
func TestConnContext(t *testing.T) {
	l := listen(t, 5*time.Second)
	if From(context.Background()) != nil {
		t.Error("a context without a listener found one")
	}
	if got := From(l.ConnContext(context.Background(), nil)); got != l || got.Idle() != 5*time.Second {
		t.Errorf("From = %v", got)
	}
}
