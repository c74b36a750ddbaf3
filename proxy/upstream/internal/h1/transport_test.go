package h1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingServer is an upstream that answers every request with body and
// counts the connections it accepted.
type countingServer struct {
	*httptest.Server
	mu    sync.Mutex
	conns int
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	return newCountingServerHook(t, h, nil)
}

// newCountingServerHook is newCountingServer calling onNew with every
// connection accepted.
func newCountingServerHook(t *testing.T, h http.HandlerFunc, onNew func(net.Conn)) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			if onNew != nil {
				onNew(c)
			}
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func newH1(t *testing.T) *Transport {
	tr := &Transport{IdleTimeout: time.Minute, MaxIdle: 4, HeaderTimeout: time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// post sends {"x":1} to rawURL.
func post(t *testing.T, tr *Transport, ctx context.Context, rawURL string) (*http.Response, error) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Post(ctx, &Request{Addr: u.Host, Host: u.Host, Path: u.EscapedPath(), Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"x":1}`)})
}

// TestH1KeepsConnections: answers read to their end leave their
// connection for the next request, chunked (with a trailer or without) or
// with a length; so does one closed early whose rest comes at once (an
// event stream after its [DONE]); one whose rest does not is not reused.
func TestH1KeepsConnections(t *testing.T) {
	release := make(chan struct{})
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/slow" {
			w.Write(b)
			w.(http.Flusher).Flush()
			<-release // the rest comes later
		}
		if r.URL.Path == "/bighead" {
			w.Header().Set("X-Big", strings.Repeat("x", 3000)) // a head over the head reader's 1 KiB
		}
		if r.URL.Path != "/len" && r.URL.Path != "/bighead" {
			if r.URL.Path == "/chunked-trailer" {
				w.Header().Set("Trailer", "X-Checksum")
			}
			w.Write(b)
			w.(http.Flusher).Flush()
			w.Header().Set("X-Checksum", "1")
		}
		w.Write(b)
	})
	c := newH1(t)
	for i, path := range []string{"/len", "/chunked", "/bighead", "/chunked-trailer", "/chunked"} {
		resp, err := post(t, c, context.Background(), srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := strings.Repeat(`{"x":1}`, 1+strings.Count(path, "chunked")); string(b) != want {
			t.Fatalf("request %d: %q, want %q", i, b, want)
		}
	}
	if n := srv.accepted(); n != 1 {
		t.Errorf("%d connections for 5 sequential requests, want 1", n)
	}
	resp, err := post(t, c, context.Background(), srv.URL+"/chunked")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	io.ReadFull(resp.Body, buf)
	resp.Body.Close() // closed early, the rest coming at once: kept
	c.WaitFinishing()
	next := func() {
		t.Helper()
		resp, err := post(t, c, context.Background(), srv.URL+"/len")
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	next()
	if n := srv.accepted(); n != 1 {
		t.Errorf("%d connections after an answer closed with its rest arrived, want 1", n)
	}

	resp, err = post(t, c, context.Background(), srv.URL+"/slow")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, buf)
	resp.Body.Close() // closed early, its rest not coming soon: not kept
	c.WaitFinishing() // gives up after finishWait
	close(release)
	next()
	if n := srv.accepted(); n != 2 {
		t.Errorf("%d connections after an answer closed before its rest came, want 2", n)
	}
	c.CloseIdleConnections()
}

// TestH1ContextEnds: a request whose context ends while the upstream is
// silent — before its head, or in its body — returns at once, and its
// connection is closed.
func TestH1ContextEnds(t *testing.T) {
	release := make(chan struct{})
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			io.WriteString(w, "first")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := newH1(t)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := post(t, c, ctx, srv.URL+"/head"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("before the head: %v, want the deadline", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	resp, err := post(t, c, ctx, srv.URL+"/body")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := resp.Body.Read(buf)
	if string(buf[:n]) != "first" {
		t.Fatalf("read %q", buf[:n])
	}
	time.AfterFunc(30*time.Millisecond, cancel)
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the body read on after its context ended")
	}
	resp.Body.Close()
	if c.idleCount() != 0 {
		t.Error("a connection whose request was cut was kept")
	}
}

// TestH1HeaderTimeout: an upstream that does not start its answer within
// header_timeout fails the request with a timeout.
func TestH1HeaderTimeout(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server sees the client go
		<-r.Context().Done()
	})
	tr := &Transport{IdleTimeout: time.Minute, MaxIdle: 4, HeaderTimeout: 50 * time.Millisecond}
	defer tr.CloseIdleConnections()
	_, err := post(t, tr, context.Background(), srv.URL)
	if !isTimeout(err) {
		t.Errorf("got %v, want a timeout", err)
	}
}

// TestH1IdleExpiry: a kept connection is closed once it has been idle
// idle_timeout, and the next request dials again.
func TestH1IdleExpiry(t *testing.T) {
	srv := newRawServer(t, writeAll("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	tr := &Transport{IdleTimeout: 20 * time.Millisecond, MaxIdle: 4}
	defer tr.CloseIdleConnections()
	for range 2 {
		resp, err := post(t, tr, context.Background(), "http://"+srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.waitClosed(t) // by the sweep, once idle_timeout passed
		if n := tr.idleCount(); n != 0 {
			t.Fatalf("%d connections kept past their idle timeout", n)
		}
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestH1DropsClosedConnections: a kept connection the server closes is
// let go at the next sweep — its socket does not linger until the idle
// timeout — and a request never goes out on it.
func TestH1DropsClosedConnections(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	swept := make(chan struct{}, 1)
	tr := &Transport{IdleTimeout: time.Minute, MaxIdle: 4, SweepEvery: 20 * time.Millisecond}
	tr.afterSweep = func() {
		select {
		case swept <- struct{}{}:
		default:
		}
	}
	defer tr.CloseIdleConnections()
	resp, err := post(t, tr, context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Config.SetKeepAlivesEnabled(false) // the server closes its idle connections
	deadline := time.After(5 * time.Second)
	for {
		tr.mu.Lock()
		n, sweeping := len(tr.idle), tr.sweep != nil
		tr.mu.Unlock()
		if n == 0 && !sweeping {
			break
		}
		select {
		case <-swept:
		case <-deadline:
			t.Fatalf("%d closed connections still kept (sweeping %v)", n, sweeping)
		}
	}
}

// TestH1Head: the request head carries the framing's own Host and
// Content-Length once, whatever the upstream's headers say, a configured
// User-Agent instead of the default, and no line break from a value.
func TestH1Head(t *testing.T) {
	head := string(appendHead(nil, &Request{Host: "llm:8000", Path: "/v1/chat/completions", Body: []byte(`{}`),
		Header: http.Header{"Host": {"evil"}, "Content-Length": {"99"}, "User-Agent": {"mine"}, "X-A": {"a\r\nX-Injected: 1"}}}))
	for _, want := range []string{"POST /v1/chat/completions HTTP/1.1\r\n", "\r\nHost: llm:8000\r\n", "\r\nContent-Length: 2\r\n", "\r\nUser-Agent: mine\r\n", "\r\nX-A: a  X-Injected: 1\r\n"} {
		if strings.Count(head, want) != 1 {
			t.Errorf("head lacks %q once:\n%s", want, head)
		}
	}
	for _, bad := range []string{"evil", "99", "Go-http-client", "\r\nX-Injected"} {
		if strings.Contains(head, bad) {
			t.Errorf("head has %q:\n%s", bad, head)
		}
	}
	if !strings.HasSuffix(head, "\r\n\r\n") || strings.Count(head, "\r\n\r\n") != 1 {
		t.Errorf("head does not end once with a blank line:\n%q", head)
	}
}
