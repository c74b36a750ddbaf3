package main

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestServeSlowHeaders: a client that opens a connection and trickles its
// request headers is hung up on once the header read times out (10s), and
// does not hold up anyone else meanwhile.
func TestServeSlowHeaders(t *testing.T) {
	t.Parallel()
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Hello")})
	p, _ := serveUpstream(t, up)

	conn, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Part of a request, then a header line a byte at a time for a while:
	// never the blank line that ends the headers.
	io.WriteString(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: toolstream\r\n")
	for _, b := range []byte("X-Slow: ") {
		conn.Write([]byte{b})
		time.Sleep(100 * time.Millisecond)
	}

	if got := p.open(t, "meanwhile").rest(t); !done(got) {
		t.Errorf("a request beside the slow one: %q", got)
	}

	conn.SetReadDeadline(time.Now().Add(waitFor))
	n, err := conn.Read(make([]byte, 512))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection with unfinished headers is still open after %s", waitFor)
	}
	if n != 0 || err == nil {
		t.Errorf("read %d bytes, err %v: want the connection closed without an answer", n, err)
	}
}
