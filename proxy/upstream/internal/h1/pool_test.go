package h1

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestH1KeepsOnlyFramedAnswers: a connection goes back to the pool only
// when its answer ended exactly where its framing said: a 101 (the
// connection speaks another protocol), an answer framed by the
// connection's end, and one followed by bytes nobody asked for close it.
// A 204 or 304 has no body whatever its headers say: a
// "Transfer-Encoding: chunked" on one is not read as a body.
func TestH1KeepsOnlyFramedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string
		status int
		body   string
		kept   bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, "ok", true},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", 200, "ok", true},
		{"204", "HTTP/1.1 204 No Content\r\n\r\n", 204, "", true},
		{"204 chunked, no body", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", 204, "", true},
		{"304 chunked, no body", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", 304, "", true},
		{"204 chunked, a body after", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", 204, "", false},
		{"304 chunked, a body after", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 304, "", false},
		{"101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", 101, "", false},
		{"101, its protocol after", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n\x00\x00\x12\x04", 101, "", false},
		{"until close", "HTTP/1.1 200 OK\r\n\r\nok", 200, "ok", false},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, "ok", false},
		{"Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", 200, "ok", false},
		{"bytes after a length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, "ok", false},
		{"bytes after chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", 200, "ok", false},
		{"bytes after a 204", "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", 204, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, func(c net.Conn, _ int) bool {
				_, err := io.WriteString(c, tc.answer)
				return err == nil && tc.name != "until close" // an answer framed by its end needs the close
			})
			tr := newH1(t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			resp, err := post(t, tr, ctx, "http://"+srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			tr.WaitFinishing()
			if err != nil || resp.StatusCode != tc.status || string(b) != tc.body {
				t.Fatalf("got %d %q %v, want %d %q", resp.StatusCode, b, err, tc.status, tc.body)
			}
			if kept := tr.idleCount() == 1; kept != tc.kept {
				t.Errorf("connection kept: %v, want %v", kept, tc.kept)
			}
			if !tc.kept && tc.name != "until close" {
				srv.waitClosed(t)
			}
		})
	}
}

// TestH1KeyedByAddress: one Transport serves every server of a pool; a
// connection kept from one server is never taken for a request to
// another.
func TestH1KeyedByAddress(t *testing.T) {
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a") })
	b := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
	tr := newH1(t)
	for i, srv := range []*countingServer{a, b, a, b} {
		resp, err := post(t, tr, context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := string("abab"[i]); string(got) != want {
			t.Errorf("request %d went to %q, want %q", i, got, want)
		}
	}
	if na, nb := a.accepted(), b.accepted(); na != 1 || nb != 1 {
		t.Errorf("connections: a %d, b %d; want one each, kept and reused", na, nb)
	}
	if n := tr.idleCount(); n != 2 {
		t.Errorf("%d connections kept, want 2", n)
	}
}
