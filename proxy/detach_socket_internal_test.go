package proxy

import (
	"crypto/tls"
	"net"
	"testing"

	"github.com/toolstream/toolstream/proxy/internal/framing"
	"github.com/toolstream/toolstream/proxy/internal/handback"
	"github.com/toolstream/toolstream/proxy/internal/rawio"
)

// TestSocketOf: a detached stream writes straight to the socket under
// the wrappers that only read (the framing guard's, a given-back
// connection's held byte), and never past a TLS connection, whose bytes
// must go through TLS.
func TestSocketOf(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	guarded := framing.Listener(ln)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := guarded.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	for _, tc := range []struct {
		name   string
		c      net.Conn
		socket bool
	}{
		{"framing guard", server, true},
		{"given back with a byte", handback.WithByte(server, 'P'), true},
		{"given back twice", handback.WithByte(handback.WithByte(server, 'P'), 'O'), true},
		{"TLS", tls.Server(server, &tls.Config{}), false},
		{"TLS given back", handback.WithByte(tls.Server(server, &tls.Config{}), 'P'), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			under := socketOf(tc.c)
			var s rawio.Socket
			if got := s.Open(under); got != tc.socket {
				t.Fatalf("socket found: %v, want %v (under the wrappers: %T)", got, tc.socket, under)
			}
			if tc.socket {
				if _, ok := under.(*net.TCPConn); !ok {
					t.Errorf("under the wrappers: %T, want the TCP connection", under)
				}
			}
		})
	}
}
