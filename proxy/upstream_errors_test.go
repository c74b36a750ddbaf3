package proxy_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestUpstreamConfigErrors checks the upstream answers that are the
// proxy's configuration problem: a refused key becomes 502
// upstream_auth_failed naming the upstream and where its key is set (so
// that client SDKs do not blame their own key), and a 404 from a base_url
// without /v1 says so, without the upstream's address.
func TestUpstreamConfigErrors(t *testing.T) {
	refused := func(status int) []upstreamtest.Round {
		return []upstreamtest.Round{{Status: status, Body: `{"error":{"message":"Incorrect API key provided: upstream-key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}}
	}
	fromFile := func(c *config.Config) { c.File = "toolstream.yaml" }
	tests := []struct {
		name     string
		rounds   []upstreamtest.Round
		mutate   func(*config.Config)
		body     string
		status   int
		code     string
		contains []string
	}{
		{name: "401 streaming", rounds: refused(401), mutate: fromFile, body: chatBody,
			status: 502, code: "upstream_auth_failed", contains: []string{"upstream up rejected toolstream's API key for it (401)", "check upstreams[0].api_key"}},
		{name: "403 non-streaming", rounds: refused(403), mutate: fromFile, body: strings.Replace(chatBody, `"stream":true`, `"stream":false`, 1),
			status: 502, code: "upstream_auth_failed", contains: []string{"(403)", "upstreams[0].api_key"}},
		{name: "401 without a key", rounds: refused(401), body: chatBody,
			mutate: func(c *config.Config) { c.File = "toolstream.yaml"; c.Upstreams[0].APIKey = "" },
			status: 502, code: "upstream_auth_failed", contains: []string{"without an API key", "set upstreams[0].api_key"}},
		{name: "401 on the built-in defaults", rounds: refused(401), body: chatBody,
			status: 502, code: "upstream_auth_failed", contains: []string{"check OPENAI_API_KEY"}},
		{name: "404 from a base_url without /v1",
			mutate: func(c *config.Config) { c.Upstreams[0].BaseURL = strings.TrimSuffix(c.Upstreams[0].BaseURL, "/v1") },
			body:   chatBody, status: 404, code: "upstream_not_found",
			contains: []string{"upstream up answered 404 for /chat/completions", "base_url has no /v1 path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rounds, tt.mutate)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", tt.body)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			got := decodeError(t, body)
			if got.Error.Code != tt.code {
				t.Errorf("code %v, want %s", got.Error.Code, tt.code)
			}
			for _, c := range tt.contains {
				if !strings.Contains(got.Error.Message, c) {
					t.Errorf("message %q does not say %q", got.Error.Message, c)
				}
			}
			// docs/http-api.md: no internal address, and nothing of the key.
			for _, leak := range []string{"127.0.0.1", "upstream-key"} {
				if strings.Contains(body, leak) {
					t.Errorf("the client reads %q: %s", leak, body)
				}
			}
		})
	}
}

// TestPassThroughErrors checks that pass-through routes follow the same
// rules: a refused key is 502 upstream_auth_failed, compressed or not, and
// another error is relayed with the config's secrets masked.
func TestPassThroughErrors(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"error":{"message":"bad key upstream-key"}}`))
	zw.Close()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		want    string
	}{
		{"401", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"bad key ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`))
		}, 502, "upstream_auth_failed"},
		{"401 gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(401)
			w.Write(gz.Bytes())
		}, 502, "upstream_auth_failed"},
		{"400 masked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			w.Write([]byte(`{"error":{"message":"input too long for key ` + r.Header.Get("Authorization") + `"}}`))
		}, 400, `"input too long for key Bearer [redacted]"`},
		{"500 gzip masked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(500)
			w.Write(gz.Bytes())
		}, 500, `"bad key [redacted]"`},
		{"500 brotli not relayed", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			w.WriteHeader(500)
			w.Write([]byte("\x1b\x00upstream-key"))
		}, 500, "upstream up answered 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			e.up.Handle("/v1/embeddings", tt.handler)
			resp := e.do(t, http.MethodPost, "/v1/embeddings", `{"input":"x"}`, "Accept-Encoding: gzip, br")
			body := readAll(t, resp)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("got %d %s, want %d with %s", resp.StatusCode, body, tt.status, tt.want)
			}
			if strings.Contains(body, "upstream-key") {
				t.Errorf("the key reached the client: %s", body)
			}
		})
	}
}
