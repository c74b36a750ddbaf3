package proxy_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// bodyRoutes are the routes a client sends a body to that reach an
// upstream: the turn, and pass-through.
var bodyRoutes = []string{"/v1/chat/completions", "/v1/embeddings"}

// TestKeyCheckedBeforeBody: a request that declares a large body, sends
// one byte of it and no key is refused with 401 at once, on every route
// that takes a key, rather than held while the proxy waits for a body it
// will refuse anyway.
func TestKeyCheckedBeforeBody(t *testing.T) {
	e := newEnv(t, nil, withKeys("client-key"))
	for _, path := range append(bodyRoutes, "/v1/actions/act_1/deny") {
		resp, body, _ := rawDo(t, e, "POST "+path+" HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", 5*time.Second)
		wantAPIError(t, resp.StatusCode, body, 401, "authentication_error", "invalid_api_key")
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("upstream saw %d requests", n)
	}
}

// TestStalledBodyGets408: with a valid key, a body that stops arriving is
// answered 408 once read_idle_timeout has passed without a byte, on the
// turn and on pass-through (where it is the client's fault, not a 502
// blaming the upstream).
func TestStalledBodyGets408(t *testing.T) {
	const idle = 200 * time.Millisecond
	e := newEnv(t, nil, func(c *config.Config) {
		c.Auth.Keys = config.PlainKeys("client-key")
		c.ReadIdleTimeout = idle
	})
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	for _, path := range bodyRoutes {
		resp, body, took := rawDo(t, e, "POST "+path+" HTTP/1.1\r\nHost: proxy\r\nAuthorization: Bearer client-key\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", 10*time.Second)
		got := wantAPIError(t, resp.StatusCode, body, 408, "invalid_request_error", "request_timeout")
		if !strings.Contains(got.Error.Message, "read_idle_timeout") {
			t.Errorf("%s: message %q does not name read_idle_timeout", path, got.Error.Message)
		}
		if took < idle {
			t.Errorf("%s: answered after %s, before read_idle_timeout (%s)", path, took, idle)
		}
		if !resp.Close {
			t.Errorf("%s: the connection is kept open after a body that was not read to its end", path)
		}
	}
}

// trickle writes req to a new connection to the proxy, its body one byte
// every gap, until the body is sent or the proxy answers, and returns the
// answer.
func trickle(t *testing.T, e *env, head, body string, gap time.Duration) (*http.Response, string, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for i := range len(body) {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := io.WriteString(conn, body[i:i+1]); err != nil {
				return
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	return readRaw(t, conn, start, 20*time.Second)
}

// TestSlowBody: a body whose bytes keep coming, each well within
// read_idle_timeout, is read to its end, however long it takes in all
// (the deadline is pushed forward as bytes arrive); one that trickles in
// past read_body_timeout gets 408 naming it.
func TestSlowBody(t *testing.T) {
	// A byte every 40ms against an idle limit of a second: 25 gaps of
	// slack for a loaded machine's scheduling, and the whole body (72
	// bytes) still takes about three idle limits.
	e := newEnv(t, []upstreamtest.Round{okRound}, func(c *config.Config) {
		c.ReadIdleTimeout = time.Second
		c.ReadBodyTimeout = time.Minute
	})
	head := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(chatBody))
	resp, body, took := trickle(t, e, head, chatBody, 40*time.Millisecond)
	if resp.StatusCode != 200 || !strings.Contains(body, "Hello") {
		t.Fatalf("a slow but steady body: %d %s", resp.StatusCode, body)
	}
	if took < time.Second {
		t.Fatalf("the body took %s, within one read_idle_timeout: the test proves nothing", took)
	}

	e = newEnv(t, nil, func(c *config.Config) {
		c.ReadIdleTimeout = time.Minute
		c.ReadBodyTimeout = 300 * time.Millisecond
	})
	resp, body, _ = trickle(t, e, head, chatBody, 15*time.Millisecond)
	got := wantAPIError(t, resp.StatusCode, body, 408, "invalid_request_error", "request_timeout")
	if !strings.Contains(got.Error.Message, "read_body_timeout") {
		t.Errorf("message %q does not name read_body_timeout", got.Error.Message)
	}
}

// TestMalformedChunkedBody: a body whose chunked framing is broken is the
// client's error, 400 in OpenAI's shape, on the turn and on pass-through:
// not a 500 with Go's text (which SDKs retry), nor a 502 blaming the
// upstream.
func TestMalformedChunkedBody(t *testing.T) {
	e := newEnv(t, nil, nil)
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{}`)
	})
	for _, path := range bodyRoutes {
		for _, chunked := range []string{
			"zz\r\n{}\r\n0\r\n\r\n",        // not a hex length
			"2\r\n{}XX0\r\n\r\n",           // no CRLF after the chunk
			"ffffffffffffffffff\r\n{}\r\n", // a length that overflows
		} {
			resp, body, _ := rawDo(t, e, "POST "+path+" HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+chunked, 10*time.Second)
			got := wantAPIError(t, resp.StatusCode, body, 400, "invalid_request_error", "invalid_body")
			if strings.Contains(got.Error.Message, "chunk length") || strings.Contains(got.Error.Message, "upstream") {
				t.Errorf("%s %q: message %q", path, chunked, got.Error.Message)
			}
		}
	}
}

// TestDuplicateKeys: a body that names a top-level key twice gets a 400
// naming it, and nothing is sent upstream. toolstream reads the first
// "model" but an upstream that keeps the last would serve another: the
// two must never see different requests.
func TestDuplicateKeys(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{okRound}, nil)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ body, key string }{
		{`{"model":"cheap","model":"expensive",` + msgs + `}`, "model"},
		{`{"model":"m","stream":false,"stream":true,` + msgs + `}`, "stream"},
		{`{"model":"m",` + msgs + `,` + msgs + `}`, "messages"},
		{`{"model":"m","tool_choice":"none",` + msgs + `,"tool_choice":"auto"}`, "tool_choice"},
		{`{"model":"m",` + msgs + `,"temperature":0,"temperature":1}`, "temperature"},
		{`{"model":"m","mod\u0065l":"other",` + msgs + `}`, "model"}, // the same key, escaped
	} {
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", tc.body)
		body := readAll(t, resp)
		got := decodeError(t, body)
		if resp.StatusCode != 400 || got.Error.Type != "invalid_request_error" || got.Error.Param == nil || *got.Error.Param != tc.key ||
			!strings.Contains(got.Error.Message, `"`+tc.key+`"`) {
			t.Errorf("%s: got %d %s, want 400 naming %q", tc.body, resp.StatusCode, body, tc.key)
		}
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("upstream saw %d requests", n)
	}
	// Keys that repeat inside nested objects are the upstream's to read.
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"metadata":{"a":1,"a":2}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Errorf("a nested repeat: %d %s", resp.StatusCode, body)
	}
}
