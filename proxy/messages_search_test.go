package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestMessagesToolSearchText: Anthropic's bm25 tool search in text mode.
// The first round teaches the client's tool and the search, no deferred
// tool; the search streams its blocks; the second round teaches the tool
// found and still not the other deferred one, and the model's call of
// the found tool ends the answer as the client's tool_use.
func TestMessagesToolSearchText(t *testing.T) {
	yaml := `loop:
  keepalive: 0s
  display: events
` + textUpstream
	e := newTurnEnv(t, yaml, []upstreamtest.Round{
		textRound("c1", call("tool_search_tool_bm25", `{"query": "send an email"}`)),
		textRound("c2", call("send_email", `{"to": "ana@example.com"}`)),
	})
	const body = `{"model":"m","max_tokens":500,"stream":true,"messages":[{"role":"user","content":"Mail Ana."}],"tools":[` +
		`{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"},` +
		`{"name":"get_location","description":"The user's city.","input_schema":{"type":"object","properties":{}}},` +
		`{"name":"get_weather","description":"Current weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},"defer_loading":true},` +
		`{"name":"send_email","description":"Send an email message.","input_schema":{"type":"object","properties":{"to":{"type":"string"}}},"defer_loading":true}]}`
	resp := e.do(t, http.MethodPost, "/v1/messages", body)
	got := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	for _, want := range []string{
		`"content_block":{"type":"server_tool_use","id":"srvtoolu_`,
		`"name":"tool_search_tool_bm25","input":{"query":"send an email"}}`,
		`"content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"send_email"}]}`,
		`"content_block":{"type":"tool_use","id":"toolu_`,
		`"stop_reason":"tool_use"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the answer lacks %s:\n%s", want, got)
		}
	}
	reqs := e.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests, want 2", len(reqs))
	}
	first := ""
	for i, tc := range []struct{ taught, not []string }{
		{[]string{"get_location", "tool_search_tool_bm25"}, []string{"send_email", "get_weather"}},
		{[]string{"get_location", "tool_search_tool_bm25", "send_email"}, []string{"get_weather"}},
	} {
		var req struct {
			Messages []struct{ Role, Content string }
			Tools    json.RawMessage
		}
		if err := json.Unmarshal(reqs[i].Body, &req); err != nil {
			t.Fatal(err)
		}
		if req.Tools != nil {
			t.Errorf("round %d sent tools in text mode: %s", i+1, req.Tools)
		}
		// A tool found is taught after the results that found it: the
		// prompt does not change within a turn.
		sys := req.Messages[0].Content
		if i > 0 && sys != first {
			t.Errorf("round %d's prompt changed:\n%s", i+1, sys)
		}
		first = sys
		all := string(reqs[i].Body)
		if i > 0 && !strings.Contains(all, `# Tools found`) {
			t.Errorf("round %d teaches no tool found after the results", i+1)
		}
		for _, n := range tc.taught {
			if !strings.Contains(all, n) {
				t.Errorf("round %d does not teach %s", i+1, n)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(sys, n) {
				t.Errorf("round %d teaches %s before a search found it", i+1, n)
			}
		}
	}
}

// TestMessagesToolSearchNextRequest: the answer of a search, sent back
// with the found tool's result, goes on: the tool stays offered (the
// tool_search_tool_result's reference names it), the deferred tool never
// found is still not, and history stitching puts the search's round back,
// so every call the upstream reads has its result.
func TestMessagesToolSearchNextRequest(t *testing.T) {
	native := `loop:
  keepalive: 0s
  display: events
upstreams:
  - name: up
    base_url: ${UPSTREAM}
    models: ["*"]
    tool_mode: native
`
	e := newTurnEnvStore(t, native, []upstreamtest.Round{
		nativeCall("c1", "call_s1", "tool_search_tool_regex", `{"query":"weather"}`),
		nativeCall("c2", "call_w", "get_weather", `{"city":"Paris"}`),
		textRound("c3", "18°C in Paris."),
	}, memStore(t))
	const tools = `"tools":[{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},` +
		`{"name":"get_location","input_schema":{"type":"object"}},` +
		`{"name":"get_weather","description":"Current weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},"defer_loading":true},` +
		`{"name":"send_email","description":"Send an email.","input_schema":{"type":"object"},"defer_loading":true}]`
	first := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Weather in Paris?"}],` + tools + `}`
	answer := streamedMessage(t, readAll(t, e.do(t, http.MethodPost, "/v1/messages", first)))
	if len(answer) != 3 || answer[0]["type"] != "server_tool_use" || answer[1]["type"] != "tool_search_tool_result" || answer[2]["type"] != "tool_use" {
		t.Fatalf("answer %v", answer)
	}
	next := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":` + mustMarshal(t, answer) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_call_w","content":"18°C"}]}],` + tools + `}`
	resp := e.do(t, http.MethodPost, "/v1/messages", next)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, "18°C in Paris.") {
		t.Fatalf("second request: %d %s", resp.StatusCode, body)
	}
	reqs := e.up.Requests()
	if got := strings.Join(toolNames(t, reqs[2].Body), " "); got != "get_location get_weather tool_search_tool_regex" {
		t.Errorf("the next request offered %q", got)
	}
	msgs := upstreamMessages(t, e, 2)
	checkToolHistory(t, msgs)
	want := []string{"user", "assistant", "tool", "assistant", "tool"}
	if got := roles(msgs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("roles %v, want %v (the search's round put back): %v", got, want, msgs)
	}
}
