package config_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
)

// TestSecretNeverPrinted prints secrets every way a log line or an error
// message might, alone and inside the structs that hold them.
func TestSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	const key = "sk-very-secret"
	cfg := mustParse(t, `
auth:
  keys: ["${K}"]
upstreams:
  - name: u
    base_url: http://h/v1
    api_key: ${K}
tools:
  - name: t
    webhook:
      url: http://h/
      secret: ${K}
      headers: {Authorization: "${K}"}
`, map[string]string{"K": key})
	if got := cfg.Upstreams[0].APIKey.Value(); got != key {
		t.Fatalf("APIKey.Value() = %q, want the key", got)
	}

	var out strings.Builder
	for _, v := range []any{cfg.Auth.Keys[0], cfg.Upstreams[0], cfg.Tools[0].Webhook, *cfg.Tools[0].Webhook, cfg.Tools[0], cfg, *cfg} {
		for _, verb := range []string{"%v", "%s", "%+v", "%#v", "%q", "%d", "%x", "%12s"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
	}
	for _, h := range []slog.Handler{
		slog.NewTextHandler(&out, nil),
		slog.NewJSONHandler(&out, nil),
	} {
		slog.New(h).Info("loaded", "key", cfg.Auth.Keys[0], "api_key", cfg.Upstreams[0].APIKey)
	}
	if strings.Contains(out.String(), key) {
		t.Errorf("a secret was printed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "[redacted]") {
		t.Errorf("output has no [redacted] marker:\n%s", out.String())
	}

	var empty bytes.Buffer
	fmt.Fprintf(&empty, "%v", config.Secret(""))
	if empty.String() != "" {
		t.Errorf("empty secret prints %q, want nothing (nothing to hide)", empty.String())
	}
}
