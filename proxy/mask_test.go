package proxy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
)

// maskConfig holds one secret of each kind the masker takes from a config.
func maskConfig() *config.Config {
	cfg := config.Default()
	cfg.Auth.Keys = config.PlainKeys("client-key-AAAA1111", "sha256:"+strings.Repeat("ab", 32))
	cfg.Auth.Keys = append(cfg.Auth.Keys, config.ClientKey{Name: "kanban-app", Key: "named-key-BBBB2222", Tools: []string{}})
	cfg.Auth.AdminKeys = []config.Secret{"k9"}
	u := config.DefaultUpstreamEntry()
	u.Name = "openai"
	u.APIKey = "sk-test-1234567890abcdef"
	u.Headers = map[string]string{"api-key": "azure-key-55556666", "X-Title": "my app"}
	cfg.Upstreams = []config.Upstream{u}
	tool := config.DefaultToolEntry()
	tool.Name = "t"
	tool.Webhook = &config.Webhook{
		URL:     "http://127.0.0.1:1/t",
		Secret:  "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=",
		Headers: map[string]config.Secret{"Authorization": "Bearer hook-token-XYZ98765"},
	}
	cfg.Tools = []config.Tool{tool}
	return &cfg
}

// TestMaskingHandler logs text holding secrets whole, abbreviated and cut,
// and checks what the log shows.
func TestMaskingHandler(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"whole key", "Incorrect API key provided: Bearer sk-test-1234567890abcdef", "Incorrect API key provided: Bearer [redacted]"},
		{"OpenAI's abbreviation", "Incorrect API key provided: sk-test-****************cdef. You can find…", "Incorrect API key provided: [redacted]. You can find…"},
		{"prefix before dots", "key sk-test-12...", "key [redacted]"},
		{"suffix after dots", "key ...567890abcdef!", "key [redacted]!"},
		{"cut by an excerpt", `{"message":"Bearer sk-test-1234…`, `{"message":"Bearer [redacted]`},
		{"webhook header, token alone", "got hook-token-XYZ98765", "got [redacted]"},
		{"webhook header whole", "Authorization: Bearer hook-token-XYZ98765", "Authorization: [redacted]"},
		{"webhook secret", "secret whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ= leaked", "secret [redacted] leaked"},
		{"base64 tail after an elision", "whsec_c2V…XNlY3JldC1zZWNyZXQ=", "[redacted]"},
		{"upstream credential header", "api-key azure-key-55556666", "api-key [redacted]"},
		{"client key", "client-key-AAAA1111 said hi", "[redacted] said hi"},
		{"named client key", "named-key-BBBB2222 for kanban-app", "[redacted] for kanban-app"},
		{"short secret whole", "admin k9 here", "admin [redacted] here"},
		{"short secret not abbreviated", "k*** and k9…", "k*** and [redacted]…"},
		{"plain header values are not secrets", "X-Title: my app", "X-Title: my app"},
		{"elision next to other words", "wait... sk-other-***", "wait... sk-other-***"},
		{"three-character piece is too short", "sk-***", "sk-***"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			var got struct{ V string }
			log := slog.New(proxy.MaskingHandler(slog.NewJSONHandler(&buf, nil), maskConfig()))
			log.Info("m", "v", tt.in)
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.V != tt.want {
				t.Errorf("logged %q\nwant   %q", got.V, tt.want)
			}
		})
	}
}

// TestMaskingHandlerEverywhere puts a secret in each place a record can
// carry one.
func TestMaskingHandlerEverywhere(t *testing.T) {
	const key = "sk-test-1234567890abcdef"
	type holder struct {
		Key config.Secret // fmt redacts it; encoding/json does not
		Raw string
	}
	for _, format := range []string{"json", "text"} {
		var buf bytes.Buffer
		var next slog.Handler = slog.NewJSONHandler(&buf, nil)
		if format == "text" {
			next = slog.NewTextHandler(&buf, nil)
		}
		h := proxy.MaskingHandler(next, maskConfig())
		if proxy.MaskingHandler(h, maskConfig()) != h {
			t.Error("wrapping a masking handler again should return it as it is")
		}
		log := slog.New(h).With("with", "w "+key).WithGroup("g")
		log.Info("message "+key,
			"err", errors.New("upstream said "+key),
			slog.Group("grp", "inner", key),
			"any", holder{Key: key},
			"fmt", holder{Raw: key},
			"bytes", []byte(key),
		)
		if strings.Contains(buf.String(), key) || strings.Contains(buf.String(), "567890abcdef") {
			t.Errorf("%s: the key reached the log:\n%s", format, buf.String())
		}
		if n := strings.Count(buf.String(), "[redacted]"); n < 7 {
			t.Errorf("%s: %d redactions, want one per attribute:\n%s", format, n, buf.String())
		}
	}
}
