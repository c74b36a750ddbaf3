package toolhost_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/toolhost"
)

// TestRuntimeWebhookURLsRefused: a runtime tool (registered over HTTP with
// an admin key, so untrusted) cannot point its webhook inward, hide
// credentials in its URL or use another scheme — refused when it is
// registered, whatever glob auth.webhook_allow holds. (Dial time is
// TestGuardDialRefuses; both stand, since DNS can answer differently
// later.)
func TestRuntimeWebhookURLsRefused(t *testing.T) {
	for _, tc := range []struct {
		url, want string
	}{
		{"http://127.0.0.1:8080/x", "127.0.0.1 is a loopback address"},
		{"http://[::1]/x", "::1 is a loopback address"},
		{"http://10.0.0.1/x", "10.0.0.1 is a private address"},
		{"http://192.168.1.1/x", "192.168.1.1 is a private address"},
		{"http://[fd12::1]/x", "fd12::1 is a private address"},
		{"http://100.64.0.1/x", "100.64.0.1 is a private address"},
		{"http://169.254.1.1/x", "169.254.1.1 is a link-local address"},
		{"http://[fe80::1]/x", "fe80::1 is a link-local address"},
		{"http://0.0.0.0/x", "0.0.0.0 is an unspecified address"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"},
		{"http://[::ffff:169.254.169.254]/x", "is a cloud metadata address"},
		{"http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata host"},
		{"http://localhost:9000/x", "localhost resolves to 127.0.0.1, which is a loopback address"},
		{"http://2130706433/x", `"2130706433" is neither a host name nor an IP address written in the standard form`},
		{"http://0x7f.1/x", `"0x7f.1" is neither a host name`},
		{"http://user:hunter2@hooks.example.com/x", "credentials in the URL (user:password@) are not allowed"},
		{"ftp://hooks.example.com/x", "must start with http:// or https://"},
		{"file:///etc/passwd", "must start with http:// or https://"},
		{"gopher://hooks.example.com/x", "must start with http:// or https://"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			h := newHost(t, nil, toolhost.Options{WebhookAllow: []string{"*"}})
			spec, _ := json.Marshal(map[string]any{"name": "hook", "webhook": map[string]string{"url": tc.url}})
			_, err := h.CreateRuntimeTool(t.Context(), spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("registration: %v, want it refused with %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the refusal repeats the credentials: %v", err)
			}
			if len(h.Names()) != 0 {
				t.Errorf("registered %v", h.Names())
			}
		})
	}
	// A literal entry is the operator naming the host: its address may be
	// internal, a metadata address still never.
	h := newHost(t, nil, toolhost.Options{WebhookAllow: []string{"localhost", "169.254.169.254"}})
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"a","webhook":{"url":"http://localhost:9/x"}}`)); err != nil {
		t.Errorf("a host named exactly was refused: %v", err)
	}
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"b","webhook":{"url":"http://169.254.169.254/x"}}`)); err == nil {
		t.Error("a metadata address named exactly was accepted")
	}
}
