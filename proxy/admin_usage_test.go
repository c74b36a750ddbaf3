package proxy_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store"
)

// keyUsageRound is a round that ends with a usage chunk.
func keyUsageRound(id string, prompt, completion int, parts ...string) upstreamtest.Round {
	r := textRound(id, parts...)
	r.Events = append(r.Events, upstreamtest.Usage(id, "m", prompt, completion))
	return r
}

// TestUsagePerKeyAndDay: every route's turn counts in its key's usage of
// the day (one request, the tokens of all its rounds, its server tool
// calls), as does a tool call through /mcp; GET /admin/usage lists it by
// key and day.
func TestUsagePerKeyAndDay(t *testing.T) {
	e, _ := newKeysEnv(t, mcpConfig(), nil, []upstreamtest.Round{
		keyUsageRound("c1", 10, 2, "Adding. ", call("create_task", `{"title":"Gym"}`)), keyUsageRound("c2", 20, 3, "Added."),
		keyUsageRound("c3", 5, 1, "Hi."),
		keyUsageRound("c4", 7, 1, "Hi."),
		keyUsageRound("c5", 100, 50, "Plain."),
	})
	auth := "Authorization: Bearer " + appKey
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest, auth))
	readAll(t, e.do(t, http.MethodPost, "/v1/responses", `{"model":"m","input":"hi"}`, auth))
	readAll(t, e.do(t, http.MethodPost, "/v1/messages", `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, auth))
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer "+plainKey))
	cs := mcpConnect(t, e, appKey, "", nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"title": "milk"}}); err != nil {
		t.Fatal(err)
	}

	day := store.UsageDay(time.Now())
	plain := "key_" + sha256hex(plainKey)[:12]
	for _, tc := range []struct {
		query string
		want  []store.Usage
	}{
		{"", []store.Usage{
			{Key: "app", Day: day, Requests: 4, PromptTokens: 42, CompletionTokens: 7, ToolCalls: 2},
			{Key: plain, Day: day, Requests: 1, PromptTokens: 100, CompletionTokens: 50},
		}},
		{"?key=app&from=" + day + "&to=" + day, []store.Usage{{Key: "app", Day: day, Requests: 4, PromptTokens: 42, CompletionTokens: 7, ToolCalls: 2}}},
		{"?key=nobody", []store.Usage{}},
		{"?to=2000-01-01", []store.Usage{}},
	} {
		var got struct {
			Object string
			Data   []store.Usage
		}
		code := e.decodeDo(t, http.MethodGet, "/admin/usage"+tc.query, "", keysAdmin, &got)
		if code != http.StatusOK || got.Object != "list" {
			t.Fatalf("%s: %d %+v", tc.query, code, got)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%s: usage (-want +got):\n%s", tc.query, diff)
		}
	}
}

// TestUsageRefusals: a date that is not YYYY-MM-DD, a range backwards, or
// a key name no key can have is the admin's mistake (400, naming the
// parameter); a client key may not read usage.
func TestUsageRefusals(t *testing.T) {
	e, _ := newKeysEnv(t, scopedConfig(""), nil, nil)
	for _, tc := range []struct{ query, param string }{
		{"?from=2026-1-1", "from"},
		{"?to=yesterday", "to"},
		{"?from=2026-02-30", "from"},
		{"?from=2026-03-02&to=2026-03-01", "from"},
		{"?key=a/b", "key"},
	} {
		code, out := e.jsonDo(t, http.MethodGet, "/admin/usage"+tc.query, "", keysAdmin)
		errObj, _ := out["error"].(map[string]any)
		if code != http.StatusBadRequest || errObj["param"] != tc.param {
			t.Errorf("%s: %d %v, want 400 naming %s", tc.query, code, out, tc.param)
		}
	}
	if code, _ := e.jsonDo(t, http.MethodGet, "/admin/usage", "", appKey); code != http.StatusForbidden {
		t.Errorf("a client key on /admin/usage: %d, want 403", code)
	}
}

// decodeDo sends a request with key and decodes its JSON answer into v.
func (e *turnEnv) decodeDo(t *testing.T, method, path, body, key string, v any) int {
	t.Helper()
	resp := e.do(t, method, path, body, "Authorization: Bearer "+key)
	raw := readAll(t, resp)
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("%s %s: %d %q", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode
}
