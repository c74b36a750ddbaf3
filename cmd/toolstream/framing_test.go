package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestServeRefusesSmuggling: serve listens through the framing guard: a
// request with both Content-Length and Transfer-Encoding is answered 400
// and its connection closed, so the request behind it is never answered.
func TestServeRefusesSmuggling(t *testing.T) {
	p, _ := serveUpstream(t, upstreamtest.New())
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /v1/embeddings HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"+
		"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"+
		"GET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "ambiguous_framing") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	if next, err := http.ReadResponse(br, nil); err == nil {
		t.Errorf("the request behind it was answered: %d", next.StatusCode)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("the connection was not closed: %v", err)
	}
}
