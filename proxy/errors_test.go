package proxy_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// openAIError is OpenAI's error body; decoding into it with unknown fields
// disallowed proves the shape.
type openAIError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    any     `json:"code"`
	} `json:"error"`
}

func decodeError(t *testing.T, body string) openAIError {
	t.Helper()
	var e openAIError
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("body is not OpenAI's error shape: %v\n%s", err, body)
	}
	if e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("error without message or type: %s", body)
	}
	return e
}

func withKeys(keys ...string) func(*config.Config) {
	return func(c *config.Config) { c.Auth.Keys = config.PlainKeys(keys...) }
}

// TestErrorShapes checks that each failure before the stream starts is an
// HTTP status with OpenAI's error body.
func TestErrorShapes(t *testing.T) {
	noDefault := func(c *config.Config) {
		c.Upstreams[0].Models = config.Models("gpt-*")
		second := c.Upstreams[0]
		second.Name = "other"
		second.Models = config.Models("claude-*")
		c.Upstreams = append(c.Upstreams, second)
	}
	tests := []struct {
		name     string
		rounds   []upstreamtest.Round
		mutate   func(*config.Config)
		method   string
		path     string
		body     string
		headers  []string
		status   int
		typ      string
		code     any
		contains string
	}{
		{name: "no key", mutate: withKeys("k1"), body: chatBody,
			status: 401, typ: "authentication_error", code: "invalid_api_key"},
		{name: "wrong key", mutate: withKeys("k1"), body: chatBody, headers: []string{"Authorization: Bearer nope"},
			status: 401, typ: "authentication_error", code: "invalid_api_key"},
		{name: "models needs key", mutate: withKeys("k1"), method: http.MethodGet, path: "/v1/models",
			status: 401, typ: "authentication_error", code: "invalid_api_key"},
		{name: "pass-through needs key", mutate: withKeys("k1"), path: "/v1/embeddings", body: `{}`,
			status: 401, typ: "authentication_error", code: "invalid_api_key"},
		{name: "body too large", mutate: func(c *config.Config) { c.MaxRequestBytes = 64 },
			body:   `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("x", 100) + `"}]}`,
			status: 413, typ: "invalid_request_error", code: "request_too_large"},
		{name: "pass-through body too large", mutate: func(c *config.Config) { c.MaxRequestBytes = 64 },
			path: "/v1/embeddings", body: `{"input":"` + strings.Repeat("x", 100) + `"}`,
			status: 413, typ: "invalid_request_error", code: "request_too_large"},
		{name: "not json", body: `{"model":`, status: 400, typ: "invalid_request_error", contains: "not valid JSON"},
		{name: "no model", body: `{"messages":[{"role":"user","content":"hi"}]}`, status: 400, typ: "invalid_request_error", contains: "model"},
		{name: "no messages", body: `{"model":"m"}`, status: 400, typ: "invalid_request_error", contains: "messages"},
		{name: "model routed nowhere", mutate: noDefault, body: chatBody,
			status: 404, typ: "invalid_request_error", code: "model_not_found"},
		{name: "upstream 404 relayed as it came",
			rounds: []upstreamtest.Round{{Status: 404, Body: `{"error":{"message":"model \"m\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`}},
			body:   chatBody, status: 404, typ: "api_error", contains: "try pulling it first"},
		{name: "upstream plain-text 404 wrapped",
			rounds: []upstreamtest.Round{{Status: 404, Body: "404 page not found", Header: http.Header{"Content-Type": {"text/plain"}}}},
			body:   chatBody, status: 404, typ: "not_found_error", contains: "404 page not found"},
		{name: "vllm-style error wrapped",
			rounds: []upstreamtest.Round{{Status: 400, Body: `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`}},
			body:   chatBody, status: 400, typ: "invalid_request_error", contains: "max_tokens is too large"},
		{name: "upstream 500 relayed",
			rounds: slices.Repeat([]upstreamtest.Round{{Status: 500, Body: `{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`}}, 3),
			body:   chatBody, status: 500, typ: "server_error", contains: "boom"},
		{name: "json instead of sse",
			rounds: []upstreamtest.Round{{ContentType: "application/json", Body: `{"id":"x","choices":[]}`}},
			body:   chatBody, status: 502, typ: "server_error", code: "upstream_error", contains: "instead of an event stream"},
		{name: "unknown route", path: "/nope", method: http.MethodGet, status: 404, typ: "invalid_request_error", code: "unknown_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rounds, tt.mutate)
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = "/v1/chat/completions"
			}
			resp := e.do(t, method, path, tt.body, tt.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			got := decodeError(t, body)
			if got.Error.Type != tt.typ {
				t.Errorf("type %q, want %q", got.Error.Type, tt.typ)
			}
			if tt.code != nil && !cmp.Equal(got.Error.Code, tt.code) {
				t.Errorf("code %v, want %v", got.Error.Code, tt.code)
			}
			if !strings.Contains(got.Error.Message, tt.contains) {
				t.Errorf("message %q does not mention %q", got.Error.Message, tt.contains)
			}
		})
	}
}

// TestUpstreamUnreachable is the 502 a client gets when nothing listens at
// the upstream's address: retried, then reported in OpenAI's shape.
func TestUpstreamUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	e := newEnv(t, nil, func(c *config.Config) { c.Upstreams[0].BaseURL = "http://" + addr + "/v1" })
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502: %s", resp.StatusCode, body)
	}
	got := decodeError(t, body)
	if got.Error.Code != "upstream_unavailable" || got.Error.Message != "upstream up: connection refused" {
		t.Errorf("error %+v, want code upstream_unavailable, \"upstream up: connection refused\"", got.Error)
	}
	// docs/http-api.md: the upstream's address stays in the log.
	if strings.Contains(body, addr) {
		t.Errorf("the client reads the upstream's address %s: %s", addr, body)
	}
}

// TestRelayedErrorKeepsRetryAfter makes sure a 429 the proxy gives up on
// still tells the client's SDK when to come back.
func TestRelayedErrorKeepsRetryAfter(t *testing.T) {
	// Retry-After above what the proxy waits itself: relayed at once.
	r429 := upstreamtest.Round{Status: 429, Header: http.Header{"Retry-After": {"120"}},
		Body: `{"error":{"message":"Rate limit reached","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`}
	e := newEnv(t, []upstreamtest.Round{r429}, nil)
	resp := e.do(t, http.MethodPost, "/v1/chat/completions", chatBody)
	body := readAll(t, resp)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "120" {
		t.Fatalf("status %d Retry-After %q, want 429 and 120: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests, want 1 (a two-minute Retry-After is the client's to wait)", n)
	}
}

// TestErrorBodiesReadAsWritten: error bodies keep < > & as they are, as
// OpenAI's and Anthropic's do. json.Marshal and echo's c.JSON would write
// the 401's "Bearer <key>" as "Bearer \u003ckey\u003e", which a person
// reading the body with curl cannot make sense of.
func TestErrorBodiesReadAsWritten(t *testing.T) {
	e := newEnv(t, nil, withKeys("k1"))
	for _, tt := range []struct {
		path, body, want string
	}{
		{"/v1/chat/completions", chatBody, `Bearer <key>`},
		{"/v1/embeddings", `{}`, `Bearer <key>`},
		{"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, `x-api-key: <key>`},
	} {
		body := readAll(t, e.do(t, http.MethodPost, tt.path, tt.body))
		if !strings.Contains(body, tt.want) || strings.Contains(body, `\u003c`) {
			t.Errorf("%s: body %s, want %s written as is", tt.path, body, tt.want)
		}
	}

	// echo's c.JSON writes the other routes' bodies, /readyz's reason too.
	up := upstreamtest.New()
	cfg := config.Default()
	u := config.DefaultUpstreamEntry()
	u.Name, u.BaseURL, u.Models = "up", up.URL, config.Models("*")
	cfg.Upstreams = []config.Upstream{u}
	r := serve(t, &cfg, up, proxy.Options{Ready: func() error { return errors.New("storage <closed> & gone") }})
	body := readAll(t, r.do(t, http.MethodGet, "/readyz", ""))
	if !strings.Contains(body, `"reason":"storage <closed> & gone"`) {
		t.Errorf("/readyz body %s, want the reason written as is", body)
	}
}
