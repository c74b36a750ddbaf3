package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
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
