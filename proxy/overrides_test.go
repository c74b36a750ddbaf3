package proxy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// offered describes what the upstream's first request offered: the server
// tools taught in the system prompt (text mode) or listed in "tools"
// (native mode).
func offered(t *testing.T, body []byte) (taught, native []string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		for _, name := range []string{"create_task", "list_tasks"} {
			if strings.Contains(req.Messages[0].Content, "## "+name+"\n") {
				taught = append(taught, name)
			}
		}
	}
	for _, tool := range req.Tools {
		native = append(native, tool.Function.Name)
	}
	return taught, native
}

// TestOverrides: every per-request override of docs/configuration.md, as a body
// field (the SDKs' extra_body) and as a header, and which one wins.
func TestOverrides(t *testing.T) {
	withCall := func() []upstreamtest.Round {
		return []upstreamtest.Round{textRound("c1", "Sure. ", call("list_tasks", `{}`)), textRound("c2", "Empty.")}
	}
	tests := []struct {
		name    string
		mode    string // the upstream's configured tool_mode
		ext     string // the body's toolstream object, if any
		headers []string
		// what the first upstream request offered
		taught, native string
		// whether the client sees toolstream events, a markdown card
		events, card bool
	}{
		{name: "config text", mode: "text", taught: "create_task list_tasks", events: true},
		{name: "body tool_mode native", mode: "text", ext: `{"tool_mode":"native"}`, native: "create_task list_tasks", events: true},
		{name: "header mode text", mode: "native", headers: []string{"X-Toolstream-Mode: text"}, taught: "create_task list_tasks", events: true},
		{name: "body tools subset", mode: "text", ext: `{"tools":["list_tasks"]}`, taught: "list_tasks", events: true},
		{name: "header tools subset", mode: "native", headers: []string{"X-Toolstream-Tools: list_tasks"}, native: "list_tasks", events: true},
		{name: "header display none", mode: "text", headers: []string{"X-Toolstream-Display: none"}, taught: "create_task list_tasks"},
		{name: "body display markdown", mode: "text", ext: `{"display":"markdown"}`, taught: "create_task list_tasks", card: true},
		{name: "body wins over header", mode: "text", ext: `{"display":"none"}`, headers: []string{"X-Toolstream-Display: events"}, taught: "create_task list_tasks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := strings.Replace(turnConfig(""), "tool_mode: text", "tool_mode: "+tt.mode, 1)
			e := newTurnEnv(t, cfg, withCall())
			ext := ""
			if tt.ext != "" {
				ext = `,"toolstream":` + tt.ext
			}
			body := readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"m","stream":true`+ext+`,"messages":[{"role":"user","content":"go"}]}`, tt.headers...))
			first := e.up.Requests()[0].Body
			if strings.Contains(string(first), `"toolstream"`) {
				t.Errorf("the toolstream object reached the upstream: %s", first)
			}
			taught, native := offered(t, first)
			if got := strings.Join(taught, " "); got != tt.taught {
				t.Errorf("taught %q, want %q", got, tt.taught)
			}
			if got := strings.Join(native, " "); got != tt.native {
				t.Errorf("native tools %q, want %q", got, tt.native)
			}
			if got := strings.Contains(body, `"toolstream":{"event"`); got != tt.events {
				t.Errorf("events shown: %v, want %v", got, tt.events)
			}
			if got := strings.Contains(body, `<details type=\"tool_calls\"`); got != tt.card {
				t.Errorf("card shown: %v, want %v", got, tt.card)
			}
		})
	}
}

// TestOverridesNoTools: an empty tools list, and tool_choice "none", turn
// server tools off: the request goes upstream as the client sent it, with
// only the usage ask added.
func TestOverridesNoTools(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		headers    []string
	}{
		{"tool_choice none", `{"model":"m","stream":true,"tool_choice":"none","messages":[{"role":"user","content":"go"}]}`, nil},
		{"empty header", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`, []string{"X-Toolstream-Tools: none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{textRound("c1", "Hi.")})
			readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", tc.body, tc.headers...))
			want := strings.TrimSuffix(tc.body, "}") + `,"stream_options":{"include_usage":true}}`
			if got := string(e.up.Requests()[0].Body); got != want {
				t.Errorf("upstream got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestOverrideErrors: a bad override is the client's mistake, a 400 naming
// the field.
func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name    string
		ext     string
		headers []string
		param   string
	}{
		{"unknown mode", `{"tool_mode":"fast"}`, nil, "toolstream.tool_mode"},
		{"unknown display", `{"display":"fancy"}`, nil, "toolstream.display"},
		{"tools not a list", `{"tools":"list_tasks"}`, nil, "toolstream.tools"},
		{"tool that does not exist", `{"tools":["rm_rf"]}`, nil, "toolstream.tools"},
		{"unknown field", `{"mode":"text"}`, nil, "toolstream.mode"},
		{"not an object", `5`, nil, "toolstream"},
		{"bad header", "", []string{"X-Toolstream-Mode: sideways"}, "toolstream.tool_mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTurnEnv(t, turnConfig(""), nil)
			ext := ""
			if tt.ext != "" {
				ext = `,"toolstream":` + tt.ext
			}
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"m","stream":true`+ext+`,"messages":[{"role":"user","content":"go"}]}`, tt.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != 400 {
				t.Fatalf("status %d, want 400: %s", resp.StatusCode, body)
			}
			got := decodeError(t, body)
			if got.Error.Param == nil || *got.Error.Param != tt.param {
				t.Errorf("param %v, want %s (%s)", got.Error.Param, tt.param, got.Error.Message)
			}
			if len(e.up.Requests()) != 0 {
				t.Error("a refused request reached the upstream")
			}
		})
	}
}
