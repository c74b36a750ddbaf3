package proxy_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
)

// newGuardedEnv is newEnv served as cmd/toolstream serves it: on a
// listener that proxy.GuardFraming watches.
func newGuardedEnv(t *testing.T, mutate func(*config.Config)) *env {
	t.Helper()
	e := newEnv(t, nil, mutate)
	srv := httptest.NewUnstartedServer(e.proxy)
	srv.Listener = proxy.GuardFraming(srv.Config, srv.Listener)
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	e.srv = srv
	return e
}

// TestProbeSmuggling: a request whose framing two servers could read
// differently — Content-Length beside Transfer-Encoding: chunked, a
// folded header line, a bare LF — is answered 400 and its connection
// closed, so the request written behind it on the same connection (one
// that has no key: a 401 if it were read) is never answered. Plain
// requests on one connection are both answered, as before.
func TestProbeSmuggling(t *testing.T) {
	e := newGuardedEnv(t, withKeys("client-key"))
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	const (
		key    = "Authorization: Bearer client-key\r\n"
		behind = "GET /v1/models HTTP/1.1\r\nHost: proxy\r\n\r\n"
	)
	for _, tc := range []struct{ name, first string }{
		{"Content-Length and chunked", "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n" + key +
			"Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"},
		{"chunked and Content-Length", "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n" + key +
			"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\ncontent-length: 0\r\n\r\n2\r\n{}\r\n0\r\n\r\n"},
		{"obs-fold", "GET /v1/models HTTP/1.1\r\nHost: proxy\r\n" + key + "X-Note: a\r\n b\r\n\r\n"},
		{"bare LF", "GET /v1/models HTTP/1.1\nHost: proxy\r\n" + key + "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, br := dialRaw(t, e, tc.first+behind)
			resp := readOne(t, conn, br)
			body := readAll(t, resp)
			wantAPIError(t, resp.StatusCode, body, 400, "invalid_request_error", "ambiguous_framing")
			if !resp.Close {
				t.Error("the answer does not say Connection: close")
			}
			if next, err := http.ReadResponse(br, nil); err == nil {
				t.Errorf("the request behind it was answered too: %d", next.StatusCode)
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("the connection was not closed: %v", err)
			}
		})
	}

	t.Run("plain requests", func(t *testing.T) {
		conn, br := dialRaw(t, e, "POST /v1/embeddings HTTP/1.1\r\nHost: proxy\r\n"+key+
			"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"+behind)
		for _, want := range []int{200, 401} {
			resp := readOne(t, conn, br)
			if body := readAll(t, resp); resp.StatusCode != want {
				t.Errorf("got %d %s, want %d", resp.StatusCode, body, want)
			}
		}
	})
}

// dialRaw writes req byte for byte on a new connection to the proxy.
func dialRaw(t *testing.T, e *env, req string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// readOne reads the next response on conn.
func readOne(t *testing.T, conn net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return resp
}
