package proxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/internal/tokencount"
	"github.com/toolstream/toolstream/proxy/messages"
)

// claudeCodeRequest is a recorded Claude Code request, as count_tokens
// gets one (Claude Code sends the same body without max_tokens).
func claudeCodeRequest(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile("messages/testdata/agents/claude_code_tool_search_2.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "request.json" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(f.Data, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"max_tokens", "stream", "metadata", "context_management", "output_config"} {
				delete(m, k)
			}
			b, _ := json.Marshal(m)
			return string(b)
		}
	}
	t.Fatal("no request.json")
	return ""
}

// TestCountTokens: POST /v1/messages/count_tokens answers a Claude Code
// request with {"input_tokens": N}: the upstream's /tokenize count where
// its server has one (vLLM's: the request's messages and tools, deferred
// tools not named left out), else the estimate of the same chat request;
// never the upstream's 404.
func TestCountTokens(t *testing.T) {
	body := claudeCodeRequest(t)
	mreq, err := messages.ToCount([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	estimate, err := tokencount.Estimate(mreq.Chat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		tokenize bool
		want     int
	}{
		{"vllm", true, 4242},
		{"no tokenize", false, estimate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, func(c *config.Config) { c.Auth.Keys = config.PlainKeys("sk-client") })
			var sent map[string]json.RawMessage
			if tc.tokenize {
				e.up.Handle("/tokenize", func(w http.ResponseWriter, r *http.Request) {
					_ = json.NewDecoder(r.Body).Decode(&sent)
					w.Write([]byte(`{"count":4242,"max_model_len":131072,"tokens":[]}`))
				})
			}
			for range 2 {
				resp := e.do(t, http.MethodPost, "/v1/messages/count_tokens?beta=true", body, "x-api-key: sk-client", "anthropic-version: 2023-06-01")
				got := readAll(t, resp)
				if resp.StatusCode != 200 || got != fmt.Sprintf(`{"input_tokens":%d}`+"\n", tc.want) {
					t.Fatalf("%d %s, want input_tokens %d", resp.StatusCode, got, tc.want)
				}
			}
			var paths []string
			for _, r := range e.up.Requests() {
				paths = append(paths, r.Method+" "+r.Path)
			}
			want := "POST /tokenize,POST /tokenize" // learned: one request a count
			if !tc.tokenize {
				want = "POST /tokenize" // none: not asked again
			}
			if strings.Join(paths, ",") != want {
				t.Errorf("upstream got %q, want %q", paths, want)
			}
			if tc.tokenize {
				if string(sent["model"]) != `"claude-opus-5-5"` || sent["messages"] == nil {
					t.Errorf("tokenize got %v", sent)
				}
				if s := string(sent["tools"]); !strings.Contains(s, `"WebFetch"`) || strings.Contains(s, "DeferredToolPlaceholder") {
					t.Errorf("tokenize got tools %.200s…: want WebFetch (named) and not the placeholder", s)
				}
			}
		})
	}
}

// TestCountTokensErrors: count_tokens' refusals are Anthropic's, as on
// /v1/messages.
func TestCountTokensErrors(t *testing.T) {
	e := newEnv(t, nil, func(c *config.Config) { c.Auth.Keys = config.PlainKeys("sk-client") })
	for _, tc := range []struct {
		name, body string
		headers    []string
		status     int
		typ        string
	}{
		{"no key", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil, 401, "authentication_error"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, []string{"x-api-key: sk-client"}, 400, "invalid_request_error"},
		{"no messages", `{"model":"m"}`, []string{"x-api-key: sk-client"}, 400, "invalid_request_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.do(t, http.MethodPost, "/v1/messages/count_tokens", tc.body, tc.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if got := decodeAnthropic(t, body); got.Error.Type != tc.typ {
				t.Errorf("error %+v, want %s", got.Error, tc.typ)
			}
		})
	}
	if len(e.up.Requests()) != 0 {
		t.Errorf("a refused count reached the upstream: %v", e.up.Requests())
	}
}
