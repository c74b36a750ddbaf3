package messages_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/messages"
)

// FuzzToChat feeds the Messages reader arbitrary bodies, seeded with the
// golden requests: it never panics, a refusal is an *messages.Error with
// a message, and an accepted body is JSON the chat turn runner takes once
// its restored blocks are in place.
func FuzzToChat(f *testing.F) {
	for _, body := range encodertest.GoldenRequests(f) {
		f.Add(body)
	}
	for _, s := range []string{
		`{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"mcp_tool_use","id":"x"}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"bash_20250124","name":"bash"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"s"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"mcp_servers":[{"type":"url","url":"http://127.0.0.1/mcp","name":"s","authorization_token":"t"},{"type":"url","url":"u","name":"o","tool_configuration":{"enabled":true,"allowed_tools":["q"]}}],"tools":[{"type":"mcp_toolset","mcp_server_name":"s","default_config":{"enabled":false},"configs":{"q":{"enabled":true}}}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"mcp_toolset","mcp_server_name":"nobody"}]}`,
		`{}`, `[]`, `{`, "\x00", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"\ud800"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_reference","tool_name":"F"}]}]}],"tools":[{"name":"F","defer_loading":true}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"s","input":{}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"F"}]}},{"type":"text","text":"b"}]}],"tools":[{"type":"tool_search_tool_bm25_20251119","name":"s"},{"name":"F","defer_loading":true},{"name":"G","defer_loading":true}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"toolstream1.x"},{"type":"redacted_thinking","data":"d"},{"type":"text","text":"b"}]},{"role":"user","content":"c"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := messages.ToChat(body)
		if err != nil {
			var e *messages.Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Fatalf("error %T %v, want a *messages.Error with a message", err, err)
			}
			return
		}
		if !json.Valid(r.Chat) {
			t.Fatalf("chat body is not JSON: %q", r.Chat)
		}
		if r.Model == "" || r.MaxTokens < 1 {
			t.Fatalf("accepted a request without a model or max_tokens: %q", body)
		}
		for _, srv := range r.Servers {
			if srv.Label == "" || srv.URL == "" {
				t.Fatalf("accepted an MCP server without a name or url: %q", body)
			}
		}
		if err := r.Restore(func([]json.RawMessage, messages.Restored) ([]json.RawMessage, error) { return nil, nil }); err != nil {
			t.Fatalf("Restore: %v", err)
		}
		if !hasMessages(t, r.Chat) {
			// Only restored blocks, restored to nothing: the caller's
			// store supplies the messages, which this test has not got.
			if len(r.Restored) == 0 {
				t.Fatalf("accepted a request with nothing to answer: %q", body)
			}
			return
		}
		if _, err := loop.ParseRequest(r.Chat); err != nil {
			t.Fatalf("loop.ParseRequest refused %q (from %q): %v", r.Chat, body, err)
		}
	})
}

// FuzzToCount feeds the count_tokens reader arbitrary bodies: it never
// panics, a refusal is an *messages.Error, and an accepted body is JSON
// with messages and no deferred tool a search would hide.
func FuzzToCount(f *testing.F) {
	for _, body := range encodertest.GoldenRequests(f) {
		f.Add(body)
	}
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"tool_search_tool_regex_20251119","name":"s"},{"name":"F","defer_loading":true}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := messages.ToCount(body)
		if err != nil {
			var e *messages.Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Fatalf("error %T %v, want a *messages.Error with a message", err, err)
			}
			return
		}
		if !json.Valid(r.Chat) {
			t.Fatalf("chat body is not JSON: %q", r.Chat)
		}
		var chat struct {
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(r.Chat, &chat)
		for _, tl := range chat.Tools {
			for _, d := range r.Deferred {
				if tl.Function.Name == d {
					t.Fatalf("deferred tool %q counted: %s", d, r.Chat)
				}
			}
		}
	})
}
