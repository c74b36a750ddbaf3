package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestProbeUpstreamErrorExcerptKeepsRunes: an upstream error body the
// client is shown only the start of is cut between runes, on the OpenAI
// and the Anthropic routes, wherever the limit falls in a multi-byte
// rune. A rune cut in half reaches the client as U+FFFD.
func TestProbeUpstreamErrorExcerptKeepsRunes(t *testing.T) {
	for pad := range 3 {
		text := strings.Repeat("x", pad) + strings.Repeat("€", 200)
		for _, tc := range []struct {
			name, path, body, upstream string
		}{
			{"chat, a text body", "/v1/chat/completions", chatBody, text},
			{"messages, an error object without a message", "/v1/messages", messagesBody,
				`{"error":{"message":"","detail":"` + text + `"}}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, []upstreamtest.Round{{Status: http.StatusBadRequest, Body: tc.upstream}}, nil)
				resp := e.do(t, http.MethodPost, tc.path, tc.body)
				body := readAll(t, resp)
				if resp.StatusCode != http.StatusBadRequest {
					t.Fatalf("status %d, want 400: %s", resp.StatusCode, body)
				}
				var got struct {
					Error struct{ Message string }
				}
				if err := json.Unmarshal([]byte(body), &got); err != nil {
					t.Fatalf("not an error body: %v: %s", err, body)
				}
				m := got.Error.Message
				if !utf8.ValidString(m) || strings.ContainsRune(m, utf8.RuneError) {
					t.Errorf("pad %d: a rune was cut in half: %q", pad, m)
				}
				if !strings.HasSuffix(m, "€…") {
					t.Errorf("pad %d: not clipped after a whole rune: %q", pad, m)
				}
			})
		}
	}
}
