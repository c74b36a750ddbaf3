package proxy_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// newLoggedEnv is newEnv with the proxy's log in logs (text, info and
// up).
func newLoggedEnv(t *testing.T, logs *lockedBuffer, rounds []upstreamtest.Round) *env {
	t.Helper()
	up := upstreamtest.New(rounds...)
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name = "up"
	u.BaseURL = up.URL
	u.Models = config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	return serve(t, &cfg, up, proxy.Options{
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
		NewID:  func(prefix string) string { return prefix + "TESTID" },
		Now:    func() time.Time { return time.Unix(1800000000, 0) },
	})
}

// TestRefusalLogged: every 4xx the proxy answers a turn itself, on each
// turn route, has one warn line naming the route, status, code and
// param.
func TestRefusalLogged(t *testing.T) {
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"responses refuses background", "/v1/responses", `{"model":"m","input":"hi","background":true}`, 400,
			`msg="request refused" route=/v1/responses key="" status=400 code=unsupported_parameter param=background`},
		{"responses without a model", "/v1/responses", `{"input":"hi"}`, 400,
			`msg="request refused" route=/v1/responses key="" status=400 code="" param=model`},
		{"chat with a bad body", "/v1/chat/completions", `{"model":"m","messages":"no"}`, 400,
			`msg="request refused" route=/v1/chat/completions key="" status=400`},
		{"messages without max_tokens", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 400,
			`msg="request refused" route=/v1/messages key="" status=400`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs lockedBuffer
			e := newLoggedEnv(t, &logs, nil)
			resp := e.do(t, http.MethodPost, tt.path, tt.body)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			e.srv.Close() // every handler has logged
			lines := linesWith(logs.String(), "request refused")
			if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("refusal lines %q, want one warn line with %s", lines, tt.want)
			}
		})
	}
}

// TestWebSocketUpgrade: Codex's WebSocket attempt on /v1/responses gets
// 426, with no refusal line (it is how Codex asks), and reaches no
// upstream; a plain GET still passes through.
func TestWebSocketUpgrade(t *testing.T) {
	var logs lockedBuffer
	e := newLoggedEnv(t, &logs, nil)
	resp := e.do(t, http.MethodGet, "/v1/responses", "", "Upgrade: websocket", "Connection: Upgrade",
		"Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==")
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusUpgradeRequired {
		t.Fatalf("status %d, want 426: %s", resp.StatusCode, body)
	}
	if !strings.Contains(body, `"code":"websocket_not_supported"`) {
		t.Errorf("body %s: want an OpenAI-shaped error with code websocket_not_supported", body)
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests, want none", n)
	}
	resp = e.do(t, http.MethodGet, "/v1/responses", "")
	readAll(t, resp)
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("a plain GET: the upstream got %d requests, want it passed through", n)
	}
	e.srv.Close()
	if lines := linesWith(logs.String(), "request refused"); len(lines) != 0 {
		t.Errorf("refusal lines %q, want none", lines)
	}
}

// linesWith are the lines of log that hold s.
func linesWith(log, s string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}
