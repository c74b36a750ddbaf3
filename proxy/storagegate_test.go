package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store"
)

// TestStorageUnavailable: while the shared database cannot be reached,
// /readyz is 503 and every turn route refuses at once — 503 (Anthropic's
// 529 on Messages) with Retry-After, before any upstream request — and
// turns are served again once it is back.
func TestStorageUnavailable(t *testing.T) {
	up := upstreamtest.New()
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", up.URL, config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	var down atomic.Bool
	down.Store(true)
	ready := func() error {
		if down.Load() {
			return fmt.Errorf("postgres: %w", store.ErrUnavailable)
		}
		return nil
	}
	e := serve(t, &cfg, up, proxy.Options{Ready: ready, Reachable: ready})

	for _, tc := range []struct {
		path, body, status, want string
	}{
		{"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "503", `"code":"storage_unavailable"`},
		{"/v1/responses", `{"model":"m","stream":true,"input":"hi"}`, "503", `"code":"storage_unavailable"`},
		{"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "529", `"type":"overloaded_error"`},
	} {
		resp := e.do(t, http.MethodPost, tc.path, tc.body)
		body := readAll(t, resp)
		if fmt.Sprint(resp.StatusCode) != tc.status || resp.Header.Get("Retry-After") != "2" || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d Retry-After %q %s; want %s with Retry-After 2 and %s", tc.path, resp.StatusCode, resp.Header.Get("Retry-After"), body, tc.status, tc.want)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests while storage was down, want 0", n)
	}
	ready503 := e.do(t, http.MethodGet, "/readyz", "")
	if body := readAll(t, ready503); ready503.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d %s while storage is down, want 503", ready503.StatusCode, body)
	}

	down.Store(false)
	up.Add(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "back")})
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(body, "back") {
		t.Errorf("after storage is back: %d %s, want the answer", resp.StatusCode, body)
	}
}
