package proxy_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// recordSleeps makes retries instant and returns the waits asked for.
func recordSleeps(e *env) func() []time.Duration {
	var mu sync.Mutex
	var waits []time.Duration
	proxy.SetSleep(e.proxy, func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	})
	return func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Duration(nil), waits...)
	}
}

var okRound = upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello")}

func TestRetries(t *testing.T) {
	r503 := upstreamtest.Round{Status: 503, Body: `{"error":{"message":"busy","type":"server_error","param":null,"code":null}}`}
	r429 := upstreamtest.Round{Status: 429, Header: http.Header{"Retry-After": {"3"}}, Body: `{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":null}}`}
	r400 := upstreamtest.Round{Status: 400, Body: `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`}
	tests := []struct {
		name     string
		rounds   []upstreamtest.Round
		status   int
		requests int
		// waits lists the exact waits expected; nil when only the count
		// matters (jittered backoff).
		waits     []time.Duration
		waitCount int
	}{
		{name: "503 twice then ok", rounds: []upstreamtest.Round{r503, r503, okRound}, status: 200, requests: 3, waitCount: 2},
		{name: "503 three times gives up", rounds: []upstreamtest.Round{r503, r503, r503, okRound}, status: 503, requests: 3, waitCount: 2},
		{name: "429 honours Retry-After", rounds: []upstreamtest.Round{r429, okRound}, status: 200, requests: 2, waits: []time.Duration{3 * time.Second}, waitCount: 1},
		{name: "400 is not retried", rounds: []upstreamtest.Round{r400, okRound}, status: 400, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rounds, nil)
			waits := recordSleeps(e)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status == 200 && !strings.HasSuffix(body, "data: [DONE]\n\n") {
				t.Errorf("stream did not complete: %s", body)
			}
			if n := len(e.up.Requests()); n != tt.requests {
				t.Errorf("upstream saw %d requests, want %d", n, tt.requests)
			}
			got := waits()
			if len(got) != tt.waitCount {
				t.Errorf("waited %v, want %d waits", got, tt.waitCount)
			}
			if tt.waits != nil && !cmp.Equal(got, tt.waits) {
				t.Errorf("waits %v, want %v", got, tt.waits)
			}
		})
	}
}

// TestNoRetryAfterStreamStarted: once the upstream answered 200, a cut is
// never retried (the client already has part of the answer).
func TestNoRetryAfterStreamStarted(t *testing.T) {
	cut := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hel", "lo"), CutAfter: 2, Abort: true}
	e := newEnv(t, []upstreamtest.Round{cut, okRound}, nil)
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	data := sseData(t, body)
	if len(data) == 0 || !strings.HasPrefix(data[len(data)-1], `{"error":`) {
		t.Fatalf("stream should end with an error event: %s", body)
	}
	if strings.Contains(body, "[DONE]") {
		t.Errorf("a cut stream must not end with [DONE]: %s", body)
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
}

// TestUpstreamRequest checks what reaches the upstream: its own key and
// headers, never the client's key; identity encoding; the client's body
// byte for byte minus toolstream's own extension field, plus the usage
// ask every streaming turn carries, its spacing kept.
func TestUpstreamRequest(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{okRound, okRound}, func(c *config.Config) {
		c.Auth.Keys = config.PlainKeys("client-key")
		c.Upstreams[0].Headers = map[string]string{"X-Extra": "yes"}
	})
	// Pretty-printed, as a hand-written request is: the spacing goes too.
	body := "{\n  \"model\": \"m\",\n  \"temperature\": 0,\n  \"top_k\": 5,\n  \"stream\": true,\n  \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]\n}"
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", body, "Authorization: Bearer client-key"))
	withExt := `{"model":"m","stream":true,"toolstream":{"display":"none"},"messages":[{"role":"user","content":"hi"}]}`
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", withExt, "Authorization: Bearer client-key"))

	reqs := e.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream saw %d requests, want 2", len(reqs))
	}
	r := reqs[0]
	if got := r.Header.Get("Authorization"); got != "Bearer upstream-key" {
		t.Errorf("Authorization %q, want the upstream's own key", got)
	}
	if got := r.Header.Get("X-Extra"); got != "yes" {
		t.Errorf("X-Extra %q, want the configured header", got)
	}
	if got := r.Header.Get("Accept-Encoding"); got != "identity" {
		t.Errorf("Accept-Encoding %q, want identity", got)
	}
	if want := strings.Replace(body, "}]\n}", `}],"stream_options":{"include_usage":true}`+"\n}", 1); string(r.Body) != want {
		t.Errorf("upstream body\n%s\nwant the client's bytes and the usage ask\n%s", r.Body, want)
	}
	if want := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}`; string(reqs[1].Body) != want {
		t.Errorf("upstream body\n%s\nwant the extension field removed\n%s", reqs[1].Body, want)
	}
}

// TestClientDisconnectCancelsUpstream: the upstream stalls after one chunk;
// the client reads it and hangs up; the upstream must see its request
// cancelled.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	stall := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello", "never sent"), StallAfter: 1}
	e := newEnv(t, []upstreamtest.Round{stall}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := e.doCtx(t, ctx, http.MethodPost, "/v1/chat/completions", chatBody)
	buf := make([]byte, 64)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatalf("reading first chunk: %v", err)
	}
	cancel()
	resp.Body.Close()

	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if !e.up.WaitCancelled(wctx) {
		t.Fatal("upstream request was not cancelled after the client hung up")
	}
}

// TestRoundTimeout: an upstream that stalls mid-stream past the round's
// timeout ends the stream with an upstream_timeout error event.
func TestRoundTimeout(t *testing.T) {
	stall := upstreamtest.Round{Events: upstreamtest.Text("chatcmpl-1", "m", "Hello", "never sent"), StallAfter: 2}
	e := newEnv(t, []upstreamtest.Round{stall}, func(c *config.Config) { c.Upstreams[0].Timeout = 300 * time.Millisecond })
	body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	data := sseData(t, body)
	if len(data) != 3 {
		t.Fatalf("want 2 chunks and an error event, got %q", data)
	}
	got := decodeError(t, data[2])
	if got.Error.Code != "upstream_timeout" {
		t.Errorf("error %+v, want upstream_timeout", got.Error)
	}
	if strings.Contains(body, "[DONE]") {
		t.Error("a timed-out stream must not end with [DONE]")
	}
}

// TestNonStreamRelay: without stream, the upstream's JSON answer is relayed
// as it came.
func TestNonStreamRelay(t *testing.T) {
	answer := `{"id":"chatcmpl-9","object":"chat.completion","created":1731000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","reasoning_content":"hm"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	e := newEnv(t, []upstreamtest.Round{{ContentType: "application/json", Body: answer}}, nil)
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	body := readAll(t, resp)
	if resp.StatusCode != 200 || body != answer {
		t.Errorf("got %d %s\nwant 200 %s", resp.StatusCode, body, answer)
	}
	if got := e.up.Requests()[0].Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept %q, want application/json", got)
	}
}

func TestAuthAccepts(t *testing.T) {
	tests := []struct {
		name   string
		header string
		status int
	}{
		{"bearer plain key", "Authorization: Bearer k1", 200},
		{"bearer scheme is case-insensitive", "Authorization: bearer k1", 200},
		{"api-key header", "api-key: k1", 200},
		{"basic scheme refused", "Authorization: Basic k1", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, []upstreamtest.Round{okRound}, withKeys("k1", "sha256:"+sha256hex("k2"), ""))
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, tt.header)
			readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

func TestAuthHashedKey(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{okRound}, withKeys("sha256:"+sha256hex("secret-two")))
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "Authorization: Bearer secret-two")
	readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d, want 200 for a key matching its sha256: entry", resp.StatusCode)
	}
}
