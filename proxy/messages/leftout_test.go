package messages_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/messages"
)

// chatTools are the names of the tools a chat body offers, in order.
func chatTools(t *testing.T, chat []byte) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(chat, &body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// TestLeftOut covers what ToChat leaves out rather than refuses: tool
// types and blocks a stock agent sends that this proxy cannot honour.
// Each is listed once in LeftOut (which the route logs), the rest of the
// request still runs.
func TestLeftOut(t *testing.T) {
	t.Parallel()
	const ok = `"model":"m","max_tokens":10`
	const hi = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct {
		name, body string
		leftOut    []string
		tools      []string
		messages   int
	}{
		{"web search tool: a hosted offer", `{` + ok + `,` + hi + `,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3}]}`,
			nil, nil, 1},
		{"web fetch tool: a hosted offer", `{` + ok + `,` + hi + `,"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`,
			nil, nil, 1},
		{"bash beside a client tool", `{` + ok + `,` + hi + `,"tools":[{"name":"f"},{"type":"bash_20250124","name":"bash"}]}`,
			[]string{"tool bash_20250124"}, []string{"f"}, 1},
		{"text editor, computer, code execution, memory", `{` + ok + `,` + hi + `,"tools":[{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"type":"computer_20250124","name":"computer","display_width_px":1024},{"type":"code_execution_20250825","name":"code_execution"},{"type":"memory_20250818","name":"memory"}]}`,
			[]string{"tool text_editor_20250728", "tool computer_20250124", "tool code_execution_20250825", "tool memory_20250818"}, nil, 1},
		{"a type newer than the proxy, twice", `{` + ok + `,` + hi + `,"tools":[{"type":"hologram_20300101","name":"a"},{"type":"hologram_20300101","name":"b"}]}`,
			[]string{"tool hologram_20300101"}, nil, 1},
		{"document block", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"document","source":{}},{"type":"text","text":"sum it up"}]}]}`,
			[]string{"block document"}, nil, 1},
		{"server_tool_use and its result", `{` + ok + `,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"found"}]},{"role":"user","content":"b"}]}`,
			nil, nil, 3},
		{"image file source", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}},{"type":"text","text":"what is it"}]}]}`,
			[]string{"image source file"}, nil, 1},
		{"tool_result document", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document"},{"type":"text","text":"x"}]}]}]}`,
			[]string{"tool_result block document"}, nil, 1},
		{"nothing left out", `{` + ok + `,` + hi + `,"tools":[{"name":"f","type":"custom"}]}`,
			nil, []string{"f"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := messages.ToChat([]byte(tc.body))
			if err != nil {
				t.Fatalf("ToChat refused: %v", err)
			}
			if diff := cmp.Diff(tc.leftOut, r.LeftOut()); diff != "" {
				t.Errorf("LeftOut (-want +got):\n%s", diff)
			}
			if got := chatTools(t, r.Chat); !slices.Equal(got, tc.tools) {
				t.Errorf("chat tools %q, want %q", got, tc.tools)
			}
			var body struct{ Messages []json.RawMessage }
			if err := json.Unmarshal(r.Chat, &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Messages) != tc.messages {
				t.Errorf("%d chat messages, want %d: %s", len(body.Messages), tc.messages, r.Chat)
			}
		})
	}
}

// TestDeferred: a tool with defer_loading — Claude Code's
// DeferredToolPlaceholder included — is never offered to the upstream
// until a tool_reference in the request's history names it (in a
// tool_result, Claude Code's ToolSearch, or in a tool_search_tool_result,
// Anthropic's), and is offered from then on. With Anthropic's tool search
// tool the unnamed ones are in the chat body, for the turn to hide until
// a search finds them.
func TestDeferred(t *testing.T) {
	t.Parallel()
	const tools = `"tools":[{"name":"Bash"},{"name":"ToolSearch"},` +
		`{"name":"DeferredToolPlaceholder","defer_loading":true},` +
		`{"name":"WebFetch","defer_loading":true},{"name":"Cron","defer_loading":true}`
	const head = `{"model":"m","max_tokens":10,`
	for _, tc := range []struct {
		name, body string
		offered    []string
		deferred   []string
		search     string
	}{
		{"none named", head + `"messages":[{"role":"user","content":"hi"}],` + tools + `]}`,
			[]string{"Bash", "ToolSearch"}, []string{"DeferredToolPlaceholder", "WebFetch", "Cron"}, ""},
		{"named by a ToolSearch result", head + `"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_0","name":"ToolSearch","input":{"query":"select:WebFetch"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":[{"type":"tool_reference","tool_name":"WebFetch"}]},{"type":"text","text":"Tool loaded."}]}],` + tools + `]}`,
			[]string{"Bash", "ToolSearch", "WebFetch"}, []string{"DeferredToolPlaceholder", "Cron"}, ""},
		{"named by a tool_search_tool_result", head + `"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"cron"}},
				{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"Cron"}]}},
				{"type":"tool_use","id":"toolu_2","name":"Cron","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}]}],` + tools + `,{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}]}`,
			[]string{"Bash", "ToolSearch", "Cron", "DeferredToolPlaceholder", "WebFetch"}, []string{"DeferredToolPlaceholder", "WebFetch"}, "tool_search_tool_regex"},
		{"a search tool, none named", head + `"messages":[{"role":"user","content":"hi"}],` + tools + `,{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}]}`,
			[]string{"Bash", "ToolSearch", "DeferredToolPlaceholder", "WebFetch", "Cron"}, []string{"DeferredToolPlaceholder", "WebFetch", "Cron"}, "tool_search_tool_bm25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := messages.ToChat([]byte(tc.body))
			if err != nil {
				t.Fatalf("ToChat refused: %v", err)
			}
			if got := chatTools(t, r.Chat); !slices.Equal(got, tc.offered) {
				t.Errorf("chat tools %q, want %q", got, tc.offered)
			}
			if !slices.Equal(r.Deferred, tc.deferred) {
				t.Errorf("Deferred %q, want %q", r.Deferred, tc.deferred)
			}
			if got := ""; r.Search != nil && r.Search.Name != tc.search || r.Search == nil && tc.search != got {
				t.Errorf("Search %+v, want %q", r.Search, tc.search)
			}
			if len(r.LeftOut()) > 0 {
				t.Errorf("LeftOut %q, want none", r.LeftOut())
			}
		})
	}
}
