package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop/textmode"
	"github.com/toolstream/toolstream/toolhost"
)

// TestBodySystemPrompt: text mode's prompt goes in the client's system
// message (its text, or a text part of its parts) or in a system message
// of its own first, and is written as encoding/json writes it — the bytes
// an upstream's prompt cache has seen from every earlier request.
func TestBodySystemPrompt(t *testing.T) {
	tools := []toolhost.Tool{{Name: "get_weather", Description: "Weather <now> & later.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	prompt := textmode.Prompt("hermes", tools)
	quoted, _ := json.Marshal(prompt)
	cases := []struct {
		name, messages string
		want           []any // the messages' contents, in order
	}{
		{"no system message", `[{"role":"user","content":"hi"}]`, []any{prompt, "hi"}},
		{"a system text", `[{"role":"system","content":"Be brief \u2028 <ok>."},{"role":"user","content":"hi"}]`, []any{"Be brief \u2028 <ok>.\n\n" + prompt, "hi"}},
		{"a developer text", `[{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"}]`, []any{"Be brief.\n\n" + prompt, "hi"}},
		{"system parts", `[{"role":"system","content":[{"type":"text","text":"Be brief."}]},{"role":"user","content":"hi"}]`,
			[]any{[]any{map[string]any{"type": "text", "text": "Be brief."}, map[string]any{"type": "text", "text": prompt}}, "hi"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := ParseRequest([]byte(`{"model":"m","stream":true,"messages":` + c.messages + `}`))
			if err != nil {
				t.Fatal(err)
			}
			tr := newTurnRun(&Runner{}, &Turn{Request: req, Format: "hermes", Tools: tools, Mode: config.ToolModeText}, newStream(&recordSink{}, "m", nil, nil))
			tr.base = req.Body
			body, err := tr.body(false)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Messages []struct {
					Role    string `json:"role"`
					Content any    `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if len(got.Messages) != len(c.want) {
				t.Fatalf("%d messages, want %d: %s", len(got.Messages), len(c.want), body)
			}
			for i, m := range got.Messages {
				g, _ := json.Marshal(m.Content)
				w, _ := json.Marshal(c.want[i])
				if string(g) != string(w) {
					t.Errorf("message %d: %s\nwant %s", i, g, w)
				}
			}
			if got.Messages[0].Role == "user" {
				t.Error("the prompt is not in a system message")
			}
			if !strings.Contains(string(body), string(quoted[1:len(quoted)-1])) {
				t.Errorf("the prompt is not written as encoding/json writes it:\n%s", body)
			}
		})
	}
}

// TestBodyUnavailable: a turn whose server tools are all down teaches, in
// either mode, which tools cannot run and why — the client's own tools,
// sent as they came, may still be there — and sends no "tools": [] of its
// own.
func TestBodyUnavailable(t *testing.T) {
	down := []Unavailable{
		{Names: []string{"notes_search", "notes_add"}, Reason: "MCP server notes is not connected"},
		{Reason: "MCP server files is still connecting"},
	}
	want := "# Tools\n\nTools that cannot be used right now:\n" +
		"- notes_search, notes_add: MCP server notes is not connected\n" +
		"- MCP server files is still connecting\n\n" +
		"Do not call them: answer without them, and tell the user if the request needs one."
	for _, mode := range []string{config.ToolModeText, config.ToolModeNative} {
		t.Run(mode, func(t *testing.T) {
			req, err := ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			tr := newTurnRun(&Runner{}, &Turn{Request: req, Format: "hermes", Unavailable: down, Mode: mode}, newStream(&recordSink{}, "m", nil, nil))
			if tr.plain {
				t.Fatal("a turn with only unavailable tools runs as a plain turn")
			}
			tr.native = mode == config.ToolModeNative
			tr.base = req.Body
			body, err := tr.body(false)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Tools json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[0].Content != want {
				t.Errorf("messages %+v\nwant a system message first:\n%s", got.Messages, want)
			}
			if got.Tools != nil {
				t.Errorf("tools sent: %s", got.Tools)
			}
		})
	}
}
