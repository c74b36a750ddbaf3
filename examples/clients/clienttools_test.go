package clients_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestClientToolsTextMode runs client-tools.mjs: the openai SDK's
// runTools and the AI SDK, each with a tool of its own, against a model
// that only writes calls as text. Each SDK must run its function once and
// print the model's answer, which the model can only give once it read the
// result in its hermes frame.
func TestClientToolsTextMode(t *testing.T) {
	modules := nodeModules(t)
	model := upstreamtest.NewFunc(textToolModel)
	defer model.Close()
	cfg := config.Default()
	up := config.DefaultUpstreamEntry()
	up.Name, up.BaseURL, up.Models = "small", model.URL, config.Models("*")
	up.ToolMode, up.TextFormat = config.ToolModeText, config.TextFormatHermes
	cfg.Upstreams = []config.Upstream{up}
	p, err := proxy.New(&cfg, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer func() {
		srv.Close()
		p.Close()
	}()

	out := runNode(t, modules, srv.URL+"/v1", "client-tools.mjs")
	for _, w := range []string{"openai runTools:\n  get_location({}) run by the client\nYou are in Paris.",
		"AI SDK streamText:\n  get_location({}) run by the client\nYou are in Paris.",
		"── the client ran get_location 2 times"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q\n%s", w, out)
		}
	}
	if strings.Contains(out, "<tool_call>") {
		t.Errorf("markup reached the client:\n%s", out)
	}

	// Each SDK sent two requests: the question, then its result.
	reqs := model.Requests()
	var chats []upstreamtest.Request
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			chats = append(chats, r)
		}
	}
	if len(chats) != 4 {
		t.Fatalf("the model got %d chat requests, want 4", len(chats))
	}
	for i, r := range chats {
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if _, ok := body["tools"]; ok {
			t.Errorf("request %d carried tools to a text-mode model", i)
		}
		if i%2 == 1 {
			msgs := body["messages"].([]any)
			last := msgs[len(msgs)-1].(map[string]any)
			if c, _ := last["content"].(string); last["role"] != "user" || !strings.Contains(c, "<tool_response>\n{\"name\":\"get_location\",\"call_id\":\"") || !strings.Contains(c, `"content":{"city":"Paris"}}`) {
				t.Errorf("request %d ends with %v, want the result in a hermes frame", i, last)
			}
		}
	}
}

// textToolModel is a model without native tool calling: it calls
// get_location in hermes markup when the prompt teaches it, and answers
// from a <tool_response> frame.
func textToolModel(req upstreamtest.Request) upstreamtest.Round {
	var body struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req.Body, &body)
	all, last := "", ""
	for _, m := range body.Messages {
		last = toText(m.Content)
		all += last
	}
	text := "I can't tell."
	switch {
	case strings.Contains(last, "<tool_response>") && strings.Contains(last, "Paris"):
		text = "You are in Paris."
	case strings.Contains(all, "## get_location"):
		text = "<tool_call>\n{\"name\": \"get_location\", \"arguments\": {}}\n</tool_call>"
	}
	return upstreamtest.Round{Events: upstreamtest.Text("m1", "small-model", text)}
}

// toText is a message's content as text: the string, or its parts' text.
func toText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}
