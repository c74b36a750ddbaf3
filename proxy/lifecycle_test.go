package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// logRecords is a slog.Handler that keeps each record's message and
// attributes, so tests check the turn line's fields, not its text.
type logRecords struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecords) WithGroup(string) slog.Handler            { return h }

func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.recs = append(h.recs, m)
	h.mu.Unlock()
	return nil
}

func (h *logRecords) find(msg string) []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.recs {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// upstreamConfig is the default config with one upstream "up" at url
// serving every model.
func upstreamConfig(url string) *config.Config {
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", url, config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	return &cfg
}

// readEvents reads data lines from an SSE body until n have arrived.
func readEvents(t *testing.T, br *bufio.Reader, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, strings.TrimSpace(d))
		}
	}
	return got
}

func cut(t *testing.T, p *proxy.Server) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := p.CutStreams(ctx)
	if err != nil {
		t.Fatalf("CutStreams: %v", err)
	}
	return n
}

const shutdownEvent = `{"error":{"message":"the proxy is shutting down; the request was ended before it finished","type":"server_error","param":null,"code":"shutting_down"}}`

// TestCutStreamsOpenStream: a stream still open when the shutdown grace
// is over gets one shutting_down error event and no [DONE]; the upstream
// request is cancelled and the turn is logged with status "shutdown", not
// as a client that left.
func TestCutStreamsOpenStream(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Hello", " world"), StallAfter: 2})
	logs := &logRecords{}
	e := serve(t, upstreamConfig(up.URL), up, proxy.Options{Logger: slog.New(logs)})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	readEvents(t, br, 2) // the stream is open and committed

	if n := cut(t, e.proxy); n != 1 {
		t.Errorf("CutStreams cut %d requests, want 1", n)
	}
	rest, err := readRest(br)
	if err != nil {
		t.Fatal(err)
	}
	if got := sseData(t, rest); len(got) != 1 || got[0] != shutdownEvent {
		t.Errorf("after the cut the client read %q, want one shutting_down event and no [DONE]", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !up.WaitCancelled(ctx) {
		t.Error("the upstream request was not cancelled")
	}
	turns := logs.find("turn")
	if len(turns) != 1 || turns[0]["status"] != "shutdown" || turns[0]["code"] != "503" {
		t.Errorf("turn log lines %v, want one with status shutdown and code 503", turns)
	}
}

// TestCutStreamsRunningTool: a tool call running at the cut is cancelled
// (its webhook request ends) and the stream ends with the shutting_down
// event after the tool.started event it already read.
func TestCutStreamsRunningTool(t *testing.T) {
	r1 := textRound("c1", "Working. ", call("create_task", `{"title":"Slow"}`))
	e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, textRound("c2", "never")})
	e.hooks.answer("create_task", hookAnswer{body: `{}`, wait: make(chan struct{})})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)
	select {
	case <-e.hooks.arrivals:
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was never called")
	}
	cut(t, e.proxy)
	body := readAll(t, resp)
	select {
	case <-e.hooks.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook request was not cancelled by the cut")
	}
	data := sseData(t, body)
	if len(data) == 0 || data[len(data)-1] != shutdownEvent || strings.Contains(body, "[DONE]") {
		t.Errorf("stream did not end with the shutting_down event alone:\n%s", body)
	}
	if !strings.Contains(body, `"event":"tool.started"`) {
		t.Errorf("no tool.started before the cut:\n%s", body)
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("upstream saw %d rounds, want 1", n)
	}
}

// TestCutStreamsNotAnswered: a request cut before anything was written
// gets 503 shutting_down; a retry is fine, so no x-should-retry: false —
// unless a tool already ran.
func TestCutStreamsNotAnswered(t *testing.T) {
	t.Run("stream before the first byte", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "late"), Wait: hold})
		e := serve(t, upstreamConfig(up.URL), up, proxy.Options{})
		got := e.goPost(chatBody)
		waitRequests(t, up, 1)
		cut(t, e.proxy)
		resp := answer(t, got)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusServiceUnavailable || body != shutdownEvent || resp.Header.Get("X-Should-Retry") != "" {
			t.Errorf("status %d x-should-retry %q body %s", resp.StatusCode, resp.Header.Get("X-Should-Retry"), body)
		}
	})
	t.Run("non-streaming after a tool ran", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		r1 := textRound("c1", call("create_task", `{"title":"Gym"}`))
		r2 := upstreamtest.Round{Events: upstreamtest.Text("c2", "m", "late"), Wait: hold}
		e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{r1, r2})
		got := e.goPost(`{"model":"m","messages":[{"role":"user","content":"add gym"}]}`)
		waitRequests(t, e.up, 2)
		cut(t, e.proxy)
		resp := answer(t, got)
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"shutting_down"`) || resp.Header.Get("X-Should-Retry") != "false" {
			t.Errorf("status %d x-should-retry %q body %s", resp.StatusCode, resp.Header.Get("X-Should-Retry"), body)
		}
	})
	t.Run("arriving after the cut", func(t *testing.T) {
		up := upstreamtest.New()
		e := serve(t, upstreamConfig(up.URL), up, proxy.Options{})
		if n := cut(t, e.proxy); n != 0 {
			t.Errorf("cut %d requests of an idle server", n)
		}
		resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
		if body := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || body != shutdownEvent {
			t.Errorf("status %d body %s", resp.StatusCode, body)
		}
		if n := len(up.Requests()); n != 0 {
			t.Errorf("upstream saw %d requests after the cut", n)
		}
	})
}

// goPost sends a chat completion from another goroutine; answer receives
// its response.
func (e *env) goPost(body string) <-chan result {
	out := make(chan result, 1)
	go func() {
		resp, err := e.client.Post(e.srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		out <- result{resp, err}
	}()
	return out
}

type result struct {
	resp *http.Response
	err  error
}

func answer(t *testing.T, c <-chan result) *http.Response {
	t.Helper()
	r := <-c
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.resp
}

// waitRequests waits until up has received n requests.
func waitRequests(t *testing.T, up *upstreamtest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(up.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("upstream received %d requests, want %d", len(up.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReload: a reload applies to requests that arrive after it — another
// upstream, client keys — while a stream that started before finishes on
// the upstream it started with, [DONE] included.
func TestReload(t *testing.T) {
	gate := make(chan struct{})
	old := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("o1", "m", "old ", "answer"), Gate: gate, GateAfter: 2})
	e := serve(t, upstreamConfig(old.URL), old, proxy.Options{})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	readEvents(t, br, 2)

	next := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("n1", "m", "new answer")})
	defer next.Close()
	cfg := upstreamConfig(next.URL)
	cfg.Auth.Keys = config.PlainKeys("k2")
	if err := e.proxy.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	r := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	if readAll(t, r); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the new key: status %d, want 401", r.StatusCode)
	}
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "Authorization: Bearer k2"))
	if got := joinedContent(t, body); got != "new answer" {
		t.Errorf("after the reload the client read %q from %s", got, body)
	}

	close(gate)
	rest, err := readRest(br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rest, "data: [DONE]\n\n") || !strings.Contains(rest, `"content":"answer"`) {
		t.Errorf("the stream open across the reload did not finish on its upstream:\n%s", rest)
	}
	if n, m := len(old.Requests()), len(next.Requests()); n != 1 || m != 1 {
		t.Errorf("old upstream saw %d requests, new one %d; want 1 and 1", n, m)
	}
}

// TestReloadRefused: a configuration the proxy cannot build changes
// nothing.
func TestReloadRefused(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "still here")})
	e := serve(t, upstreamConfig(up.URL), up, proxy.Options{})
	bad := upstreamConfig(up.URL)
	bad.DefaultUpstream = "nowhere"
	if err := e.proxy.Reload(bad); err == nil {
		t.Fatal("Reload accepted a default_upstream naming no upstream")
	}
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	if got := joinedContent(t, body); got != "still here" {
		t.Errorf("after a refused reload the client read %q", got)
	}
}

func readRest(br *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := br.WriteTo(&b)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return b.String(), err
}
