package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// The streams of these tests leave their handlers at their first event
// (proxy/detach.go): the proxy is served on proxy.Listener, as `serve`
// serves it.

// TestDetachedSameAsNetHTTP holds the stream written on a taken
// connection to net/http's own: the same turn, once through a server
// where streams stay with net/http and once through proxy.Listener,
// reads the same body and the same headers but Date, on each protocol.
func TestDetachedSameAsNetHTTP(t *testing.T) {
	for _, tc := range []struct{ path, body string }{
		{"/v1/chat/completions", chatBody},
		{"/v1/responses", `{"model":"m","stream":true,"input":"hi"}`},
		{"/v1/messages", `{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			round := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello", ", ", "world\nand more", "")}
			e := newEnv(t, []upstreamtest.Round{round, round}, nil)
			plain := httptest.NewServer(e.proxy) // streams stay with net/http
			defer plain.Close()
			before := proxy.DetachedStreams()
			want, wantBody := post(t, plain.URL+tc.path, tc.body)
			if proxy.DetachedStreams() != before {
				t.Fatal("a stream served without proxy.Listener took its connection")
			}
			got, gotBody := post(t, e.srv.URL+tc.path, tc.body)
			if proxy.DetachedStreams() != before+1 {
				t.Fatal("the stream served on proxy.Listener stayed with net/http")
			}
			if gotBody != wantBody {
				t.Errorf("the taken connection's stream differs from net/http's:\n got %q\nwant %q", gotBody, wantBody)
			}
			want.Header.Del("Date")
			got.Header.Del("Date")
			if g, w := fmt.Sprint(got.Header), fmt.Sprint(want.Header); g != w {
				t.Errorf("headers:\n got %s\nwant %s", g, w)
			}
			if got.StatusCode != 200 || len(got.TransferEncoding) != 1 || got.TransferEncoding[0] != "chunked" {
				t.Errorf("status %d, transfer encoding %v", got.StatusCode, got.TransferEncoding)
			}
		})
	}
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// rawRequest is a streamed chat request as written on the wire; extra
// is more header lines.
func rawRequest(extra string) string {
	return fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s",
		len(chatBody), extra, chatBody)
}

// TestDetachedKeepAlive: the connection of a stream that left its
// handler carries the client's next requests, streamed or not, and the
// server's idle timeout still closes it once quiet.
func TestDetachedKeepAlive(t *testing.T) {
	round := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello")}
	e := newEnv(t, []upstreamtest.Round{round, round, round, round}, nil)
	srv := httptest.NewUnstartedServer(e.proxy)
	srv.Config.IdleTimeout = 300 * time.Millisecond
	srv.Listener = proxy.Listener(srv.Config, srv.Listener)
	srv.Start()
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	before := proxy.DetachedStreams()
	for i := range 3 {
		io.WriteString(c, rawRequest(""))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on the kept connection: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || !strings.HasSuffix(string(body), "data: [DONE]\n\n") || resp.Close {
			t.Fatalf("request %d: %v, close %v, body %q", i+1, err, resp.Close, body)
		}
	}
	if n := proxy.DetachedStreams() - before; n != 3 {
		t.Fatalf("%d of the 3 streams took their connection", n)
	}
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: proxy\r\n\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a plain request after the streams: %v", err)
	} else {
		io.ReadAll(resp.Body)
	}
	// The handler of /healthz was net/http's: the idle wait is its own.
	// After a stream, it is the proxy's, with the server's IdleTimeout.
	io.WriteString(c, rawRequest(""))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("a kept connection past the idle timeout: read %d, %v; want it closed", n, err)
	}
}

// TestDetachedCloses: a stream whose client asked to close the
// connection, or sent its next request before the answer (pipelining),
// says Connection: close and closes it at the end.
func TestDetachedCloses(t *testing.T) {
	round := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello")}
	for name, reqs := range map[string]string{
		"connection close": rawRequest("Connection: close\r\n"),
		"pipelined":        rawRequest("") + rawRequest(""),
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, []upstreamtest.Round{round, round}, nil)
			c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, reqs)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if !resp.Close || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
				t.Errorf("close %v, body %q; want Connection: close and the whole stream", resp.Close, body)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("after the stream: read %d, %v; want the connection closed", n, err)
			}
		})
	}
}

// TestDetachedClientLeaves: a client that hangs up in the middle of a
// stream that left its handler ends the turn and its upstream round,
// as net/http's watch of the connection would.
func TestDetachedClientLeaves(t *testing.T) {
	stall := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello", "never"), StallAfter: 2}
	e := newEnv(t, []upstreamtest.Round{stall}, func(c *config.Config) { c.Upstreams[0].Timeout = time.Minute })
	c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, rawRequest(""))
	br := bufio.NewReader(c)
	if _, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !e.up.WaitCancelled(ctx) {
		t.Fatal("the upstream round of a client that left was not cancelled")
	}
}
