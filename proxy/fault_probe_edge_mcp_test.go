package proxy_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
)

// TestProbeMCPStalledBody: a POST /mcp whose body stops arriving is
// answered 408 naming read_idle_timeout, and its connection closed, as
// on every other route — also when the SDK would answer the request
// without reading its body (no Accept header, an unknown session),
// where net/http used to wait for the rest with no deadline (the probe
// found 300 such POSTs holding 283 descriptors after 70s).
func TestProbeMCPStalledBody(t *testing.T) {
	const idle = 300 * time.Millisecond
	e := newEnv(t, nil, func(c *config.Config) {
		c.Auth.Keys = config.PlainKeys("client-key")
		c.ReadIdleTimeout = idle
	})
	const base = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer client-key\r\nContent-Type: application/json\r\n"
	const accept = "Accept: application/json, text/event-stream\r\n"
	for _, tc := range []struct{ name, head, body string }{
		{"stalled", base + accept + "Content-Length: 1000\r\n\r\n", `{"jsonrpc":"2.0",`},
		{"stalled, no Accept", base + "Content-Length: 1000\r\n\r\n", `{`},
		{"stalled, unknown session", base + accept + "Mcp-Session-Id: NOSUCHSESSION\r\nContent-Length: 1000\r\n\r\n", `{`},
		{"stalled chunks", base + accept + "Transfer-Encoding: chunked\r\n\r\n", "1\r\n{\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, took := rawDo(t, e, tc.head+tc.body, 10*time.Second)
			got := wantAPIError(t, resp.StatusCode, body, 408, "invalid_request_error", "request_timeout")
			if !strings.Contains(got.Error.Message, "read_idle_timeout") {
				t.Errorf("message %q does not name read_idle_timeout", got.Error.Message)
			}
			if took < idle {
				t.Errorf("answered after %s, before read_idle_timeout (%s)", took, idle)
			}
			if !resp.Close {
				t.Error("the connection is kept open after a body that was not read to its end")
			}
		})
	}
}

// mcpLimitsConfig is mcpConfig with two limited keys: "init" may make 3
// requests a minute, "calls" 5 and one concurrent turn.
func mcpLimitsConfig() string {
	return strings.Replace(mcpConfig(), "  admin_keys:", `    - name: init
      key: `+initKey+`
      limits: {requests_per_minute: 3}
    - name: calls
      key: `+callsKey+`
      limits: {requests_per_minute: 5, concurrent_turns: 1}
  admin_keys:`, 1)
}

const (
	initKey  = "sk-init-key"
	callsKey = "sk-calls-key"
)

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`

// mcpPost sends one JSON-RPC body to /mcp with key (and session, when
// set) and returns the answer, its body read.
func mcpPost(t *testing.T, e *env, key, session, body string) (*http.Response, string) {
	t.Helper()
	h := []string{"Authorization: Bearer " + key, "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25"}
	if session != "" {
		h = append(h, "Mcp-Session-Id: "+session)
	}
	resp := e.do(t, http.MethodPost, "/mcp", body, h...)
	return resp, readAll(t, resp)
}

// TestProbeMCPKeyLimits: /mcp counts against the key's limits. Each
// initialize is a request (the probe got 50 of 50 through a key allowed
// 10 a minute): past requests_per_minute it is a 429 with Retry-After
// and a JSON-RPC error, before any session is made. Each tools/call is
// a request too, and holds one of the key's concurrent_turns while it
// runs: a second call meanwhile is refused with a JSON-RPC error, and
// the session goes on.
func TestProbeMCPKeyLimits(t *testing.T) {
	e, _ := newKeysEnv(t, mcpLimitsConfig(), nil, nil)
	for i := range 5 {
		resp, body := mcpPost(t, e.env, initKey, "", mcpInitialize)
		if i < 3 {
			if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
				t.Fatalf("initialize %d of 3 allowed: %d %s", i+1, resp.StatusCode, body)
			}
			continue
		}
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Mcp-Session-Id") != "" ||
			!strings.Contains(body, `"error":{"code":`) || !strings.Contains(body, "requests per minute (3)") || !strings.Contains(body, `"id":1`) {
			t.Errorf("initialize %d past the limit: %d %v %s", i+1, resp.StatusCode, resp.Header, body)
		}
	}

	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) { mcpCallLimits(t, pv) })
	}
}

// mcpCallLimits: each tools/call counts against the key's
// requests_per_minute, and holds one of its concurrent_turns while it
// runs, in either revision.
func mcpCallLimits(t *testing.T, pv string) {
	e, _ := newKeysEnv(t, mcpLimitsConfig(), nil, nil)
	hold := make(chan struct{})
	e.hooks.answer("slow_task", hookAnswer{body: `{"done":true}`, wait: hold})
	cs := mcpConnect(t, e, callsKey, pv, nil) // 2025-11-25: its initialize is request 1 of 5
	// The calls allowed after the first two, the refused one counted.
	within := 2
	if pv >= "2026-07-28" {
		within = 3 // no initialize
	}
	first := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{}})
		first <- err
	}()
	select {
	case <-e.hooks.arrivals:
	case <-time.After(10 * time.Second):
		t.Fatal("the first call did not reach its webhook")
	}
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "a"}})
	if err == nil || !strings.Contains(err.Error(), "concurrent turns (1)") {
		t.Errorf("a second call while one runs, with concurrent_turns 1: %v", err)
	}
	close(hold)
	if err := <-first; err != nil {
		t.Fatalf("the first call: %v", err)
	}
	for i := range within {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "a"}}); err != nil {
			t.Fatalf("call %d within the limit: %v", i+1, err)
		}
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "a"}}); err == nil ||
		!strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("a call past requests_per_minute: %v", err)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("the session after a refusal: %v", err)
	}
	if n := len(e.hooks.received()); n != 1+within {
		t.Errorf("webhooks called %d times, want %d", n, 1+within)
	}
}

// TestProbeMCPSessionCap: sessions are capped per key and in all (the
// probe left 3,000 abandoned sessions holding 3,178 goroutines). A new
// session past a cap takes the place of the session idle longest, whose
// next request gets 404 (an MCP client then starts a new session); when
// every session of the key is busy, the new one is refused with 429.
// Nothing is left running once the proxy closes.
func TestProbeMCPSessionCap(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	e := newTurnEnvWith(t, mcpConfig(), nil, func(o *proxy.Options) {
		o.MCPMaxSessions, o.MCPMaxSessionsPerKey = 3, 2
	})
	open := func(key string) string {
		t.Helper()
		resp, body := mcpPost(t, e.env, key, "", mcpInitialize)
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		return id
	}
	alive := func(name, key, id string, want bool) {
		t.Helper()
		resp, body := mcpPost(t, e.env, key, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if got := resp.StatusCode == 200; got != want {
			t.Errorf("session %s: %d %s, want alive=%v", name, resp.StatusCode, body, want)
		}
	}
	p1, p2 := open(plainKey), open(plainKey)
	p3 := open(plainKey) // past the key's cap of 2: p1, idle longest, goes
	alive("p1", plainKey, p1, false)
	alive("p2", plainKey, p2, true)
	alive("p3", plainKey, p3, true)

	a1 := mcpConnect(t, e, appKey, "2025-11-25", nil)
	a2 := mcpConnect(t, e, appKey, "2025-11-25", nil) // past the cap of 3 in all: p2 goes
	alive("p2", plainKey, p2, false)
	alive("p3", plainKey, p3, true)

	// Both of the app key's sessions busy: a third is refused.
	hold := make(chan struct{})
	e.hooks.answer("slow_task", hookAnswer{body: `{}`, wait: hold})
	e.hooks.answer("slow_task", hookAnswer{body: `{}`, wait: hold})
	done := make(chan error, 2)
	for _, cs := range []*mcp.ClientSession{a1, a2} {
		go func() {
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{}})
			done <- err
		}()
	}
	for range 2 {
		select {
		case <-e.hooks.arrivals:
		case <-time.After(10 * time.Second):
			t.Fatal("the calls did not reach their webhook")
		}
	}
	resp, body := mcpPost(t, e.env, appKey, "", mcpInitialize)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many MCP sessions for this API key") {
		t.Errorf("a third session of a key whose two are busy: %d %s", resp.StatusCode, body)
	}
	// In all: the busy ones stay, the idle p3 makes room.
	open(plainKey)
	alive("p3", plainKey, p3, false)
	close(hold)
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("a held call: %v", err)
		}
	}
}
